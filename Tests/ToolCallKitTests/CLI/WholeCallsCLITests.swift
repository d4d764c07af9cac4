import Foundation
import Testing
import ToolCallKit

/// `--whole-calls`: a call comes out only once it is accepted; a rejected one never starts.
@Suite("toolcall decode --whole-calls")
struct WholeCallsCLITests {
    /// An accepted call (with a newline in a string), then one that is malformed, in prose.
    static let input = #"Hi <tool_call>{"name": "f", "arguments": {"a": "x\ny"}}</tool_call> and "#
        + #"<tool_call>{"name": "g", "arguments": {"a": 1</tool_call> bye"#

    static func lines(_ s: String) -> [JSONValueLine] {
        s.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).map { JSONValueLine(object: $0) }
        }
    }

    @Test("events: the accepted call as start, one delta and the call; the rejected one only rejected", arguments: ["1", "3", "4096"])
    func events(chunk: String) throws {
        let r = try CLI.run(["decode", "--format", "json", "--whole-calls", "--id-seed", "1", "--chunk-bytes", chunk], stdin: Self.input)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let golden = try String(contentsOf: FixturePaths.root.appendingPathComponent("cli/whole-calls.stdout"), encoding: .utf8)
        func calls(_ s: String) -> [Substring] { s.split(separator: "\n").filter { !$0.contains("\"type\":\"text\"") } }
        #expect(calls(r.stdout) == calls(golden), "chunk \(chunk)")
        let types = Self.lines(r.stdout).map(\.type)
        #expect(types.filter { $0 == "tool_call_start" }.count == 1)
        #expect(types.filter { $0 == "tool_call_delta" }.count == 1)
        let start = try #require(types.firstIndex(of: "tool_call_start"))
        #expect(Array(types[start...].prefix(3)) == ["tool_call_start", "tool_call_delta", "tool_call"])
    }

    @Test("events golden, 3-byte chunks")
    func golden() throws {
        let r = try CLI.run(["decode", "--format", "json", "--whole-calls", "--id-seed", "1", "--chunk-bytes", "3"], stdin: Self.input)
        let url = FixturePaths.root.appendingPathComponent("cli/whole-calls.stdout")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil { try Data(r.stdout.utf8).write(to: url) }
        #expect(r.stdout == (try String(contentsOf: url, encoding: .utf8)))
    }

    @Test("without the flag the rejected call has started (the case the flag is for)")
    func withoutFlag() throws {
        let r = try CLI.run(["decode", "--format", "json", "--id-seed", "1", "--chunk-bytes", "3"], stdin: Self.input)
        let starts = Self.lines(r.stdout).filter { $0.type == "tool_call_start" }
        #expect(starts.count == 2)
    }

    @Test("openai: a rejected call never appears among the tool_calls deltas", arguments: [false, true])
    func openAI(whole: Bool) throws {
        let args = ["decode", "--format", "json", "--output", "openai", "--id-seed", "1", "--chunk-bytes", "3"] + (whole ? ["--whole-calls"] : [])
        let r = try CLI.run(args, stdin: Self.input)
        #expect(r.status == 0)
        var indexes: Set<Int> = []
        var callChunks = 0
        var arguments: [Int: String] = [:]
        var rejectedList: [Any]?
        for line in r.stdout.split(separator: "\n") {
            let chunk = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let listed = chunk["x_toolcall_rejected"] as? [Any] { rejectedList = listed }
            let choices = try #require(chunk["choices"] as? [[String: Any]])
            let delta = try #require(choices.first?["delta"] as? [String: Any])
            for call in delta["tool_calls"] as? [[String: Any]] ?? [] {
                callChunks += 1
                let index = try #require(call["index"] as? Int)
                if whole {
                    // The whole call in one chunk: id, type, name and all the arguments.
                    #expect(call["id"] as? String == "call_zXypXgXhWmbuoCGLzxQiqkDE")
                    #expect(call["type"] as? String == "function")
                    #expect((call["function"] as? [String: Any])?["name"] as? String == "f")
                }
                indexes.insert(index)
                arguments[index, default: ""] += (call["function"] as? [String: Any])?["arguments"] as? String ?? ""
            }
        }
        // The rejection is on stderr either way.
        #expect(r.stderr.contains("\"reason\":\"malformed\""))
        if whole {
            #expect(indexes == [0])
            #expect(callChunks == 1, "one chunk per call")
            #expect(rejectedList == nil)
        } else {
            #expect(indexes == [0, 1], "the started call streams before it is rejected")
            #expect(rejectedList?.count == 1)
        }
        // The accepted call's joined arguments are its arguments.
        let joined = try #require(arguments[0])
        let parsed = try JSONSerialization.jsonObject(with: Data(joined.utf8)) as? [String: Any]
        #expect(parsed?["a"] as? String == "x\ny")
    }
}

/// One parsed output line.
struct JSONValueLine {
    let object: [String: Any]
    var type: String { object["type"] as? String ?? "" }
}

@Suite("OpenAI chunks with whole calls")
struct WholeCallsEncoderTests {
    @Test("a start waits for its delta; a start without one still shows the call; a held start that is rejected shows nothing")
    func encoder() throws {
        var e = OpenAIChunkEncoder(id: "chatcmpl-x", created: 0, model: "m", wholeCalls: true)
        #expect(e.encode(.toolCallStart(index: 0, id: "a", name: "f")).chunks.isEmpty)
        let one = e.encode(.toolCallDelta(index: 0, arguments: "{\"k\": 1}")).chunks
        #expect(one.count == 1)
        #expect(one.first?.contains(#""tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"k\": 1}"}}]"#) == true, "\(one)")
        #expect(e.encode(.toolCall(ToolCall(index: 0, id: "a", name: "f", arguments: .object([("k", .number("1"))])))).chunks.isEmpty)

        _ = e.encode(.toolCallStart(index: 1, id: "b", name: "g"))
        let late = e.encode(.toolCall(ToolCall(index: 1, id: "b", name: "g", arguments: .object([])))).chunks
        #expect(late.count == 1 && late.first?.contains(#""name":"g","arguments":"{}""#) == true, "\(late)")

        _ = e.encode(.toolCallStart(index: 2, id: "c", name: "h"))
        let r = e.encode(.rejected(RejectedToolCall(reason: .invalidArguments, format: .json, raw: [], detail: "x", index: 2, id: "c", name: "h")))
        #expect(r.chunks.isEmpty && r.diagnostics.count == 1)
        let end = e.encode(.end(toolCalls: 2, rejected: 1, bytes: 0)).chunks
        #expect(end.count == 1 && end.first?.contains("x_toolcall_rejected") == false, "\(end)")
    }
}
