// ToolCallKit — streaming detokenization: ids in, UTF-8 bytes out, constant work per id.

/// Turns token ids into UTF-8 bytes one id at a time, exactly as `tokenizers`'
/// `decode(ids, skip_special_tokens=False)` would for the whole stream.
///
/// Bytes come out as soon as nothing later can change them. Held back are only:
///
/// - byte-level: an unfinished UTF-8 sequence (at most 3 bytes). Invalid bytes become U+FFFD
///   by the "maximal subpart" rule of `String::from_utf8_lossy`, which `tokenizers` applies to
///   the whole decode;
/// - SentencePiece-style: a run of `<0xNN>` pieces, until the run ends. `tokenizers` decodes a
///   run as a unit and turns *every* byte of it into U+FFFD when any part is invalid, so even a
///   complete character at the start of a run cannot be emitted before the run's end; and the
///   characters a `Strip` decoder may still remove (a leading space before any text, trailing
///   ones when `stop` is set).
///
/// Each id costs a table look-up and a copy of its bytes; nothing is ever decoded twice (no
/// re-decoding of a growing prefix). Ids must be valid (``Tokenizer/contains(_:)``).
public struct Detokenizer: Sendable {
    public let tokenizer: Tokenizer

    // Byte-level: an unfinished sequence `p0 p1 p2` (`count` bytes of `need`).
    private var p0: UInt8 = 0
    private var p1: UInt8 = 0
    private var p2: UInt8 = 0
    private var count = 0
    private var need = 0

    // SentencePiece-style.
    private var run: [UInt8] = []
    private var stripLeft = 0
    private var tailChars = 0

    // No decoder.
    private var started = false

    /// Which ids ``passThrough(_:)`` can pass, decided once from the joining (so no id switches
    /// over its payload).
    private enum PassRule: Sendable {
        /// Byte-level: a whole-UTF-8 token while no sequence is held.
        case wholeUTF8
        /// SentencePiece-style without a trailing `Strip` hold: a non-byte piece once the
        /// leading strip is done and no byte run is open.
        case piece
        /// Every id goes through ``decode(_:into:)`` (a space between pieces, or trailing
        /// characters a `Strip` may still remove).
        case none
    }
    private let passRule: PassRule

    public init(tokenizer: Tokenizer) {
        self.tokenizer = tokenizer
        if case .pieces(_, let strip?) = tokenizer.joining { stripLeft = strip.start }
        switch tokenizer.joining {
        case .byteLevel: passRule = .wholeUTF8
        case .pieces(_, let strip): passRule = (strip?.stop ?? 0) > 0 ? .none : .piece
        case .spaceJoined: passRule = .none
        }
    }

    /// The bytes `id` completes when they are exactly its own bytes (nothing held before it,
    /// nothing to repair, strip or join): their range in the tokenizer's table
    /// (``Tokenizer/arena``), no copy. Nil when ``decode(_:into:)`` must do the work; the state
    /// is unchanged either way, and the id counts as decoded when the bytes are used.
    @inline(__always)
    func passThrough(_ id: Int) -> Range<Int>? {
        let flags = tokenizer.flags[id]
        switch passRule {
        case .wholeUTF8:
            guard count == 0 && flags & Tokenizer.Flag.wholeUTF8 != 0 else { return nil }
        case .piece:
            guard run.isEmpty && flags & Tokenizer.Flag.byte == 0 && stripLeft == 0 else { return nil }
        case .none:
            return nil
        }
        return Int(tokenizer.starts[id])..<Int(tokenizer.starts[id &+ 1])
    }

    /// Appends the bytes that `id` completes to `out`.
    public mutating func decode(_ id: Int, into out: inout [UInt8]) {
        precondition(tokenizer.contains(id), "token id \(id) is not in the vocabulary")
        let flags = tokenizer.flags[id]
        let from = Int(tokenizer.starts[id])
        let to = Int(tokenizer.starts[id + 1])
        switch tokenizer.joining {
        case .byteLevel:
            if count == 0 && flags & Tokenizer.Flag.wholeUTF8 != 0 {
                out.append(contentsOf: tokenizer.arena[from..<to])
            } else {
                for i in from..<to { lossy(tokenizer.arena[i], into: &out) }
            }
        case .pieces(_, let strip):
            if flags & Tokenizer.Flag.byte != 0 {
                run.append(tokenizer.arena[from])
                return
            }
            if !run.isEmpty { endRun(strip, into: &out) }
            emit(tokenizer.arena[from..<to], strip, into: &out)
        case .spaceJoined:
            if started { out.append(0x20) }
            started = true
            out.append(contentsOf: tokenizer.arena[from..<to])
        }
    }

    /// Appends the bytes of all of `ids`.
    public mutating func decode(_ ids: some Sequence<Int>, into out: inout [UInt8]) {
        for id in ids { decode(id, into: &out) }
    }

    /// Ends the stream: an unfinished sequence becomes U+FFFD, a pending byte run is decoded,
    /// characters held for `Strip` are dropped.
    public mutating func finish(into out: inout [UInt8]) {
        switch tokenizer.joining {
        case .byteLevel:
            if count > 0 {
                count = 0
                out.append(contentsOf: Self.replacement)
            }
        case .pieces(_, let strip):
            if !run.isEmpty { endRun(strip, into: &out) }
            tailChars = 0
        case .spaceJoined:
            break
        }
    }

    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    // MARK: - Byte-level

    /// One byte through a streaming `from_utf8_lossy`.
    @inline(__always)
    private mutating func lossy(_ b: UInt8, into out: inout [UInt8]) {
        if count == 0 {
            switch b {
            case 0x00...0x7F: out.append(b)
            case 0xC2...0xDF: start(b, need: 2)
            case 0xE0...0xEF: start(b, need: 3)
            case 0xF0...0xF4: start(b, need: 4)
            default: out.append(contentsOf: Self.replacement)
            }
            return
        }
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        if count == 1 {
            switch p0 {
            case 0xE0: lo = 0xA0
            case 0xED: hi = 0x9F
            case 0xF0: lo = 0x90
            case 0xF4: hi = 0x8F
            default: break
            }
        }
        guard b >= lo && b <= hi else {
            // The sequence so far is a maximal subpart: one U+FFFD, then `b` starts afresh.
            count = 0
            out.append(contentsOf: Self.replacement)
            lossy(b, into: &out)
            return
        }
        if count + 1 == need {
            out.append(p0)
            if count > 1 { out.append(p1) }
            if count > 2 { out.append(p2) }
            out.append(b)
            count = 0
            return
        }
        if count == 1 { p1 = b } else { p2 = b }
        count += 1
    }

    @inline(__always)
    private mutating func start(_ b: UInt8, need: Int) {
        p0 = b
        count = 1
        self.need = need
    }

    // MARK: - SentencePiece-style

    /// A byte-fallback run ended: its text if it is valid UTF-8, else one U+FFFD per byte.
    private mutating func endRun(_ strip: Tokenizer.Strip?, into out: inout [UInt8]) {
        if UTF8Boundary.isValid(run[...]) {
            emit(run[...], strip, into: &out)
        } else {
            var bad: [UInt8] = []
            bad.reserveCapacity(run.count * 3)
            for _ in 0..<run.count { bad.append(contentsOf: Self.replacement) }
            emit(bad[...], strip, into: &out)
        }
        run.removeAll(keepingCapacity: true)
    }

    /// Text after the per-piece steps, through `Strip` (applied to the fused stream).
    private mutating func emit(_ text: ArraySlice<UInt8>, _ strip: Tokenizer.Strip?, into out: inout [UInt8]) {
        guard let strip else {
            out.append(contentsOf: text)
            return
        }
        var s = text.startIndex
        let c = strip.content
        while stripLeft > 0 && s < text.endIndex {
            if Self.hasPrefix(text, at: s, c) {
                s += c.count
                stripLeft -= 1
            } else {
                stripLeft = 0
            }
        }
        guard s < text.endIndex else { return }
        // Text was seen: no later character is at the start any more.
        stripLeft = 0
        guard strip.stop > 0 else {
            out.append(contentsOf: text[s...])
            return
        }
        // Hold back up to `stop` trailing copies of the content: they go if the stream ends.
        var e = text.endIndex
        var trailing = 0
        while e - c.count >= s && Self.hasPrefix(text, at: e - c.count, c) {
            e -= c.count
            trailing += 1
        }
        if e == s {
            tailChars += trailing
        } else {
            for _ in 0..<tailChars { out.append(contentsOf: c) }
            out.append(contentsOf: text[s..<e])
            tailChars = trailing
        }
        while tailChars > strip.stop {
            out.append(contentsOf: c)
            tailChars -= 1
        }
    }

    @inline(__always)
    private static func hasPrefix(_ text: ArraySlice<UInt8>, at i: Int, _ p: [UInt8]) -> Bool {
        guard i + p.count <= text.endIndex else { return false }
        for k in 0..<p.count where text[i + k] != p[k] { return false }
        return true
    }
}
