import Testing
@testable import ToolCallKit

@Suite("Memory a decoder keeps")
struct BoundedMemoryTests {
    @Test("ids stay unique once the remembered ones run out, and memory stops growing", arguments: [ToolCallFormat.json, .mistral])
    func idsUniqueInBoundedMemory(format: ToolCallFormat) {
        var ids = CallIDGenerator(seed: 9, remembered: 16)
        var seen = Set<String>()
        for k in 0..<5_000 {
            // Every third call proposes an id that repeats: passed through only while remembered.
            let id = ids.id(style: format.definition.ids, proposed: k % 3 == 0 ? "call_\(k % 30)" : nil)
            #expect(seen.insert(id).inserted, "id \(id) repeated at call \(k)")
            #expect(id.hasPrefix("call_") || format == .mistral)
            #expect(format != .mistral || id.utf8.count == 9 || id.hasPrefix("call_"))
        }
    }

    @Test("the first ids are the seeded sequence as before (golden files keep their ids)")
    func seededSequenceUnchanged() {
        var a = CallIDGenerator(seed: 42)
        var b = CallIDGenerator(seed: 42, remembered: 1 << 30)
        for _ in 0..<100 { #expect(a.id(style: .openAI, proposed: nil) == b.id(style: .openAI, proposed: nil)) }
        var c = CallIDGenerator(seed: 42)
        #expect(c.id(style: .openAI, proposed: nil) == "call_Z72syU7mdWNy8nconrjSmFB5")
    }

    @Test("after a large call the decoder holds no more input storage than a fresh one needs", arguments: [ToolCallFormat.json, .xmlFunction])
    func largeCallReleased(format: ToolCallFormat) {
        let body = String(repeating: "abcdefgh", count: 3 << 17)  // 3 MiB
        let call = format == .json
            ? "<tool_call>{\"name\": \"w\", \"arguments\": {\"c\": \"\(body)\"}}</tool_call>"
            : "<tool_call>\n<function=w>\n<parameter=c>\n\(body)\n</parameter>\n</function>\n</tool_call>"
        var d = ToolCallDecoder(format: format)
        let bytes = Array(call.utf8)
        var accepted = false
        var i = 0
        while i < bytes.count {
            let e = min(bytes.count, i + 65_536)
            accepted = accepted || d.feed(bytes[i..<e]).contains { if case .toolCall = $0 { return true } else { return false } }
            i = e
        }
        _ = d.feed(Array(" and some text after it <tool".utf8))
        #expect(accepted)
        #expect(d.retainedInputBytes < 1 << 20, "holds \(d.retainedInputBytes) bytes after the call")
    }
}
