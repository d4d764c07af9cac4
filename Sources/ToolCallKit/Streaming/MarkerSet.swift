// ToolCallKit — finding literal markers in a byte window, across chunk boundaries.

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A set of literal byte strings, searched for together.
///
/// The search looks only at bytes that can begin a marker (a 256-bit class), then compares.
/// When a marker's prefix runs into the end of the received bytes it reports `partial`, so the
/// caller holds back only that suffix until more bytes arrive. The text scanner and every
/// grammar that waits for a closing tag share it.
struct MarkerSet: Sendable {
    /// The result of a search.
    enum Match: Equatable {
        /// `markers[index]` occupies `[at, at + count)`.
        case found(index: Int, at: Int)
        /// Bytes from `at` to the end could still begin a marker.
        case partial(at: Int)
        /// No marker starts in the range, nor could one.
        case none
    }

    let markers: [[UInt8]]
    private var firstBytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// When every marker starts with the same byte, that byte (a faster search).
    private let soleFirst: UInt8?
    /// When every marker is at least two bytes long and all share their second byte, that byte:
    /// a candidate whose next byte differs is passed over without comparing (`<` in prose
    /// against Kimi's or LFM2's `<|…|>` tokens).
    private let soleSecond: UInt8?
    /// The distinct first bytes, and each repeated in all 8 bytes of a word (for SWAR).
    private let firstList: [UInt8]
    private let firstPatterns: [UInt64]
    /// With one to four distinct first bytes, none of them zero: each repeated in all 8 bytes
    /// of a word (the list padded with its first), for a chunk of at most 16 bytes tested as
    /// two words (``hasNoCandidate(lo:hi:count:)``).
    private let wordPatterns: (UInt64, UInt64, UInt64, UInt64)?
    /// The longest marker's length.
    let maxLength: Int

    init(_ markers: [[UInt8]]) {
        self.markers = markers
        var firsts = Set<UInt8>()
        for m in markers where !m.isEmpty {
            firsts.insert(m[0])
            let b = m[0]
            switch b >> 6 {
            case 0: firstBytes.0 |= 1 << UInt64(b & 63)
            case 1: firstBytes.1 |= 1 << UInt64(b & 63)
            case 2: firstBytes.2 |= 1 << UInt64(b & 63)
            default: firstBytes.3 |= 1 << UInt64(b & 63)
            }
        }
        soleFirst = firsts.count == 1 ? firsts.first : nil
        var second: UInt8? = markers.first.flatMap { $0.count >= 2 ? $0[1] : nil }
        for m in markers where m.count < 2 || m[1] != second { second = nil }
        soleSecond = second
        firstList = firsts.sorted()
        firstPatterns = firstList.map { UInt64($0) &* 0x0101_0101_0101_0101 }
        // A first byte of 0 would match the zero padding of a short chunk: not for that test.
        if (1...4).contains(firstPatterns.count) && firstList[0] != 0 {
            let p = firstPatterns + Array(repeating: firstPatterns[0], count: 4 - firstPatterns.count)
            wordPatterns = (p[0], p[1], p[2], p[3])
        } else {
            wordPatterns = nil
        }
        maxLength = markers.map(\.count).max() ?? 0
    }

    init(_ markers: [String]) { self.init(markers.map { Array($0.utf8) }) }

    @inline(__always)
    func canBegin(_ b: UInt8) -> Bool {
        let word: UInt64
        switch b >> 6 {
        case 0: word = firstBytes.0
        case 1: word = firstBytes.1
        case 2: word = firstBytes.2
        default: word = firstBytes.3
        }
        return (word >> UInt64(b & 63)) & 1 != 0
    }

    /// The first position in `[from, end)` whose byte can begin a marker, or `end`.
    ///
    /// The hot loop of the text scanner: `memchr` (vectorized) when every marker starts with
    /// the same byte, otherwise 8 bytes at a time (SWAR) over the few distinct first bytes.
    @inline(__always)
    func nextCandidate(_ w: ByteWindow, from: Int, end: Int) -> Int {
        guard from < end else { return end }
        let base = w.base
        return unsafe w.storage.withUnsafeBufferPointer { buf -> Int in
            let offset = unsafe candidateOffset(buf.baseAddress! + (from - base), count: end - from)
            return from + offset
        }
    }

    /// Whether ``hasNoCandidate(lo:hi:count:)`` may be asked: one to four first bytes, none zero.
    var hasWordTest: Bool { wordPatterns != nil }

    /// Whether no byte of a chunk of `count` (at most 16) bytes, packed little-endian into `lo`
    /// and `hi` with the unused bytes zero (``EventText/pack(_:)``), can begin a marker. Only
    /// with ``hasWordTest``.
    ///
    /// A zero byte of `word ^ pattern` is a hit, and `(x - 0x01…) & ~x & 0x80…` is nonzero
    /// exactly when `x` has a zero byte. The zero padding matches no pattern (none is zero).
    @inline(__always)
    func hasNoCandidate(lo: UInt64, hi: UInt64, count: Int) -> Bool {
        let (p0, p1, p2, p3) = unsafe wordPatterns.unsafelyUnwrapped
        let lows: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always)
        func hits(_ v: UInt64) -> UInt64 {
            let x0 = v ^ p0
            let x1 = v ^ p1
            let x2 = v ^ p2
            let x3 = v ^ p3
            return (x0 &- lows) & ~x0 | (x1 &- lows) & ~x1 | (x2 &- lows) & ~x2 | (x3 &- lows) & ~x3
        }
        var h = hits(lo)
        if count > 8 { h |= hits(hi) }
        return h & highs == 0
    }

    /// Whether no byte of `bytes` can begin a marker (the decoder's fast path for plain text).
    @inline(__always)
    func hasNoCandidate(in bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.count <= 16, hasWordTest {
            let (lo, hi) = EventText.pack(bytes)
            return hasNoCandidate(lo: lo, hi: hi, count: bytes.count)
        }
        if bytes.count < 16 {
            // A few bytes (a server feeding tokens): a call to memchr costs more than looking,
            // and a branch-free test of each byte against the class costs least.
            let (c0, c1, c2, c3) = firstBytes
            return unsafe bytes.withUnsafeBufferPointer { buf in
                var hits: UInt64 = 0
                for unsafe b in unsafe buf {
                    let word = b < 0x40 ? c0 : b < 0x80 ? c1 : b < 0xC0 ? c2 : c3
                    hits |= word >> UInt64(b & 63)
                }
                return hits & 1 == 0
            }
        }
        return unsafe bytes.withUnsafeBufferPointer { buf in
            unsafe candidateOffset(buf.baseAddress!, count: buf.count) == buf.count
        }
    }

    /// The offset of the first byte in `start[0..<count]` that can begin a marker, or `count`.
    @inline(__always)
    private func candidateOffset(_ start: UnsafePointer<UInt8>, count: Int) -> Int {
        if let x = soleFirst {
            guard let hit = unsafe memchr(start, Int32(x), count) else { return count }
            return unsafe UnsafeRawPointer(hit) - UnsafeRawPointer(start)
        }
        var i = 0
        if firstList.count <= 4 {
            // SWAR: a byte equal to b makes (v ^ b*0x01..) have a zero byte.
            let lows: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while i + 8 <= count {
                let v = unsafe UnsafeRawPointer(start + i).loadUnaligned(as: UInt64.self)
                var found: UInt64 = 0
                for pattern in firstPatterns {
                    let x = v ^ pattern
                    found |= (x &- lows) & ~x & highs
                }
                if found != 0 { break }
                i += 8
            }
        }
        while i < count {
            if canBegin(unsafe start[i]) { return i }
            i += 1
        }
        return count
    }

    /// Searches `[from, end)` for the first marker (or marker prefix at the end).
    ///
    /// - Parameters:
    ///   - isFinal: no more bytes will come, so a prefix at the end is not a match.
    ///   - allowed: which markers count at a position (for context-dependent markers).
    func search(
        _ w: ByteWindow, from: Int, end: Int, isFinal: Bool = false,
        allowed: (Int, Int) -> Bool = { _, _ in true }
    ) -> Match {
        let span = w.storage.span
        let base = w.base
        var i = from
        while i < end {
            i = nextCandidate(w, from: i, end: end)
            if i >= end { break }
            if let second = soleSecond, i + 1 < end, span[i + 1 - base] != second {
                i += 1
                continue
            }
            var best: Int? = nil
            var partial = false
            for (k, m) in markers.enumerated() where span[i - base] == m[0] {
                let avail = end - i
                let n = min(avail, m.count)
                var ok = true
                var j = 1
                while j < n {
                    if span[i - base + j] != m[j] {
                        ok = false
                        break
                    }
                    j += 1
                }
                guard ok, allowed(k, i) else { continue }
                if n == m.count {
                    if best == nil || m.count > markers[best!].count { best = k }
                } else if !isFinal {
                    partial = true
                }
            }
            if partial { return .partial(at: i) }
            if let best { return .found(index: best, at: i) }
            i += 1
        }
        return .none
    }

    /// Skips the rest of a malformed frame: rejects it as `malformed` up to the first of these
    /// markers (through the marker when `through` says so, else up to it, so that the text
    /// scanner sees it), or keeps waiting. What every grammar does after a syntax error.
    ///
    /// - Returns: `.finished` at the end of the rejected bytes, or `.needMore`.
    func rejectMalformed(
        _ w: ByteWindow, pos: inout Int, detail: String, actions: inout [GrammarAction],
        through: (Int) -> Bool
    ) -> GrammarStep {
        switch search(w, from: pos, end: w.end) {
        case .found(let k, let at):
            let end = through(k) ? at + markers[k].count : at
            actions.append(.reject(.malformed, detail: detail, end: end))
            return .finished(at: end)
        case .partial(let at):
            pos = at
            return .needMore
        case .none:
            pos = w.end
            return .needMore
        }
    }
}
