// ToolCallKit — the decoder, the loop, and scanning text for the format's markers.

extension ToolCallDecoder {
    mutating func run(isFinal: Bool) {
        while true {
            switch mode {
            case .text:
                guard scanText(isFinal: isFinal) else { return }
            case .reasoning(let pair):
                guard scanReasoning(pair: pair, isFinal: isFinal) else { return }
            case .frame where setup.plan.ownsStream:
                // The grammar sees at most the cap's worth of bytes past the last event; it
                // goes on while that showed it less than was received and it made progress.
                while true {
                    let before = cut
                    let limit = cut + callCap
                    window.limit = limit
                    grammar.scanStream(window, context: setup.context, isFinal: false, actions: &streamActions)
                    window.limit = .max
                    applyStream()
                    guard limit < window.received, cut > before else { return }
                }
            case .frame:
                if !grammarMade { openStartFrame() }
                if passRun != nil {
                    if passEnd > passFrom { grammar.takePassThrough(passEnd - passFrom, window) }
                    passRun = nil
                }
                actions.removeAll(keepingCapacity: true)
                // The grammar sees at most the cap's worth of the current call.
                let callStart = cut
                let limit = cut + callCap
                window.limit = limit
                let step = grammar.advance(window, context: setup.context, actions: &actions)
                window.limit = .max
                apply()
                switch step {
                case .needMore:
                    guard limit < window.received else {
                        if !isFinal, let run = grammar.passThrough(at: window.received) {
                            passRun = run
                            passFrom = window.received
                            passEnd = passFrom
                        }
                        return
                    }
                    // The grammar stopped at the cap. A call that ended inside the allowance
                    // gives the next one its own; otherwise this one is too large.
                    if cut == callStart { rejectOversized() }
                    continue
                case .finished(let at):
                    closeFrame(at: at, reason: .malformed)
                    mode = .text
                    // A large frame leaves large buffers in the grammar's readers: a fresh
                    // grammar releases them, so an idle stream holds no more than a new one.
                    if at - frameStart > Self.releaseAfterBytes { grammar = format.definition.makeGrammar(setup.context) }
                case .skip:
                    mode = .skipping(grammar.skipRule)
                }
            case .skipping:
                guard skip(isFinal: isFinal) else { return }
            case .finished:
                return
            }
        }
    }

    /// The frame a format opens at the output's first byte (``CallGrammar/opensAtStart``): the
    /// only frame whose grammar is not made by the marker that begins it.
    mutating func openStartFrame() {
        grammar = format.definition.makeGrammar(setup.context)
        grammarMade = true
        grammar.begin(marker: 0, at: 0, bodyStart: 0, atStart: true, context: setup.context)
        frameStart = 0
    }

    /// Scans text for a marker; returns true when a frame began (the loop goes on).
    mutating func scanText(isFinal: Bool) -> Bool {
        let end = window.received
        var match: MarkerSet.Match
        if sawVisibleText {
            match = setup.plan.laterSet.search(window, from: cut, end: end, isFinal: isFinal)
            if case .found(let k, let at) = match { match = .found(index: setup.plan.laterIndexes[k], at: at) }
        } else {
            // Markers that count only at the start of the output can begin only at the first
            // visible byte (markers never begin with white space): every start marker is tried
            // there, and the rest of the bytes are searched for the markers that hold anywhere
            // (so prose full of `{` and `[` costs no more than later text).
            var firstVisible = cut
            while firstVisible < end && JSONReader.isSpace(window[firstVisible]) { firstVisible += 1 }
            let probeEnd = min(end, firstVisible + setup.plan.startSet.maxLength)
            // A bound short of the received bytes is no end of the stream, but no marker that
            // begins at the first visible byte is cut by it.
            switch setup.plan.startSet.search(window, from: firstVisible, end: probeEnd, isFinal: isFinal || probeEnd < end) {
            case .found(let k, let at) where at == firstVisible:
                match = .found(index: setup.plan.startIndexes[k], at: at)
            case .partial(let at) where at == firstVisible:
                match = .partial(at: at)
            default:
                match = setup.plan.laterSet.search(window, from: cut, end: end, isFinal: isFinal)
                if case .found(let k, let at) = match { match = .found(index: setup.plan.laterIndexes[k], at: at) }
            }
        }
        switch match {
        case .none:
            let safe = isFinal ? end : UTF8Boundary.safeEnd(window, start: cut, end: end)
            if safe > cut { emitText(upTo: safe) }
            return false
        case .partial(let at):
            if at > cut { emitText(upTo: at) }
            return false
        case .found(let k, let at):
            if isFinal, case .start = setup.plan.markers[k].kind, endsInsideStartMarker(from: at) {
                // The stream ended while a longer start marker was being written: the shorter
                // start marker it begins with (MiniMax M3's namespace token in
                // `]<]minimax[>[<tool_ca`, DSML's `<｜DSML｜tool_calls` without its `>`) never
                // began a frame, and no call began. Text. (A shorter marker that is markup on
                // its own, GigaChat 3's `<|message_sep|>`, stays markup.)
                emitText(upTo: end)
                return false
            }
            if at > cut { emitText(upTo: at) }
            let marker = setup.plan.markers[k]
            let bodyStart = at + marker.bytes.count
            switch marker.kind {
            case .stray:
                emitMarkup(upTo: bodyStart)
            case .start:
                let atStart = isAtStart(at)
                if !grammarMade {
                    grammar = format.definition.makeGrammar(setup.context)
                    grammarMade = true
                }
                grammar.begin(marker: k, at: at, bodyStart: bodyStart, atStart: atStart, context: setup.context)
                frameStart = at
                mode = .frame
            case .reasoningOpen(let pair):
                reasoningTextStart = bodyStart
                mode = .reasoning(pair: pair)
            }
            return true
        }
    }

    /// Whether the bytes from `at` to the end of the window are a proper prefix of one of the
    /// format's start markers.
    private func endsInsideStartMarker(from at: Int) -> Bool {
        let n = window.received - at
        for m in setup.plan.markers where m.bytes.count > n {
            guard case .start = m.kind else { continue }
            var k = 0
            while k < n && window[at + k] == m.bytes[k] { k += 1 }
            if k == n { return true }
        }
        return false
    }

    /// At the start of a stream that began inside a reasoning block: an open marker the model
    /// writes anyway (after white space) is markup of the block, not its text. Returns false
    /// while the bytes so far could still be such a marker.
    mutating func skipRedundantOpener(isFinal: Bool) -> Bool {
        var i = cut
        while i < window.received && JSONReader.isSpace(window[i]) { i += 1 }
        if i == window.received && !isFinal { return false }
        switch setup.plan.reasoningOpeners.search(window, from: i, end: min(window.received, i + setup.plan.reasoningOpeners.maxLength), isFinal: isFinal) {
        case .found(let k, let at) where at == i:
            reasoningTextStart = at + setup.plan.reasoningOpeners.markers[k].count
        case .partial(let at) where at == i:
            return false
        default:
            break
        }
        openerChecked = true
        return true
    }

    /// No visible text before `at`.
    func isAtStart(_ at: Int) -> Bool {
        guard !sawVisibleText else { return false }
        var i = cut
        while i < at {
            if !JSONReader.isSpace(window[i]) { return false }
            i += 1
        }
        return true
    }

    mutating func emitText(upTo end: Int) {
        guard end > cut else { return }
        let slice = window.slice(cut..<end)
        if !sawVisibleText {
            sawVisibleText = slice.contains { !JSONReader.isSpace($0) }
        }
        events.append(.text(EventText(slice)))
        cut = end
    }

    mutating func emitMarkup(upTo end: Int) {
        guard end > cut else { return }
        if setup.options.rawSpans { events.append(.markup(raw: window.bytes(cut..<end))) }
        cut = end
    }
}
