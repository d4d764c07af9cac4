import Foundation
import Testing
@testable import ToolCallKit

@Suite("TokenStreamDecoder: token ids to events")
struct TokenStreamDecoderTests {
    /// Visible text and calls of a run, ids fed in batches of `batch`.
    static func run(
        _ t: Tokenizer, _ ids: [Int], batch: Int, skipSpecial: Bool = false, rawSpans: Bool = false
    ) throws -> (text: String, calls: [ToolCall], rejected: Int, raw: [UInt8]) {
        var d = TokenStreamDecoder(
            tokenizer: t, format: .json, options: .init(rawSpans: rawSpans, idSeed: 1), skipSpecial: skipSpecial)
        var events: [ToolCallEvent] = []
        var i = 0
        while i < ids.count {
            if batch == 1 {
                // One id at a time: the allocation-free form servers use.
                try d.feed(ids[i], into: &events)
            } else {
                events += try d.feed(ids[i..<min(ids.count, i + batch)])
            }
            i += batch
        }
        if batch == 1 { d.finish(into: &events) } else { events += d.finish() }
        var text = ""
        var calls: [ToolCall] = []
        var rejected = 0
        var raw: [UInt8] = []
        for e in events {
            raw += e.rawBytes ?? []
            switch e {
            case .text(let s): text += s.string
            case .toolCall(let c): calls.append(c)
            case .rejected: rejected += 1
            default: break
            }
        }
        return (text, calls, rejected, raw)
    }

    @Test("the shared samples: text and calls, whole and one id at a time", arguments: try TokenizerFixtures.samples())
    func samples(_ s: TokenizerFixtures.Sample) throws {
        let t = try TokenizerFixtures.tokenizer(s.tokenizerFile)
        for batch in [s.ids.count + 1, 1, 3] {
            let r = try Self.run(t, s.ids, batch: batch)
            #expect(r.text == s.expected_text, "batch \(batch)")
            #expect(r.rejected == 0)
            #expect(r.calls.count == s.expected_calls.count, "batch \(batch)")
            for (got, want) in zip(r.calls, s.expected_calls) {
                #expect(got.name == want.name)
                #expect(sameJSON(got.arguments, want.arguments.value), "\(got.arguments) != \(want.arguments.value)")
            }
        }
    }

    @Test("every decoded byte reaches the decoder: raw spans rebuild the reference decode",
          arguments: try TokenizerFixtures.decodes())
    func rawSpansRebuildTheDecode(_ c: TokenizerFixtures.Decode) throws {
        let t = try TokenizerFixtures.tokenizer(c.tokenizer)
        for batch in [1, 2, c.ids.count + 1] {
            let r = try Self.run(t, c.ids, batch: batch, rawSpans: true)
            #expect(r.raw == Array(c.text.utf8), "batch \(batch)")
            // --skip-special: the decode without special tokens other than the format's markers.
            let s = try Self.run(t, c.ids, batch: batch, skipSpecial: true, rawSpans: true)
            #expect(s.raw == Array(c.text_skip.utf8), "batch \(batch), skip special")
        }
    }

    @Test("a call whose markers are single special ids, after an unfinished character")
    func markerAfterUnfinishedCharacter() throws {
        let t = try TokenizerFixtures.tokenizer("bytelevel-tiny.tokenizer.json")
        // "x", half of "你", <tool_call>, the payload byte by byte, </tool_call>, <|im_end|>
        let ids = [0x78, 0xE4, 0xBD, 265] + Array(#"{"name": "f", "arguments": {"q": "你"}}"#.utf8).map(Int.init) + [266, 267]
        for batch in [1, 4, ids.count] {
            let r = try Self.run(t, ids, batch: batch)
            #expect(r.text == "x\u{FFFD}<|im_end|>")
            #expect(r.calls.map(\.name) == ["f"])
            #expect(r.calls.first?.arguments == .object([("q", .string("你"))]))
            let s = try Self.run(t, ids, batch: batch, skipSpecial: true)
            #expect(s.text == "x\u{FFFD}")
            #expect(s.calls.count == 1)
        }
    }

    @Test("SentencePiece: a marker id ends a pending byte run")
    func markerEndsByteRun() throws {
        let t = try TokenizerFixtures.tokenizer("llama-with-markers.tokenizer.json")
        // <s>, "<0xE8><0x8B>" (two thirds of 苏), <tool_call>, payload, </tool_call>, </s>
        var ids = [1, 3 + 0xE8, 3 + 0x8B, 32000]
        ids += [426, 29908, 978, 1115, 376, 29888, 613, 376, 25699, 1115, 6571, 29913]
        ids += [32001, 2]
        let r = try Self.run(t, ids, batch: 1, skipSpecial: true)
        #expect(r.text == "\u{FFFD}\u{FFFD}")
        #expect(r.calls.map(\.name) == ["f"])
        let k = try Self.run(t, ids, batch: 1)
        #expect(k.text == "<s>\u{FFFD}\u{FFFD} </s>")
    }

    @Test("an id outside the vocabulary throws and consumes nothing of its batch")
    func unknownID() throws {
        let t = try TokenizerFixtures.tokenizer("bytelevel-tiny.tokenizer.json")
        var d = TokenStreamDecoder(tokenizer: t, format: .json)
        var events = try d.feed([0x48])
        #expect(throws: TokenStreamDecoder.UnknownTokenError.self) { try d.feed([0x69, 999, 0x21]) }
        do {
            _ = try d.feed([0x69, -1])
        } catch {
            #expect(error.id == -1 && error.offset == 1 && error.vocabularySize == 271)
        }
        // One id at a time: an unknown id throws with offset 0 and adds no event.
        let before = events.count
        #expect(throws: TokenStreamDecoder.UnknownTokenError.self) { try d.feed(999, into: &events) }
        #expect(events.count == before)
        events += try d.feed([0x21])
        events += d.finish()
        let text = events.compactMap { if case .text(let s) = $0 { s.string } else { nil } }.joined()
        #expect(text == "H!")
    }
}

@Suite("TokenIDScanner: ids from text in any chunking")
struct TokenIDScannerTests {
    static func scan(_ text: String, chunk: Int) -> (ids: [Int], failure: TokenIDScanner.Failure?) {
        var s = TokenIDScanner()
        var ids: [Int] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if let f = s.scan(bytes[i..<min(bytes.count, i + chunk)], into: &ids) { return (ids, f) }
            i += chunk
        }
        let failure = s.finish(into: &ids)
        return (ids, failure)
    }

    @Test("ids split across reads keep their digits", arguments: [1, 2, 3, 5, 100])
    func split(chunk: Int) {
        let r = Self.scan(" 12 345\n6789\t\t0  42", chunk: chunk)
        #expect(r.ids == [12, 345, 6789, 0, 42])
        #expect(r.failure == nil)
    }

    @Test("bad tokens are named with their position", arguments: [
        ("1 2 x3 4", [1, 2], TokenIDScanner.Failure(text: "x3", position: 3, isNumber: false)),
        ("7 -1", [7], TokenIDScanner.Failure(text: "-1", position: 2, isNumber: false)),
        ("5 1.0", [5], TokenIDScanner.Failure(text: "1.0", position: 2, isNumber: false)),
        ("99999999999999999999999 1", [], TokenIDScanner.Failure(text: "99999999999999999999999", position: 1, isNumber: true)),
        ("1,2", [], TokenIDScanner.Failure(text: "1,2", position: 1, isNumber: false)),
    ])
    func bad(text: String, ids: [Int], failure: TokenIDScanner.Failure) {
        for chunk in [1, 2, 64] {
            let r = Self.scan(text, chunk: chunk)
            #expect(r.ids == ids)
            #expect(r.failure == failure)
        }
    }

    @Test("empty and white-space-only input give no ids")
    func empty() {
        #expect(Self.scan("", chunk: 1).ids.isEmpty)
        #expect(Self.scan(" \n\t ", chunk: 1).ids.isEmpty)
    }
}
