import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// Random calls (seeded, so a failure reproduces) through the round trip of every format.
///
/// Strings are built from pieces that stress the writers: quotes, backslashes, control bytes,
/// brackets, unicode, strings that read as numbers, and every format's markers. A format may
/// refuse a case only where it cannot express it: a text-valued format (xml_function, glm4,
/// minimax_m2) given a string that quotes its own tags. Any other refusal is a failure.
@Suite("Rendering round trip, random calls")
struct RandomRoundTripTests {
    static let casesPerFormat = 100
    /// The first cases are split at every offset too; the rest are decoded whole and byte by byte.
    static let everySplitCases = 25

    static let names = ["get_weather", "write_file", "f", "search.web", "a-b_c", "天気"]
    static let keys = ["city", "days", "content", "path", "a", "b_c", "x1", "data", "ключ", "value"]
    static let pieces = [
        "abc", "Paris", " ", "  ", "\n", "\n\n", "\t", "\r\n", "\"", "'", "\\", "\\n", "{", "}", "[", "]", "(", ")", ",",
        ":", "=", ";", "<", ">", "/", "東京", "👍🏽", "e\u{301}", "\u{1}", "\u{7f}", "null", "3", "-2.5", "true", "None", "x=1",
    ]

    struct Generator {
        var rng: SeededRandom

        mutating func pick<T>(_ a: [T]) -> T { a[Int(rng.next() % UInt64(a.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }

        mutating func string() -> String {
            var s = ""
            for _ in 0..<Int(rng.next() % 9) {
                s += chance(12) ? pick(allMarkers) : pick(RandomRoundTripTests.pieces)
            }
            return s
        }

        mutating func value(depth: Int) -> JSONValue {
            switch rng.next() % 100 {
            case 0..<45: return .string(string())
            case 45..<60: return .number(pick(["0", "-1", "3.25", "1e+30", "42", "12345678901234567890"]))
            case 60..<66: return .bool(chance(50))
            case 66..<70: return .null
            case 70..<85 where depth < 4:
                return .array((0..<Int(rng.next() % 4)).map { _ in value(depth: depth + 1) })
            case 85..<100 where depth < 4:
                return object(depth: depth + 1, count: Int(rng.next() % 4))
            default: return .string(string())
            }
        }

        mutating func object(depth: Int, count: Int) -> JSONValue {
            var members: [(key: String, value: JSONValue)] = []
            for _ in 0..<count {
                let k = pick(RandomRoundTripTests.keys)
                if members.contains(where: { $0.key == k }) { continue }
                members.append((key: k, value: depth == 0 ? argument(k) : value(depth: depth)))
            }
            return .object(members)
        }

        /// A top-level argument: its type is fixed by its key, as a tool's schema fixes it.
        mutating func argument(_ key: String) -> JSONValue {
            switch key {
            case "days": return .number(pick(["0", "-1", "3.25", "1e+30", "42", "12345678901234567890"]))
            case "a": return .bool(chance(50))
            case "b_c": return .array((0..<Int(rng.next() % 4)).map { _ in value(depth: 1) })
            case "x1", "data": return object(depth: 1, count: Int(rng.next() % 4))
            case "value": return .null
            default: return .string(string())
            }
        }

        mutating func calls() -> [RenderedCall] {
            (0..<(1 + Int(rng.next() % 3))).map { i in
                let name = pick(RandomRoundTripTests.names)
                let id: String?
                switch rng.next() % 4 {
                case 0: id = nil
                case 1: id = "functions.\(name):\(10 + i)"
                case 2: id = "Ab3dE\(i)xY9"  // 9 letters and digits: Mistral carries it
                default: id = "call_\(i)"
                }
                return RenderedCall(name: name, arguments: object(depth: 0, count: Int(rng.next() % 5)), id: id)
            }
        }

        mutating func text() -> String? {
            chance(30) ? pick(["Sure.", "Let me look that up:\n", "Two steps: first, second"]) : nil
        }
    }

    @Test("seeded random calls come back in every format", arguments: everyFormatAndVariant)
    func random(_ format: ToolCallFormat) {
        var g = Generator(rng: SeededRandom(state: 0x7E57_0000 &+ UInt64(format.rawValue.utf8.count)))
        var rendered = 0
        var refused = 0
        var decodes = 0
        for k in 0..<Self.casesPerFormat {
            let calls = g.calls()
            let text = g.text()
            let label = "random case \(k)"
            // A variant decodes with its base's grammar (lfm2_python aside): whole and byte by byte.
            let everySplit = k < Self.everySplitCases && (format.variantOf == nil || format == .lfm2Python)
            switch RoundTrip.check(format, calls, text: text, everySplit: everySplit, label: label) {
            case .success(let outcome):
                rendered += 1
                decodes += outcome.decodes
            case .failure(let error):
                refused += 1
                let quotesTags = calls.contains { c in
                    (c.arguments.objectValue ?? []).contains { m in
                        guard case .string(let v) = m.value else { return false }
                        return (format.definition.markerTexts + format.definition.fuzzWords).contains { v.contains($0) }
                    }
                }
                let verbatim = format == .lfm2 && holdsBothQuotes(calls) && error.reason.contains("verbatim")
                #expect((textValued.contains(format) && quotesTags) || verbatim, "[\(label)] \(format.rawValue) refused: \(error)")
            }
        }
        #expect(rendered > Self.casesPerFormat / 2, "\(format.rawValue): only \(rendered) cases rendered")
        TestLog.note("random round trip \(format.rawValue): \(Self.casesPerFormat) cases, \(rendered) rendered x chunkings = \(decodes) decodes, \(refused) refused")
    }
}
