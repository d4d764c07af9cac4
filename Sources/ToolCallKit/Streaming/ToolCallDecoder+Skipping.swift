// ToolCallKit — the decoder, oversized calls: the rejection at the cap, then the rest skipped in bounded pieces.

extension ToolCallDecoder {
    mutating func rejectOversized() {
        // Exactly the allowance, so the rejection is the same however the input was chunked.
        reject(.tooLarge, detail: "the call is larger than \(callCap) bytes", end: cut + callCap)
        mode = .skipping(grammar.skipRule)
    }

    /// Skips an oversized call's remaining bytes; returns true when it ended (the loop goes on).
    @discardableResult
    mutating func skip(isFinal: Bool) -> Bool {
        guard case .skipping(let rule) = mode else { return false }
        let terminators: [[UInt8]]
        let through: Bool
        switch rule {
        case .through(let t):
            terminators = t
            through = true
        case .before(let t):
            terminators = t
            through = false
        }
        // Resume where the last chunk's search stopped: a skipped call is searched once, not
        // from `cut` again on every chunk (cut moves only in 64 KiB pieces).
        let match = MarkerSet(terminators).search(window, from: max(cut, skipFrom), end: window.received, isFinal: isFinal)
        var stop: Int
        var ended = false
        switch match {
        case .found(let k, let at):
            stop = through ? at + terminators[k].count : at
            ended = true
        case .partial(let at):
            stop = at
        case .none:
            stop = window.received
            ended = isFinal
        }
        skipFrom = stop
        // Report in pieces of at most 64 KiB; hold back less than a piece unless ending.
        while stop - cut >= Self.skipPieceBytes {
            reject(.tooLarge, detail: "skipped part of an oversized call", end: cut + Self.skipPieceBytes)
        }
        guard ended else { return false }
        if stop > cut { reject(.tooLarge, detail: "skipped part of an oversized call", end: stop) }
        mode = .text
        grammar = format.definition.makeGrammar(setup.context)
        return true
    }
}
