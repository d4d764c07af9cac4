// ToolCallKitTestSupport — the round trip as an oracle: `decode(render(calls))` gives back the
// calls, through the chunking verifier.

public import ToolCallKit

/// Renders calls in a format and checks that decoding the bytes gives them back.
public enum RoundTripCheck {
    /// What a successful round trip gave back.
    public struct Outcome: Sendable {
        /// The rendered bytes.
        public var bytes: [UInt8]
        /// The whole run's normalized events.
        public var events: [NormalizedEvent]
        /// How many decodes the verifier ran.
        public var decodes: Int
    }

    /// Renders `calls` (after `text`) in `format`, decodes the bytes with tools typed from the
    /// calls' own values (``ToolSet/typing(_:)``, as a server that renders earlier calls has
    /// its tools) in `chunkings`, and checks that the names, the arguments (byte for byte), the
    /// ids the format carries (its declaration's ``FormatRenderer/carriedID``) and the text come
    /// back, with no rejection. A ``RenderError`` is returned unchecked: whether the format may
    /// refuse those calls is the caller's question.
    public static func check(
        _ format: ToolCallFormat, _ calls: [RenderedCall], text: String?, chunkings: Chunkings,
        report: (String) -> Void
    ) -> Result<Outcome, RenderError> {
        let bytes: [UInt8]
        do {
            bytes = try format.render(calls, text: text)
        } catch {
            return .failure(error)
        }
        let verifier = ChunkingCheck(format: format, tools: ToolSet.typing(calls))
        let events = verifier.verify(bytes, chunkings: chunkings, report: report)
        let shown = String(String(decoding: bytes, as: UTF8.self).debugDescription.prefix(600))
        var decoded: [(id: String, name: String, arguments: JSONValue)] = []
        var texts: [UInt8] = []
        for e in events {
            switch e {
            case .call(_, let id, let name, let arguments): decoded.append((id, name, arguments))
            case .text(let t): texts += t
            case .rejected(let reason, _, let name, _): report("\(format.rawValue): rejected (\(reason)) \(name ?? "-") in \(shown)")
            default: break
            }
        }
        if decoded.count != calls.count { report("\(format.rawValue): \(decoded.count) calls back of \(calls.count) from \(shown)") }
        for (i, (call, got)) in zip(calls, decoded).enumerated() {
            if !got.name.utf8.elementsEqual(call.name.utf8) {
                report("\(format.rawValue) call \(i): name \(got.name.debugDescription) != \(call.name.debugDescription) from \(shown)")
            }
            // Keys come back in the order the renderer writes them (as given, or sorted as the
            // model's template sorts them).
            let want = format.definition.renderer.written(call.arguments)
            if !(got.arguments == want && sameBytes(got.arguments, want)) {
                report("\(format.rawValue) call \(i): arguments \(got.arguments.jsonText.prefix(300)) != \(want.jsonText.prefix(300)) from \(shown)")
            }
            if let expected = format.definition.renderer.carriedID(call.id, call.name, i), got.id != expected {
                report("\(format.rawValue) call \(i): id \(got.id) != \(expected) from \(shown)")
            }
        }
        // The text comes back as given; only white space separates it from the calls.
        let given = Array((text ?? "").utf8)
        if !(texts.starts(with: given) && texts.dropFirst(given.count).allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })) {
            report("\(format.rawValue): the text \(String(decoding: texts, as: UTF8.self).debugDescription.prefix(300)) is not the given text, from \(shown)")
        }
        let decodes: Int
        switch chunkings {
        case .exhaustive(let everySplit): decodes = everySplit ? bytes.count + 3 : 2
        case .sample: decodes = 3
        }
        return .success(Outcome(bytes: bytes, events: events, decodes: decodes))
    }

    /// Equality that tells strings apart by their bytes (`JSONValue`'s `==` uses Swift string
    /// equality, under which "é" and "e\u{301}" are equal).
    public static func sameBytes(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(sameBytes)
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && sameBytes($0.value, $1.value) }
        default: return a == b
        }
    }
}

/// A deterministic generator (SplitMix64), so that a failing random case reproduces.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
