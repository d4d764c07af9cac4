import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

@Suite("Decoder behaviour")
struct DecoderBehaviourTests {
    static func events(_ format: ToolCallFormat, _ input: [UInt8], tools: ToolSet? = nil,
                       options: ToolCallDecoder.Options = .init(rawSpans: true, idSeed: 3),
                       chunk: Int = .max) -> [ToolCallEvent] {
        var d = ToolCallDecoder(format: format, tools: tools, options: options)
        var out: [ToolCallEvent] = []
        var i = 0
        while i < input.count {
            let e = min(input.count, i + max(1, chunk))
            out += d.feed(input[i..<e])
            i = e
        }
        return out + d.finish()
    }

    @Test("a held-back marker prefix is text at the end of the stream")
    func heldBackPrefixIsText() {
        let e = Self.events(.json, Array("abc <tool_ca".utf8), chunk: 1)
        let text = e.compactMap { if case .text(let t) = $0 { return t.string } else { return nil } }.joined()
        #expect(text == "abc <tool_ca")
    }

    /// Every start marker every format declares, read from the declarations (each with the
    /// prose it needs before it: none for a marker that counts only at the start).
    static let declaredStartMarkers: [(format: ToolCallFormat, lead: String, marker: [UInt8])] =
        ToolCallFormat.allCases.flatMap { format in
            format.definition.makeGrammar(GrammarContext(format: format, tools: nil, maxDepth: 64)).markers.compactMap {
                (m: Marker) -> (format: ToolCallFormat, lead: String, marker: [UInt8])? in
                guard case .start = m.kind else { return nil }
                switch m.condition {
                case .always: return (format, "plain ", m.bytes)
                case .atStart, .atStartOrWhenToolsDeclared: return (format, "", m.bytes)
                case .whenToolsDeclared, .atStartWhenToolsDeclared: return nil
                }
            }
        }

    @Test("a start marker cut off at the end of the stream is text when no call began, in every format")
    func cutStartMarkerIsText() throws {
        let markers = try FixtureTable.nonEmpty(Self.declaredStartMarkers, "declared start markers")
        let covered = Set(markers.map(\.format.rawValue))
        // inkling declares no start marker: its grammar owns the stream (the output opens
        // inside a block header that only the next token tells from content).
        let ownsTheStream: Set<String> = ["inkling"]
        #expect(covered.union(ownsTheStream).count == ToolCallFormat.allCases.count,
                "formats with no start marker: \(ToolCallFormat.allCases.map(\.rawValue).filter { !covered.contains($0) })")
        for (format, lead, marker) in markers {
            let grammar = format.definition.makeGrammar(GrammarContext(format: format, tools: nil, maxDepth: 64))
            let strays = grammar.markers.filter { if case .stray = $0.kind { return true } else { return false } }.map(\.bytes)
            // Every proper prefix, even one that is itself a shorter start marker (MiniMax M3's
            // namespace token, DSML's opener without its `>`): the longer marker was cut. A
            // prefix that holds a whole stray marker (GigaChat 3's `<|message_sep|>`, which
            // begins its call opener) is that marker's markup first: not checked here.
            for n in 1..<marker.count where !strays.contains(where: { $0.count <= n && marker.starts(with: $0) }) {
                let input = Array(lead.utf8) + marker[0..<n]
                let events = ChunkingVerifier(format: format).verify(input, everySplit: false)
                #expect(events == [.text(input), .end(calls: 0, rejected: 0, bytes: input.count)],
                        "\(format.rawValue): \(String(decoding: input, as: UTF8.self).debugDescription)")
            }
        }
    }

    @Test("text never ends inside a UTF-8 sequence, even one byte at a time")
    func utf8NeverSplit() {
        let input = Array("é🌍你好 <tool_call>{\"name\":\"f\",\"arguments\":{\"s\":\"🌍é\"}}</tool_call>🌍".utf8)
        for e in Self.events(.json, input, chunk: 1) {
            switch e {
            case .text(let t): #expect(!t.string.contains("\u{FFFD}"), "split text: \(t)")
            case .toolCallDelta(_, let a): #expect(!a.string.contains("\u{FFFD}"), "split delta: \(a)")
            default: break
            }
        }
    }

    @Test("invalid UTF-8 keeps its bytes in raw spans and becomes U+FFFD in text")
    func invalidUTF8() {
        let input: [UInt8] = [0x61, 0xFF, 0xC3, 0x28, 0x62, 0xE2, 0x82]
        let verifier = ChunkingVerifier(format: .json)
        let normalized = verifier.verify(input)
        #expect(normalized.first == .text(input))
        guard case .text(let bytes)? = normalized.first else { return }
        #expect(String(decoding: bytes, as: UTF8.self) == "a\u{FFFD}\u{FFFD}(b\u{FFFD}")
    }

    @Test("a 1 MB argument is streamed in many deltas and rebuilt exactly")
    func longArgumentStreams() throws {
        let body = String(repeating: "0123456789", count: 100_000)
        let input = Array("<tool_call>{\"name\":\"write\",\"arguments\":{\"content\":\"\(body)\"}}</tool_call>".utf8)
        let e = Self.events(.json, input, options: .init(idSeed: 1), chunk: 4096)
        let deltas = e.compactMap { if case .toolCallDelta(_, let a) = $0 { return a.string } else { return nil } }
        #expect(deltas.count > 200)
        let call = try #require(e.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }.first)
        #expect(call.arguments["content"]?.stringValue == body)
        #expect(try JSONValue.parse(deltas.joined()) == call.arguments)
    }

    @Test("over the size cap: too_large at once, the rest skipped in bounded pieces, the stream goes on",
          arguments: [ToolCallFormat.json, .mistral, .llama3])
    func sizeCap(format: ToolCallFormat) {
        let body = String(repeating: "x", count: 200_000)
        let input: String
        switch format {
        case .json: input = "a<tool_call>{\"name\":\"f\",\"arguments\":{\"s\":\"\(body)\"}}</tool_call>b<tool_call>{\"name\":\"g\",\"arguments\":{}}</tool_call>"
        case .mistral: input = "a[TOOL_CALLS]f[ARGS]{\"s\":\"\(body)\"}[TOOL_CALLS]g[ARGS]{}"
        default: input = "<|python_tag|>{\"name\":\"f\",\"parameters\":{\"s\":\"\(body)\"}}<|python_tag|>{\"name\":\"g\",\"parameters\":{}}"
        }
        var verifier = ChunkingVerifier(format: format)
        verifier.options.maxCallBytes = try! Limit(1000)
        let bytes = Array(input.utf8)
        let whole = verifier.normalize(verifier.decode(bytes, splits: []), input: bytes, label: "whole")
        let chunked = verifier.normalize(verifier.decode(bytes, splits: Array(stride(from: 0, to: bytes.count, by: 777))), input: bytes, label: "777")
        #expect(whole == chunked)
        var rejections: [[UInt8]] = []
        for n in whole { if case .rejected("too_large", _, _, let raw) = n { rejections.append(raw) } }
        #expect(rejections.first?.count == 1000)
        #expect(rejections.count >= 4)
        #expect(rejections.allSatisfy { $0.count <= 64 << 10 })
        #expect(whole.contains { if case .call(_, _, "g", _) = $0 { return true } else { return false } })
    }

    @Test("a call's deltas never run past the size cap, whatever the chunks",
          arguments: ToolCallFormat.allCases)
    func deltasStopAtTheCap(format: ToolCallFormat) {
        // A long plain string value: the decoder forwards it itself (pass-through), and must
        // stop doing so where the grammar would be stopped.
        let value = String(repeating: "abcdefgh ", count: 2_000)
        let input = Array(WireCall.call(format, "f", "s", WireCall.string(format, value)).utf8)
        let cap = 1000
        for chunk in [1, 4, 64] {
            let e = Self.events(format, input, options: .init(rawSpans: true, maxCallBytes: try! Limit(cap)), chunk: chunk)
            var streamed = 0
            for event in e { if case .toolCallDelta(_, let d) = event { streamed += d.utf8Count } }
            #expect(streamed > 0, "\(format) chunk \(chunk): nothing streamed")
            #expect(streamed <= cap, "\(format) chunk \(chunk): \(streamed) bytes of deltas past a \(cap)-byte cap")
            #expect(e.contains { if case .rejected(let r) = $0 { return r.reason == .tooLarge } else { return false } })
            let raw = e.compactMap(\.rawBytes).reduce([], +)
            #expect(raw == input)
        }
    }

    @Test("200,000 levels of nesting are rejected as too_large without a crash")
    func deepNesting() {
        let input = Array(("<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":" + String(repeating: "[", count: 200_000) + "}}</tool_call>ok").utf8)
        let e = Self.events(.json, input, chunk: 65536)
        #expect(e.contains { if case .rejected(let r) = $0 { return r.reason == .tooLarge } else { return false } })
        let raw = e.compactMap(\.rawBytes).reduce([], +)
        #expect(raw == input)
    }

    @Test("ids are reproducible under a seed and unique within a stream")
    func ids() {
        let input = Array(String(repeating: "<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>", count: 50).utf8)
        let a = Self.events(.json, input, options: .init(idSeed: 9))
        let b = Self.events(.json, input, options: .init(idSeed: 9))
        #expect(a == b)
        let ids = a.compactMap { if case .toolCall(let c) = $0 { return c.id } else { return nil } }
        #expect(Set(ids).count == 50)
        #expect(ids.allSatisfy { $0.hasPrefix("call_") && $0.count == 29 })
        let m = Self.events(.mistral, Array("[TOOL_CALLS]f[ARGS]{}".utf8), options: .init(idSeed: 9))
        let mid = m.compactMap { if case .toolCall(let c) = $0 { return c.id } else { return nil } }.first ?? ""
        #expect(mid.count == 9 && mid.allSatisfy { $0.isLetter || $0.isNumber })
    }
}
