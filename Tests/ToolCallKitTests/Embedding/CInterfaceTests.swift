import Foundation
import Testing
import ToolCallKit
@testable import ToolCallKitC

/// The C interface (`include/toolcallkit.h`) called as a C program calls it.
@Suite("C interface")
struct CInterfaceTests {
    /// A decoder from a config, or the refusal message.
    static func make(_ config: String) -> (OpaquePointer?, String) {
        var err = [CChar](repeating: 0, count: 256)
        let d = unsafe config.withCString { unsafe tck_decoder_new($0, strlen($0), &err, err.count) }
        let message = unsafe err.withUnsafeBufferPointer { unsafe String(cString: $0.baseAddress!) }
        return unsafe (d, message)
    }

    /// The lines `tck_events` hands out, and its return value.
    static func events(_ d: OpaquePointer?) -> (String, Int32) {
        var lines: UnsafePointer<UInt8>? = nil
        var len = 0
        let n = unsafe tck_events(d, &lines, &len)
        guard let lines = unsafe lines else { return ("<null>", n) }
        return unsafe (String(decoding: UnsafeBufferPointer(start: lines, count: len), as: UTF8.self), n)
    }

    static func feed(_ d: OpaquePointer?, _ text: String) -> Int32 {
        let bytes = Array(text.utf8)
        return unsafe bytes.withUnsafeBufferPointer { unsafe tck_feed(d, $0.baseAddress, $0.count) }
    }

    static func lastError(_ d: OpaquePointer?) -> String { unsafe String(cString: tck_last_error(d)) }

    @Test("event lines are the CLI's lines (the library's encoder), whatever the split")
    func linesMatchTheEncoder() throws {
        let input = #"Hi <tool_call>{"name": "f", "arguments": {"a": "€"}}</tool_call> bye"#
        var reference = ToolCallDecoder(format: .json, options: .init(idSeed: 9))
        var expected: [UInt8] = []
        for e in reference.feed(Array(input.utf8)) + reference.finish() {
            EventJSONEncoder.encode(e, raw: false, into: &expected)
            expected.append(0x0A)
        }
        for chunk in [1, 2, 5, 1000] {
            let (d, err) = unsafe Self.make(#"{"format": "json", "id_seed": 9}"#)
            #expect(unsafe d != nil, "\(err)")
            defer { unsafe tck_decoder_free(d) }
            var all = ""
            var lineCount: Int32 = 0
            let bytes = Array(input.utf8)
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                let piece = bytes[start..<min(bytes.count, start + chunk)]
                let queued = unsafe piece.withUnsafeBufferPointer { unsafe tck_feed(d, $0.baseAddress, $0.count) }
                let (lines, n) = unsafe Self.events(d)
                #expect(queued == n)
                all += lines
                lineCount += n
            }
            #expect(unsafe tck_finish(d) >= 1)
            let (last, n) = unsafe Self.events(d)
            all += last
            lineCount += n
            // Merging adjacent text events is what chunking may change; the whole feed is exact.
            if chunk == 1000 { #expect(all == String(decoding: expected, as: UTF8.self)) }
            #expect(all.split(separator: "\n").count == Int(lineCount))
            #expect(all.hasSuffix(#"{"type":"end","tool_calls":1,"rejected":0,"bytes":\#(input.utf8.count)}"# + "\n"))
        }
    }

    @Test("tck_feed_events feeds and hands out in one call")
    func feedEvents() {
        let (d, _) = unsafe Self.make(#"{"format": "json"}"#)
        defer { unsafe tck_decoder_free(d) }
        var lines: UnsafePointer<UInt8>? = nil
        var len = 0
        let bytes = Array("Hi <tool".utf8)
        let n = unsafe bytes.withUnsafeBufferPointer { unsafe tck_feed_events(d, $0.baseAddress, $0.count, &lines, &len) }
        #expect(n == 1)
        #expect(unsafe String(decoding: UnsafeBufferPointer(start: lines, count: len), as: UTF8.self) == "{\"type\":\"text\",\"text\":\"Hi \"}\n")
        #expect(unsafe Self.events(d).1 == 0)
        #expect(unsafe tck_feed_events(d, nil, 2, &lines, &len) == TCK.argument)
        #expect(unsafe tck_finish(d) == 2)
        #expect(unsafe tck_feed_events(d, bytes, 1, &lines, &len) == TCK.state)
    }

    @Test("nothing queued: a valid empty buffer and 0")
    func emptyQueue() {
        let (d, _) = unsafe Self.make(#"{"format": "mistral"}"#)
        defer { unsafe tck_decoder_free(d) }
        let (lines, n) = unsafe Self.events(d)
        #expect(lines == "" && n == 0)
        #expect(unsafe Self.feed(d, "[TOOL") == 0)
        #expect(unsafe Self.events(d).1 == 0)
    }

    @Test(
        "a refused config says why",
        arguments: [
            (#"{"format": "json", "unit": 1}"#, "unknown config key 'unit'"),
            (#"["json"]"#, "config must be a JSON object"),
            (#"{"format": "json""#, "config is not valid JSON"),
            (#"{"format": "json", "whole_calls": 1}"#, "whole_calls must be true or false"),
            (#"{"format": "json", "max_call_bytes": 0}"#, "max_call_bytes must be a whole number of at least 1"),
            (#"{"format": "json", "model": "Fixtures/models/Qwen3-0.6B"}"#, "format and model cannot be used together"),
            (#"{"format": "json", "skip_special": true}"#, "skip_special is used only for token input"),
            (#"{"model": "/no/such/folder"}"#, "model:"),
        ])
    func refusedConfig(config: String, message: String) {
        let (d, err) = unsafe Self.make(config)
        #expect(unsafe d == nil)
        #expect(err.contains(message), "\(err)")
    }

    @Test("an error message longer than the buffer is cut, NUL-terminated, at a character boundary")
    func shortErrorBuffer() {
        var err = [CChar](repeating: 0x7F, count: 12)
        let config = #"{"format": "€€€€€€€€"}"#
        let d = unsafe config.withCString { unsafe tck_decoder_new($0, strlen($0), &err, err.count) }
        #expect(unsafe d == nil)
        let text = unsafe err.withUnsafeBufferPointer { unsafe String(cString: $0.baseAddress!) }
        #expect(text == "unknown for")
        #expect(err[11] == 0)
    }

    @Test("misuse returns an error code and tck_last_error says what; the decoder goes on")
    func misuse() {
        let (d, _) = unsafe Self.make(#"{"format": "json"}"#)
        defer { unsafe tck_decoder_free(d) }
        #expect(unsafe Self.lastError(d) == "")
        #expect(unsafe tck_feed(d, nil, 3) == TCK.argument)
        #expect(unsafe Self.lastError(d).contains("bytes is NULL"))
        #expect(unsafe tck_feed_tokens(d, [1], 1) == TCK.input)
        #expect(unsafe Self.lastError(d).contains("needs a tokenizer"))
        #expect(unsafe Self.feed(d, "text") == 1)
        #expect(unsafe tck_finish(d) == 2)
        #expect(unsafe Self.feed(d, "more") == TCK.state)
        #expect(unsafe Self.lastError(d) == "tck_feed after tck_finish")
        #expect(unsafe tck_finish(d) == TCK.state)
        #expect(unsafe Self.events(d).0 == "{\"type\":\"text\",\"text\":\"text\"}\n{\"type\":\"end\",\"tool_calls\":0,\"rejected\":0,\"bytes\":4}\n")
        #expect(tck_feed(nil, nil, 0) == TCK.argument)
        #expect(tck_finish(nil) == TCK.argument)
        #expect(unsafe !Self.lastError(nil).isEmpty)
        tck_decoder_free(nil)
    }

    @Test("decoders naming one tokenizer file share one load")
    func tokenizerShared() throws {
        // A private copy, so no other test has loaded this path.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tokenizer.json")
        try FileManager.default.copyItem(
            at: FixturePaths.root.appendingPathComponent("tokenizers/bytelevel-tiny.tokenizer.json"), to: file)
        let before = TokenizerCache.shared.loadCount
        let (a, errA) = unsafe Self.make(#"{"format": "json", "tokenizer": "\#(file.path)"}"#)
        let (b, errB) = unsafe Self.make(#"{"format": "json", "tokenizer": "\#(dir.path)/./tokenizer.json"}"#)
        defer {
            unsafe tck_decoder_free(a)
            unsafe tck_decoder_free(b)
        }
        #expect(unsafe a != nil && b != nil, "\(errA) \(errB)")
        #expect(TokenizerCache.shared.loadCount == before + 1)
        // Both work; an id outside the vocabulary is an error after the ids before it.
        let ids: [UInt32] = [72, 105, 1_000_000, 33]
        #expect(unsafe tck_feed_tokens(a, ids, ids.count) == TCK.token)
        #expect(unsafe Self.lastError(a).contains("(1000000) is outside the vocabulary"))
        #expect(unsafe Self.events(a).0 == "{\"type\":\"text\",\"text\":\"Hi\"}\n")
        #expect(unsafe tck_feed_tokens(b, [72], 1) == 1)
        #expect(unsafe Self.feed(b, "x") == TCK.input)
    }

    @Test("tck_infer returns the size needed and the CLI's line")
    func infer() throws {
        let dir = FixturePaths.root.appendingPathComponent("models/Qwen3-0.6B").path
        let expected = try ToolCallFormat.infer(modelDirectory: dir).jsonLine
        var small = [CChar](repeating: 0, count: 8)
        let needed = unsafe tck_infer(dir, &small, small.count)
        #expect(Int(needed) == expected.utf8.count + 1)
        #expect(unsafe small.withUnsafeBufferPointer { unsafe String(cString: $0.baseAddress!) } == String(expected.prefix(7)))
        var big = [CChar](repeating: 0, count: Int(needed))
        #expect(unsafe tck_infer(dir, &big, big.count) == needed)
        #expect(unsafe big.withUnsafeBufferPointer { unsafe String(cString: $0.baseAddress!) } == expected)
        #expect(unsafe tck_infer("/no/such/folder", &big, big.count) == TCK.io)
        #expect(tck_infer(nil, nil, 0) == TCK.argument)
    }
}
