import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// The chunking verifier of ToolCallKitTestSupport (``ChunkingCheck``), reporting to Swift
/// Testing: every broken contract is an issue at the caller's source location.
///
/// Chunkings: whole, one byte at a time, in token-sized pieces (2 to 17 bytes, and mixes of
/// short and long), and split in two at every offset (see
/// ``ChunkingCheck/normalize(_:input:label:report:)`` for the contracts of each run).
struct ChunkingVerifier {
    typealias Normalized = NormalizedEvent

    var format: ToolCallFormat
    var tools: ToolSet?
    var options = ToolCallDecoder.Options(rawSpans: true, idSeed: 7)
    var makeDecoder: ((ToolCallFormat, ToolSet?, ToolCallDecoder.Options) -> ToolCallDecoder)? = nil

    private var check: ChunkingCheck {
        ChunkingCheck(format: format, tools: tools, options: options, makeDecoder: makeDecoder)
    }

    /// Decodes `input` in the given chunks and returns the raw events.
    func decode(_ input: [UInt8], splits: [Int]) -> [ToolCallEvent] {
        check.decode(input, splits: splits)
    }

    /// Checks the per-run contracts and returns the normalized events.
    func normalize(_ events: [ToolCallEvent], input: [UInt8], label: String,
                   sourceLocation: SourceLocation = #_sourceLocation) -> [Normalized] {
        check.normalize(events, input: input, label: label) { Issue.record(Comment(rawValue: $0), sourceLocation: sourceLocation) }
    }

    /// Runs every chunking and checks they agree; returns the normalized events of the whole run.
    @discardableResult
    func verify(_ input: [UInt8], everySplit: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) -> [Normalized] {
        check.verify(input, chunkings: .exhaustive(everySplit: everySplit)) {
            Issue.record(Comment(rawValue: $0), sourceLocation: sourceLocation)
        }
    }
}
