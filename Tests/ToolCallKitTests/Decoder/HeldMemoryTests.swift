import Testing
@testable import ToolCallKit

/// What an accepted call holds: its arguments as compact JSON text, about the size of what the
/// model wrote, and no typed tree (docs/library.md, Held memory). Byte counts, not timings: a
/// regression to a per-value representation, or to a copy kept beside the text, fails here.
@Suite("Memory a call holds")
struct HeldMemoryTests {
    /// A call of `format` whose one argument `values` is `value`, written as the format writes
    /// a literal (a JSON or Python list, a Gemma list, the text of a tagged parameter).
    static func call(_ format: ToolCallFormat, _ value: String) -> String {
        switch format {
        case .json: return "<tool_call>\n{\"name\": \"save\", \"arguments\": {\"values\": \(value)}}\n</tool_call>"
        case .mistral: return "[TOOL_CALLS]save[ARGS]{\"values\": \(value)}"
        case .llama3: return "<|python_tag|>{\"name\": \"save\", \"parameters\": {\"values\": \(value)}}"
        case .kimiK2:
            return "<|tool_calls_section_begin|><|tool_call_begin|>functions.save:0<|tool_call_argument_begin|>"
                + "{\"values\": \(value)}<|tool_call_end|><|tool_calls_section_end|>"
        case .xmlFunction: return "<tool_call>\n<function=save>\n<parameter=values>\n\(value)\n</parameter>\n</function>\n</tool_call>"
        case .glm4: return "<tool_call>save\n<arg_key>values</arg_key>\n<arg_value>\(value)</arg_value>\n</tool_call>"
        case .minimaxM2:
            return "<minimax:tool_call>\n<invoke name=\"save\">\n<parameter name=\"values\">\(value)</parameter>\n</invoke>\n</minimax:tool_call>"
        case .lfm2: return "<|tool_call_start|>[save(values=\(value))]<|tool_call_end|>"
        case .gemma4: return "<|tool_call>call:save{values:\(value)}<tool_call|>"
        case .gemma: return "<start_function_call>call:save{values:\(value)}<end_function_call>"
        default:
            // Every other format: as its own renderer writes the call.
            let arguments = JSONValue.object([(key: "values", value: (try? JSONValue.parse(value)) ?? .null)])
            let bytes = (try? format.render([RenderedCall(name: "save", arguments: arguments)])) ?? []
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static let formats: [ToolCallFormat] = ToolCallFormat.allCases

    /// 6,000 small values in nested lists (78 KB), `[[0,[1,[2]]], ...]`: the shape whose tree cost
    /// the most per input byte.
    static let nested: String = "[" + (0..<6_000).map { "[\($0 % 10),[\(($0 + 1) % 10),[\(($0 + 2) % 10)]]]" }.joined(separator: ", ") + "]"

    @Test("a call stores its arguments as their compact text, within twice its size", arguments: formats)
    func storedAsText(format: ToolCallFormat) throws {
        let expected = Array(try JSONValue.parse(#"{"values": "# + Self.nested + "}").jsonText.utf8)
        var d = ToolCallDecoder(format: format)
        var events: [ToolCallEvent] = []
        let bytes = Array(Self.call(format, Self.nested).utf8)
        var i = 0
        while i < bytes.count {
            let e = min(bytes.count, i + 4096)
            d.feed(bytes[i..<e], into: &events)
            i = e
        }
        d.finish(into: &events)
        let calls = events.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
        let call = try #require(calls.count == 1 ? calls[0] : nil, "\(format): \(events.count) events, no single call")
        // The stored text is the canonical text, byte for byte: smaller than the model's.
        #expect(call.argumentsJSON == expected, "\(format)")
        #expect(call.argumentsJSON.count < bytes.count, "\(format)")
        // Its storage: no more than twice its length (an array's growth), where a tree of
        // these values took 8 to 20 bytes per input byte.
        #expect(call.argumentsJSON.capacity <= 2 * call.argumentsJSON.count, "\(format): capacity \(call.argumentsJSON.capacity)")
        // Nothing else of size: no typed tree, and no copy of the input without raw spans.
        #expect(call.raw == nil)
        for child in Mirror(reflecting: call).children {
            #expect(!(child.value is JSONValue), "\(format): \(child.label ?? "?") is a tree")
        }
        #expect(MemoryLayout<ToolCall>.size <= 80)
        // The tree is still there when asked for, and equal.
        #expect(call.arguments == (try JSONValue.parse(expected)))
    }

    /// Bytes held in byte arrays and strings reachable from `value` (its stored properties,
    /// enum payloads and existentials, searched to a bounded depth).
    static func heldBytes(_ value: Any, depth: Int = 0) -> Int {
        if let a = value as? [UInt8] { return a.count }
        if let a = value as? ArraySlice<UInt8> { return a.count }
        if let s = value as? String { return s.utf8.count }
        guard depth < 16 else { return 0 }
        let children = Mirror(reflecting: value).children
        guard children.count < 1000 else { return 0 }
        return children.reduce(0) { $0 + heldBytes($1.value, depth: depth + 1) }
    }

    static let textValued: [ToolCallFormat] = [.xmlFunction, .minimaxM2, .glm4]

    /// A text-valued parameter is read from the decoder's window when it ends: while it
    /// arrives, the decoder holds the call's input once (a copy of the value beside it, kept
    /// until the value ended, doubled what a large argument held).
    @Test("while a text value arrives, the decoder holds the call's input once", arguments: textValued)
    func textValueHeldOnce(format: ToolCallFormat) throws {
        let full = Array(Self.call(format, Self.nested).utf8)
        // Everything up to the value's last byte: the value has not ended yet.
        let list = Array(Self.nested.utf8)
        let at = try #require((0...(full.count - list.count)).first { full[$0..<($0 + list.count)].elementsEqual(list) })
        let fed = full[..<(at + list.count)]
        var d = ToolCallDecoder(format: format)
        var events: [ToolCallEvent] = []
        var i = 0
        while i < fed.count {
            let e = min(fed.count, i + 4096)
            d.feed(fed[i..<e], into: &events)
            i = e
        }
        let held = Self.heldBytes(d)
        #expect(held >= list.count, "\(format): the window must hold the value (\(held) bytes found)")
        #expect(held < fed.count + 4096, "\(format): \(held) bytes held for \(fed.count) fed")
        // The rest of the call: the value read from the window is the value written.
        d.feed(full[fed.count...], into: &events)
        d.finish(into: &events)
        let calls = events.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
        let call = try #require(calls.count == 1 ? calls[0] : nil, "\(format): \(events.count) events, no single call")
        #expect(call.argumentsJSON == Array(try JSONValue.parse(#"{"values": "# + Self.nested + "}").jsonText.utf8))
    }

    @Test("the tree's equality holds for stored text: equal values spelled apart compare equal")
    func equalityByValue() {
        let a = ToolCall(index: 0, id: "x", name: "f", arguments: .object([(key: "n", value: .number("1.0"))]))
        let b = ToolCall(index: 0, id: "x", name: "f", arguments: .object([(key: "n", value: .number("1"))]))
        let c = ToolCall(index: 0, id: "x", name: "f", arguments: .object([(key: "n", value: .number("2"))]))
        #expect(a.argumentsJSON != b.argumentsJSON)
        #expect(a == b)
        #expect(a != c)
    }

    @Test("duplicate keys in the stored text: first position, last value, at any size", arguments: [3, 40])
    func duplicateKeys(members: Int) throws {
        // More than 32 members takes the sorted check.
        var text = "{"
        for k in 0..<members { text += "\"k\(k)\": \(k), " }
        text += "\"k1\": \"last\", \"k0\": [1, {\"a\": 1, \"a\": 2}]}"
        let canonical = try #require(CanonicalJSON.parse(Array(text.utf8)))
        let tree = try JSONValue.parse(text)
        #expect(canonical.bytes == Array(tree.jsonText.utf8))
        #expect(canonical.value == tree)
    }
}
