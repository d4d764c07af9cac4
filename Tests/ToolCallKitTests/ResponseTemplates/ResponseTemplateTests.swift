import Foundation
import Testing
@testable import ToolCallKit

/// One case of `Fixtures/response_templates/cases.json`: a model output for a real template,
/// with the message transformers' parser returned for it (`regenerate.py` writes it).
struct TemplateCase: CustomTestStringConvertible, Sendable {
    var id: String
    var templateName: String
    var template: ResponseTemplate
    var input: [UInt8]
    var prompt: [UInt8]
    var tools: ToolSet?
    /// The parser's message; nil when it raised.
    var expected: JSONValue?
    /// Text, reasoning and calls read from the streaming parser's region_close events.
    var streamed: JSONValue?
    var testDescription: String { id }
}

enum TemplateFixtures {
    static func template(_ name: String) throws -> ResponseTemplate {
        let data = try FixturePaths.data("response_templates/templates/\(name)")
        return try ResponseTemplate.load(Array(data))
    }

    static func cases() throws -> [TemplateCase] {
        let root = try JSONValue.parse(Array(try FixturePaths.data("response_templates/cases.json")))
        guard let rows = root.arrayValue else { throw FixtureError("cases.json: not a list") }
        var out: [TemplateCase] = []
        for row in rows {
            try FixtureTable.checkKeys(
                row, known: ["id", "template", "input", "prefix", "tools", "note", "expected", "expected_error", "expected_streamed"],
                in: "cases.json")
            guard case .string(let id)? = row["id"], case .string(let name)? = row["template"], case .string(let input)? = row["input"]
            else { throw FixtureError("cases.json: a row without id, template or input") }
            guard let expected = row["expected"] else { throw FixtureError("cases.json \(id): no expected (run regenerate.py)") }
            var tools: ToolSet?
            if let t = row["tools"], t != .null { tools = try FixtureTable.tools(t, in: id) }
            var prompt: [UInt8] = []
            if case .string(let p)? = row["prefix"] { prompt = Array(p.utf8) }
            out.append(
                TemplateCase(
                    id: id, templateName: name, template: try template(name), input: Array(input.utf8), prompt: prompt,
                    tools: tools, expected: expected == .null ? nil : expected, streamed: row["expected_streamed"]))
        }
        return try FixtureTable.nonEmpty(out, "cases.json")
    }

    static func decode(_ c: TemplateCase, chunk: Int?) -> [ToolCallEvent] {
        var d = ToolCallDecoder(responseTemplate: c.template, prompt: c.prompt, tools: c.tools, options: .init(rawSpans: true, idSeed: 1))
        var events: [ToolCallEvent] = []
        let step = chunk ?? max(1, c.input.count)
        var i = 0
        while i < c.input.count {
            events += d.feed(c.input[i..<min(c.input.count, i + step)])
            i += step
        }
        return events + d.finish()
    }
}

/// What the events say, in the terms of the parser's message.
struct EventView {
    var text = ""
    var reasoning = ""
    var calls: [(name: String, arguments: JSONValue)] = []
    var rejected: [String] = []

    init(_ events: [ToolCallEvent]) {
        for e in events {
            switch e {
            case .text(let t): text += t.string
            case .reasoning(let t, _): reasoning += t.string
            case .toolCall(let c): calls.append((c.name, c.arguments))
            case .rejected(let r): rejected.append(r.reason.rawValue)
            default: break
            }
        }
    }

    static func squeezed(_ s: String) -> String { String(s.unicodeScalars.filter { !PythonText.isSpace($0) }.map(Character.init)) }
}

@Suite("Response templates: transformers' results")
struct ResponseTemplateCaseTests {
    /// The calls a message's tool_calls hold, and how many entries cannot be calls.
    static func calls(_ toolCalls: JSONValue?) -> (good: [(String, JSONValue)], bad: Int) {
        var entries: [JSONValue] = []
        switch toolCalls {
        case .array(let items)?: entries = items
        case .object?: entries = [toolCalls!]
        default: break
        }
        var good: [(String, JSONValue)] = []
        var bad = 0
        for e in entries {
            if let (name, args) = TemplateGrammar.call(e) { good.append((name, .object(args))) } else { bad += 1 }
        }
        return (good, bad)
    }

    @Test(arguments: try TemplateFixtures.cases())
    func matchesTheParser(_ c: TemplateCase) throws {
        for chunk in [nil, 3, 1] as [Int?] {
            let label = chunk.map { "\($0)-byte chunks" } ?? "whole"
            let view = EventView(TemplateFixtures.decode(c, chunk: chunk))
            guard let expected = c.expected else {
                #expect(!view.rejected.isEmpty, "[\(label)] the parser raised, but nothing was rejected")
                continue
            }
            let reasoningKey = c.template.reasoningField
            var texts: [String] = [expected["content"]?.stringValue ?? ""]
            var thoughts: [String] = [reasoningKey.flatMap { expected[$0]?.stringValue } ?? ""]
            var callViews = [Self.calls(expected["tool_calls"])]
            if let s = c.streamed {
                texts.append(s["content"]?.stringValue ?? "")
                thoughts.append(s["reasoning"]?.stringValue ?? "")
                callViews.append(Self.calls(s["tool_calls"]))
            }
            #expect(texts.contains { EventView.squeezed($0) == EventView.squeezed(view.text) }, "[\(label)] text \(view.text.debugDescription)")
            #expect(
                thoughts.contains { EventView.squeezed($0) == EventView.squeezed(view.reasoning) },
                "[\(label)] reasoning \(view.reasoning.debugDescription)")
            let matching = callViews.contains { want in
                want.good.count == view.calls.count
                    && zip(want.good, view.calls).allSatisfy { $0.0 == $1.name && sameJSON($0.1, $1.arguments) }
                    && (want.bad > 0) == !view.rejected.isEmpty
            }
            #expect(matching, "[\(label)] calls \(view.calls.map { "\($0.name)(\($0.arguments.jsonText))" }) rejected \(view.rejected)")
        }
    }

    @Test(arguments: try TemplateFixtures.cases())
    func sameAtEveryChunking(_ c: TemplateCase) throws {
        let template = c.template
        let prompt = c.prompt
        let verifier = ChunkingVerifier(
            format: .json, tools: c.tools,
            makeDecoder: { _, tools, options in ToolCallDecoder(responseTemplate: template, prompt: prompt, tools: tools, options: options) })
        verifier.verify(c.input, everySplit: c.input.count <= 400)
    }
}

@Suite("Response templates: validation")
struct ResponseTemplateValidationTests {
    struct Bad: CustomTestStringConvertible, Sendable {
        var rule: String
        var template: JSONValue
        var message: String
        var testDescription: String { rule }
    }

    static func rows() throws -> [Bad] {
        let root = try JSONValue.parse(Array(try FixturePaths.data("response_templates/bad_templates.json")))
        var out: [Bad] = []
        for row in root.arrayValue ?? [] {
            try FixtureTable.checkKeys(row, known: ["rule", "template", "message"], in: "bad_templates.json")
            guard case .string(let rule)? = row["rule"], let t = row["template"], case .string(let m)? = row["message"] else {
                throw FixtureError("bad_templates.json: a row without rule, template or message")
            }
            out.append(Bad(rule: rule, template: t, message: m))
        }
        return try FixtureTable.nonEmpty(out, "bad_templates.json")
    }

    @Test(arguments: try rows())
    func refusedWithOneLine(_ bad: Bad) {
        #expect(throws: ResponseTemplateError(bad.message)) { try ResponseTemplate(json: bad.template) }
        #expect(!bad.message.contains("\n"))
    }

    @Test func everyRealTemplateLoads() throws {
        let dir = FixturePaths.root.appendingPathComponent("response_templates/templates")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count >= 20)
        for name in names { _ = try TemplateFixtures.template(name) }
    }

    @Test func tokenizerConfigHoldsTheTemplate() throws {
        let inner = try JSONValue.parse(Array(try FixturePaths.data("response_templates/templates/smollm3.json")))
        let config = JSONValue.object([("model_max_length", .number("8192")), ("response_template", inner)])
        let t = try ResponseTemplate.load(Array(config.jsonText.utf8))
        #expect(t.fieldNames == ["thinking", "tool_calls", "content"])
        #expect(t.reasoningField == "thinking")
    }
}

@Suite("Response templates: streaming and caps")
struct ResponseTemplateStreamingTests {
    static let smol = try! TemplateFixtures.template("smollm3.json")

    @Test func textStreamsAsItArrives() {
        var d = ToolCallDecoder(responseTemplate: Self.smol)
        // Everything but a possible `<` of an anchor streams at once.
        let first = d.feed(Array("Hello wor".utf8))
        #expect(first == [.text("Hello wor")])
        let second = d.feed(Array("ld <|im_".utf8))
        #expect(second == [.text("ld ")])
        let rest = d.feed(Array("end|>".utf8)) + d.finish()
        #expect(rest.contains(.end(toolCalls: 0, rejected: 0, bytes: 22)))
    }

    @Test func heldRegionOverTheCapIsRejected() {
        var options = ToolCallDecoder.Options(rawSpans: true)
        options.maxCallBytes = try! Limit(64)
        let big = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"" + String(repeating: "x", count: 300) + "\"}}</tool_call>after"
        for chunk in [1, 7, 1000] {
            var d = ToolCallDecoder(responseTemplate: Self.smol, options: options)
            var events: [ToolCallEvent] = []
            let bytes = Array(big.utf8)
            var i = 0
            while i < bytes.count {
                events += d.feed(bytes[i..<min(bytes.count, i + chunk)])
                i += chunk
            }
            events += d.finish()
            let reasons = events.compactMap { if case .rejected(let r) = $0 { return r.reason } else { return nil } }
            #expect(reasons.first == .tooLarge, "chunk \(chunk)")
            #expect(!events.contains { if case .toolCall = $0 { return true } else { return false } })
            #expect(EventView(events).text == "after")
            #expect(events.compactMap(\.rawBytes).reduce([], +) == bytes)
        }
    }

    @Test func patternAtItsLimitIsRejected() throws {
        let spec = try JSONValue.parse(#"{"start_anchor": "a", "fields": {"tool_calls": {"open_pattern": "(x+x+)+y", "close": "</c>", "content": "json"}, "content": {}}}"#)
        let t = try ResponseTemplate(json: spec)
        var d = ToolCallDecoder(responseTemplate: t, options: .init(rawSpans: true))
        let input = Array((String(repeating: "x", count: 40) + "z").utf8)
        let events = d.feed(input) + d.finish()
        let rejected = events.compactMap { if case .rejected(let r) = $0 { return r } else { return nil } }
        #expect(rejected.count == 1)
        #expect(rejected.first?.detail.contains("gave up") == true)
        #expect(events.compactMap(\.rawBytes).reduce([], +) == input)
    }

    @Test func dollarBeforeAFinalNewlineWaitsForTheEnd() throws {
        // `$` also matches before a final newline: it must not close the region at a chunk
        // boundary that happens to end with one.
        let t = try TemplateFixtures.template("trl-deepseek-r1-distill.json")
        let input = Array("line one\nline two".utf8)
        for split in 0...input.count {
            var d = ToolCallDecoder(responseTemplate: t)
            let events = d.feed(input[..<split]) + d.feed(input[split...]) + d.finish()
            #expect(EventView(events).text == "line one\nline two", "split \(split)")
        }
    }

    @Test func promptTailOpensTheRegion() throws {
        let t = try TemplateFixtures.template("trl-qwen3.json")
        let prompt = Array("<|im_start|>assistant\nold<|im_end|><|im_start|>assistant\n<think>\n".utf8)
        #expect(TemplateGrammar.promptTail(prompt, template: t) == Array("<think>\n".utf8))
        var d = ToolCallDecoder(responseTemplate: t, prompt: prompt)
        let view = EventView(d.feed(Array("hmm</think>Hi<|im_end|>".utf8)) + d.finish())
        #expect(view.reasoning == "hmm")
        #expect(view.text == "Hi")
    }

    @Test func longTextKeepsLittleInput() throws {
        var d = ToolCallDecoder(responseTemplate: Self.smol)
        let piece = Array(String(repeating: "plain words, no anchors. ", count: 40).utf8)
        for _ in 0..<100 { _ = d.feed(piece) }
        #expect(d.retainedInputBytes <= 2 * piece.count)
    }
}

@Suite("Response templates: content parsers and coercion")
struct TemplateContentTests {
    static func parser(_ name: String, _ args: String = "{}") throws -> TemplateContentParser {
        try TemplateContentParser(name: name, args: try JSONValue.parse(args), scope: "test")
    }

    @Test func jsonDialect() throws {
        let p = try Self.parser("json", #"{"unquoted_keys": true, "string_delims": [["<|\"|>", "<|\"|>"]]}"#)
        let v = try p.parse(#"{city:<|"|>Quito, {EC}: "x"<|"|>,days:5}"#)
        #expect(sameJSON(v, try JSONValue.parse(#"{"city": "Quito, {EC}: \"x\"", "days": 5}"#)))
        let lax = try Self.parser("json", #"{"allow_non_json": true}"#)
        #expect(try lax.parse("  not json ") == JSONValue.string("not json"))
        #expect(throws: TemplateValueError.self) { try Self.parser("json").parse("{\"a\": \"x\ny\"}") }
    }

    @Test func xmlInlineMergesDuplicates() throws {
        let p = try Self.parser("xml-inline", #"{"tag_pattern": "<p=(?P<key>\\w+)>(?P<value>.*?)</p>", "merge_duplicates": true, "value_parser": {"name": "int"}}"#)
        let v = try p.parse("<p=a>1</p><p=a>2</p><p=b> 3 </p>")
        #expect(v == (try JSONValue.parse(#"{"a": [1, 2], "b": 3}"#)))
    }

    @Test func kvLines() throws {
        let v = try Self.parser("kv-lines").parse("city: Turin\n\nnot a pair\ndays : 6 \n")
        #expect(v == (try JSONValue.parse(#"{"city": "Turin", "days": "6"}"#)))
    }

    @Test(arguments: [
        ("3", #"{"type": "integer"}"#, "3"), ("3.0", #"{"type": "integer"}"#, "3"), ("3.5", #"{"type": "integer"}"#, "\"3.5\""),
        ("1e3", #"{"type": "number"}"#, "1000"), ("0.25", #"{"type": "number"}"#, "0.25"), ("True", #"{"type": "boolean"}"#, "true"),
        ("0", #"{"type": "boolean"}"#, "false"), ("None", #"{"type": ["integer", "null"]}"#, "null"),
        ("[1, 2]", #"{"type": "array"}"#, "[1,2]"), ("x", #"{"anyOf": [{"type": "integer"}, {"type": "string"}]}"#, "\"x\""),
        ("nan", #"{"type": "number"}"#, "\"nan\""),
    ])
    func coercion(_ raw: String, _ schema: String, _ want: String) throws {
        let got = TemplateCoercion.coerce(raw, TemplateCoercion.types(try JSONValue.parse(schema)))
        #expect(sameJSON(got, try JSONValue.parse(want)), "\(raw) as \(schema) gave \(got.jsonText)")
    }

    @Test func transformsLookUpDottedPaths() throws {
        let t = try JSONValue.parse(#"{"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}}"#)
        let v = try TemplateTransform.apply(t, [("content", try JSONValue.parse(#"{"name": "f", "args": {"a": 1}}"#))])
        #expect(v == (try JSONValue.parse(#"{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}"#)))
        #expect(throws: TemplateValueError.self) { try TemplateTransform.apply(t, [("content", .string("x"))]) }
    }
}
