import Foundation
import Testing
@testable import ToolCallKit

/// The linear-time matcher that runs xml-inline's `tag_pattern` must find what PCRE2 finds:
/// the same first match with the same groups, for the tag patterns of every template in
/// `Fixtures/response_templates/templates/` and the patterns of `linear_regex.json`, on
/// subjects made from each pattern's own characters.
@Suite("Response templates: the linear-time tag matcher")
struct LinearRegexTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var pattern: String
        var testDescription: String { pattern }
    }

    static func fixture() throws -> JSONValue {
        try JSONValue.parse(Array(try FixturePaths.data("response_templates/linear_regex.json")))
    }

    /// Every tag pattern of the shipped templates, then the fixture's own.
    static func patterns() throws -> [Case] {
        var out: [Case] = []
        let dir = FixturePaths.root.appendingPathComponent("response_templates/templates")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".json") {
            let spec = try JSONValue.parse(Array(try FixturePaths.data("response_templates/templates/\(name)")))
            let t = spec["response_template"] ?? spec
            for (_, field) in t["fields"]?.objectValue ?? [] {
                if case .string(let p)? = field["content_args"]?["tag_pattern"] { out.append(Case(pattern: p)) }
            }
        }
        #expect(out.count >= 8)
        for p in try fixture()["patterns"]?.arrayValue ?? [] {
            guard case .string(let s) = p else { throw FixtureError("linear_regex.json: a pattern that is not a string") }
            out.append(Case(pattern: s))
        }
        return out
    }

    /// Subjects from the pattern's own characters and the fixture's alphabet, by a fixed
    /// pseudo-random sequence.
    static func subjects(for pattern: String, count: Int) throws -> [[UInt8]] {
        var alphabet = try fixture()["alphabet"]?.arrayValue?.compactMap(\.stringValue) ?? []
        alphabet += pattern.unicodeScalars.filter { !"\\()[]{}?*+|^$".unicodeScalars.contains($0) }.map { String($0) }
        // Literal runs of the pattern, so that long matches happen too.
        alphabet += pattern.split(whereSeparator: { "\\()[]{}?*+|^$.".contains($0) }).map(String.init).filter { $0.count > 1 }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(pattern.utf8.count)
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        return (0..<count).map { _ in
            var s = ""
            for _ in 0..<(next() % 24) { s += alphabet[next() % alphabet.count] }
            return Array(s.utf8)
        }
    }

    @Test(arguments: try patterns())
    func agreesWithPCRE2(_ c: Case) throws {
        let source = ResponseTemplate.translate(c.pattern)
        let linear = try LinearRegex(source)
        let pcre = try PCRE2Regex(source, options: [.dotAll, .utf, .ucp])
        #expect(linear.names == pcre.namedGroups)
        let m = pcre.makeMatcher()
        for subject in try Self.subjects(for: c.pattern, count: 200) {
            // From the start, and from every scalar boundary.
            var starts = [0]
            for (i, b) in subject.enumerated() where b & 0xC0 != 0x80 && i > 0 { starts.append(i) }
            for from in starts {
                var budget = 1 << 30
                let got = try linear.firstMatch(in: subject, from: from, budget: &budget)
                var want: [Range<Int>?]?
                if case .match(let g) = try m.match(subject, from: from) { want = g }
                #expect(got == want, "\(String(decoding: subject, as: UTF8.self).debugDescription) from \(from)")
            }
        }
    }

    @Test func refusesWhatItCannotRun() throws {
        for row in try Self.fixture()["refused"]?.arrayValue ?? [] {
            guard case .string(let p)? = row.arrayValue?.first, case .string(let construct)? = row.arrayValue?.last else {
                throw FixtureError("linear_regex.json: refused holds [pattern, construct] pairs")
            }
            #expect(throws: LinearRegexError.self, "\(p)") { try LinearRegex(p) }
            do { _ = try LinearRegex(p) } catch { #expect(error.construct == construct, "\(p)") }
        }
    }

    @Test func costsLinearSteps() throws {
        // The shape that cost PCRE2 the cube of a run of spaces: steps grow with the bytes.
        let tag = try LinearRegex(ResponseTemplate.translate(#"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>"#))
        var used: [Int] = []
        for n in [1000, 4000] {
            let body = Array(("<parameter=a>x" + String(repeating: " ", count: n) + "y").utf8)
            var budget = Int.max
            _ = try tag.firstMatch(in: body, from: 0, budget: &budget)
            used.append(Int.max - budget)
        }
        #expect(used[1] < 5 * used[0], "steps \(used)")
    }
}
