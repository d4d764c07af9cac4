// ToolCallKit — an AsyncSequence of events over any async sequence of byte chunks.

/// The events of a stream of byte chunks, as an `AsyncSequence`.
///
/// Wraps any async sequence whose elements are byte collections (a network body, a pipe, a
/// model's output as it is generated) and decodes it with one ``ToolCallDecoder``: each chunk
/// is fed as it arrives, and the end of the base sequence calls ``ToolCallDecoder/finish()``.
/// It adds no buffering of its own beyond the events of one chunk.
public struct ToolCallEventSequence<Base: AsyncSequence>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = ToolCallEvent

    let base: Base
    let decoder: ToolCallDecoder

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), decoder: decoder)
    }

    /// Pulls chunks from the base sequence and hands out their events one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var decoder: ToolCallDecoder
        var pending: [ToolCallEvent] = []
        var next = 0
        var finished = false

        public mutating func next() async throws -> ToolCallEvent? {
            while next >= pending.count {
                if finished { return nil }
                if let chunk = try await base.next() {
                    pending = decoder.feed(chunk)
                } else {
                    pending = decoder.finish()
                    finished = true
                }
                next = 0
            }
            defer { next += 1 }
            return pending[next]
        }
    }
}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Decodes this stream of byte chunks into tool-call events.
    ///
    /// - Parameters:
    ///   - format: the wire format of the model's output.
    ///   - tools: the declared tools (only their names are accepted).
    ///   - options: raw spans, id seed, caps, reasoning.
    /// - Returns: the events, in source order, ending with `.end`.
    public func toolCallEvents(
        format: ToolCallFormat, tools: ToolSet? = nil, options: ToolCallDecoder.Options = .init()
    ) -> ToolCallEventSequence<Self> {
        ToolCallEventSequence(base: self, decoder: ToolCallDecoder(format: format, tools: tools, options: options))
    }
}
