import Foundation
import Testing
@testable import ToolCallKit

@Suite("Response templates in model folders")
struct ResponseTemplateInferenceTests {
    static func infer(_ folder: String) throws -> FormatInference {
        try ToolCallFormat.infer(modelDirectory: FixturePaths.root.appendingPathComponent("models/\(folder)").path)
    }

    @Test(arguments: ["own-response-template-only", "own-response-template-harmony"])
    func templateWhenNoBuiltInFormat(_ folder: String) throws {
        let r = try Self.infer(folder)
        #expect(r.format?.rawValue == "response_template", "\(r.evidence)")
        #expect(r.evidence.contains { $0.contains("response_template (fields") && $0.contains("→ response_template") })
        #expect(r.jsonLine.hasPrefix(#"{"format":"response_template""#))
    }

    @Test func builtInWins() throws {
        let r = try Self.infer("own-response-template-and-hermes")
        #expect(r.format == .json)
        #expect(r.evidence.contains { $0.contains("response_template") && $0.contains("names the built-in json, which wins") })
    }

    @Test func invalidTemplateIsIgnored() throws {
        let r = try Self.infer("own-response-template-invalid")
        #expect(r.format == nil)
        #expect(r.evidence.contains { $0.contains("response_template is not valid (response_template must define 'start_anchor'") })
    }

    @Test func inferredFormatDecodes() throws {
        let r = try Self.infer("own-response-template-harmony")
        let format = try #require(r.format)
        var d = ToolCallDecoder(format: format)
        let input = Array("<|channel|>analysis<|message|>Think.<|end|><|channel|>final<|message|>Hi.<|end|>".utf8)
        let view = EventView(d.feed(input) + d.finish())
        #expect(view.reasoning == "Think.")
        #expect(view.text == "Hi.")
    }
}
