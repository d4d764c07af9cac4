import Foundation
import Testing
@testable import ToolCallKit

/// `toolcall render`: golden output per format, the decode → render pipe, and the exit codes.
@Suite("toolcall render")
struct RenderCLITests {
    static let callsPath = FixturePaths.root.appendingPathComponent("cli/render/calls.json").path
    static var calls: String { (try? String(contentsOfFile: callsPath, encoding: .utf8)) ?? "" }

    @Test("the two calls in every format match the golden file", arguments: ToolCallFormat.allCases + ToolCallFormat.variants)
    func golden(_ format: ToolCallFormat) throws {
        let r = try CLI.run(["render", "--format", format.rawValue], stdin: Self.calls)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stderr.isEmpty)
        let url = FixturePaths.root.appendingPathComponent("cli/render/\(format.rawValue).stdout")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil {
            try Data(r.stdout.utf8).write(to: url)
        }
        #expect(r.stdout == (try String(contentsOf: url, encoding: .utf8)))
    }

    @Test("decode's output renders back to calls that decode the same", arguments: ToolCallFormat.allCases + ToolCallFormat.variants)
    func pipe(_ format: ToolCallFormat) throws {
        let rendered = try CLI.run(["render", "--format", format.rawValue, "--text", "Checking."], stdin: Self.calls)
        #expect(rendered.status == 0, "stderr: \(rendered.stderr)")
        // The text comes first, or last where the model's template writes it after the calls (gemma4).
        #expect(rendered.stdout.hasPrefix("Checking.") || rendered.stdout.hasSuffix("Checking."))
        let decoded = try CLI.run(["decode", "--format", format.rawValue, "--id-seed", "1"], stdin: rendered.stdout)
        // Event lines in, the same bytes out: the ids decode gave are the ones it reads back.
        let again = try CLI.run(["render", "--format", format.rawValue, "--text", "Checking."], stdin: decoded.stdout)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let twice = try CLI.run(["decode", "--format", format.rawValue, "--id-seed", "1"], stdin: again.stdout)
        // The same events; only `end` may differ (its byte count: Mistral now carries the id the
        // first decode made).
        let events = { (s: String) in s.split(separator: "\n").filter { !$0.contains("\"type\":\"end\"") } }
        #expect(events(twice.stdout) == events(decoded.stdout))
        let calls = decoded.stdout.split(separator: "\n").filter { $0.contains("\"type\":\"tool_call\"") }
        #expect(calls.count == 2, "\(decoded.stdout)")
    }

    @Test("an OpenAI message and arguments given as objects are read too")
    func messageForm() throws {
        let input = #"{"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": {"a": 1}}}, {"function": {"name": "g", "arguments": ""}}]}"#
        let r = try CLI.run(["render", "--format", "mistral"], stdin: input)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout == #"[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[ARGS]{}"#)
    }

    @Test("exit codes and one-line messages", arguments: [
        (["render"], "", Int32(2), "render needs --format NAME"),
        (["render", "--format", "yaml"], "[]", 2, "unknown format 'yaml'"),
        (["render", "--format"], "[]", 2, "--format needs a value"),
        (["render", "--format", "json", "--frob"], "[]", 2, "unknown option '--frob'"),
        (["render", "--format", "json"], "not json", 1, "line 1 of standard input is not a JSON object"),
        (["render", "--format", "json"], "[1]", 1, "tool call 0 is not a JSON object"),
        (["render", "--format", "json"], #"[{"function": {"arguments": "{}"}}]"#, 1, "has no function name"),
        (["render", "--format", "json"], #"[{"function": {"name": "f", "arguments": "[1]"}}]"#, 1, "not the JSON text of an object"),
        (["render", "--format", "lfm2"], #"[{"function": {"name": "get weather", "arguments": "{}"}}]"#, 1, "call 0 (\"get weather\")"),
        (["render", "--format", "glm4"], #"[{"function": {"name": "f", "arguments": "{\"a\": \"x</arg_value><arg_key>b</arg_key>\"}"}}]"#, 1, "quotes glm4 markup"),
        (["render", "--format=json", "--text=<tool_call>"], "[]", 1, "the text: it holds json's marker <tool_call>"),
    ])
    func errors(_ args: [String], _ stdin: String, _ status: Int32, _ fragment: String) throws {
        let r = try CLI.run(args, stdin: stdin)
        #expect(r.status == status, "stderr: \(r.stderr)")
        #expect(r.stderr.contains(fragment), "stderr: \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}
