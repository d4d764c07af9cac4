import Foundation
import Testing
import ToolCallKit

@Suite("toolcall decode --response-template")
struct ResponseTemplateCLITests {
    static let template = FixturePaths.root.appendingPathComponent("response_templates/templates/trl-qwen3.json").path

    @Test func decodesWithTheTemplateAndPromptTail() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("tmpl-prefix-\(getpid()).txt")
        try Data("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n".utf8).write(to: prefix)
        defer { try? FileManager.default.removeItem(at: prefix) }
        let input = "Greet back.</think>\n\nHello!<|im_end|>"
        for chunk in ["1", "3", "64"] {
            let r = try CLI.run(["decode", "--response-template", Self.template, "--prefix-file", prefix.path, "--chunk-bytes", chunk], stdin: input)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map { try? JSONValue.parse(String($0)) }
            let reasoning = lines.compactMap { $0?["type"] == .string("reasoning") ? $0?["text"]?.stringValue : nil }.joined()
            let text = lines.compactMap { $0?["type"] == .string("text") ? $0?["text"]?.stringValue : nil }.joined()
            #expect(reasoning == "Greet back.")
            #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "Hello!")
        }
    }

    /// A model folder's template whose anchors match only the empty string: decoding ends (it
    /// used to spin forever), under a time limit so that a regression fails instead of hanging.
    @Test func zeroWidthTemplateFromAModelFolderEnds() throws {
        let folder = FixturePaths.root.appendingPathComponent("models/own-response-template-zero-width").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["60", CLI.binary.path, "decode", "--model", folder, "--reasoning"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        try input.fileHandleForWriting.write(contentsOf: Data("xyz".utf8))
        try input.fileHandleForWriting.close()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(out.contains(#"{"type":"end","tool_calls":0,"rejected":0,"bytes":3}"#), "\(out)")
    }

    @Test func invalidTemplateIsOneLineBeforeInput() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("tmpl-bad-\(getpid()).json")
        try Data(#"{"start_anchor": "a", "fields": {"content": {}, "thinking": {"close": "</think>"}}}"#.utf8).write(to: bad)
        defer { try? FileManager.default.removeItem(at: bad) }
        let r = try CLI.run(["decode", "--response-template", bad.path], stdin: "anything")
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stderr.contains("at most one field may omit 'open'/'open_pattern'"))
    }

    @Test(arguments: [
        (["decode", "--response-template", "t.json", "--format", "json"], "--response-template cannot be used with --format or --model"),
        (["decode", "--format", "json", "--prefix-file", "p.txt"], "--prefix-file is used only with --response-template FILE or --model DIR"),
    ])
    func usage(_ args: [String], _ message: String) throws {
        let r = try CLI.run(args)
        #expect(r.status == 2)
        #expect(r.stderr.contains(message))
    }
}
