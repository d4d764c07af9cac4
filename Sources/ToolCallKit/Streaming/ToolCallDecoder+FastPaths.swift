// ToolCallKit — the decoder, the fast paths: a chunk of plain text counted without storing it, and a run of argument bytes forwarded as deltas while the grammar would only copy them.

extension ToolCallDecoder {
    /// The argument fast path: inside a run the grammar offered (``CallGrammar/passThrough(at:)``),
    /// a chunk (just appended to the window) with no byte that ends the run is forwarded as a
    /// delta here, up to an unfinished UTF-8 sequence; the grammar takes the bytes at its next
    /// step. Returns false when the grammar must read the chunk.
    @inline(__always)
    mutating func forward(_ run: PassThrough, _ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) -> Bool {
        let end = window.received
        guard end <= cut &+ callCap else { return false }
        let from = passEnd
        let n = chunk.count
        if n <= 16 && run.hasWordTest {
            // A token-sized chunk, packed once: tested, and (when it is the whole run so far, in
            // ASCII) the delta's inline text, with no slice and no reference count.
            let (l, h) = EventText.pack(chunk)
            guard run.admits(lo: l, hi: h, count: n) else { return false }
            if from == end &- n && (l | h) & 0x8080_8080_8080_8080 == 0 && !wholeCalls {
                if case .started(let index, _, _) = current {
                    out.append(.toolCallDelta(index: index, arguments: EventText(packed: l, h, count: n)))
                }
                passEnd = end
                return true
            }
        } else {
            guard run.admits(chunk) else { return false }
        }
        return forwardRun(run, from: from, into: &out)
    }

    /// ``forward(_:_:into:)`` for the bytes from `from` to the end of the window, which no byte
    /// of ends the run, when they are not a short run of ASCII: up to an unfinished UTF-8
    /// sequence, they are forwarded (valid UTF-8 when the run requires it, else false).
    @inline(never)
    mutating func forwardRun(_ run: PassThrough, from: Int, into out: inout [ToolCallEvent]) -> Bool {
        let end = window.received
        let count = end &- from
        if count <= 16 && !wholeCalls {
            // Packed from the window in place, the unfinished UTF-8 tail cut in the words.
            var (l, h) = window.pack(from: from, count: count)
            let emit = count &- (Self.byte(count &- 1, l, h) < 0x80 ? 0 : Self.unfinishedTail(l, h, count: count))
            guard emit > 0 else { return true }
            if emit < count { (l, h) = Self.prefix(l, h, count: emit) }
            if run.requiresValidUTF8 && !UTF8Boundary.isValid(window.slice(from..<(from &+ emit))) { return false }
            if case .started(let index, _, _) = current {
                out.append(.toolCallDelta(index: index, arguments: EventText(packed: l, h, count: emit)))
            }
            passEnd = from &+ emit
            return true
        }
        let tail = UTF8Boundary.unfinishedTail(count: count) { [window] k in window[from &+ k] }
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
            return
        }
        // Only an unfinished UTF-8 character is held here (a possible marker's bytes go to the
        // scanner with the chunk, `feedPlainChunk`): at most 3 bytes.
        assert(carryCount <= 3)
        let first = chunk.startIndex
        let held = carryCount
        let carry = self.carry
        let total = held &+ chunk.count
        /// Byte `k` of the held bytes followed by the chunk.
        func byte(_ k: Int) -> UInt8 {
            k < held ? UInt8(truncatingIfNeeded: carry >> UInt64(k &* 8)) : chunk[first &+ (k &- held)]
        }
        let tail = UTF8Boundary.unfinishedTail(count: total, byte)
        let emit = total &- tail
        if emit > 0 {
            // A held tail starts at a lead byte, so what is emitted covers the whole carry.
            let upTo = first &+ (emit &- held)
            out.append(.text(held == 0 ? EventText(chunk[first..<upTo]) : EventText(carry: UInt32(truncatingIfNeeded: carry), count: held, chunk[first..<upTo])))
            window.skipEmpty(emit)
        }
        // The new carry: the last `tail` bytes of carry + chunk.
        var c: UInt64 = 0
        for k in 0..<tail { c |= UInt64(byte(emit &+ k)) << UInt64(k &* 8) }
        self.carry = c
        carryCount = tail
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
        return UTF8Boundary.unfinishedTail(last4: last4)
    }

    /// The first `count` (0 to 15) bytes of two packed words, the rest zero (as packed text has
    /// it).
    @inline(__always)
    static func prefix(_ lo: UInt64, _ hi: UInt64, count: Int) -> (UInt64, UInt64) {
        let kept = (UInt128(hi) &<< 64 | UInt128(lo)) & ((1 &<< UInt128(truncatingIfNeeded: count &* 8)) &- 1)
        return (UInt64(truncatingIfNeeded: kept), UInt64(truncatingIfNeeded: kept &>> 64))
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
        for k in 0..<carryCount { window.append(byte: UInt8(truncatingIfNeeded: carry >> UInt64(k &* 8))) }
        carry = 0
        carryCount = 0
    }
}
