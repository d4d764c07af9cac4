// ToolCallKit — finding literal markers in a byte window, across chunk boundaries.

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
    @inline(__always)
    func nextCandidate(_ span: Span<UInt8>, base: Int, from: Int, end: Int) -> Int {
        var i = from - base
        let e = end - base
        if let x = soleFirst {
            while i < e && span[i] != x { i += 1 }
        } else {
            while i < e && !canBegin(span[i]) { i += 1 }
        }
        return i + base
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
            i = nextCandidate(span, base: base, from: i, end: end)
            if i >= end { break }
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
}
