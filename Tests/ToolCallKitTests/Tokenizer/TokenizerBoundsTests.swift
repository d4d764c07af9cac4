import Foundation
import Testing
@testable import ToolCallKit

/// A tokenizer file is input a user controls: an id in it must not size an allocation.
@Suite("Tokenizer: ids are bounded by the tokens present")
struct TokenizerBoundsTests {
    /// A BPE tokenizer.json with `vocab` and `added` (id, content) entries.
    static func file(vocab: [(String, Int)], added: [(Int, String)]) -> [UInt8] {
        let v = vocab.map { "\(JSONValue.string($0.0).jsonText): \($0.1)" }.joined(separator: ", ")
        let a = added.map { #"{"id": \#($0.0), "content": \#(JSONValue.string($0.1).jsonText), "special": true}"# }
            .joined(separator: ", ")
        return Array(#"{"model": {"type": "BPE", "vocab": {\#(v)}}, "added_tokens": [\#(a)]}"#.utf8)
    }

    static func message(_ bytes: [UInt8]) -> String? {
        do throws(TokenizerError) {
            _ = try Tokenizer(json: bytes, source: "t.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("an added token with a huge id is an error naming it, not an allocation up to the id", arguments: [
        (100_000_000, "t.json: added token \"<x>\" has id 100000000, above the largest id supported (16777215)"),
        (10_000_000_000, "t.json: added token \"<x>\" has id 10000000000, above the largest id supported (16777215)"),
        (1 << 24, "t.json: added token \"<x>\" has id 16777216, above the largest id supported (16777215)"),
        (1_000_000, "t.json: added token \"<x>\" has id 1000000, far beyond the 2 tokens the file defines (ids must be below 65540 here)"),
    ])
    func hugeAddedID(id: Int, expected: String) {
        #expect(Self.message(Self.file(vocab: [("a", 0)], added: [(id, "<x>")])) == expected)
    }

    @Test("a sparse vocabulary id is an error naming the entry")
    func hugeVocabularyID() {
        let m = Self.message(Self.file(vocab: [("a", 0), ("far", 16_000_000)], added: []))
        #expect(m == "t.json: vocabulary entry \"far\" has id 16000000, far beyond the 2 entries of the vocabulary (ids must be below 65540 here)")
    }

    @Test("the token named in the message has its control bytes escaped and is cut")
    func quotedName() throws {
        let name = "<\u{0}\u{1B}" + String(repeating: "é", count: 100) + ">"
        let m = try #require(Self.message(Self.file(vocab: [("a", 0)], added: [(90_000_000, name)])))
        #expect(m.hasPrefix(#"t.json: added token "<\u0000\u001b"#))
        #expect(!m.utf8.contains { $0 < 0x20 })
        #expect(m.contains("…\" has id 90000000"))
    }

    @Test("gaps within the bound are fine: a padded vocabulary loads, and the gap ids are unused")
    func gapsWithinTheBound() throws {
        let t = try Tokenizer(json: Self.file(vocab: [("a", 0), ("b", 1)], added: [(60_000, "<pad>")]), source: "t.json")
        #expect(t.vocabularySize == 60_001)
        #expect(t.contains(60_000) && t.isSpecial(60_000))
        #expect(!t.contains(30_000))
        #expect(t.pieceBytes(60_000) == Array("<pad>".utf8))
    }

    @Test("the CLI exits 1 with one line naming the token")
    func cli() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("toolcall-tok-\(UUID().uuidString).json")
        try Data(Self.file(vocab: [("a", 0)], added: [(10_000_000_000, "<x>")])).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let r = try CLI.run(["decode", "--format", "json", "--input", "tokens", "--tokenizer", url.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains(#"added token "<x>" has id 10000000000"#), "stderr: \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }
}
