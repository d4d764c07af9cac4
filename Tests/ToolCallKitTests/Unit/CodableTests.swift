import Foundation
import Testing
@testable import ToolCallKit

/// `JSONValue`, `ToolCall` and `RejectedToolCall` through `JSONEncoder` and `JSONDecoder`, and
/// the shapes they encode to: the fields of the CLI's `tool_call` and `rejected` events.
@Suite("Codable")
struct CodableTests {
    /// The value with every object's keys sorted (coders need not keep key order).
    static func sorted(_ v: JSONValue) -> JSONValue {
        switch v {
        case .array(let a): return .array(a.map(sorted))
        case .object(let o): return .object(o.map { ($0.key, sorted($0.value)) }.sorted { $0.key < $1.key })
        default: return v
        }
    }

    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    @Test("JSON values round-trip", arguments: [
        "null", "true", "false", "0", "-12", "9223372036854775807", "18446744073709551615",
        "123456789012345678901234567890", "-98765432109876543210", "3.5", "-0.001", "1e+30",
        #""""#, #""a\"b\\c\n\t\u0000 é 東京 😀""#, "[]", "{}", "[1, [2, [3, {}]], null]",
        #"{"city": "Paris", "days": 3, "tags": ["a", "b"], "nested": {"z": null, "a": [true, 1.25]}}"#,
    ])
    func jsonValues(text: String) throws {
        let value = try JSONValue.parse(Array(text.utf8))
        let back = try Self.roundTrip(value)
        #expect(Self.sorted(back) == Self.sorted(value), "\(back.jsonText) != \(value.jsonText)")
        // Exact digits, not only an equal Double.
        if case .number(let a) = value, case .number(let b) = back, a.count > 17 {
            #expect(a == b)
        }
    }

    @Test("a JSON value encodes as the JSON it holds")
    func encodesAsItself() throws {
        let value = try JSONValue.parse(Array(#"{"a": [1, "x", null, false], "b": 123456789012345678901234567890}"#.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(text == #"{"a":[1,"x",null,false],"b":123456789012345678901234567890}"#)
    }

    @Test("a number with no finite value does not encode")
    func infiniteNumber() throws {
        let value = try JSONValue.parse(Array("[1e400]".utf8))
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(value) }
    }

    static let call = ToolCall(
        index: 2, id: "call_abc", name: "get_weather",
        arguments: .object([("city", .string("東京")), ("days", .number("3")), ("units", .array([.string("c")]))]),
        raw: Array(#"<tool_call>{"name": "get_weather", ...}</tool_call>"#.utf8))

    static let rejections = [
        RejectedToolCall(reason: .invalidArguments, format: .xmlFunction, raw: Array("<tool_call>...".utf8),
                         detail: "/days: expected integer, found \"two\"", index: 0, id: "call_x", name: "f"),
        RejectedToolCall(reason: .malformed, format: .mistral, raw: Array("[TOOL_CALLS]f[ARGS]{x".utf8), detail: "bad"),
    ]

    @Test("a call round-trips, with and without raw")
    func callRoundTrip() throws {
        let back = try Self.roundTrip(Self.call)
        #expect(back.index == Self.call.index && back.id == Self.call.id && back.name == Self.call.name)
        #expect(Self.sorted(back.arguments) == Self.sorted(Self.call.arguments))
        #expect(back.raw == Self.call.raw)
        var bare = Self.call
        bare.raw = nil
        #expect(try Self.roundTrip(bare).raw == nil)
    }

    @Test("a rejection round-trips", arguments: rejections)
    func rejectionRoundTrip(r: RejectedToolCall) throws {
        #expect(try Self.roundTrip(r) == r)
    }

    /// The encoded object and the CLI event's object, without the event's `type`.
    static func fields<T: Encodable>(_ value: T, event: ToolCallEvent) throws -> (JSONValue, JSONValue) {
        let encoded = try JSONValue.parse(Array(try JSONEncoder().encode(value)))
        let line = try JSONValue.parse(Array(EventJSONEncoder.encode(event, raw: true).utf8))
        let withoutType = JSONValue.object((line.objectValue ?? []).filter { $0.key != "type" })
        return (sorted(encoded), sorted(withoutType))
    }

    @Test("a call encodes with the fields of the CLI's tool_call event, and decodes from one")
    func callShape() throws {
        let (encoded, event) = try Self.fields(Self.call, event: .toolCall(Self.call))
        #expect(encoded == event, "\(encoded.jsonText) != \(event.jsonText)")
        let line = EventJSONEncoder.encode(.toolCall(Self.call), raw: true)
        let decoded = try JSONDecoder().decode(ToolCall.self, from: Data(line.utf8))
        #expect(decoded.name == Self.call.name && decoded.raw == Self.call.raw)
        #expect(Self.sorted(decoded.arguments) == Self.sorted(Self.call.arguments))
    }

    @Test("a rejection encodes with the fields of the CLI's rejected event, and decodes from one", arguments: rejections)
    func rejectionShape(r: RejectedToolCall) throws {
        let (encoded, event) = try Self.fields(r, event: .rejected(r))
        #expect(encoded == event, "\(encoded.jsonText) != \(event.jsonText)")
        let line = EventJSONEncoder.encode(.rejected(r), raw: true)
        #expect(try JSONDecoder().decode(RejectedToolCall.self, from: Data(line.utf8)) == r)
    }

    @Test("a server type that embeds a call encodes and decodes")
    func embedded() throws {
        struct Message: Codable { let role: String; let calls: [ToolCall] }
        let back = try Self.roundTrip(Message(role: "assistant", calls: [Self.call, Self.call]))
        #expect(back.calls.count == 2 && back.calls[1].id == "call_abc")
    }
}
