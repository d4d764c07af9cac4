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

    /// The packed fast path (``feed(_:into:)``) for `count` (1 to 16) bytes of text, held bytes
    /// included, that end in bytes to hold back: from `holdFrom` when it is not negative (a
    /// marker may begin there, at most 4 bytes from the end), else an unfinished UTF-8
    /// character if there is one. What comes before is emitted, cut from the words; the rest
    /// becomes `carry`.
    @inline(never)
    mutating func feedPackedTail(_ l: UInt64, _ h: UInt64, count total: Int, holdFrom: Int, into out: inout [ToolCallEvent]) {
        let tail = holdFrom >= 0 ? total &- holdFrom : Self.unfinishedTail(l, h, count: total)
        let emit = total &- tail
        let v = UInt128(h) &<< 64 | UInt128(l)
        let s = UInt128(truncatingIfNeeded: emit &* 8)
        // The held bytes, `tail` (at most 3) from `emit`; only the emitted ones stay in the
        // words (the rest zero, as packed text has it).
        carry = UInt32(truncatingIfNeeded: v &>> s) & UInt32(truncatingIfNeeded: (UInt64(1) &<< UInt64(truncatingIfNeeded: tail &* 8)) &- 1)
        carryCount = tail
        guard emit > 0 else { return }
        let kept = tail == 0 ? v : v & ((1 &<< s) &- 1)
        out.append(.text(EventText(packed: UInt64(truncatingIfNeeded: kept), UInt64(truncatingIfNeeded: kept &>> 64), count: emit)))
        window.skipEmpty(emit)
        cut = window.base
    }

    /// ``UTF8Boundary/unfinishedTail(count:_:)`` of the `count` (1 to 16) bytes packed in two
    /// words: its last four bytes are taken into one word (zero below the first byte, which
    /// reads as ASCII and ends the look-back as the first byte would).
    @inline(__always)
    static func unfinishedTail(_ lo: UInt64, _ hi: UInt64, count: Int) -> Int {
        let v = UInt128(hi) &<< 64 | UInt128(lo)
        let last4 = count >= 4
            ? UInt32(truncatingIfNeeded: v &>> UInt128(truncatingIfNeeded: (count &- 4) &* 8))
            : UInt32(truncatingIfNeeded: v) &<< UInt32(truncatingIfNeeded: (4 &- count) &* 8)
        return UTF8Boundary.unfinishedTail(count: 4) { k in UInt8(truncatingIfNeeded: last4 &>> UInt32(truncatingIfNeeded: k &* 8)) }
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
