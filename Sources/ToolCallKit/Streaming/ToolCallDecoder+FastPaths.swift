// ToolCallKit — the decoder, the fast paths: a chunk of plain text counted without storing it, and a run of argument bytes forwarded as deltas while the grammar would only copy them.

extension ToolCallDecoder {
    /// The argument fast path: inside a run the grammar offered (``CallGrammar/passThrough(at:)``),
    /// a chunk (just appended to the window) with no byte that ends the run is forwarded as a
    /// delta here, up to an unfinished UTF-8 sequence; the grammar takes the bytes at its next
    /// step. Returns false when the grammar must read the chunk.
    @inline(__always)
    mutating func forward(_ run: PassThrough, _ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) -> Bool {
        let end = window.received
        guard end <= cut &+ callCap, run.admits(chunk) else { return false }
        let from = passEnd
        let tail = UTF8Boundary.unfinishedTail(count: end &- from) { [window] k in window[from &+ k] }
        let emitEnd = end &- tail
        guard emitEnd > from else { return true }
        let piece = window.slice(from..<emitEnd)
        if run.requiresValidUTF8 && !UTF8Boundary.isValid(piece) { return false }
        if case .started(let index, _, _) = current {
            if wholeCalls {
                heldArguments.append(contentsOf: piece)
            } else {
                out.append(.toolCallDelta(index: index, arguments: EventText(piece)))
            }
        }
        passEnd = emitEnd
        return true
    }

    /// The text fast path: emits `carry` and `chunk` as one text event, holding back an
    /// unfinished UTF-8 sequence at the end in `carry` (not in the window).
    @inline(__always)
    mutating func feedPlainText(_ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) {
        if carryCount == 0, chunk[chunk.endIndex &- 1] < 0x80 {
            // The common case: nothing held, and the chunk ends with ASCII.
            out.append(.text(EventText(chunk)))
            window.skipEmpty(chunk.count)
            cut = window.received
            return
        }
        let first = chunk.startIndex
        let held = carryCount
        let carry = self.carry
        let total = held &+ chunk.count
        /// Byte `k` of the held bytes followed by the chunk.
        func byte(_ k: Int) -> UInt8 {
            k < held ? UInt8(truncatingIfNeeded: carry >> UInt32(k &* 8)) : chunk[first &+ (k &- held)]
        }
        let tail = UTF8Boundary.unfinishedTail(count: total, byte)
        let emit = total &- tail
        if emit > 0 {
            // A held tail starts at a lead byte, so what is emitted covers the whole carry.
            let upTo = first &+ (emit &- held)
            out.append(.text(held == 0 ? EventText(chunk[first..<upTo]) : EventText(carry: carry, count: held, chunk[first..<upTo])))
            window.skipEmpty(emit)
            cut = window.received
        }
        // The new carry: the last `tail` bytes of carry + chunk.
        var c: UInt32 = 0
        for k in 0..<tail { c |= UInt32(byte(emit &+ k)) << UInt32(k &* 8) }
        self.carry = c
        carryCount = tail
    }

    /// ``feedPlainText(_:into:)`` for a chunk of `count` bytes packed into two words
    /// (``EventText/pack(_:)``), with `carryCount + count` at most 16: the held bytes and the
    /// chunk are joined, and what is emitted is cut from the words, with no pass over bytes.
    @inline(never)
    mutating func feedPackedText(lo: UInt64, hi: UInt64, count n: Int, into out: inout [ToolCallEvent]) {
        let held = carryCount
        let s = UInt64(held &* 8)
        // `l` and `h` are not captured mutably (that would cost an exclusivity check per use).
        let l = held > 0 ? lo << s | UInt64(carry) : lo
        let h = held > 0 ? hi << s | lo >> (64 &- s) : hi
        let total = held &+ n
        // The last byte ASCII (most chunks): nothing to hold back.
        let tail = Self.byte(total &- 1, l, h) < 0x80 ? 0 : UTF8Boundary.unfinishedTail(count: total) { k in Self.byte(k, l, h) }
        let emit = total &- tail
        // The held-back bytes: `tail` (at most 3) bytes from `emit`, across the two words.
        var c: UInt32 = 0
        if tail > 0 {
            let s = UInt64(emit &* 8)
            let v = s == 0 ? l : s < 64 ? l >> s | h << (64 &- s) : h >> (s &- 64)
            c = UInt32(truncatingIfNeeded: v) & UInt32(truncatingIfNeeded: (1 << UInt64(tail &* 8)) &- 1)
        }
        if emit > 0 {
            // Only the emitted bytes stay in the words (the rest zero, as packed text has it).
            let el = emit >= 8 ? l : l & ((1 << UInt64(emit &* 8)) &- 1)
            let eh = emit >= 16 ? h : emit <= 8 ? 0 : h & ((1 << UInt64((emit &- 8) &* 8)) &- 1)
            out.append(.text(EventText(packed: el, eh, count: emit)))
            window.skipEmpty(emit)
            cut = window.received
        }
        carry = c
        carryCount = tail
    }

    /// Byte `k` (below 16) of two packed words.
    @inline(__always)
    static func byte(_ k: Int, _ lo: UInt64, _ hi: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: (k < 8 ? lo : hi) >> UInt64((k & 7) &* 8))
    }

    /// Moves the text fast path's held-back bytes into the window, where the scanner sees them.
    @inline(__always)
    mutating func restoreCarry() {
        if carryCount > 0 { moveCarryToWindow() }
    }

    mutating func moveCarryToWindow() {
        for k in 0..<carryCount { window.append(byte: UInt8(truncatingIfNeeded: carry >> UInt32(k &* 8))) }
        carry = 0
        carryCount = 0
    }
}
