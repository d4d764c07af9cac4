import Foundation
import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// One call in each format's wire syntax, for the tables below.
enum WireCall {
    /// A call of `name` with one argument `key` whose value is `value`: a JSON value (written
    /// as JSON text) for JSON-valued formats, the same text for text-valued ones.
    static func call(_ format: ToolCallFormat, _ name: String, _ key: String, _ value: String) -> String {
        switch format {
        case .json: return "<tool_call>{\"name\":\"\(name)\",\"arguments\":{\"\(key)\":\(value)}}</tool_call>"
        case .lfm2: return "<|tool_call_start|>[\(name)(\(key)=\(value))]<|tool_call_end|>"
        case .xmlFunction:
            return "<tool_call>\n<function=\(name)>\n<parameter=\(key)>\n\(value)\n</parameter>\n</function>\n</tool_call>"
        case .glm4: return "<tool_call>\(name)\n<arg_key>\(key)</arg_key>\n<arg_value>\(value)</arg_value>\n</tool_call>"
        case .gemma: return "<start_function_call>call:\(name){\(key):\(value)}<end_function_call>"
        case .gemma4: return "<|tool_call>call:\(name){\(key):\(value)}<tool_call|>"
        case .kimiK2:
            return "<|tool_calls_section_begin|><|tool_call_begin|>functions.\(name):0<|tool_call_argument_begin|>"
                + "{\"\(key)\":\(value)}<|tool_call_end|><|tool_calls_section_end|>"
        case .minimaxM2:
            return "<minimax:tool_call>\n<invoke name=\"\(name)\">\n<parameter name=\"\(key)\">\(value)</parameter>\n</invoke>\n</minimax:tool_call>"
        case .mistral: return "[TOOL_CALLS]\(name)[ARGS]{\"\(key)\":\(value)}"
        case .llama3: return "<|python_tag|>{\"name\":\"\(name)\",\"parameters\":{\"\(key)\":\(value)}}"
        case .pythonic: return "<|python_start|>[\(name)(\(key)=\(value))]<|python_end|>"
        case .granite: return "<|tool_call|>[{\"name\":\"\(name)\",\"arguments\":{\"\(key)\":\(value)}}]"
        case .nemotron: return "<TOOLCALL>[{\"name\":\"\(name)\",\"arguments\":{\"\(key)\":\(value)}}]</TOOLCALL>"
        case .phi4Mini: return "functools[{\"name\":\"\(name)\",\"arguments\":{\"\(key)\":\(value)}}]"
        case .cohere:
            return "<|START_ACTION|>[{\"tool_call_id\":\"0\",\"tool_name\":\"\(name)\",\"parameters\":{\"\(key)\":\(value)}}]<|END_ACTION|>"
        case .harmony:
            return "<|start|>assistant to=functions.\(name)<|channel|>commentary json<|message|>{\"\(key)\":\(value)}<|call|>"
        case .deepseekV3:
            return "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>\(name)\n```json\n{\"\(key)\":\(value)}\n```"
                + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        case .deepseekV31:
            return "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>\(name)<｜tool▁sep｜>{\"\(key)\":\(value)}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        case .deepseekV32:
            return "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"\(name)\">\n<｜DSML｜parameter name=\"\(key)\" string=\"false\">\(value)"
                + "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
        case .seedOss:
            return "<seed:tool_call>\n<function=\(name)>\n<parameter=\(key)>\(value)</parameter>\n</function>\n</seed:tool_call>"
        case .kimiK3:
            return "<|open|>tools<|sep|><|open|>call tool=\"\(name)\" index=\"1\"<|sep|><|open|>argument key=\"\(key)\"<|sep|>"
                + "\(value)<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"
        case .minimaxM3:
            let ns = "]<]minimax[>["
            return "\(ns)<tool_call>\n\(ns)<invoke name=\"\(name)\">\(ns)<\(key)>\(value)\(ns)</\(key)>\(ns)</invoke>\n\(ns)</tool_call>"
        case .ling3: return "<tool_call>\(name)\n<arg_key>\(key)</arg_key>\n<arg_value>\(value)</arg_value>\n</tool_call>"
        case .poolsideV1: return "<tool_call>\(name)\n<arg_key>\(key)</arg_key>\n<arg_value>\(value)</arg_value>\n</tool_call>"
        case .minicpm5: return "<function name=\"\(name)\"><param name=\"\(key)\">\(value)</param></function>"
        case .museGlimmer:
            return "<|start|>assistant to=\(name)<|message|><atem:function_calls>\n<atem:invoke name=\"\(name)\">\n"
                + "<atem:parameter name=\"\(key)\">\(value)</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>"
        case .inkling: return "<|message_model|>\(name)<|content_invoke_tool_json|>{\"name\":\"\(name)\",\"args\":{\"\(key)\":\(value)}}<|end_message|>"
        case .k2Horizon:
            return "<ifm|tool_calls><ifm|tool_call>\(name)<ifm|arg_key>\(key)</ifm|arg_key><ifm|arg_value>\(value)</ifm|arg_value></ifm|tool_call></ifm|tool_calls>"
        case .hyV3:
            return "<tool_calls><tool_call>\(name)<tool_sep><arg_key>\(key)</arg_key><arg_value>\(value)</arg_value></tool_call></tool_calls>"
        case .gigachat3: return "<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\":\"\(name)\",\"arguments\":{\"\(key)\":\(value)}}"
        case .functionaryV32: return ">>>\(name)\n{\"\(key)\":\(value)}"
        case .cohereXml:
            // A string as raw text; the nested lists of the depth tests as JSON.
            let type = value.hasPrefix("[") ? "json" : "raw"
            return "<cofl:tool_calls><cofl:tool_call id=\"0\" name=\"\(name)\"><cofl:value name=\"\(key)\" type=\"\(type)\">\(value)</cofl:value></cofl:tool_call></cofl:tool_calls>"
        default:
            Issue.record("WireCall has no spelling for \(format.rawValue): add one")
            return ""
        }
    }

    /// A string argument: quoted where the format quotes strings, bare where values are text.
    static func string(_ format: ToolCallFormat, _ s: String) -> String {
        switch format {
        case .json, .kimiK2, .mistral, .llama3, .granite, .nemotron, .phi4Mini, .cohere, .harmony, .deepseekV3, .deepseekV31, .inkling,
             .gigachat3, .functionaryV32: return "\"\(s)\""
        case .lfm2, .pythonic: return "'\(s)'"
        case .gemma: return "<escape>\(s)<escape>"
        case .gemma4: return "<|\"|>\(s)<|\"|>"
        case .xmlFunction, .glm4, .minimaxM2, .deepseekV32, .seedOss, .kimiK3, .minimaxM3, .k2Horizon, .hyV3, .cohereXml: return s
        case .ling3, .poolsideV1, .minicpm5, .museGlimmer: return s
        default:
            Issue.record("WireCall has no string spelling for \(format.rawValue): add one")
            return s
        }
    }

    /// A well-formed call of `g` with no interesting arguments, to show the stream goes on.
    static func next(_ format: ToolCallFormat) -> String { call(format, "g", "k", string(format, "v")) }
}

/// The caps of docs/events.md (Caps) in every format: a `too_large` rejection, bounded pieces, raw spans
/// that rebuild the input, and a decoder that keeps working.
@Suite("Caps and bad input in every format")
struct BadInputTests {
    static let formats = ToolCallFormat.allCases

    static func normalized(_ format: ToolCallFormat, _ input: [UInt8], options: ToolCallDecoder.Options,
                           tools: ToolSet? = nil, chunk: Int? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) -> [ChunkingVerifier.Normalized] {
        var verifier = ChunkingVerifier(format: format, tools: tools)
        verifier.options = options
        let splits = chunk.map { Array(stride(from: $0, to: input.count, by: $0)) } ?? []
        return verifier.normalize(verifier.decode(input, splits: splits), input: input,
                                  label: chunk.map { "\($0)-byte chunks" } ?? "whole", sourceLocation: sourceLocation)
    }

    static func tooLarge(_ n: [ChunkingVerifier.Normalized]) -> [[UInt8]] {
        n.compactMap { if case .rejected("too_large", _, _, let raw) = $0 { return raw } else { return nil } }
    }

    static func accepted(_ n: [ChunkingVerifier.Normalized]) -> [String] {
        n.compactMap { if case .call(_, _, let name, _) = $0 { return name } else { return nil } }
    }

    @Test("size cap: too_large at once with the cap's bytes, the rest in pieces of at most 64 KiB, the next call accepted",
          arguments: formats)
    func sizeCap(format: ToolCallFormat) {
        let big = WireCall.call(format, "f", "s", WireCall.string(format, String(repeating: "x", count: 300_000)))
        let input = Array(("a " + big + " b " + WireCall.next(format) + " c").utf8)
        let options = ToolCallDecoder.Options(rawSpans: true, idSeed: 1, maxCallBytes: try! Limit(1000))
        let whole = Self.normalized(format, input, options: options)
        let chunked = Self.normalized(format, input, options: options, chunk: 4093)
        #expect(whole == chunked)
        let pieces = Self.tooLarge(whole)
        #expect(pieces.first?.count == 1000)
        #expect(pieces.count >= 5)
        #expect(pieces.allSatisfy { $0.count <= 64 << 10 })
        #expect(Self.accepted(whole) == ["g"], "\(whole)")
    }

    @Test("a call as large as the size cap is accepted, the same call under half the cap is too_large", arguments: formats)
    func sizeCapBoundary(format: ToolCallFormat) {
        let call = Array(WireCall.call(format, "f", "s", WireCall.string(format, "hello")).utf8)
        let fits = Self.normalized(format, call, options: .init(rawSpans: true, idSeed: 1, maxCallBytes: try! Limit(call.count)), chunk: 1)
        #expect(Self.accepted(fits) == ["f"], "\(fits)")
        let over = Self.normalized(format, call, options: .init(rawSpans: true, idSeed: 1, maxCallBytes: try! Limit(call.count / 2)), chunk: 3)
        #expect(Self.accepted(over).isEmpty)
        #expect(Self.tooLarge(over).first?.count == call.count / 2)
    }

    /// A list nested `depth` levels deep (and, when `closed`, closed again): the same text in
    /// every format (JSON, Python literals, Gemma values, and text values that look like JSON).
    static func nested(_ format: ToolCallFormat, depth: Int, closed: Bool) -> String {
        closed ? String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
            : String(repeating: "[", count: depth)
    }

    @Test("200,000 levels of nesting, open or closed: too_large, raw rebuilt, the next call accepted",
          arguments: formats, [false, true])
    func deepNesting(format: ToolCallFormat, closed: Bool) {
        let deep = WireCall.call(format, "f", "a", Self.nested(format, depth: 200_000, closed: closed))
        let input = Array(("x " + deep + " y " + WireCall.next(format)).utf8)
        let whole = Self.normalized(format, input, options: .init(rawSpans: true, idSeed: 1))
        #expect(!Self.tooLarge(whole).isEmpty, "\(format): \(whole.prefix(4))")
        #expect(!Self.accepted(whole).contains("f"))
        let chunked = Self.normalized(format, input, options: .init(rawSpans: true, idSeed: 1), chunk: 65_521)
        #expect(whole == chunked)
        // The rest of the call is skipped by the format's rule: the stream goes on.
        #expect(Self.accepted(whole) == ["g"], "\(format): \(whole.suffix(4))")
    }

    @Test("the depth cap: a value within it is accepted, the same value past it is too_large", arguments: formats)
    func depthCapBoundary(format: ToolCallFormat) {
        let options = { (d: Int) in ToolCallDecoder.Options(rawSpans: true, idSeed: 1, maxDepth: try! Limit(d)) }
        // The arguments object is one level; the value adds three.
        let input = Array(WireCall.call(format, "f", "a", Self.nested(format, depth: 3, closed: true)).utf8)
        let fits = Self.normalized(format, input, options: options(8), chunk: 1)
        #expect(Self.accepted(fits) == ["f"], "\(fits)")
        let over = Self.normalized(format, input, options: options(2), chunk: 2)
        #expect(Self.accepted(over).isEmpty, "\(over)")
        #expect(!Self.tooLarge(over).isEmpty, "\(over)")
    }

    @Test("a 10 MB string argument is accepted and streamed", arguments: [ToolCallFormat.json, .xmlFunction, .gemma4])
    func tenMegabytes(format: ToolCallFormat) throws {
        let body = String(repeating: "0123456789abcdef", count: 10 << 16)
        let input = Array(WireCall.call(format, "write", "content", WireCall.string(format, body)).utf8)
        var d = ToolCallDecoder(format: format, options: .init(idSeed: 1))
        var calls: [ToolCall] = []
        var deltaBytes = 0
        var i = 0
        while i <= input.count {
            let events = i < input.count ? d.feed(input[i..<min(input.count, i + 65_536)]) : d.finish()
            for e in events {
                if case .toolCall(let c) = e { calls.append(c) }
                if case .toolCallDelta(_, let a) = e { deltaBytes += a.utf8Count }
            }
            i += 65_536
        }
        let call = try #require(calls.first)
        #expect(call.arguments["content"]?.stringValue == body)
        #expect(deltaBytes > body.utf8.count)
    }

    /// A deterministic generator (SplitMix64) so that failures reproduce.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// Random bytes, and random soups of the format's markers, NUL bytes, invalid UTF-8 and
    /// value punctuation: every chunking agrees and keeps the contracts.
    @Test("random bytes and marker soup", arguments: formats)
    func randomInput(format: ToolCallFormat) {
        var rng = Random(state: UInt64(format.rawValue.utf8.count) &* 7919)
        let decoder = ToolCallDecoder(format: format)
        let pieces: [[UInt8]] = decoder.markerTexts.map { Array($0.utf8) }
            + ["{", "}", "[", "]", "(", ")", "\"", "'", ":", ",", "=", "\\", "name", "arguments", "f", "1", " ",
               "\n", "call:", "<escape>", "<|\"|>", "<", ">", "/"].map { Array($0.utf8) }
            + [[0], [0xFF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x8C], [0xED, 0xA0, 0x80]]
        let tools = ToolSet([ToolDefinition(name: "f")])
        for round in 0..<24 {
            var input: [UInt8] = []
            if round % 3 == 0 {
                for _ in 0..<rng.below(200) { input.append(UInt8(truncatingIfNeeded: rng.next())) }
            } else {
                for _ in 0..<rng.below(40) { input += pieces[rng.below(pieces.count)] }
            }
            var verifier = ChunkingVerifier(format: format, tools: round % 2 == 0 ? nil : tools)
            verifier.options.maxDepth = try! Limit(1 + rng.below(6))
            verifier.options.reasoning = round % 4 == 1
            verifier.verify(input, everySplit: input.count <= 256)
        }
    }

    @Test("NUL bytes and invalid UTF-8 inside a call: bytes intact in raw spans", arguments: formats)
    func invalidBytesInCall(format: ToolCallFormat) {
        let value = WireCall.string(format, "a\u{0}b")
        var input = Array(("\u{0}" + WireCall.call(format, "f", "s", value) + "\u{0}").utf8)
        // Invalid UTF-8 after the value's first letter and in the text after the call.
        let at = input.firstIndex(of: UInt8(ascii: "b"))!
        input.insert(contentsOf: [0xFF, 0xC3, 0x28], at: at)
        input += [0xE2, 0x82]
        let whole = ChunkingVerifier(format: format).verify(input)
        #expect(whole.contains { if case .text(let t) = $0 { return String(decoding: t, as: UTF8.self).contains("\u{FFFD}") } else { return false } })
    }
}

/// Every prefix of every fixture: a stream cut anywhere decodes without a crash and keeps the
/// contracts (raw spans rebuild the prefix, every started call ends once, deltas match the
/// arguments), whole and split in two.
@Suite("Truncated streams")
struct TruncatedStreamTests {
    @Test("every prefix of each fixture", arguments: ToolCallFormat.allCases)
    func prefixes(format: ToolCallFormat) throws {
        for f in try FormatFixture.all(format) where f.input.count <= 2048 {
            let verifier = ChunkingVerifier(format: f.format, tools: f.tools, options: f.options)
            for n in 0...f.input.count {
                let prefix = Array(f.input[0..<n])
                _ = verifier.normalize(verifier.decode(prefix, splits: [n / 2]), input: prefix,
                                       label: "\(f.testDescription) cut at \(n)")
            }
        }
    }
}
