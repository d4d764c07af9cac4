import Testing
@testable import ToolCallKit

@Suite("Incremental JSON reader")
struct JSONReaderTests {
    /// Feeds `text` to a reader in pieces of `step` bytes and returns the value or the error.
    static func read(_ text: [UInt8], step: Int, maxDepth: Int = 512) -> Result<JSONValue, JSONValue.ParseError> {
        var w = ByteWindow()
        var reader = JSONReader(maxDepth: maxDepth)
        var pos = 0
        var fed = 0
        while true {
            if pos >= w.end {
                guard fed < text.count else {
                    if let v = reader.finishTopLevelNumber() { return .success(v) }
                    return .failure(.init(message: "unexpected end of input", offset: pos))
                }
                let next = min(text.count, fed + step)
                w.append(text[fed..<next])
                fed = next
            }
            switch reader.advance(w, from: &pos, to: w.end) {
            case .complete(let v, _): return .success(v)
            case .error(let m, let at): return .failure(.init(message: m, offset: at))
            case .tooDeep(let at): return .failure(.init(message: "too deep", offset: at))
            case .needMore, .valueStart, .valueEnd: continue
            }
        }
    }

    @Test("values read the same in every chunk size", arguments: [
        (#"{"a": 1, "b": [true, false, null], "c": {"d": "e"}}"#, #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#),
        (#"[]"#, "[]"),
        (#"{}"#, "{}"),
        (#"[ 1 , -2.5e+3 , 0 ]"#, "[1,-2.5e+3,0]"),
        (#""tab\tquote\"slash\/back\\""#, #""tab\tquote\"slash/back\\""#),
        (#""\u00e9\ud83c\udf0d\u4f60""#, "\"é🌍你\""),
        (#""lone \ud800 high""#, "\"lone \u{FFFD} high\""),
        (#"{"k": "raw\nnewline"}"#, #"{"k":"raw\nnewline"}"#),
        (#"{"dup": 1, "dup": 2}"#, #"{"dup":2}"#),
        ("12345", "12345"),
    ])
    func values(input: String, expected: String) {
        for step in [1, 2, 3, 7, 1000] {
            switch Self.read(Array(input.utf8), step: step) {
            case .success(let v): #expect(v.jsonText == expected, "step \(step)")
            case .failure(let e): Issue.record("step \(step): \(e)")
            }
        }
    }

    @Test("invalid JSON fails at the offending byte", arguments: [
        (#"{"a" 1}"#, 5),
        (#"{'a': 1}"#, 1),
        (#"[1, 2,]"#, 6),
        (#"{"a": tru}"#, 9),
        (#"{"a": "\q"}"#, 8),
        (#"[01x]"#, 3),
        (#"{"a": 1,}"#, 8),
    ])
    func errors(input: String, offset: Int) {
        for step in [1, 1000] {
            switch Self.read(Array(input.utf8), step: step) {
            case .success(let v): Issue.record("step \(step): parsed \(v.jsonText)")
            case .failure(let e): #expect(e.offset == offset, "step \(step): \(e)")
            }
        }
    }

    @Test("nesting past the cap is reported, not a crash")
    func depthCap() {
        let deep = Array(String(repeating: "[", count: 200_000).utf8)
        switch Self.read(deep, step: 4096, maxDepth: 512) {
        case .success: Issue.record("accepted 200,000 levels")
        case .failure(let e): #expect(e.message == "too deep" && e.offset == 512)
        }
    }

    @Test("a member's start and end are reported at the watched depth")
    func watchedDepth() {
        var w = ByteWindow()
        w.append(Array(#"{"name": "f", "arguments": {"x": [1]}}"#.utf8))
        var reader = JSONReader(reportDepth: 1)
        var pos = 0
        var seen: [String] = []
        loop: while true {
            switch reader.advance(w, from: &pos, to: w.end) {
            case .valueStart(let d, let k, let at): seen.append("start \(d) \(k ?? "-") \(at)")
            case .valueEnd(let d, let k, let v, let end): seen.append("end \(d) \(k ?? "-") \(v.jsonText) \(end)")
            case .complete: break loop
            case .needMore, .error, .tooDeep:
                Issue.record("unexpected stop")
                break loop
            }
        }
        #expect(seen == [
            "start 1 name 9", "end 1 name \"f\" 12",
            "start 1 arguments 27", "end 1 arguments {\"x\":[1]} 37",
        ])
    }
}
