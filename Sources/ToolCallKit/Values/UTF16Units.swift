// ToolCallKit — UTF-16 code units from `\uXXXX` escapes, paired into Unicode scalars.

/// The surrogate ranges of UTF-16, asked about in one place.
///
/// JSON (and Python) strings escape a character outside the Basic Multilingual Plane as two
/// `\uXXXX` escapes, a high half (`D800`–`DBFF`) and then a low half (`DC00`–`DFFF`). Every
/// reader that decodes or checks escapes uses these tests and ``UTF16Pairing``, so they agree
/// on what a pair is and on what a lone half becomes.
enum UTF16Unit {
    /// Whether `u` is the first half of a surrogate pair.
    @inline(__always) static func isHigh(_ u: UInt32) -> Bool { u >= 0xD800 && u < 0xDC00 }
    /// Whether `u` is the second half of a surrogate pair.
    @inline(__always) static func isLow(_ u: UInt32) -> Bool { u >= 0xDC00 && u < 0xE000 }
    /// The scalar a high and a low half encode together.
    @inline(__always) static func scalar(high: UInt32, low: UInt32) -> UInt32 {
        0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    }
}

/// Turns decoded escape code units into UTF-8, pairing surrogate halves.
///
/// A high half is held until the next unit: a low half completes it; anything else (another
/// unit, a plain byte, the end of the string: call ``flush(into:)``) makes it U+FFFD. A low
/// half with no high half before it is U+FFFD too. The result is always valid UTF-8.
struct UTF16Pairing: Sendable {
    /// A high half waiting for its low half, or 0.
    private(set) var pendingHigh: UInt32 = 0

    /// Whether no high half is waiting.
    var isSettled: Bool { pendingHigh == 0 }

    /// Appends the UTF-8 of code unit `u` to `out`. With `pairs` false (an escape that names
    /// a whole scalar, such as Python's `\U0001F600`), `u` is never held as a half.
    @inline(__always) mutating func append(_ u: UInt32, pairs: Bool = true, into out: inout [UInt8]) {
        if pairs && UTF16Unit.isHigh(u) {
            flush(into: &out)
            pendingHigh = u
            return
        }
        var scalar = u
        if pairs && UTF16Unit.isLow(u) {
            if pendingHigh != 0 {
                scalar = UTF16Unit.scalar(high: pendingHigh, low: u)
                pendingHigh = 0
            } else {
                scalar = 0xFFFD
            }
        } else {
            flush(into: &out)
        }
        let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        out.append(contentsOf: UTF8.encode(s)!)
    }

    /// Ends a waiting high half: it becomes U+FFFD in `out`.
    @inline(__always) mutating func flush(into out: inout [UInt8]) {
        if pendingHigh != 0 {
            pendingHigh = 0
            out.append(contentsOf: [0xEF, 0xBF, 0xBD])
        }
    }

    /// Drops a waiting high half (the string it belonged to was abandoned).
    mutating func reset() { pendingHigh = 0 }
}
