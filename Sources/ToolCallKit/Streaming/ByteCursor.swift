// ToolCallKit — the reading steps every grammar takes over the window, written once.

extension ByteWindow {
    /// The first offset at or after `pos` (up to ``end``) that is not JSON white space.
    @inline(__always)
    func skipSpace(from pos: Int) -> Int {
        var p = pos
        let e = end
        while p < e && JSONReader.isSpace(self[p]) { p += 1 }
        return p
    }

    /// Like ``skipSpace(from:)``, but looking at no more than `bound` bytes: a look-ahead that
    /// must stay bounded (its caller says why in a named constant).
    @inline(__always)
    func skipSpace(from pos: Int, bound: Int) -> Int {
        var p = pos
        let e = Swift.min(end, pos + bound)
        while p < e && JSONReader.isSpace(self[p]) { p += 1 }
        return p
    }

    /// `start..<end` without white space at either end.
    @inline(__always)
    func trimmingSpace(_ start: Int, _ end: Int) -> (start: Int, end: Int) {
        var s = start
        var e = end
        while s < e && JSONReader.isSpace(self[s]) { s += 1 }
        while e > s && JSONReader.isSpace(self[e - 1]) { e -= 1 }
        return (s, e)
    }

    /// Which of `tags` stands at `pos`: one of them, none, or `.partial` when the received bytes
    /// end inside one of them (and the stream goes on, `isFinal` false).
    @inline(__always)
    func match(_ tags: [[UInt8]], at pos: Int, isFinal: Bool = false) -> TagMatch {
        TagMatch.at(self, pos, tags, isFinal: isFinal)
    }

    /// Whether `tag` stands at `pos`: true, false, or nil when the received bytes end inside it
    /// before it is decided (and the stream goes on, `isFinal` false).
    @inline(__always)
    func hasTag(_ tag: [UInt8], at pos: Int, isFinal: Bool = false) -> Bool? {
        let e = end
        var j = 0
        while j < tag.count {
            if pos + j >= e { return isFinal ? false : nil }
            if self[pos + j] != tag[j] { return false }
            j += 1
        }
        return true
    }
}
