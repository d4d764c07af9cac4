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
    /// Per marker, what must follow it (one-byte markers only), or nil.
    private let follows: [FollowRule?]
    /// Whether any marker has a ``FollowRule``.
    private let hasRules: Bool
    private var firstBytes = ByteSet()
    /// When every marker starts with the same byte, that byte (a faster search).
    private let soleFirst: UInt8?
    /// When every marker is at least two bytes long and all share their second byte, that byte:
    /// a candidate whose next byte differs is passed over without comparing (`<` in prose
    /// against Kimi's or LFM2's `<|…|>` tokens).
    private let soleSecond: UInt8?
    /// The distinct first bytes, and each repeated in all 8 bytes of a word (for SWAR).
    private let firstList: [UInt8]
    private let firstPatterns: [UInt64]
    /// What a token-sized chunk's candidates are checked against: only for the sets a
    /// decoder's text fast path tests (`wordTest`), not for those grammars make as they go.
    private let candidates: CandidateCheck?
    /// The longest marker's length.
    let maxLength: Int

    /// - Parameters:
    ///   - follows: per marker (or empty: none), what must follow a one-byte marker.
    ///   - wordTest: whether ``test(lo:hi:count:)`` will be asked (a decoder's plan).
    init(_ markers: [[UInt8]], follows: [FollowRule?] = [], wordTest: Bool = false) {
        self.markers = markers
        precondition(follows.isEmpty || follows.count == markers.count)
        self.follows = follows
        hasRules = follows.contains { $0 != nil }
        var firsts = Set<UInt8>()
        for m in markers where !m.isEmpty {
            firsts.insert(m[0])
            firstBytes.insert(m[0])
        }
        let list = firsts.sorted()
        // The word test: one to four first bytes, none of them zero (which would match the zero
        // padding of a short chunk).
        candidates = wordTest && (1...4).contains(list.count) && list[0] != 0
            ? CandidateCheck(markers, follows: follows.isEmpty ? Array(repeating: nil, count: markers.count) : follows, firsts: list)
            : nil
        soleFirst = firsts.count == 1 ? firsts.first : nil
        var second: UInt8? = markers.first.flatMap { $0.count >= 2 ? $0[1] : nil }
        for m in markers where m.count < 2 || m[1] != second { second = nil }
        soleSecond = second
        firstList = list
        firstPatterns = firstList.map { UInt64($0) &* 0x0101_0101_0101_0101 }
        wordTestReady = candidates != nil
        maxLength = markers.map(\.count).max() ?? 0
    }

    init(_ markers: [String]) { self.init(markers.map { Array($0.utf8) }) }

    @inline(__always)
    func canBegin(_ b: UInt8) -> Bool { firstBytes.contains(b) }

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

    /// Whether ``test(lo:hi:count:)`` may be asked: a decoder's set, with one to four first
    /// bytes, none zero. (Stored, though it is `candidates != nil`: the fast path tests a flag
    /// in place; testing the pointer cost 0.3–0.4 Ir/B of prose in 4-byte chunks.)
    var hasWordTest: Bool { wordTestReady }
    private let wordTestReady: Bool

    /// What ``test(lo:hi:count:)`` found in a token-sized chunk.
    enum WordTest: Equatable {
        /// No byte begins a marker here: the chunk is text.
        case text
        /// A marker may begin at this offset (an ASCII byte, at most
        /// ``CandidateCheck/maxHeld`` bytes from the end) but the bytes that tell have not come
        /// yet: what is before it is text.
        case hold(from: Int)
        /// A marker may begin here: the scanner must read the chunk.
        case scan
    }

    /// Whether a marker may begin in a chunk of `count` (1 to 16) bytes, packed little-endian
    /// into `lo` and `hi` with the unused bytes zero (``EventText/pack(_:)``; the zero padding
    /// matches no first byte, none is zero). Only with ``hasWordTest``.
    ///
    /// The words are tested for first bytes in a few instructions; only a chunk with a
    /// candidate looks further (``refine(lo:hi:count:_:_:)``).
    @inline(__always)
    func test(lo: UInt64, hi: UInt64, count: Int) -> WordTest {
        let check = unsafe candidates.unsafelyUnwrapped
        let (cl, ch) = check.hits(lo: lo, hi: hi)
        if cl | ch == 0 { return .text }
        return check.refine(lo: lo, hi: hi, count: count, cl, ch)
    }

    /// Whether no byte of `bytes` can begin a marker (the decoder's fast path for plain text).
    @inline(__always)
    func hasNoCandidate(in bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.count <= 16, let check = candidates {
            let (lo, hi) = EventText.pack(bytes)
            let (cl, ch) = check.hits(lo: lo, hi: hi)
            return cl | ch == 0
        }
        if bytes.count < 16 {
            // A few bytes (a server feeding tokens): a call to memchr costs more than looking,
            // and a branch-free test of each byte against the class costs least.
            let (c0, c1, c2, c3) = firstBytes.words
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
                if hasRules, n == m.count, let rule = follows[k] {
                    // A one-byte marker counts only when its rule's bytes follow it.
                    switch rule.check(count: end - (i + 1), { span[i + 1 - base + $0] }) {
                    case true?: break
                    case false?: continue
                    case nil:
                        if !isFinal { partial = true }
                        continue
                    }
                }
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

/// What the candidates of a token-sized chunk (``MarkerSet/test(lo:hi:count:)``) are checked
/// against: a class on the heap, since only a chunk with a candidate reads it (a chunk of prose
/// with a `<` or a `[` in it, not every chunk).
final class CandidateCheck: Sendable {
    /// Per byte value, what it is to the check (the `Role` bits): one table load per byte read.
    private let roles: InlineArray<256, UInt8>
    /// The rule of the one-byte marker with a rule (at most one: with more, every such marker
    /// is treated as one without a rule, which only sends its chunks to the scanner). Checked
    /// by ``FollowRule/check(count:isSkip:isFirst:isRest:isThen:)`` over the role table.
    private let rule: FollowRule?

    /// The bits of ``roles``.
    private enum Role {
        /// Is a one-byte marker without a rule (any byte may follow it), or one of several
        /// with rules.
        static let single: UInt8 = 1
        /// Is the one-byte marker with ``rule``.
        static let ruled: UInt8 = 2
        /// Comes second in a marker of two bytes or more.
        static let second: UInt8 = 4
        /// The rule's classes: skipped after the marker, first of the name, rest of the name.
        static let skip: UInt8 = 8
        static let nameFirst: UInt8 = 16
        static let nameRest: UInt8 = 32
    }

    /// - Parameter firsts: the markers' distinct first bytes (one to four, none zero).
    init(_ markers: [[UInt8]], follows: [FollowRule?], firsts: [UInt8]) {
        var roles = InlineArray<256, UInt8>(repeating: 0)
        let ruled = zip(markers, follows).compactMap { m, rule in m.count == 1 ? rule.map { (m[0], $0) } : nil }
        let rule = ruled.count == 1 ? ruled[0].1 : nil
        for (m, follow) in zip(markers, follows) {
            if m.count >= 2 {
                roles[Int(m[1])] |= Role.second
            } else if m.count == 1 {
                roles[Int(m[0])] |= follow != nil && rule != nil ? Role.ruled : Role.single
            }
        }
        if let rule {
            for b in 0..<256 {
                if rule.skip.contains(UInt8(b)) { roles[b] |= Role.skip }
                if rule.first.contains(UInt8(b)) { roles[b] |= Role.nameFirst }
                if rule.rest.contains(UInt8(b)) { roles[b] |= Role.nameRest }
            }
        }
        self.roles = roles
        self.rule = rule
        precondition((1...4).contains(firsts.count) && !firsts.contains(0), "the word test takes one to four first bytes, none zero")
        let lane = { (k: Int) in SIMD16<UInt8>(repeating: firsts[k % firsts.count]) }
        lanes = (lane(0), lane(1), lane(2), lane(3))
    }

    /// Each first byte repeated in all 16 lanes (the list repeated to four).
    private let lanes: (SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>)

    /// The bytes of two packed words (16 lanes) equal to a first byte, as 0xFF in their place
    /// (and 0 elsewhere) in two words: four compares, exact, with no branch (a mask joined
    /// across a branch costs a widening after it). The zero padding of a short chunk matches
    /// none.
    @inline(__always)
    func hits(lo: UInt64, hi: UInt64) -> (UInt64, UInt64) {
        let v = unsafe unsafeBitCast(SIMD2<UInt64>(lo, hi), to: SIMD16<UInt8>.self)
        let m = ((v .== lanes.0) .| (v .== lanes.1)) .| ((v .== lanes.2) .| (v .== lanes.3))
        let w = unsafe unsafeBitCast(m, to: SIMD2<UInt64>.self)
        return (w[0], w[1])
    }

    /// The most bytes a chunk may hold back (the decoder's `carry` holds eight).
    static let maxHeld = 8

    /// The candidates (the bytes ``hits(lo:hi:)`` marked) one by one, in order: one whose next
    /// byte comes second in no marker and that is no one-byte marker begins nothing, nor does a
    /// one-byte marker whose rule fails. A candidate whose next bytes have not come yet (it is
    /// the last byte, or its rule cannot tell) holds the rest back when it is ASCII and within
    /// ``maxHeld`` bytes of the end; any other goes to the scanner.
    @inline(never)
    func refine(lo: UInt64, hi: UInt64, count: Int, _ cl: UInt64, _ ch: UInt64) -> MarkerSet.WordTest {
        @inline(__always)
        func byte(_ k: Int) -> UInt8 { UInt8(truncatingIfNeeded: (k < 8 ? lo : hi) &>> UInt64(truncatingIfNeeded: (k & 7) &* 8)) }
        @inline(__always)
        func role(_ k: Int) -> UInt8 { roles[Int(byte(k))] }
        @inline(__always)
        func hold(_ k: Int) -> MarkerSet.WordTest {
            byte(k) < 0x80 && count &- k <= Self.maxHeld ? .hold(from: k) : .scan
        }
        // One bit per byte (bit k for byte k): the high bit of each byte gathered by a multiply.
        @inline(__always)
        func gather(_ w: UInt64) -> UInt64 { ((w &>> 7 & 0x0101_0101_0101_0101) &* 0x0102_0408_1020_4080) &>> 56 }
        var bits = (gather(cl) | gather(ch) &<< 8) & ((1 &<< UInt64(truncatingIfNeeded: count)) &- 1)
        while bits != 0 {
            let k = bits.trailingZeroBitCount
            bits &= bits &- 1
            let r = role(k)
            if k == count &- 1 { return hold(k) }
            if role(k &+ 1) & Role.second != 0 || r & Role.single != 0 { return .scan }
            guard r & Role.ruled != 0, let rule else { continue }
            // The rule, over the bytes that follow, its classes read from the table.
            let next = k &+ 1
            switch rule.check(
                count: count &- next, isSkip: { role(next &+ $0) & Role.skip != 0 },
                isFirst: { role(next &+ $0) & Role.nameFirst != 0 }, isRest: { role(next &+ $0) & Role.nameRest != 0 },
                isThen: { byte(next &+ $0) == rule.then })
            {
            case true?: return .scan
            case false?: continue
            case nil: return hold(k)
            }
        }
        return .text
    }
}
