import Foundation
import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// The repository's `Fixtures/` folder, found from this file (a user's clone has it; tests
/// read nothing outside the repository).
enum FixturePaths {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(relative))
    }
}

/// A fixture file that cannot be used: the loaders throw it, so a broken fixture fails the run
/// instead of dropping out of it.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Fixture loading shared by the table-driven suites.
enum FixtureTable {
    /// `rows`, which must not be empty: an empty table would make its tests pass vacuously.
    static func nonEmpty<T>(_ rows: [T], _ what: String) throws -> [T] {
        guard !rows.isEmpty else { throw FixtureError("\(what): no rows") }
        return rows
    }

    /// Throws when `object` has a key outside `known` (a misspelt key would turn a check off).
    static func checkKeys(_ object: JSONValue, known: Set<String>, in what: String) throws {
        guard let members = object.objectValue else { throw FixtureError("\(what): not a JSON object") }
        for (key, _) in members where !known.contains(key) {
            throw FixtureError("\(what): unknown key \"\(key)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// A tools array written inside a fixture, loaded as a ``ToolSet``.
    static func tools(_ value: JSONValue, in what: String) throws -> ToolSet {
        var bytes: [UInt8] = []
        value.write(to: &bytes)
        do {
            return try ToolSet.load(json: bytes)
        } catch {
            throw FixtureError("\(what): tools: \(error)")
        }
    }
}

/// One `Fixtures/formats/<format>/<name>.txt` with its `<name>.expected.json`.
///
/// The expected file: `{"description", "tools"?, "options"?: {"max_call_bytes", "max_depth",
/// "reasoning", "reasoning_open", "validate", "whole_calls", "tool_choice" (OpenAI's value: a
/// string or an object), "parallel_tool_calls"}, "events": [...]}`.
/// `events` lists the normalized events (adjacent text merged; `tool_call_start`, deltas and
/// `markup` left out, since the verifier checks them) with the fields to compare:
/// `{"type": "text", "text"}`, `{"type": "reasoning", "text"}`,
/// `{"type": "tool_call", "name", "arguments"?, "index"?, "id"?}`,
/// `{"type": "rejected", "reason", "name"?, "index"?, "raw"?, "detail"?}` (`detail` is compared
/// on the whole-input decode),
/// `{"type": "end", "tool_calls", "rejected"}`.
/// A key outside these, a tools array that does not load or an option of the wrong type makes
/// the loader throw.
struct FormatFixture: CustomTestStringConvertible, Sendable {
    let format: ToolCallFormat
    let name: String
    let input: [UInt8]
    let expected: JSONValue
    let tools: ToolSet?
    let options: ToolCallDecoder.Options

    var testDescription: String { "\(format.rawValue)/\(name)" }

    static let fileKeys: Set<String> = ["description", "tools", "options", "events"]
    static let optionKeys: Set<String> = [
        "max_call_bytes", "max_depth", "reasoning", "reasoning_open", "validate", "whole_calls", "tool_choice", "parallel_tool_calls",
    ]

    /// Every fixture of a format; throws for a file that cannot be read or parsed, an input
    /// without its expected file (or the reverse), or an expected file that breaks the shape.
    static func all(_ format: ToolCallFormat) throws -> [FormatFixture] {
        let dir = FixturePaths.root.appendingPathComponent("formats/\(format.rawValue)")
        guard FileManager.default.fileExists(atPath: dir.path) else { return [] }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let inputs = Set(names.filter { $0.hasSuffix(".txt") }.map { String($0.dropLast(4)) })
        let expectations = Set(names.filter { $0.hasSuffix(".expected.json") }.map { String($0.dropLast(14)) })
        if let lone = inputs.symmetricDifference(expectations).sorted().first {
            throw FixtureError("formats/\(format.rawValue)/\(lone): the .txt and .expected.json must come in pairs")
        }
        return try inputs.sorted().map { base in
            let what = "formats/\(format.rawValue)/\(base).expected.json"
            let input = try Data(contentsOf: dir.appendingPathComponent(base + ".txt"))
            let exp = try Data(contentsOf: dir.appendingPathComponent(base + ".expected.json"))
            let expected: JSONValue
            do {
                expected = try JSONValue.parse(Array(exp))
            } catch {
                throw FixtureError("\(what): not valid JSON: \(error)")
            }
            try FixtureTable.checkKeys(expected, known: fileKeys, in: what)
            guard expected["events"]?.arrayValue != nil else { throw FixtureError("\(what): no \"events\" array") }
            return FormatFixture(
                format: format, name: base, input: Array(input), expected: expected,
                tools: try expected["tools"].map { try FixtureTable.tools($0, in: what) },
                options: try options(expected["options"], in: what))
        }
    }

    /// The decoder options of a fixture: raw spans and id seed 7, then the file's `options`.
    static func options(_ value: JSONValue?, in what: String) throws -> ToolCallDecoder.Options {
        var o = ToolCallDecoder.Options(rawSpans: true, idSeed: 7)
        guard let value else { return o }
        try FixtureTable.checkKeys(value, known: optionKeys, in: what + " options")
        func flag(_ key: String) throws -> Bool {
            guard let v = value[key] else { return false }
            guard case .bool(let b) = v else { throw FixtureError("\(what): options.\(key) must be true or false") }
            return b
        }
        func number(_ key: String) throws -> Int? {
            guard let v = value[key] else { return nil }
            guard let d = v.doubleValue, let n = Int(exactly: d) else {
                throw FixtureError("\(what): options.\(key) must be a whole number")
            }
            return n
        }
        func limit(_ key: String) throws -> Limit? {
            guard let n = try number(key) else { return nil }
            do {
                return try Limit(n)
            } catch {
                throw FixtureError("\(what): options.\(key): \(error)")
            }
        }
        if let n = try limit("max_call_bytes") { o.maxCallBytes = n }
        if let n = try limit("max_depth") { o.maxDepth = n }
        if try flag("whole_calls") { o.wholeCalls = true }
        if try flag("reasoning") { o.reasoning = true }
        if try flag("reasoning_open") {
            o.reasoning = true
            o.reasoningOpen = true
        }
        if try flag("validate") { o.validate = true }
        if let v = value["tool_choice"] {
            guard let choice = ToolChoice(json: v) else { throw FixtureError("\(what): options.tool_choice: \(v.jsonText) is not a tool_choice") }
            o.toolChoice = choice
        }
        if value["parallel_tool_calls"] != nil {
            guard case .bool(let b)? = value["parallel_tool_calls"] else { throw FixtureError("\(what): options.parallel_tool_calls must be true or false") }
            o.parallelToolCalls = b
        }
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

    /// Every fixture of the implemented formats and their model variants (a variant's own
    /// fixtures are what sets it apart); throws for any fixture that does not load.
    static func fixtures() throws -> [FormatFixture] {
        try FixtureTable.nonEmpty(try (implemented + ToolCallFormat.variants).flatMap { try FormatFixture.all($0) }, "Fixtures/formats")
    }

    @Test("every model variant has fixtures of its own", arguments: ToolCallFormat.variants)
    func variantFixtures(format: ToolCallFormat) throws {
        #expect(try FormatFixture.all(format).count >= 2, "\(format.rawValue)")
    }

    @Test("every implemented format has at least 15 fixtures, and every fixture loads", arguments: implemented)
    func enoughFixtures(format: ToolCallFormat) throws {
        let count = try FormatFixture.all(format).count
        #expect(count >= 15, "\(format.rawValue): \(count) fixtures")
    }

    @Test("whole, byte by byte, in token-sized pieces and split at every offset", arguments: try fixtures())
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
