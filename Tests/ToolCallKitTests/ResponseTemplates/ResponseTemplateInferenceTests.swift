import Foundation
import Testing
@testable import ToolCallKit

@Suite("Response templates in model folders")
struct ResponseTemplateInferenceTests {
    static func infer(_ folder: String) throws -> FormatInference {
        try ToolCallFormat.infer(modelDirectory: FixturePaths.root.appendingPathComponent("models/\(folder)").path)
    }

    @Test(arguments: ["own-response-template-only"])
    func templateWhenNoBuiltInFormat(_ folder: String) throws {
        let r = try Self.infer(folder)
        #expect(r.format?.rawValue == "response_template", "\(r.evidence)")
        #expect(r.evidence.contains { $0.contains("response_template (fields") && $0.contains("→ response_template") })
        #expect(r.jsonLine.hasPrefix(#"{"format":"response_template""#))
    }

    @Test(arguments: [("own-response-template-and-hermes", ToolCallFormat.json), ("own-response-template-harmony", .harmony)])
    func builtInWins(_ folder: String, _ format: ToolCallFormat) throws {
        let r = try Self.infer(folder)
        #expect(r.format == format)
        #expect(r.evidence.contains { $0.contains("response_template") && $0.contains("names the built-in \(format.rawValue), which wins") })
    }

    @Test func invalidTemplateIsIgnored() throws {
        let r = try Self.infer("own-response-template-invalid")
        #expect(r.format == nil)
        #expect(r.evidence.contains { $0.contains("response_template is not valid (response_template must define 'start_anchor'") })
    }

    @Test func inferredFormatDecodes() throws {
        let r = try Self.infer("own-response-template-only")
        let format = try #require(r.format)
        #expect(format.rawValue == "response_template")
        var options = ToolCallDecoder.Options()
        options.prompt = Array("<|im_start|>assistant\n".utf8)
        var d = ToolCallDecoder(format: format, options: options)
        let input = Array("<think>Think.</think>Hi.".utf8)
        let view = EventView(d.feed(input) + d.finish())
        #expect(view.reasoning == "Think.")
        #expect(view.text == "Hi.")
    }
}
