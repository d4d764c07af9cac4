import Testing
@testable import ToolCallKit

@Suite("Text-valued arguments")
struct TextArgumentTests {
    @Test(
        "the scalar probe says whether a value may still be a JSON scalar",
        arguments: [
            ("42", ScalarProbe.Kind.untyped, true),
            (" -0.5e+3 \n", .untyped, true),
            ("-", .untyped, true),
            ("01", .untyped, false),
            ("1.", .untyped, true),
            ("1.x", .untyped, false),
            ("tru", .untyped, true),
            ("true ", .untyped, true),
            ("truex", .untyped, false),
            ("None", .untyped, false),
            ("[1, 2", .untyped, true),
            ("{not json", .untyped, true),
            ("hello", .untyped, false),
            ("\"quoted\"", .untyped, false),
            ("None", .nullOnly, true),
            (" nul", .nullOnly, true),
            ("nullable", .nullOnly, false),
            ("42", .nullOnly, false),
            ("[1]", .nullOnly, false),
        ])
    func probe(text: String, kind: ScalarProbe.Kind, alive: Bool) {
        var p = ScalarProbe(kind: kind)
        var ok = true
        for b in text.utf8 where ok { ok = p.feed(b) }
        #expect(ok == alive)
    }

    @Test(
        "nesting depth of JSON-like text skips strings",
        arguments: [("[[1], {\"a\": [2]}]", 3), ("\"[[[\"", 0), ("{\"k\\\"[\": 1}", 1), ("plain", 0)])
    func nesting(text: String, depth: Int) {
        #expect(TextArgumentEmitter.nesting(Array(text.utf8)) == depth)
    }

    @Test("GLM double-escaped JSON is read as the body of a JSON string")
    func unescape() {
        #expect(TextArgumentEmitter.unescapedJSONIfNeeded(#"[{\"id\": \"1\"}]"#) == #"[{"id": "1"}]"#)
        #expect(TextArgumentEmitter.unescapedJSONIfNeeded(#"[1, 2]"#) == "[1, 2]")
        #expect(TextArgumentEmitter.unescapedJSONIfNeeded(#"[C:\x"#) == #"[C:\x"#)
    }

    /// The concatenated delta text after each feed.
    private func deltas(_ format: ToolCallFormat, tools: ToolSet? = nil, _ chunks: [String]) -> [String] {
        var d = ToolCallDecoder(format: format, tools: tools)
        var acc = ""
        var out: [String] = []
        for c in chunks {
            for case .toolCallDelta(_, let a) in d.feed(Array(c.utf8)) { acc += a.string }
            out.append(acc)
        }
        return out
    }

    @Test("a string value streams while it arrives; the last newline waits for what follows")
    func streamsStrings() {
        let tools = ToolSet([ToolDefinition(name: "w", parameters: try! JSONValue.parse(
            #"{"type": "object", "properties": {"s": {"type": "string"}}}"#))])
        let got = deltas(.xmlFunction, tools: tools, [
            "<tool_call>\n<function=w>\n<parameter=s>\nhel", "lo\n", "world\n</para", "meter>\n</function>",
        ])
        #expect(got[0] == #"{"s":"hel"#)
        #expect(got[1] == #"{"s":"hello"#)
        #expect(got[2] == #"{"s":"hello\nworld"#)
        #expect(got[3] == #"{"s":"hello\nworld"}"#)
    }

    @Test("without a schema a value is held only while it may still be a number or literal")
    func holdsScalars() {
        let got = deltas(.minimaxM2, [
            #"<minimax:tool_call><invoke name="f"><parameter name="a">12"#, "3", "4x", "yz</parameter>",
            #"<parameter name="b">7</parameter></invoke>"#,
        ])
        #expect(got[0] == #"{"a":"#)
        #expect(got[1] == #"{"a":"#)
        #expect(got[2] == #"{"a":"1234x"#)
        // `</parameter>` ends the value only once the next element confirms it.
        #expect(got[3] == #"{"a":"1234xyz"#)
        #expect(got[4] == #"{"a":"1234xyz","b":7}"#)
    }

    @Test("a long string fed in 4-byte chunks streams in many deltas")
    func longValue() throws {
        var d = ToolCallDecoder(format: .glm4)
        var events: [ToolCallEvent] = []
        events += d.feed(Array("<tool_call>w<arg_key>s</arg_key><arg_value>".utf8))
        let body = Array(String(repeating: "abc \"é\" ", count: 8_000).utf8)
        var i = 0
        while i < body.count {
            events += d.feed(body[i..<min(i + 4, body.count)])
            i += 4
        }
        events += d.feed(Array("</arg_value></tool_call>".utf8))
        events += d.finish()
        var count = 0
        var json = ""
        for case .toolCallDelta(_, let a) in events {
            count += 1
            json += a.string
        }
        #expect(count > body.count / 8)
        let calls = events.compactMap { event -> ToolCall? in
            if case .toolCall(let c) = event { return c }
            return nil
        }
        let call = try #require(calls.first)
        #expect(try JSONValue.parse(json) == call.arguments)
        #expect(call.arguments["s"]?.stringValue == String(decoding: body, as: UTF8.self))
    }
}
