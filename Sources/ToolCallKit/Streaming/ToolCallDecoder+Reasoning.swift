// ToolCallKit — the decoder, reasoning blocks: scanning inside one, and emitting its text.

extension ToolCallDecoder {
    /// Scans a reasoning block for its close marker (or a call marker that ends it); returns
    /// true when the block ended (the loop goes on in text).
    mutating func scanReasoning(pair: Int?, isFinal: Bool) -> Bool {
        if pair == nil && !openerChecked {
            guard skipRedundantOpener(isFinal: isFinal) else { return false }
        }
        var from = max(cut, reasoningTextStart)
        let end = window.received
        while true {
            switch setup.plan.reasoningSet.search(window, from: from, end: end, isFinal: isFinal) {
            case .none:
                emitReasoning(upTo: isFinal ? end : heldBack(end: end))
                return false
            case .partial(let at):
                emitReasoning(upTo: heldBack(end: at))
                return false
            case .found(let k, let at):
                let length = setup.plan.reasoningSet.markers[k].count
                if k < setup.plan.reasoningCloseCount {
                    // Pairs may share a close marker (Gemma 4's labelled and bare channel).
                    let ownClose = pair.map { setup.plan.reasoningSet.markers[$0] }
                    guard ownClose == nil || ownClose == setup.plan.reasoningSet.markers[k] else {
                        // Another pair's close marker: part of the reasoning.
                        from = at + length
                        continue
                    }
                    emitReasoning(upTo: at, rawEnd: at + length)
                } else {
                    // A call marker that ends the block; the text scanner parses the call. The
                    // block is over even when it is only its open marker (else that marker would
                    // be scanned again as text, forever).
                    emitReasoning(upTo: at, final: true)
                }
                mode = .text
                return true
            }
        }
    }

    /// Where reasoning text may be emitted up to, before the block has ended: `end` less its last
    /// character (and any unfinished UTF-8 sequence). The held character goes out with the close
    /// marker, so the event that ends a block always carries text (no event carries empty text,
    /// however the input is chunked); it waits at most one character.
    func heldBack(end: Int) -> Int {
        let start = max(cut, reasoningTextStart)
        guard end > start else { return start }
        let clean = UTF8Boundary.safeEnd(window, start: start, end: end)
        guard clean > start else { return start }
        return UTF8Boundary.safeEnd(window, start: start, end: clean - 1)
    }

    /// Emits reasoning text up to `end`; its raw runs from `cut` (the open marker included) to
    /// `rawEnd` (the close marker included). A block with no text at all (`<think></think>`, or
    /// an open marker that a call marker or the end of the stream ends at once) is no
    /// reasoning event: its markers are `markup` (with raw spans on).
    mutating func emitReasoning(upTo end: Int, rawEnd: Int? = nil, final: Bool = false) {
        let rawEnd = rawEnd ?? end
        let textStart = max(cut, reasoningTextStart)
        // An open marker alone waits for text or its close, unless the stream ends.
        guard rawEnd > cut, end > textStart || rawEnd > end || final else { return }
        guard end > textStart else {
            emitMarkup(upTo: rawEnd)
            return
        }
        events.append(.reasoning(EventText(window.slice(textStart..<end)), raw: setup.options.rawSpans ? window.bytes(cut..<rawEnd) : nil))
        cut = rawEnd
    }

    /// Emits the bytes up to `end` as reasoning that a grammar reported (a reasoning body the
    /// format frames itself): its text is its raw, the markup around it is reported apart.
    mutating func emitFramedReasoning(upTo end: Int) {
        guard end > cut else { return }
        let slice = window.slice(cut..<end)
        events.append(.reasoning(EventText(slice), raw: setup.options.rawSpans ? Array(slice) : nil))
        cut = end
    }
}
