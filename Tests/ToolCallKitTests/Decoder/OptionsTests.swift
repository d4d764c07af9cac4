import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

@Suite("Decoder options and API misuse")
struct OptionsTests {
    @Test("a limit is checked when it is made: below 1 or above the largest throws, unlimited has no value")
    func limits() throws {
        #expect(throws: Limit.Error.self) { try Limit(0) }
        #expect(throws: Limit.Error.self) { try Limit(-1) }
        #expect(throws: Limit.Error.self) { try Limit(Int.max) }
        #expect(try Limit(1).value == 1)
        #expect(try Limit(Limit.largest).value == Limit.largest)
        #expect(Limit.unlimited.value == nil)
        #expect(Limit(exactly: 0) == nil)
        #expect(ToolCallDecoder.Options().maxCallBytes == .defaultCallBytes)
        #expect(Limit.defaultCallBytes.value == 16 << 20)
        #expect("\(Limit.unlimited)" == "unlimited")
        #expect((try? Limit(-1))?.value == nil)
    }

    @Test("an unlimited call cap accepts a call and cannot overflow a position")
    func unlimitedCap() {
        let input = Array("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>".utf8)
        var verifier = ChunkingVerifier(format: .json)
        verifier.options.maxCallBytes = .unlimited
        verifier.options.maxDepth = .unlimited
        let events = verifier.verify(input)
        #expect(events.contains { if case .call = $0 { return true } else { return false } })
    }

    @Test("feed after finish is a no-op, and finish twice emits nothing more")
    func feedAfterFinish() {
        var d = ToolCallDecoder(format: .json)
        _ = d.feed(Array("hello".utf8))
        #expect(!d.isFinished)
        let end = d.finish()
        #expect(d.isFinished)
        #expect(end.last == .end(toolCalls: 0, rejected: 0, bytes: 5))
        #expect(d.feed(Array("late".utf8)).isEmpty)
        var out: [ToolCallEvent] = []
        d.feed(Array("late".utf8), into: &out)
        #expect(out.isEmpty)
        #expect(d.finish().isEmpty)
    }

    @Test("reasoningOpen implies reasoning however it is set")
    func reasoningOpenImpliesReasoning() {
        var o = ToolCallDecoder.Options()
        o.reasoningOpen = true
        #expect(o.reasoning)
        o.reasoning = false
        #expect(o.reasoning)
        o.reasoningOpen = false
        #expect(!o.reasoning)
        #expect(ToolCallDecoder.Options(reasoningOpen: true).reasoning)
        var d = ToolCallDecoder(format: .json, options: o)
        _ = d
        o.reasoningOpen = true
        d = ToolCallDecoder(format: .json, options: o)
        let e = d.feed(Array("thinking</think>done".utf8)) + d.finish()
        #expect(e.first == .reasoning("thinking", raw: nil))
    }

    @Test("the feed overloads take arrays, slices and other collections, into an array too")
    func feedOverloads() {
        var d = ToolCallDecoder(format: .json)
        var out: [ToolCallEvent] = []
        d.feed(Array("a".utf8), into: &out)
        d.feed(Array("b".utf8)[...], into: &out)
        d.feed("c".utf8, into: &out)
        out += d.feed("d".utf8)
        d.finish(into: &out)
        let text = out.compactMap { if case .text(let t) = $0 { return t.string } else { return nil } }.joined()
        #expect(text == "abcd")
    }

    static let wholeInputs: [(ToolCallFormat, String)] = [
        (.json, "a<tool_call>{\"name\": \"rm\", \"arguments\": {\"path\": 5}}</tool_call>b<tool_call>{\"name\": \"rm\", \"arguments\": {\"path\": \"x\ty\"}}</tool_call>c<tool_call>{\"name\": \"rm\", \"arguments\": {oops}}</tool_call>"),
        (.mistral, "[TOOL_CALLS]rm[ARGS]{\"path\": 5}[TOOL_CALLS]rm[ARGS]{\"path\": \"x\"}[TOOL_CALLS]rm[ARGS]{\"path\": -2x}"),
        (.xmlFunction, "<tool_call>\n<function=rm>\n<parameter=other>\n5\n</parameter>\n</function>\n</tool_call><tool_call>\n<function=rm>\n<parameter=path>\nx\n</parameter>\n</function>\n</tool_call><tool_call>\n<function=rm>\n<parameter=path>\nunfinished"),
    ]

    @Test("whole calls: a call appears only once accepted, start + one delta + call together; a rejected one never starts", arguments: 0..<3)
    func wholeCalls(_ k: Int) throws {
        let (format, text) = Self.wholeInputs[k]
        let tools = try ToolSet.load(json: Array(#"[{"name": "rm", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]"#.utf8))
        var verifier = ChunkingVerifier(format: format, tools: try tools.compilingValidators())
        verifier.options.validate = true
        verifier.options.wholeCalls = true
        let input = Array(text.utf8)
        let normalized = verifier.verify(input)
        // One accepted call (index 0: the first, invalid, call took no index), two rejections
        // without index or id.
        let calls = normalized.compactMap { if case .call(let i, _, _, _) = $0 { return i } else { return nil } }
        #expect(calls == [0])
        let rejections = normalized.compactMap { if case .rejected(_, let i, let n, _) = $0 { return (i, n) } else { return nil } }
        #expect(rejections.count == 2)
        #expect(rejections.allSatisfy { $0.0 == nil && $0.1 == "rm" })
        // Fed byte by byte, the start, the single delta and the call come in one feed.
        var d = ToolCallDecoder(format: format, tools: tools, options: verifier.options)
        for i in input.indices {
            let e = d.feed(input[i..<(i + 1)])
            let starts = e.filter { if case .toolCallStart = $0 { return true } else { return false } }.count
            let deltas = e.filter { if case .toolCallDelta = $0 { return true } else { return false } }.count
            let done = e.filter { if case .toolCall = $0 { return true } else { return false } }.count
            #expect(starts == done && deltas == done, "byte \(i): \(e)")
        }
        _ = d.finish()
    }
}
