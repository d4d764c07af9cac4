import Foundation
import Synchronization
import Testing
@testable import ToolCallKit

/// The tokenizers and reference decodes of `Fixtures/tokenizers/` (see its SOURCE.md).
enum TokenizerFixtures {
    static let folder = FixturePaths.root.appendingPathComponent("tokenizers")

    /// Loads a tokenizer file of the folder (each file once per test run).
    static func tokenizer(_ name: String) throws -> Tokenizer {
        if let t = cache.withLock({ $0[name] }) { return t }
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        let t = try Tokenizer(json: Array(data), source: name)
        cache.withLock { $0[name] = t }
        return t
    }

    private static let cache = Mutex<[String: Tokenizer]>([:])

    /// One reference decode made by Hugging Face `tokenizers` (`decodes.json`).
    struct Decode: Decodable, CustomTestStringConvertible, Sendable {
        let name: String
        let tokenizer: String
        let ids: [Int]
        /// `decode(ids, skip_special_tokens=False)`.
        let text: String
        /// The decode without the special tokens that are not json-format markers.
        let text_skip: String
        var testDescription: String { name }
    }

    /// The reference decodes; throws when `decodes.json` is missing, does not decode or is empty.
    static func decodes() throws -> [Decode] { try decodesTable.get() }

    private static let decodesTable = Result { () throws -> [Decode] in
        struct File: Decodable { let cases: [Decode] }
        let data = try Data(contentsOf: folder.appendingPathComponent("decodes.json"))
        return try FixtureTable.nonEmpty(try JSONDecoder().decode(File.self, from: data).cases, "tokenizers/decodes.json")
    }

    /// A sample of `samples/<name>.json` (copied from the shared acceptance set).
    struct Sample: Decodable, CustomTestStringConvertible, Sendable {
        let id: String
        let ids: [Int]
        let text: String
        let expected_text: String
        let tokenizer: String?
        let expected_calls: [Call]
        var testDescription: String { id }

        struct Call: Decodable, Sendable {
            let name: String
            let arguments: AnyJSON
        }

        /// The fixture file: the "with markers" tokenizers are supersets of the plain ones
        /// (same vocabulary and decoder, two added tokens), so every sample uses them.
        var tokenizerFile: String {
            id.hasPrefix("gpt2/") ? "gpt2-with-markers.tokenizer.json" : "llama-with-markers.tokenizer.json"
        }
    }

    /// The samples of both files; throws when either is missing, does not decode or is empty.
    static func samples() throws -> [Sample] { try samplesTable.get() }

    private static let samplesTable = Result { () throws -> [Sample] in
        struct File: Decodable { let samples: [Sample] }
        var out: [Sample] = []
        for name in ["gpt2", "llama"] {
            let data = try Data(contentsOf: folder.appendingPathComponent("samples/\(name).json"))
            out += try FixtureTable.nonEmpty(try JSONDecoder().decode(File.self, from: data).samples, "tokenizers/samples/\(name).json")
        }
        return out
    }
}

/// Any JSON value of a sample file, read through `JSONValue`'s own `Decodable` conformance.
struct AnyJSON: Decodable, Sendable {
    let value: JSONValue

    init(from decoder: any Decoder) throws {
        value = try JSONValue(from: decoder)
    }
}

/// Order-insensitive comparison of objects (the expected calls come through a dictionary).
func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)):
        // By value, as clients read them (`7` and `7.0`).
        guard let p = Double(x), let q = Double(y) else { return x == y }
        return abs(p - q) <= 1e-9 * max(1, abs(p), abs(q))
    case (.object(let x), .object(let y)):
        guard x.count == y.count else { return false }
        for (k, v) in x {
            guard let w = y.first(where: { $0.key == k })?.value, sameJSON(v, w) else { return false }
        }
        return true
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
    default:
        return a == b
    }
}
