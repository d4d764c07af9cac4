// ToolCallKit — a set of bytes, tested in constant time.

/// A set of byte values (256 bits in four words).
///
/// What the marker search asks of a byte (can it begin a marker, can it come second), what a
/// response template's scan asks, and the byte classes of a ``FollowRule``.
struct ByteSet: Sendable {
    /// Bit `b & 63` of word `b >> 6` is set when `b` is in the set.
    private(set) var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    init(_ bytes: some Sequence<UInt8>) {
        for b in bytes { insert(b) }
    }

    /// The bytes for which `predicate` holds.
    init(where predicate: (UInt8) -> Bool) {
        for b in UInt8.min...UInt8.max where predicate(b) { insert(b) }
    }

    /// Every byte.
    static let all = ByteSet(where: { _ in true })

    mutating func insert(_ b: UInt8) {
        let bit = UInt64(1) << UInt64(b & 63)
        switch b >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    @inline(__always)
    func contains(_ b: UInt8) -> Bool {
        let word: UInt64
        switch b >> 6 {
        case 0: word = words.0
        case 1: word = words.1
        case 2: word = words.2
        default: word = words.3
        }
        return (word >> UInt64(b & 63)) & 1 != 0
    }
}
