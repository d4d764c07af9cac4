import Foundation
import Testing
@testable import ToolCallKit

/// One vector of `Fixtures/peers/*.json`: a model output from a peer's test suite with the
/// parse expected of us (see `Fixtures/peers/README.md`).
struct PeerVector: CustomTestStringConvertible, Sendable {
    let id: String
    let format: ToolCallFormat
    let input: [UInt8]
    let tools: ToolSet?
    let options: ToolCallDecoder.Options
    let vector: JSONValue

    var testDescription: String { id }

    static let sets = ["shared-conformance", "peer-json-family", "peer-tagged"]

    /// The keys a vector may have; any other (a misspelt `expected_text`) fails the load.
    static let vectorKeys: Set<String> = [
        "id", "source", "format", "input", "tools", "flags", "reasoning", "skip",
        "expected_calls", "expected_text", "expected_reasoning", "expect_rejection",
    ]
    static let knownFlags: Set<String> = ["--reasoning", "--reasoning-open"]

    /// Vectors whose peer expectation we knowingly do not follow, with the reason.
    static func knownDifferences() throws -> [String: String] { try knownDifferencesTable.get() }

    private static let knownDifferencesTable = Result { () throws -> [String: String] in
        let v = try JSONValue.parse(Array(try FixturePaths.data("peers/known-differences.json")))
        guard let members = v.objectValue else { throw FixtureError("peers/known-differences.json: not an object") }
        var out: [String: String] = [:]
        for (k, reason) in members {
            guard let r = reason.stringValue, !r.isEmpty else {
                throw FixtureError("peers/known-differences.json: \(k) has no reason")
            }
            out[k] = r
        }
        return out
    }

    /// Every vector to run (without the skipped ones and the known differences); throws for a
    /// set that does not load or a vector that breaks the shape.
    static func all() throws -> [PeerVector] { try allTable.get() }

    private static let allTable = Result { () throws -> [PeerVector] in
        let known = try knownDifferences()
        return try FixtureTable.nonEmpty(try sets.flatMap { set -> [PeerVector] in
            let what = "peers/\(set).json"
            guard let vectors = try JSONValue.parse(Array(try FixturePaths.data(what))).arrayValue else {
                throw FixtureError("\(what): not an array")
            }
            return try FixtureTable.nonEmpty(try vectors.enumerated().compactMap { (n, v) -> PeerVector? in
                let row = "\(what) vector \(n)"
                try FixtureTable.checkKeys(v, known: vectorKeys, in: row)
                guard let id = v["id"]?.stringValue, let name = v["format"]?.stringValue,
                    let input = v["input"]?.stringValue, v["expected_calls"]?.arrayValue != nil
                else { throw FixtureError("\(row): needs id, format, input and expected_calls") }
                guard let format = ToolCallFormat(name: name) else { throw FixtureError("\(row) (\(id)): unknown format \(name)") }
                guard v["skip"] == nil, known[id] == nil else { return nil }
                let tools = try v["tools"].map { try FixtureTable.tools($0, in: "\(row) (\(id))") }
                let flags = try (v["flags"]?.arrayValue ?? []).map { f -> String in
                    guard let s = f.stringValue, knownFlags.contains(s) else {
                        throw FixtureError("\(row) (\(id)): unknown flag \(f.jsonText)")
                    }
                    return s
                }
                let reasoning = v["expected_reasoning"] != nil || v["reasoning"] == .bool(true) || flags.contains("--reasoning")
                let options = ToolCallDecoder.Options(
                    idSeed: 1, reasoning: reasoning, reasoningOpen: flags.contains("--reasoning-open"))
                return PeerVector(id: id, format: format, input: Array(input.utf8), tools: tools, options: options, vector: v)
            }, what)
        }, "peers")
    }

    /// Decodes the input whole or in `chunk`-byte pieces.
    func decode(chunk: Int) -> [ToolCallEvent] {
        var d = ToolCallDecoder(format: format, tools: tools, options: options)
        var out: [ToolCallEvent] = []
        var i = 0
        while i < input.count {
            let e = min(input.count, i + chunk)
            d.feed(input[i..<e], into: &out)
            i = e
        }
        d.finish(into: &out)
        return out
    }
}

/// The peers' expectations, judged as the conformance scorer judges them: calls (name and
/// arguments), visible text and reasoning with white space removed, and whether a rejection
/// came; whole and one byte at a time.
@Suite("Peer vectors (Fixtures/peers)")
struct PeerVectorTests {
    @Test("the sets load, and every known difference names a vector")
    func sets() throws {
        let all = try PeerVector.all()
        #expect(all.count >= 650, "\(all.count) vectors")
        var ids: Set<String> = []
        for set in PeerVector.sets {
            let data = try FixturePaths.data("peers/\(set).json")
            for v in try JSONValue.parse(Array(data)).arrayValue ?? [] { if let id = v["id"]?.stringValue { ids.insert(id) } }
        }
        for id in try PeerVector.knownDifferences().keys { #expect(ids.contains(id), "unknown id \(id)") }
    }

    @Test("calls, text and rejections as expected", arguments: try PeerVector.all())
    func vector(_ p: PeerVector) {
        for chunk in [Int.max, 1] {
            let label = "\(p.id) \(chunk == 1 ? "byte by byte" : "whole")"
            let events = p.decode(chunk: chunk)
            var text: [UInt8] = []
            var reasoning: [UInt8] = []
            var calls: [ToolCall] = []
            var rejections = 0
            for e in events {
                switch e {
                case .text(let t): text += t.utf8
                case .reasoning(let t, _): reasoning += t.utf8
                case .toolCall(let c): calls.append(c)
                case .rejected: rejections += 1
                default: break
                }
            }
            let expected = p.vector["expected_calls"]?.arrayValue ?? []
            #expect(calls.count == expected.count, "[\(label)] \(calls.count) calls, expected \(expected.count)")
            for (c, e) in zip(calls, expected) {
                #expect(c.name == e["name"]?.stringValue, "[\(label)] name \(c.name)")
                if let args = e["arguments"] {
                    #expect(sameJSON(c.arguments, args), "[\(label)] arguments \(c.arguments.jsonText) != \(args.jsonText)")
                }
            }
            func squeezed(_ s: String) -> String { s.split(whereSeparator: \.isWhitespace).joined() }
            if let want = p.vector["expected_text"]?.stringValue {
                let got = String(decoding: text, as: UTF8.self)
                #expect(squeezed(got) == squeezed(want), "[\(label)] text \(got.debugDescription)")
            }
            if let want = p.vector["expected_reasoning"]?.stringValue {
                let got = String(decoding: reasoning, as: UTF8.self)
                #expect(squeezed(got) == squeezed(want), "[\(label)] reasoning \(got.debugDescription)")
            }
            switch p.vector["expect_rejection"] {
            case .bool(true)?: #expect(rejections > 0, "[\(label)] no rejection")
            case .bool(false)?: #expect(rejections == 0, "[\(label)] \(rejections) rejections")
            default: break
            }
        }
    }
}
