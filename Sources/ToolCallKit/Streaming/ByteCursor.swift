// ToolCallKit — the reading steps grammars take over the window, written once.

extension ByteWindow {
    /// The first offset at or after `pos` (up to ``end``) that is not JSON white space.
    @inline(__always)
    func skipSpace(from pos: Int) -> Int {
        var p = pos
        let e = end
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
}
