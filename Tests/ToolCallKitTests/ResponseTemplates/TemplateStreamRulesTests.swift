import Foundation
import Testing
import ToolCallKitTestSupport
@testable import ToolCallKit

/// One row of `Fixtures/response_templates/stream_rules.json`: a template (inline or a file of
/// `templates/`), an input (literal, or pieces repeated), and what the events must say. Every
/// row is also decoded at several chunkings, which must agree.
struct StreamRule: CustomTestStringConvertible, Sendable {
    var id: String
    var template: ResponseTemplate
    var prompt: [UInt8]
    var input: [UInt8]
    var maxCallBytes: Int?
    var expect: JSONValue
    /// At least this many bytes of text must have come out before `finish()` (4-byte chunks).
    var textBeforeFinish: Int?
    /// The decoder may hold at most this many bytes of input after any chunk (4-byte chunks).
    var maxRetained: Int?
    var testDescription: String { id }

    static func rows() throws -> [StreamRule] {
        let root = try JSONValue.parse(Array(try FixturePaths.data("response_templates/stream_rules.json")))
        var out: [StreamRule] = []
        for row in root.arrayValue ?? [] {
            try FixtureTable.checkKeys(
                row,
                known: ["id", "note", "template", "prompt", "input", "input_parts", "max_call_bytes", "expect", "text_before_finish", "max_retained"],
                in: "stream_rules.json")
            guard case .string(let id)? = row["id"], let t = row["template"], let expect = row["expect"] else {
                throw FixtureError("stream_rules.json: a row without id, template or expect")
            }
            let template: ResponseTemplate
            if case .string(let name) = t { template = try TemplateFixtures.template(name) } else { template = try ResponseTemplate(json: t) }
            var input: [UInt8] = []
            if case .string(let s)? = row["input"] { input = Array(s.utf8) }
            for part in row["input_parts"]?.arrayValue ?? [] {
                guard case .string(let piece)? = part.arrayValue?.first, case .number(let n)? = part.arrayValue?.last, let count = Int(n) else {
                    throw FixtureError("stream_rules.json \(id): input_parts holds [text, count] pairs")
                }
                for _ in 0..<count { input += Array(piece.utf8) }
            }
            func int(_ key: String) -> Int? { if case .number(let n)? = row[key] { return Int(n) } else { return nil } }
            out.append(
                StreamRule(
                    id: id, template: template, prompt: Array((row["prompt"]?.stringValue ?? "").utf8), input: input,
                    maxCallBytes: int("max_call_bytes"), expect: expect, textBeforeFinish: int("text_before_finish"),
                    maxRetained: int("max_retained")))
        }
        return try FixtureTable.nonEmpty(out, "stream_rules.json")
    }

    var options: ToolCallDecoder.Options {
        var o = ToolCallDecoder.Options(rawSpans: true, idSeed: 7)
        if let maxCallBytes { o.maxCallBytes = (try? Limit(maxCallBytes)) ?? .unlimited }
        return o
    }

    func decoder(_ options: ToolCallDecoder.Options) -> ToolCallDecoder {
        ToolCallDecoder(responseTemplate: template, prompt: prompt, options: options)
    }
}

@Suite("Response templates: the scan's rules (zero width, reach, context)", .timeLimit(.minutes(2)))
struct TemplateStreamRulesTests {
    @Test(arguments: try StreamRule.rows())
    func rule(_ r: StreamRule) throws {
        let template = r.template
        let prompt = r.prompt
        let verifier = ChunkingVerifier(
            format: .json, options: r.options,
            makeDecoder: { _, tools, options in ToolCallDecoder(responseTemplate: template, prompt: prompt, tools: tools, options: options) })
        // What the events say, fed in 4-byte chunks, with the streaming checks.
        var d = r.decoder(r.options)
        var events: [ToolCallEvent] = []
        var retained = 0
        var i = 0
        while i < r.input.count {
            events += d.feed(r.input[i..<min(r.input.count, i + 4)])
            retained = max(retained, d.retainedInputBytes)
            i += 4
        }
        let beforeFinish = EventView(events).text.utf8.count
        events += d.finish()
        if r.input.count <= 400 {
            verifier.verify(r.input)
        } else {
            // Long inputs: whole, uneven pieces and the 4-byte chunks above must agree.
            let whole = verifier.normalize(verifier.decode(r.input, splits: []), input: r.input, label: "whole")
            let splits = Array(stride(from: 4093, to: r.input.count, by: 4093))
            let uneven = verifier.normalize(verifier.decode(r.input, splits: splits), input: r.input, label: "4093-byte chunks")
            #expect(uneven == whole, "4093-byte chunks differ from the whole input")
            #expect(verifier.normalize(events, input: r.input, label: "4-byte chunks") == whole, "4-byte chunks differ from the whole input")
        }
        let view = EventView(events)
        if let n = r.textBeforeFinish { #expect(beforeFinish >= n, "only \(beforeFinish) bytes of text before the end") }
        if let n = r.maxRetained { #expect(retained <= n, "held \(retained) bytes of input") }
        let e = r.expect
        if let text = e["text"]?.stringValue { #expect(view.text == text) }
        if let reasoning = e["reasoning"]?.stringValue { #expect(view.reasoning == reasoning) }
        if case .number(let n)? = e["text_length"] { #expect(view.text.utf8.count == Int(n)) }
        if case .number(let n)? = e["reasoning_length"] { #expect(view.reasoning.utf8.count == Int(n)) }
        if let calls = e["calls"]?.arrayValue {
            #expect(view.calls.count == calls.count, "calls \(view.calls.map(\.name)) rejected \(view.rejected)")
            for (want, got) in zip(calls, view.calls) {
                #expect(want["name"]?.stringValue == got.name)
                #expect(sameJSON(want["arguments"] ?? .object([]), got.arguments), "\(got.arguments.jsonText)")
            }
            // The reasons of the rejections, in order ("rejected"; none when the row names none).
            let reasons = (e["rejected"]?.arrayValue ?? []).compactMap(\.stringValue)
            #expect(view.rejected == reasons, "rejected \(view.rejected)")
        }
    }

    /// A lookahead at the first byte reads as far as the call cap, past PCRE2's usual match
    /// limit (a step per byte): over a megabyte with no `</think>` is still text, not a pattern
    /// that gave up.
    @Test func farLookaheadIsNotCutByTheMatchLimit() throws {
        let t = try TemplateFixtures.template("trl-deepseek-r1-distill.json")
        let input = [UInt8](repeating: 0x78, count: 1_100_000)
        for chunk in [input.count, 65536] {
            var d = ToolCallDecoder(responseTemplate: t)
            var events: [ToolCallEvent] = []
            var i = 0
            while i < input.count {
                events += d.feed(input[i..<min(input.count, i + chunk)])
                i += chunk
            }
            let view = EventView(events + d.finish())
            #expect(view.rejected.isEmpty, "chunk \(chunk): rejected \(view.rejected)")
            #expect(view.text.utf8.count == input.count, "chunk \(chunk)")
        }
    }
}
