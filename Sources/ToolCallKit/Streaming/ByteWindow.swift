// ToolCallKit — the retained input window that every grammar reads by absolute offset.

/// The bytes of the stream that are still needed, addressed by absolute stream offset.
///
/// The decoder appends each chunk here and drops what has been accounted for. Grammars keep
/// absolute offsets (never indices into a chunk), so dropping a consumed prefix never moves
/// anything they point at; they must not read before the last cut the decoder made.
///
/// It does not interpret bytes and does not decide what to drop: ``ToolCallDecoder`` does.
struct ByteWindow: Sendable {
    /// The retained bytes; `storage[0]` is at absolute offset `base`.
    private(set) var storage: [UInt8] = []
    /// The absolute offset of the first retained byte.
    private(set) var base: Int = 0

    init() {}

    /// A window over `bytes` at offset 0, sharing their storage (no copy).
    init(holding bytes: [UInt8]) { storage = bytes }

    /// One past the absolute offset of the last byte received.
    var received: Int { base + storage.count }

    /// Where grammars must stop reading: the decoder lowers it to the size cap of the current
    /// call, so that a call is cut at the same byte however the input was chunked.
    var limit: Int = .max

    /// One past the last byte a grammar may read: the received bytes, up to ``limit``.
    var end: Int { min(base + storage.count, limit) }

    @inline(__always)
    subscript(offset: Int) -> UInt8 { storage[offset &- base] }

    /// The bytes in an absolute range.
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        storage[(range.lowerBound - base)..<(range.upperBound - base)]
    }

    /// The bytes in an absolute range, copied.
    func bytes(_ range: Range<Int>) -> [UInt8] { Array(slice(range)) }

    /// The `count` (1 to 16) bytes from absolute offset `from`, all received, packed into two
    /// words (``EventText/pack(_:)``), read in place.
    @inline(__always)
    func pack(from: Int, count: Int) -> (UInt64, UInt64) {
        precondition(from >= base && from &+ count <= received && (1...16).contains(count))
        return unsafe storage.withUnsafeBufferPointer { buf in
            unsafe EventText.pack(UnsafeRawPointer(buf.baseAddress! + (from &- base)), count: count)
        }
    }

    mutating func append(_ chunk: ArraySlice<UInt8>) {
        unsafe chunk.withUnsafeBufferPointer { unsafe storage.append(contentsOf: $0) }
    }

    mutating func append(_ chunk: [UInt8]) { append(chunk[...]) }

    mutating func append(byte: UInt8) {
        storage.append(byte)
    }

    /// Counts `n` bytes as received and already accounted for, without storing them (the
    /// decoder's fast path for plain text). Only when nothing is retained.
    @inline(__always)
    mutating func skipEmpty(_ n: Int) {
        // (The decoder's plainText flag holds only with nothing retained: checked in debug.)
        assert(storage.isEmpty)
        base &+= n
    }

    /// Drops every byte before `offset`. Cheap when little remains: the bytes kept are moved.
    mutating func discard(before offset: Int) {
        let n = offset - base
        guard n > 0 else { return }
        if n >= storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 1 << 20)
        } else if storage.capacity > 1 << 20 && (storage.count - n) * 4 < storage.capacity {
            // What a large call left behind is released: a stream holds what it still needs,
            // not the largest call it ever had.
            storage = Array(storage[n...])
        } else {
            storage.removeSubrange(0..<n)
        }
        base = offset
    }
}

// MARK: - UTF-8 helpers shared by every emitter

enum UTF8Boundary {
    /// The largest `e <= end` such that `[start, e)` does not end inside a UTF-8 sequence that
    /// could still be completed by later bytes. Invalid bytes are not held (they become
    /// U+FFFD whatever follows), only a valid but unfinished sequence of at most 3 bytes.
    static func safeEnd(_ w: ByteWindow, start: Int, end: Int) -> Int {
        end - unfinishedTail(count: end - start) { w[start &+ $0] }
    }

    /// Whether `bytes` does not end inside a valid but unfinished UTF-8 sequence.
    static func endsCleanly(_ bytes: ArraySlice<UInt8>) -> Bool {
        let first = bytes.startIndex
        return unfinishedTail(count: bytes.count) { bytes[first &+ $0] } == 0
    }

    /// How many bytes at the end of `count` bytes (read through `byte`) are a valid but
    /// unfinished UTF-8 sequence, worth holding back for the bytes that complete it: 0 to 3.
    /// Only the last 4 bytes are read.
    @inline(__always)
    static func unfinishedTail(count: Int, _ byte: (Int) -> UInt8) -> Int {
        guard count > 0, byte(count &- 1) >= 0x80 else { return 0 }
        // The lead byte of the last sequence, within the last 4 bytes.
        var i = count &- 1
        while i > 0 && byte(i) & 0xC0 == 0x80 && count &- i < 4 { i &-= 1 }
        let b0 = byte(i)
        let need: Int
        switch b0 {
        case 0xC2...0xDF: need = 2
        case 0xE0...0xEF: need = 3
        case 0xF0...0xF4: need = 4
        default: return 0  // ASCII, a stray continuation or an invalid lead: nothing to wait for
        }
        let have = count &- i
        guard have < need else { return 0 }
        // Unfinished: only a valid prefix is worth waiting for.
        if have >= 2 {
            let b1 = byte(i &+ 1)
            switch b0 {
            case 0xE0: if b1 < 0xA0 || b1 > 0xBF { return 0 }
            case 0xED: if b1 < 0x80 || b1 > 0x9F { return 0 }
            case 0xF0: if b1 < 0x90 || b1 > 0xBF { return 0 }
            case 0xF4: if b1 < 0x80 || b1 > 0x8F { return 0 }
            default: if b1 & 0xC0 != 0x80 { return 0 }
            }
        }
        if have >= 3 && byte(i &+ 2) & 0xC0 != 0x80 { return 0 }
        return have
    }

    /// ``unfinishedTail(count:_:)`` of four bytes in one word (little-endian: the last byte is
    /// the top one; zero bytes below a shorter text read as ASCII, as its start would), with
    /// few branches: the continuation bytes at the end are counted from the top of the word,
    /// and only a lead with a narrower range for its second byte looks at that byte.
    @inline(__always)
    static func unfinishedTail(last4 w: UInt32) -> Int {
        // A continuation byte (10xxxxxx) becomes zero, any other byte does not.
        let c = (w & 0xC0C0_C0C0) ^ 0x8080_8080
        let t = min(c.leadingZeroBitCount &>> 3, 3)
        let lead = UInt8(truncatingIfNeeded: w &>> UInt32(truncatingIfNeeded: (3 &- t) &* 8))
        guard lead >= 0xC2 && lead <= 0xF4 else { return 0 }
        let need = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        let have = t &+ 1
        guard have < need else { return 0 }
        if have >= 2 {
            // The byte after the lead is a continuation byte; these leads allow fewer.
            let b1 = UInt8(truncatingIfNeeded: w &>> UInt32(truncatingIfNeeded: (4 &- t) &* 8))
            switch lead {
            case 0xE0: if b1 < 0xA0 { return 0 }
            case 0xED: if b1 > 0x9F { return 0 }
            case 0xF0: if b1 < 0x90 { return 0 }
            case 0xF4: if b1 > 0x8F { return 0 }
            default: break
            }
        }
        return have
    }

    /// Whether `bytes` is well-formed UTF-8 (Unicode Table 3-7).
    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            let n: Int
            var lo: UInt8 = 0x80
            var hi: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: n = 2
            case 0xE0: n = 3; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: n = 3
            case 0xED: n = 3; hi = 0x9F
            case 0xF0: n = 4; lo = 0x90
            case 0xF1...0xF3: n = 4
            case 0xF4: n = 4; hi = 0x8F
            default: return false
            }
            guard end - i >= n else { return false }
            let b1 = bytes[i + 1]
            guard b1 >= lo && b1 <= hi else { return false }
            for k in 2..<max(2, n) where bytes[i + k] & 0xC0 != 0x80 { return false }
            i += n
        }
        return true
    }
}
