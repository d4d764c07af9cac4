import Foundation
import Testing
@testable import ToolCallKit

@Suite("Detokenizer: ids to bytes as tokenizers decodes them")
struct DetokenizerTests {
    /// Feeds one id at a time; every piece that comes out is whole, valid UTF-8.
    static func streamed(_ t: Tokenizer, _ ids: [Int]) -> (bytes: [UInt8], pieces: [[UInt8]]) {
        var d = Detokenizer(tokenizer: t)
        var all: [UInt8] = []
        var pieces: [[UInt8]] = []
        for id in ids {
            var out: [UInt8] = []
            d.decode(id, into: &out)
            pieces.append(out)
            all += out
        }
        var out: [UInt8] = []
        d.finish(into: &out)
        pieces.append(out)
        return (all + out, pieces)
    }

    @Test("matches the reference decode, one id at a time", arguments: try TokenizerFixtures.decodes())
    func referenceDecode(_ c: TokenizerFixtures.Decode) throws {
        let t = try TokenizerFixtures.tokenizer(c.tokenizer)
        let (bytes, pieces) = Self.streamed(t, c.ids)
        #expect(String(decoding: bytes, as: UTF8.self) == c.text)
        #expect(bytes == Array(c.text.utf8))
        for p in pieces {
            #expect(String(validating: p, as: UTF8.self) != nil, "a piece split a character: \(p)")
        }
        // All ids at once give the same bytes.
        var d = Detokenizer(tokenizer: t)
        var once: [UInt8] = []
        d.decode(c.ids, into: &once)
        d.finish(into: &once)
        #expect(once == bytes)
    }

    @Test("the shared samples decode to their reference text", arguments: try TokenizerFixtures.samples())
    func sampleDecode(_ s: TokenizerFixtures.Sample) throws {
        let t = try TokenizerFixtures.tokenizer(s.tokenizerFile)
        let (bytes, pieces) = Self.streamed(t, s.ids)
        #expect(String(decoding: bytes, as: UTF8.self) == s.text)
        for p in pieces { #expect(String(validating: p, as: UTF8.self) != nil) }
    }

    @Test("byte-level: a character comes out with the id that completes it, not later")
    func byteLevelEmitsAtOnce() throws {
        let t = try TokenizerFixtures.tokenizer("bytelevel-tiny.tokenizer.json")
        var d = Detokenizer(tokenizer: t)
        var out: [UInt8] = []
        d.decode(0xE4, into: &out)
        d.decode(0xBD, into: &out)
        #expect(out.isEmpty)
        d.decode(0xA0, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "你")
        out.removeAll()
        // An invalid byte is replaced at once; the lead byte after it waits.
        d.decode(0x80, into: &out)
        d.decode(0xF0, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "\u{FFFD}")
        out.removeAll()
        d.finish(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "\u{FFFD}")
    }

    @Test("SentencePiece: a <0xNN> run is held until it ends (tokenizers decodes a run as a unit)")
    func sentencePieceHoldsRuns() throws {
        let t = try TokenizerFixtures.tokenizer("sentencepiece-tiny.tokenizer.json")
        var d = Detokenizer(tokenizer: t)
        var out: [UInt8] = []
        for b: UInt8 in [0xE4, 0xBD, 0xA0] { d.decode(3 + Int(b), into: &out) }
        #expect(out.isEmpty)
        d.decode(268, into: &out)  // "x"
        #expect(String(decoding: out, as: UTF8.self) == "你x")
    }

    @Test("SentencePiece: only the first space of the stream is stripped")
    func leadingSpace() throws {
        let t = try TokenizerFixtures.tokenizer("sentencepiece-tiny.tokenizer.json")
        var d = Detokenizer(tokenizer: t)
        var out: [UInt8] = []
        d.decode(259, into: &out)  // "▁"
        #expect(out.isEmpty)
        d.decode(259, into: &out)
        #expect(out == [0x20])
    }
}

@Suite("Tokenizer loading")
struct TokenizerLoadingTests {
    @Test("the real files load with their added tokens")
    func realFiles() throws {
        let g = try TokenizerFixtures.tokenizer("gpt2-with-markers.tokenizer.json")
        #expect(g.vocabularySize == 50259)
        #expect(g.isSpecial(50257) && g.isSpecial(50258) && !g.isSpecial(50255))
        #expect(g.pieceBytes(50257) == Array("<tool_call>".utf8))
        #expect(g.pieceBytes(220) == [0x20])  // "Ġ"
        let l = try TokenizerFixtures.tokenizer("llama-with-markers.tokenizer.json")
        #expect(l.vocabularySize == 32002)
        #expect(l.pieceBytes(13) == [0x0A])  // "<0x0A>"
        #expect(l.pieceBytes(1) == Array(" <s>".utf8))  // normalized: "▁<s>"
        // U+03AC and U+03B1 U+0301 are canonically equivalent but distinct vocabulary keys.
        #expect(l.pieceBytes(30216) == Array("\u{3AC}".utf8) || l.pieceBytes(30216) == Array("\u{3B1}\u{301}".utf8))
        #expect(l.contains(30216))
        for id in 0..<32000 { #expect(l.contains(id)) }
    }

    @Test("the byte-level table: printable Latin-1 is itself, the rest from U+0100 on")
    func byteTable() {
        var out: [UInt8] = []
        ByteLevelTable.decode("Ġ", into: &out)
        ByteLevelTable.decode("Ċ", into: &out)
        ByteLevelTable.decode("ĉ", into: &out)
        ByteLevelTable.decode("Ń", into: &out)  // the last: byte 0xAD
        ByteLevelTable.decode("A~¡", into: &out)
        #expect(out == [0x20, 0x0A, 0x09, 0xAD, 0x41, 0x7E, 0xA1])
        out.removeAll()
        ByteLevelTable.decode("a b", into: &out)  // a space is outside the table: raw UTF-8
        #expect(out == Array("a b".utf8))
    }

    @Test("<0xNN> pieces are read as tokenizers reads them", arguments: [
        ("<0x0A>", UInt8?.some(0x0A)), ("<0x0a>", 0x0A), ("<0xFF>", 0xFF), ("<0x+A>", 0x0A),
        ("<0xZZ>", nil), ("<0x0A", nil), ("<0x0AA>", nil), ("<1x0A>", nil),
    ])
    func fallbackBytes(piece: String, byte: UInt8?) {
        #expect(Tokenizer.fallbackByte(Array(piece.utf8)) == byte)
    }

    static func errorMessage(_ json: String, source: String = "t.json") -> String? {
        do {
            _ = try Tokenizer(json: Array(json.utf8), source: source)
            return nil
        } catch {
            return error.description
        }
    }

    static let model = ###""model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}"###

    @Test("unsupported parts fail naming the file and the part", arguments: [
        ("{" + model + ###", "decoder": {"type": "WordPiece", "prefix": "##"}}"###, "decoder \"WordPiece\""),
        ("{" + model + ###", "decoder": {"type": "Metaspace", "replacement": "▁"}}"###, "decoder \"Metaspace\""),
        ("{" + model + ###", "decoder": {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "ByteLevel"}]}}"###, "ByteFallback, ByteLevel"),
        ("{" + model + ###", "decoder": {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "ByteFallback"}]}}"###, "ByteFallback out of order"),
        ("{" + model + ###", "decoder": {"type": "Sequence", "decoders": [{"type": "Strip", "content": " ", "start": 1, "stop": 0}]}}"###, "Strip before Fuse"),
        (###"{"model": {"type": "Foo", "vocab": {}}}"###, "model type \"Foo\""),
        (###"{"decoder": null}"###, "no \"model\""),
        (###"{"model": {"type": "BPE"}}"###, "no \"vocab\""),
        ("{" + model + ###", "normalizer": {"type": "BertNormalizer"}, "added_tokens": [{"id": 2, "content": "x", "normalized": true, "special": true}]}"###, "normalizer \"BertNormalizer\""),
        ("{" + model + ###", "normalizer": {"type": "NFKC"}, "added_tokens": [{"id": 2, "content": "ﬁ", "normalized": true, "special": true}]}"###, "NFKC on the non-ASCII added token"),
        ("{" + model + ###", "added_tokens": [{"content": "x"}]}"###, "lacks an id"),
        ("{\"model\": ", "not valid JSON"),
        ("[1]", "top level is not an object"),
    ])
    func unsupported(json: String, fragment: String) {
        let message = Self.errorMessage(json, source: "dir/tok.json")
        #expect(message?.hasPrefix("dir/tok.json: ") == true, "\(message ?? "loaded")")
        #expect(message?.contains(fragment) == true, "\(message ?? "loaded")")
    }

    @Test("an unsupported normalizer is harmless when no added token is normalized")
    func normalizerIgnored() {
        #expect(Self.errorMessage("{" + Self.model + ###", "normalizer": {"type": "BertNormalizer"}}"###) == nil)
    }

    @Test("the unsupported fixture files fail with their names", arguments: [
        ("unsupported-wordpiece.tokenizer.json", "WordPiece"),
        ("unsupported-regex-replace.tokenizer.json", "Replace with a pattern that is not a plain string"),
    ])
    func unsupportedFiles(file: String, fragment: String) throws {
        #expect(throws: TokenizerError.self) { try TokenizerFixtures.tokenizer(file) }
        let data = try Data(contentsOf: TokenizerFixtures.folder.appendingPathComponent(file))
        let message = Self.errorMessage(String(decoding: data, as: UTF8.self), source: file)
        #expect(message?.contains(file) == true && message?.contains(fragment) == true, "\(message ?? "loaded")")
    }

    @Test("object keys are told apart by their bytes, large objects as small")
    func keysByBytes() throws {
        for n in [2, 100] {
            var members = (0..<n - 2).map { "\"k\($0)\": \($0)" }
            members += ["\"\u{3AC}\": 1", "\"\u{3B1}\u{301}\": 2", "\"k0\": 9"]
            let v = try JSONValue.parse("{" + members.joined(separator: ", ") + "}")
            let keys = v.objectValue?.map(\.key) ?? []
            #expect(keys.count == n + 1 - (n > 2 ? 1 : 0))
            #expect(keys.contains { Array($0.utf8) == Array("\u{3AC}".utf8) })
            #expect(keys.contains { Array($0.utf8) == Array("\u{3B1}\u{301}".utf8) })
            #expect(v["k0"] == .number("9"))
        }
    }
}
