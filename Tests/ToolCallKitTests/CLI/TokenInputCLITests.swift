import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("toolcall decode --input tokens")
struct TokenInputCLITests {
    static let folder = FixturePaths.root.appendingPathComponent("tokenizers")
    static let byteLevel = folder.appendingPathComponent("bytelevel-tiny.tokenizer.json").path
    static let llama = folder.appendingPathComponent("llama-with-markers.tokenizer.json").path

    static func args(_ tokenizer: String, _ extra: [String] = []) -> [String] {
        ["decode", "--format", "json", "--input", "tokens", "--tokenizer", tokenizer, "--id-seed", "7"] + extra
    }

    /// "Hi 你" then a call whose markers are single ids (265, 266), then <|im_end|> (267).
    static let callIDs: String = {
        var ids = Array("Hi ".utf8).map(Int.init) + [0xE4, 0xBD, 0xA0, 265]
        ids += Array(#"{"name": "get_weather", "arguments": {"city": "Zürich"}}"#.utf8).map(Int.init)
        ids += [266, 267]
        return ids.map(String.init).joined(separator: " ")
    }()

    static func lines(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func visible(_ stdout: String) -> String {
        lines(stdout).filter { $0["type"] as? String == "text" }.compactMap { $0["text"] as? String }.joined()
    }

    @Test("ids cut anywhere between reads give the same events", arguments: [1, 2, 3, 7])
    func chunked(bytes: Int) throws {
        let whole = try CLI.run(Self.args(Self.byteLevel), stdin: Self.callIDs)
        #expect(whole.status == 0, "stderr: \(whole.stderr)")
        #expect(Self.visible(whole.stdout) == "Hi 你<|im_end|>")
        let calls = Self.lines(whole.stdout).filter { $0["type"] as? String == "tool_call" }
        #expect(calls.count == 1)
        #expect(calls.first?["name"] as? String == "get_weather")
        #expect((calls.first?["arguments"] as? [String: Any])?["city"] as? String == "Zürich")
        let cut = try CLI.run(Self.args(Self.byteLevel, ["--chunk-bytes", String(bytes)]), stdin: Self.callIDs)
        #expect(cut.status == 0)
        #expect(Self.visible(cut.stdout) == Self.visible(whole.stdout))
        // The same calls (seeded ids) and end; deltas may be cut differently.
        func settled(_ out: String) -> [Substring] {
            out.split(separator: "\n").filter { $0.contains("\"type\":\"tool_call\"") || $0.contains("\"type\":\"end\"") }
        }
        #expect(settled(cut.stdout) == settled(whole.stdout))
        #expect(settled(whole.stdout).count == 2)
    }

    @Test("--skip-special drops special tokens that are not markers, and keeps the markers")
    func skipSpecial() throws {
        let r = try CLI.run(Self.args(Self.byteLevel, ["--skip-special"]), stdin: Self.callIDs)
        #expect(r.status == 0)
        #expect(Self.visible(r.stdout) == "Hi 你")
        #expect(Self.lines(r.stdout).contains { $0["type"] as? String == "tool_call" })
    }

    @Test("a real SentencePiece tokenizer: BOS, byte fallback, a call with marker ids")
    func llama() throws {
        // <s> ▁Hi ▁ <0xE8><0x8B><0x8F> <tool_call> {"name": "f", "arguments": {}} </tool_call> </s>
        let ids = "1 6324 29871 235 142 146 32000 426 29908 978 1115 376 29888 613 376 25699 1115 6571 29913 32001 2"
        let r = try CLI.run(Self.args(Self.llama, ["--chunk-bytes", "2"]), stdin: ids)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(Self.visible(r.stdout) == "<s> Hi 苏 </s>")
        #expect(Self.lines(r.stdout).filter { $0["type"] as? String == "tool_call" }.count == 1)
        let s = try CLI.run(Self.args(Self.llama, ["--skip-special"]), stdin: ids)
        #expect(Self.visible(s.stdout) == "Hi 苏")
    }

    @Test("bad ids exit 1 with one line naming the token and its position, after the events before it",
          arguments: [
            ("72 101 abc 108", "token 3 ('abc') is not a number"),
            ("72 101 99999 108", "token 3 (99999) is outside the vocabulary of"),
            ("72 101 123456789012345678901234567890", "token 3 (123456789012345678901234567890) is outside the vocabulary"),
            ("72 101 -5", "token 3 ('-5') is not a number"),
          ])
    func badIDs(stdin: String, fragment: String) throws {
        for chunk in ["1", "64"] {
            let r = try CLI.run(Self.args(Self.byteLevel, ["--chunk-bytes", chunk]), stdin: stdin)
            #expect(r.status == 1)
            #expect(r.stderr.contains(fragment), "stderr: \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
            #expect(Self.visible(r.stdout) == "He", "the events before the bad id come first")
            #expect(!r.stdout.contains("\"end\""))
        }
    }

    @Test("unusable tokenizer files exit 1 naming the file", arguments: [
        ("/nonexistent/tokenizer.json", "/nonexistent/tokenizer.json"),
        (folder.appendingPathComponent("unsupported-wordpiece.tokenizer.json").path, "decoder \"WordPiece\" is not supported"),
        (folder.appendingPathComponent("SOURCE.md").path, "SOURCE.md: not valid JSON"),
    ])
    func badTokenizer(path: String, fragment: String) throws {
        let r = try CLI.run(Self.args(path))
        #expect(r.status == 1)
        #expect(r.stderr.contains(fragment), "stderr: \(r.stderr)")
        #expect(r.stderr.contains(path))
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stdout.isEmpty)
    }

    @Test("events for early ids appear before later input is written")
    func streamsThroughAPipe() throws {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = Self.args(Self.byteLevel)
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        _ = CLI.ignoreSIGPIPE  // a child that died early must fail this test, not end the run
        try p.run()
        // An id is complete at the white space after it; the call's closing marker is id 266.
        input.fileHandleForWriting.write(Data((Self.callIDs + " ").utf8))
        let got = DispatchSemaphore(value: 0)
        let first = Collected()
        let reader = output.fileHandleForReading
        DispatchQueue.global().async {
            while !first.data.withLock({ String(decoding: $0, as: UTF8.self) }).contains("\"tool_call\"") {
                let d = reader.availableData
                if d.isEmpty { break }
                first.data.withLock { $0.append(d) }
            }
            got.signal()
        }
        let arrived = got.wait(timeout: .now() + 10) == .success
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        #expect(arrived, "the call was not written before end of input")
        #expect(p.terminationStatus == 0)
    }

    @Test("empty input: just the end event")
    func empty() throws {
        let r = try CLI.run(Self.args(Self.byteLevel), stdin: "  \n")
        #expect(r.status == 0)
        #expect(Self.lines(r.stdout).count == 1)
    }
}
