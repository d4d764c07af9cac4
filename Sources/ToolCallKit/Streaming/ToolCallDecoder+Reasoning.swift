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
                let safe = isFinal ? end : UTF8Boundary.safeEnd(window, start: from, end: end)
                emitReasoning(upTo: safe)
                return false
            case .partial(let at):
                emitReasoning(upTo: at)
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

    /// Emits reasoning text up to `end`; its raw runs from `cut` (the open marker included) to
    /// `rawEnd` (the close marker included).
    mutating func emitReasoning(upTo end: Int, rawEnd: Int? = nil, final: Bool = false) {
        let rawEnd = rawEnd ?? end
        let textStart = max(cut, reasoningTextStart)
        // An open marker alone waits for text or its close, unless the stream ends.
        guard rawEnd > cut, end > textStart || rawEnd > end || final else { return }
        let text = EventText(end > textStart ? window.slice(textStart..<end) : [])
        events.append(.reasoning(text, raw: setup.options.rawSpans ? window.bytes(cut..<rawEnd) : nil))
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
