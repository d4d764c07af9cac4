import Testing
@testable import ToolCallKit

/// The round trip as an oracle: `decode(render(calls))` gives back the calls.
///
/// The decode runs through ``ChunkingVerifier`` (whole, byte by byte and, unless the input is
/// long, split in two at every offset), with tools typed from the calls' own values
/// (``ToolSet/typing(_:)``), as a server that renders earlier calls has its tools.
enum RoundTrip {
    /// What one round trip did: how many decodes the verifier ran.
    struct Outcome {
        var rendered: Bool
        var decodes: Int
    }

    /// Renders `calls` in `format` and checks that decoding gives them back. A ``RenderError``
    /// is returned as `rendered: false` and checked against `mayFail` by the caller.
    static func check(
        _ format: ToolCallFormat, _ calls: [RenderedCall], text: String?, everySplit: Bool,
        label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result<Outcome, RenderError> {
        let bytes: [UInt8]
        do {
            bytes = try format.render(calls, text: text)
        } catch {
            return .failure(error)
        }
        let verifier = ChunkingVerifier(format: format, tools: ToolSet.typing(calls))
        let events = verifier.verify(bytes, everySplit: everySplit, sourceLocation: sourceLocation)
        let rendered = String(decoding: bytes, as: UTF8.self).debugDescription
        var decoded: [(id: String, name: String, arguments: JSONValue)] = []
        var texts: [[UInt8]] = []
        for e in events {
            switch e {
            case .call(_, let id, let name, let arguments): decoded.append((id, name, arguments))
            case .text(let t): texts.append(t)
            case .rejected(let reason, _, let name, _):
                Issue.record("[\(label)] \(format.rawValue): rejected (\(reason)) \(name ?? "-") in \(rendered.prefix(600))", sourceLocation: sourceLocation)
            default: break
            }
        }
        #expect(decoded.count == calls.count, "[\(label)] \(format.rawValue): \(decoded.count) calls back of \(calls.count) from \(rendered.prefix(600))", sourceLocation: sourceLocation)
        for (i, (call, got)) in zip(calls, decoded).enumerated() {
            #expect(got.name.utf8.elementsEqual(call.name.utf8), "[\(label)] \(format.rawValue) call \(i): name \(got.name.debugDescription) != \(call.name.debugDescription)", sourceLocation: sourceLocation)
            #expect(got.arguments == call.arguments && sameBytes(got.arguments, call.arguments),
                    "[\(label)] \(format.rawValue) call \(i): arguments \(got.arguments.jsonText.prefix(300)) != \(call.arguments.jsonText.prefix(300)) from \(rendered.prefix(600))", sourceLocation: sourceLocation)
            if let expected = expectedID(format, call, position: i) {
                #expect(got.id == expected, "[\(label)] \(format.rawValue) call \(i): id \(got.id) != \(expected)", sourceLocation: sourceLocation)
            }
        }
        // The text comes back as given; only white space separates it from the calls.
        let allText = texts.joined()
        let given = Array((text ?? "").utf8)
        #expect(allText.starts(with: given) && allText.dropFirst(given.count).allSatisfy(JSONReader.isSpace),
                "[\(label)] \(format.rawValue): text \(String(decoding: allText, as: UTF8.self).debugDescription.prefix(300)) is not the given text", sourceLocation: sourceLocation)
        return .success(Outcome(rendered: true, decodes: everySplit ? bytes.count + 3 : 2))
    }

    /// The id the format carries for `call` at `position`, when it carries one.
    static func expectedID(_ format: ToolCallFormat, _ call: RenderedCall, position: Int) -> String? {
        switch format {
        case .kimiK2:
            if let id = call.id, KimiK2Grammar.readID(id) == .named(call.name) { return id }
            return "functions.\(call.name):\(position)"
        case .mistral:
            guard let id = call.id, id.utf8.count == 9, id.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber }) else { return nil }
            return id
        default:
            return nil
        }
    }

    /// Equality that tells strings apart by their bytes (`JSONValue`'s `==` uses Swift string
    /// equality, under which "é" and "e\u{301}" are equal).
    static func sameBytes(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(sameBytes)
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && sameBytes($0.value, $1.value) }
        default: return a == b
        }
    }
}

/// A deterministic generator (SplitMix64) so that a failing random case reproduces.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
