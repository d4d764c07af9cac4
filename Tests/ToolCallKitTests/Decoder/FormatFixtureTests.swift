import Foundation
import Testing
@testable import ToolCallKit

/// The repository's `Fixtures/` folder, found from this file (a user's clone has it; tests
/// never read `../shared`).
enum FixturePaths {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(relative))
    }
}

/// One `Fixtures/formats/<format>/<name>.txt` with its `<name>.expected.json`.
///
/// The expected file: `{"description", "tools"?, "options"?: {"max_call_bytes", "max_depth",
/// "reasoning", "reasoning_open", "validate"}, "events": [...]}`.
/// `events` lists the normalized events (adjacent text merged; `tool_call_start`, deltas and
/// `markup` left out, since the verifier checks them) with the fields to compare:
/// `{"type": "text", "text"}`, `{"type": "reasoning", "text"}`,
/// `{"type": "tool_call", "name", "arguments"?, "index"?, "id"?}`,
/// `{"type": "rejected", "reason", "name"?, "index"?, "raw"?, "detail"?}` (`detail` is compared
/// on the whole-input decode),
/// `{"type": "end", "tool_calls", "rejected"}`.
struct FormatFixture: CustomTestStringConvertible, Sendable {
    let format: ToolCallFormat
    let name: String
    let input: [UInt8]
    let expected: JSONValue

    var testDescription: String { "\(format.rawValue)/\(name)" }

    static func all(_ format: ToolCallFormat) -> [FormatFixture] {
        let dir = FixturePaths.root.appendingPathComponent("formats/\(format.rawValue)")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [] }
        return names.filter { $0.hasSuffix(".txt") }.sorted().compactMap { file in
            let base = String(file.dropLast(4))
            guard let input = try? Data(contentsOf: dir.appendingPathComponent(file)),
                let exp = try? Data(contentsOf: dir.appendingPathComponent(base + ".expected.json")),
                let expected = try? JSONValue.parse(Array(exp))
            else { return nil }
            return FormatFixture(format: format, name: base, input: Array(input), expected: expected)
        }
    }

    /// Every fixture file pair of a format, counted (a missing or unreadable expected file shows).
    static func fileCount(_ format: ToolCallFormat) -> Int {
        let dir = FixturePaths.root.appendingPathComponent("formats/\(format.rawValue)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.count
    }

    var tools: ToolSet? {
        guard let t = expected["tools"] else { return nil }
        var bytes: [UInt8] = []
        t.write(to: &bytes)
        return try? ToolSet.load(json: bytes)
    }

    var options: ToolCallDecoder.Options {
        var o = ToolCallDecoder.Options(rawSpans: true, idSeed: 7)
        if let n = expected["options"]?["max_call_bytes"]?.doubleValue { o.maxCallBytes = try! Limit(Int(n)) }
        if let n = expected["options"]?["max_depth"]?.doubleValue { o.maxDepth = try! Limit(Int(n)) }
        if expected["options"]?["reasoning"] == .bool(true) { o.reasoning = true }
        if expected["options"]?["reasoning_open"] == .bool(true) {
            o.reasoning = true
            o.reasoningOpen = true
        }
        if expected["options"]?["validate"] == .bool(true) { o.validate = true }
        return o
    }
}

/// Compares normalized events with a fixture's expected list, field by field.
func expectEvents(_ actual: [ChunkingVerifier.Normalized], match expected: [JSONValue], label: String,
                  sourceLocation: SourceLocation = #_sourceLocation) {
    let kept = actual.filter {
        switch $0 {
        case .start, .arguments, .markup: return false
        default: return true
        }
    }
    guard kept.count == expected.count else {
        Issue.record("[\(label)] \(kept.count) events, expected \(expected.count):\n  \(kept)\nvs\n  \(expected.map(\.jsonText))", sourceLocation: sourceLocation)
        return
    }
    for (a, e) in zip(kept, expected) {
        let type = e["type"]?.stringValue ?? "?"
        var ok = true
        switch a {
        case .text(let t): ok = type == "text" && e["text"]?.stringValue == String(decoding: t, as: UTF8.self)
        case .reasoning(let t): ok = type == "reasoning" && e["text"]?.stringValue == String(decoding: t, as: UTF8.self)
        case .call(let index, let id, let name, let arguments):
            ok = type == "tool_call" && e["name"]?.stringValue == name
            if let x = e["arguments"] { ok = ok && x == arguments }
            if let x = e["index"]?.doubleValue { ok = ok && Int(x) == index }
            if let x = e["id"]?.stringValue { ok = ok && x == id }
        case .rejected(let reason, let index, let name, let raw):
            ok = type == "rejected" && e["reason"]?.stringValue == reason
            if let x = e["name"]?.stringValue { ok = ok && x == name }
            if let x = e["index"]?.doubleValue { ok = ok && Int(x) == index }
            if let x = e["raw"]?.stringValue { ok = ok && Array(x.utf8) == raw }
        case .end(let calls, let rejected, _):
            ok = type == "end" && e["tool_calls"]?.doubleValue.map { Int($0) == calls } ?? false
                && e["rejected"]?.doubleValue.map { Int($0) == rejected } ?? false
        case .start, .arguments, .markup: ok = false
        }
        if !ok {
            Issue.record("[\(label)] got \(a), expected \(e.jsonText)", sourceLocation: sourceLocation)
        }
    }
}

@Suite("Format fixtures through the chunking verifier")
struct FormatFixtureTests {
    static let implemented = ToolCallFormat.allCases.filter(\.isImplemented)
    static let fixtures = implemented.flatMap { FormatFixture.all($0) }

    @Test("every implemented format has at least 15 readable fixtures", arguments: implemented)
    func enoughFixtures(format: ToolCallFormat) {
        let readable = FormatFixture.all(format).count
        #expect(readable >= 15, "\(format.rawValue): \(readable) fixtures")
        #expect(readable == FormatFixture.fileCount(format), "\(format.rawValue): an expected file is missing or not JSON")
    }

    @Test("whole, byte by byte and split at every offset", arguments: fixtures)
    func fixture(_ f: FormatFixture) throws {
        let verifier = ChunkingVerifier(format: f.format, tools: f.tools, options: f.options)
        let events = verifier.verify(f.input, everySplit: f.input.count <= 4096)
        let expected = try #require(f.expected["events"]?.arrayValue)
        expectEvents(events, match: expected, label: f.testDescription)
        // Rejection details (the verifier leaves them out): compared on the whole input.
        let details = expected.filter { $0["type"]?.stringValue == "rejected" }.map { $0["detail"]?.stringValue }
        if details.contains(where: { $0 != nil }) {
            var decoder = ToolCallDecoder(format: f.format, tools: f.tools, options: f.options)
            let got = (decoder.feed(f.input) + decoder.finish()).compactMap { e -> String? in
                if case .rejected(let r) = e { return r.detail }
                return nil
            }
            #expect(got.count == details.count, "[\(f.testDescription)] rejections")
            for (g, d) in zip(got, details) where d != nil {
                #expect(g == d, "[\(f.testDescription)] detail")
            }
        }
    }
}
