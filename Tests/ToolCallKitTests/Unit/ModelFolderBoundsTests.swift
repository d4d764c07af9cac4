import Foundation
import Testing
@testable import ToolCallKit

/// A temporary model folder, removed when the test ends.
private final class TempFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("toolcall-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    var path: String { url.path }
    func write(_ name: String, _ text: String) throws { try Data(text.utf8).write(to: url.appendingPathComponent(name)) }
    func file(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// A model folder is input a user controls: `infer` reads only regular files of a bounded
/// size, and its template signatures cannot give a wrong answer on a hostile template.
@Suite("Format inference: bounded reading and signatures without limits")
struct ModelFolderBoundsTests {
    @Test("a FIFO named config.json is skipped, not waited on")
    func fifo() throws {
        let dir = try TempFolder()
        try dir.write("chat_template.jinja", "<tool_call>{{ x }}</tool_call>")
        let made = unsafe mkfifo(dir.file("config.json"), 0o600)
        #expect(made == 0)
        let result = try ToolCallFormat.infer(modelDirectory: dir.path)
        #expect(result.format == .json)
        #expect(result.evidence.contains("config.json: skipped (not a regular file (a FIFO))"), "\(result.evidence)")
    }

    @Test("a device under a file's name is skipped, not read forever")
    func device() throws {
        let dir = try TempFolder()
        try FileManager.default.createSymbolicLink(atPath: dir.file("chat_template.jinja"), withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(atPath: dir.file("config.json"), withDestinationPath: "/dev/zero")
        let result = try ToolCallFormat.infer(modelDirectory: dir.path)
        #expect(result.format == nil)
        #expect(result.evidence.contains("chat_template.jinja: skipped (not a regular file (a character device))"), "\(result.evidence)")
        #expect(result.evidence.contains("config.json: skipped (not a regular file (a character device))"))
    }

    @Test("a file larger than its cap is skipped, and the evidence gives both sizes")
    func oversized() throws {
        let dir = try TempFolder()
        let limit = try #require(ModelFolderSignals.sizeLimits["config.json"])
        let padding = String(repeating: " ", count: limit)
        try dir.write("config.json", #"{"model_type": "qwen3"}"# + padding)
        let result = try ToolCallFormat.infer(modelDirectory: dir.path)
        #expect(result.format == nil)
        #expect(result.evidence.contains("config.json: skipped (\(limit + 23) bytes, more than the \(limit) read for it)"), "\(result.evidence)")
        // At the cap exactly, the file is read.
        try dir.write("config.json", #"{"model_type": "qwen3"}"# + padding.dropFirst(23))
        #expect(try ToolCallFormat.infer(modelDirectory: dir.path).format == .json)
    }

    /// A template and the format it shows, named for the test list (the texts are large).
    struct TemplateRow: CustomTestStringConvertible, Sendable {
        var name: String
        var text: String
        var format: ToolCallFormat?
        var testDescription: String { name }
    }

    static let templates: [TemplateRow] = {
        // Under the 512 KiB read for chat_template.jinja.
        let big = String(repeating: "x", count: 400_000)
        return [
            // A backtracking regex ran out of stack on 1,500 spaces inside `<tool_call> … <function=`.
            TemplateRow(name: "1,500 spaces between <tool_call> and <function=",
                        text: "<tool_call>" + String(repeating: " ", count: 1_500) + "<function=x>\n<parameter=a>", format: .xmlFunction),
            TemplateRow(name: "50,000 escaped newlines between them",
                        text: "<tool_call>" + String(repeating: "\\n ", count: 50_000) + "<function=x>", format: .xmlFunction),
            TemplateRow(name: "400 KB between <function=NAME> and <parameter=",
                        text: "<function=get>" + big + "<parameter=a>", format: .xmlFunction),
            TemplateRow(name: "400 KB inside the <function= tag",
                        text: "<function=get" + big + "> <parameter=a>", format: .xmlFunction),
            TemplateRow(name: "400 KB between <tool_call> and <function=",
                        text: "<tool_call>" + big + "<function=get>", format: .json),
            TemplateRow(name: "30,000 openers", text: String(repeating: "<tool_call> ", count: 30_000), format: .json),
            TemplateRow(name: "50,000 unclosed <function= tags", text: String(repeating: "<function=", count: 50_000), format: nil),
        ]
    }()

    @Test("a template signature is found however much text surrounds it", arguments: templates)
    func signatures(_ row: TemplateRow) throws {
        let dir = try TempFolder()
        try dir.write("chat_template.jinja", row.text)
        let result = try ToolCallFormat.infer(modelDirectory: dir.path)
        #expect(result.format == row.format, "\(result.evidence)")
    }

    @Test("a megabyte after a signature in tokenizer_config.json's template: still found (a regex gave up here)")
    func megabyteAfterSignature() throws {
        let dir = try TempFolder()
        let template = "<function=x><parameter=a>" + String(repeating: "y", count: 1 << 20)
        let config = JSONValue.object([(key: "chat_template", value: .string(template))])
        try dir.write("tokenizer_config.json", config.jsonText)
        let result = try ToolCallFormat.infer(modelDirectory: dir.path)
        #expect(result.format == .xmlFunction, "\(result.evidence.first ?? "")")
    }

    @Test("the top-level member is found by skimming; the same key deeper or inside a string is not it", arguments: [
        (#"{"added_tokens": [1]}"#, "[1]"),
        (#"{"model": {"added_tokens": [0]}, "added_tokens": [2, {"a": "]"}]}"#, #"[2, {"a": "]"}]"#),
        (#"{"x": "\"added_tokens\": [9]", "added_tokens": []}"#, "[]"),
        (#" { "n": -1.5e3 , "b" : true , "added_tokens" : [ ] } "#, "[ ]"),
        (#"{"model": [["added_tokens", 1]]}"#, "absent"),
        (#"{}"#, "absent"),
        (#"[{"added_tokens": []}]"#, "invalid"),
        (#"{"added_tokens": [1, 2"#, "invalid"),
        (#"{"a" 1}"#, "invalid"),
    ])
    func skim(text: String, expected: String) {
        let bytes = Array(text.utf8)
        let got: String
        switch JSONSkim.topLevelMember("added_tokens", in: bytes) {
        case .found(let r): got = String(decoding: bytes[r], as: UTF8.self)
        case .absent: got = "absent"
        case .invalid: got = "invalid"
        }
        #expect(got == expected)
    }

    @Test("tokenizer.json's added tokens are read however large its vocabulary, wherever they stand")
    func tokenizerAddedTokens() throws {
        let dir = try TempFolder()
        let vocab = (0..<20_000).map { "\"t\($0)\": \($0)" }.joined(separator: ", ")
        try dir.write("tokenizer.json", #"{"model": {"vocab": {\#(vocab)}}, "added_tokens": [{"id": 20000, "content": "<|tool_call_start|>"}]}"#)
        let result = try ToolCallFormat.infer(modelDirectory: dir.path)
        #expect(result.format == .lfm2, "\(result.evidence)")
    }

    static let probeRows: [(TemplateSignatures.Probe, String, Bool)] = [
        (.adjacent("<a>", "<b>"), "x<a> \t\\n\n<b>", true),
        (.adjacent("<a>", "<b>"), "<a> x <b>", false),
        (.adjacent("<a>", "<b>"), "<a> <a><b>", true),
        (.adjacent("<a>", "<b>"), "<a>\\", false),
        (.tagThen("<f=", "<p="), "<f=n><p=", true),
        (.tagThen("<f=", "<p="), "<f=n <p=", false),
        (.tagThen("<f=", "<p="), "<p=<f=n>", false),
        (.literal(["ab", "cd"]), "xxcd", true),
        (.literal(["ab"]), "a", false),
    ]

    @Test("each probe kind finds exactly what it says", arguments: probeRows)
    func probes(probe: TemplateSignatures.Probe, text: String, found: Bool) {
        #expect(TemplateSignatures.found(probe, in: Array(text.utf8)) == found)
    }
}
