import Testing
@testable import ToolCallKit

@Suite("PCRE2 wrapper")
struct PCRE2RegexTests {
    static let subject = Array(#"hello <tool_call>{"name":"f","arguments":{}}</tool_call> bye"#.utf8)
    static let pattern = #"<tool_call>\s*(\{.*?\})\s*</tool_call>"#

    @Test("a bad pattern reports PCRE2's own message and offset")
    func compileError() {
        #expect(throws: PCRE2Error.self) { try PCRE2Regex("(unclosed") }
        do {
            _ = try PCRE2Regex("(unclosed")
        } catch {
            #expect(error.message == "missing closing parenthesis")
            #expect(error.offset == 9)
            #expect(error.code == 114)
        }
    }

    @Test("a full match gives the groups as byte ranges")
    func fullMatch() throws {
        let re = try PCRE2Regex(Self.pattern, options: .dotAll)
        #expect(re.isJIT)
        #expect(re.captureCount == 1)
        let m = re.makeMatcher()
        let r = try m.match(Self.subject)
        guard case .match(let groups) = r else {
            Issue.record("expected a match, got \(r)")
            return
        }
        #expect(groups[0] == 6..<56)
        let g1 = try #require(groups[1])
        #expect(String(decoding: Self.subject[g1], as: UTF8.self) == #"{"name":"f","arguments":{}}"#)
    }

    @Test("a cut subject is a partial match from where the marker begins", arguments: [
        (10, 6), (30, 6), (50, 6),
    ])
    func partialMatch(cut: Int, start: Int) throws {
        let re = try PCRE2Regex(Self.pattern, options: .dotAll)
        let m = re.makeMatcher()
        #expect(try m.match(Array(Self.subject[0..<cut]), partial: true) == .partial(start: start))
        #expect(try m.match(Array(Self.subject[0..<cut]), partial: false) == .noMatch)
    }

    @Test("no match, and nothing to hold back")
    func noMatch() throws {
        let m = try PCRE2Regex(Self.pattern).makeMatcher()
        #expect(try m.match(Array("hello ".utf8), partial: true) == .noMatch)
    }

    @Test("catastrophic backtracking stops at the match limit with a limit error")
    func matchLimit() throws {
        let re = try PCRE2Regex("^(a+)+$", matchLimit: 10_000)
        let m = re.makeMatcher()
        do {
            _ = try m.match(Array(String(repeating: "a", count: 40).utf8) + [UInt8(ascii: "b")])
            Issue.record("expected a limit error")
        } catch {
            #expect(error.isLimit, "got \(error)")
        }
    }

    @Test("UTF mode matches scalars; caseless works")
    func utfAndCaseless() throws {
        let re = try PCRE2Regex("^.{2}$", options: .utf)
        #expect(try re.matches("é🌍"))
        #expect(try !PCRE2Regex("^.{2}$").matches("é🌍"))
        #expect(try PCRE2Regex("tool_CALL", options: .caseless).matches("a TOOL_call"))
    }
}
