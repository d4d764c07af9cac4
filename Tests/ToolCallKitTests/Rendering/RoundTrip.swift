import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// The round trip as an oracle: `decode(render(calls))` gives back the calls.
///
/// The decode runs through ``ChunkingVerifier`` (whole, byte by byte, in token-sized pieces
/// and split in two at a sample of offsets that holds every cut through the format's markers:
/// ``Chunkings/splitSample(contexts:)``; with `contexts`, a cut whose surroundings an earlier
/// check of the same format cut already is not made again), with tools typed from the calls' own values
/// (``ToolSet/typing(_:)``), as a server that renders earlier calls has its tools.
enum RoundTrip {
    /// What one round trip did: how many decodes the verifier ran.
    struct Outcome {
        var rendered: Bool
        var decodes: Int
    }

    /// Renders `calls` in `format` and checks that decoding gives them back
    /// (``RoundTripCheck``), and that the ids are the ones this test expects of the format. A
    /// ``RenderError`` is returned as `.failure` and checked against `mayFail` by the caller.
    static func check(
        _ format: ToolCallFormat, _ calls: [RenderedCall], text: String?, everySplit: Bool, reasoning: Bool = false,
        contexts: SplitContexts? = nil, label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result<Outcome, RenderError> {
        let chunkings: Chunkings = everySplit ? .splitSample(contexts: contexts) : .exhaustive(everySplit: false)
        let result = RoundTripCheck.check(format, calls, text: text, chunkings: chunkings, reasoning: reasoning) {
            Issue.record(Comment(rawValue: "[\(label)] " + $0), sourceLocation: sourceLocation)
        }
        switch result {
        case .failure(let error): return .failure(error)
        case .success(let outcome):
            let ids = outcome.events.compactMap { e -> String? in if case .call(_, let id, _, _) = e { return id } else { return nil } }
            for (i, (call, id)) in zip(calls, ids).enumerated() {
                if let expected = expectedID(format, call, position: i) {
                    #expect(id == expected, "[\(label)] \(format.rawValue) call \(i): id \(id) != \(expected)", sourceLocation: sourceLocation)
                }
            }
            return .success(Outcome(rendered: true, decodes: outcome.decodes))
        }
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
}
