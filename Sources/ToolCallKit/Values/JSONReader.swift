// ToolCallKit — an incremental JSON reader that resumes where the last chunk ended.

/// Reads one JSON value from a ``ByteWindow``, a chunk at a time, into a ``JSONSink``: a
/// ``JSONValue`` tree (``JSONReader``) or its canonical text (``JSONTextReader``, what the
/// grammars use: no tree is built, so a call's value costs about its own size).
///
/// It never rereads a byte: all of its state (open containers, the string or number being
/// read) lives in the reader, and ``advance(_:from:to:)`` continues from `pos`. It stops and
/// reports when a value starts or ends at a container depth the caller watches
/// (``reportDepth``), so a grammar can stream one member's bytes while they arrive.
///
/// Lenient where models are: raw control characters inside strings are kept. Strict elsewhere:
/// a single quote, a trailing comma or a bare word is an error. It does not know about tool
/// calls.
/// `true`, `false` and `null`.
private let jsonWords: [[UInt8]] = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]

/// The reader that builds a ``JSONValue`` tree (``JSONValue/parse(_:maxDepth:)``).
typealias JSONReader = JSONScanner<JSONTreeSink>
/// The reader that writes canonical text (``CanonicalJSON``): the grammars' reader.
typealias JSONTextReader = JSONScanner<CanonicalWriter>

struct JSONScanner<Sink: JSONSink>: Sendable {
    /// What ``advance(_:from:to:)`` stopped for.
    enum Event {
        /// Every byte up to `end` is consumed; the value is not finished.
        case needMore
        /// A value began inside a container at `depth` (1 = a member of the top value) at `at`.
        case valueStart(depth: Int, key: String?, at: Int)
        /// A value inside a container at `depth` ended; `end` is one past its last byte. With
        /// ``detachesReported`` a member's value is taken out of the value being built.
        case valueEnd(depth: Int, key: String?, value: Sink.Value, end: Int)
        /// The top value is complete; `end` is one past its last byte.
        case complete(Sink.Value, end: Int)
        /// The bytes are not JSON; `at` is the offending byte.
        case error(String, at: Int)
        /// Nesting went deeper than ``maxDepth``.
        case tooDeep(at: Int)
    }

    private enum State: Equatable {
        /// Expecting a value (white space allowed).
        case value
        /// After `[`: a value or `]`.
        case valueOrClose
        /// After `{`: a key or `}`.
        case keyOrClose
        /// After `,` in an object: a key.
        case key
        /// After a key: `:`.
        case colon
        /// After a value inside a container: `,` or the closer.
        case afterValue
        /// Inside a string body.
        case string(isKey: Bool)
        /// After a backslash in a string.
        case escape(isKey: Bool)
        /// Inside `\uXXXX`: `count` hex digits read so far into `acc`.
        case unicode(isKey: Bool, count: Int, acc: UInt32)
        /// Inside a number.
        case number
        /// Inside `true`, `false` or `null`: `index` bytes of `word` matched.
        case literal(word: Int, index: Int)
        /// The top value is complete.
        case done
    }

    private struct Container {
        var isObject: Bool
        /// The key of the member being read, kept only at a reported depth.
        var key: String? = nil
    }


    /// Container depth at or below which value starts and ends are reported.
    var reportDepth: Int = 0
    /// The deepest nesting accepted (Foundation's limit).
    var maxDepth: Int = 512

    private var state: State = .value
    private var stack: [Container] = []
    private var scratch: [UInt8] = []
    private var units = UTF16Pairing()
    /// The value so far.
    private var writer = Sink()
    /// Reported members are taken out of the value being built (a call object's reader needs
    /// its members, not the object: the arguments are then held once).
    var detachesReported = false
    /// The value is written on into a sink given at creation, not taken out of it.
    private var continuing = false

    init(reportDepth: Int = 0, maxDepth: Int = 512) {
        self.reportDepth = reportDepth
        self.maxDepth = maxDepth
    }

    /// A reader that writes its value on into `sink` (after what it holds: a member's key, say)
    /// and leaves it there: ``Event/complete(_:end:)`` then carries an empty value and
    /// ``takeSink()`` gives the sink back.
    init(into sink: Sink, maxDepth: Int = 512) {
        self.maxDepth = maxDepth
        writer = sink
        continuing = true
    }

    /// With ``detachesReported``: the member just reported, taken out of the value.
    mutating func detachReported() -> Sink.Value { writer.lastValue(detach: true) }

    /// What ``Event/complete(_:end:)`` carries for a reader that writes into a given sink.
    private static var emptyValue: Sink.Value {
        var s = Sink()
        return s.take()
    }

    /// The sink, with the value written into it (after ``init(into:maxDepth:)``).
    mutating func takeSink() -> Sink {
        var s = Sink()
        swap(&s, &writer)
        return s
    }

    /// Current number of open containers.
    var depth: Int { stack.count }

    /// True once the top value is complete.
    var isComplete: Bool { state == .done }

    /// True when the reader is between values at top level and has read nothing yet.
    var isAtStart: Bool { state == .value && stack.isEmpty && scratch.isEmpty }

    /// True while a number is being read at top level: it ends only at a delimiter or at EOS.
    var isInTopLevelNumber: Bool { state == .number && stack.isEmpty }

    /// Ends a top-level number at end of input; returns the value when the text is a number.
    mutating func finishTopLevelNumber() -> Sink.Value? {
        guard isInTopLevelNumber, JSONReader.isValidNumber(scratch) else { return nil }
        state = .done
        writer.literal(scratch)
        return continuing ? Self.emptyValue : writer.take()
    }

    /// True inside a string body, where bytes up to a quote or a backslash are only copied
    /// (``PassThrough/jsonString``).
    var isInString: Bool {
        if case .string = state { return true }
        return false
    }

    /// Takes `count` bytes of a string body (none a quote or backslash) at `pos` as read.
    mutating func takeStringRun(_ w: ByteWindow, from pos: inout Int, count: Int) {
        units.flush(into: &scratch)
        scratch.append(contentsOf: w.slice(pos..<(pos + count)))
        pos += count
    }

    /// Reads bytes `[pos, end)` of `w`, advancing `pos`, until an event worth reporting.
    mutating func advance(_ w: ByteWindow, from pos: inout Int, to end: Int) -> Event {
        let span = w.storage.span
        let base = w.base
        while pos < end {
            let b = span[pos - base]
            switch state {
            case .string(let isKey):
                // Fast path: copy a run of ordinary bytes.
                var i = pos
                while i < end {
                    let c = span[i - base]
                    if c == 0x22 || c == 0x5C { break }
                    i += 1
                }
                if i > pos {
                    units.flush(into: &scratch)
                    // Geometric growth: an exact reserveCapacity here would copy on every chunk.
                    scratch.append(contentsOf: w.storage[(pos - base)..<(i - base)])
                    pos = i
                    continue
                }
                pos += 1
                if b == 0x5C {
                    state = .escape(isKey: isKey)
                    continue
                }
                units.flush(into: &scratch)
                if isKey {
                    writer.key(utf8: scratch[...])
                    if stack.count <= reportDepth { stack[stack.count - 1].key = String(decoding: scratch, as: UTF8.self) }
                    scratch.removeAll(keepingCapacity: true)
                    state = .colon
                } else {
                    writer.string(utf8: scratch[...])
                    // A long string's buffer is released: the value holds its text now.
                    if scratch.capacity > 4096 { scratch = [] } else { scratch.removeAll(keepingCapacity: true) }
                    if let ev = finishValue(end: pos) { return ev }
                }
            case .escape(let isKey):
                pos += 1
                var out: UInt8 = 0
                switch b {
                case 0x22, 0x5C, 0x2F: out = b
                case UInt8(ascii: "n"): out = 0x0A
                case UInt8(ascii: "t"): out = 0x09
                case UInt8(ascii: "r"): out = 0x0D
                case UInt8(ascii: "b"): out = 0x08
                case UInt8(ascii: "f"): out = 0x0C
                case UInt8(ascii: "u"):
                    state = .unicode(isKey: isKey, count: 0, acc: 0)
                    continue
                default:
                    return .error("invalid escape \\\(Character(Unicode.Scalar(b)))", at: pos - 1)
                }
                units.flush(into: &scratch)
                scratch.append(out)
                state = .string(isKey: isKey)
            case .unicode(let isKey, let count, let acc):
                guard let h = JSONReader.hexValue(b) else {
                    return .error("invalid \\u escape", at: pos)
                }
                pos += 1
                let v = acc << 4 | UInt32(h)
                if count < 3 {
                    state = .unicode(isKey: isKey, count: count + 1, acc: v)
                    continue
                }
                units.append(v, into: &scratch)
                state = .string(isKey: isKey)
            case .value, .valueOrClose:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                if b == UInt8(ascii: "]") && state == .valueOrClose {
                    pos += 1
                    if let ev = closeContainer(end: pos) { return ev }
                    continue
                }
                let start = pos
                let holder = stack.count
                if let ev = beginValue(b, at: &pos) { return ev }
                if stack.count > maxDepth { return .tooDeep(at: start) }
                if holder >= 1 && holder <= reportDepth {
                    let parent = stack[holder - 1]
                    return .valueStart(depth: holder, key: parent.isObject ? parent.key : nil, at: start)
                }
            case .keyOrClose, .key:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                if b == 0x22 {
                    pos += 1
                    state = .string(isKey: true)
                } else if b == UInt8(ascii: "}") && state == .keyOrClose {
                    pos += 1
                    if let ev = closeContainer(end: pos) { return ev }
                } else {
                    return .error("expected a key", at: pos)
                }
            case .colon:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                guard b == UInt8(ascii: ":") else { return .error("expected ':'", at: pos) }
                pos += 1
                state = .value
            case .afterValue:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                let top = stack[stack.count - 1]
                if b == UInt8(ascii: ",") {
                    pos += 1
                    state = top.isObject ? .key : .value
                } else if (b == UInt8(ascii: "}") && top.isObject) || (b == UInt8(ascii: "]") && !top.isObject) {
                    pos += 1
                    if let ev = closeContainer(end: pos) { return ev }
                } else {
                    return .error(top.isObject ? "expected ',' or '}'" : "expected ',' or ']'", at: pos)
                }
            case .number:
                if JSONReader.isNumberByte(b) {
                    scratch.append(b)
                    pos += 1
                    continue
                }
                guard JSONReader.isValidNumber(scratch) else {
                    return .error("invalid number", at: pos)
                }
                writer.literal(scratch)
                scratch.removeAll(keepingCapacity: true)
                if let ev = finishValue(end: pos) { return ev }
            case .literal(let word, let index):
                let target = jsonWords[word]
                guard b == target[index] else { return .error("invalid literal", at: pos) }
                pos += 1
                if index + 1 < target.count {
                    state = .literal(word: word, index: index + 1)
                    continue
                }
                writer.literal(target)
                if let ev = finishValue(end: pos) { return ev }
            case .done:
                writer.literal(jsonWords[2])
                return .complete(writer.take(), end: pos)
            }
        }
        return .needMore
    }

    // MARK: - Steps

    private mutating func beginValue(_ b: UInt8, at pos: inout Int) -> Event? {
        switch b {
        case UInt8(ascii: "{"):
            push(Container(isObject: true))
            writer.beginObject()
            state = .keyOrClose
        case UInt8(ascii: "["):
            push(Container(isObject: false))
            writer.beginArray()
            state = .valueOrClose
        case 0x22:
            state = .string(isKey: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            scratch.append(b)
            state = .number
        case UInt8(ascii: "t"):
            state = .literal(word: 0, index: 1)
        case UInt8(ascii: "f"):
            state = .literal(word: 1, index: 1)
        case UInt8(ascii: "n"):
            state = .literal(word: 2, index: 1)
        default:
            return .error("expected a value", at: pos)
        }
        pos += 1
        return nil
    }

    /// Opens a container: the stack gets room for a few levels at once the first time (a call
    /// object nests two or three), not one growth per level.
    @inline(__always)
    private mutating func push(_ c: Container) {
        if stack.capacity == 0 { stack.reserveCapacity(8) }
        stack.append(c)
    }

    private mutating func closeContainer(end: Int) -> Event? {
        stack.removeLast()
        writer.end()
        return finishValue(end: end)
    }

    /// A value's text is written: completes the top value, or reports a member at a watched
    /// depth.
    private mutating func finishValue(end: Int) -> Event? {
        guard !stack.isEmpty else {
            state = .done
            return .complete(continuing ? Self.emptyValue : writer.take(), end: end)
        }
        let i = stack.count - 1
        state = .afterValue
        if stack.count <= reportDepth {
            let key = stack[i].key
            stack[i].key = nil
            let isMember = stack[i].isObject
            // With detachesReported the caller takes the member itself (``detachReported()``).
            let value = detachesReported ? Self.emptyValue : writer.lastValue(detach: false)
            return .valueEnd(depth: stack.count, key: isMember ? key : nil, value: value, end: end)
        }
        return nil
    }

    // MARK: - Byte classes

    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    @inline(__always)
    static func isNumberByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - 0x30
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - 0x61 + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - 0x41 + 10
        default: return nil
        }
    }

    /// Whether `t` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isValidNumber(_ t: some Collection<UInt8>) -> Bool {
        var it = Array(t)[...]
        func digits() -> Int {
            var n = 0
            while let c = it.first, c >= 0x30 && c <= 0x39 {
                it = it.dropFirst()
                n += 1
            }
            return n
        }
        if it.first == UInt8(ascii: "-") { it = it.dropFirst() }
        if it.first == UInt8(ascii: "0") {
            it = it.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if it.first == UInt8(ascii: ".") {
            it = it.dropFirst()
            if digits() == 0 { return false }
        }
        if it.first == UInt8(ascii: "e") || it.first == UInt8(ascii: "E") {
            it = it.dropFirst()
            if it.first == UInt8(ascii: "+") || it.first == UInt8(ascii: "-") { it = it.dropFirst() }
            if digits() == 0 { return false }
        }
        return it.isEmpty
    }
}

// MARK: - Whole-input parsing

extension JSONValue {
    /// Errors from ``JSONValue/parse(_:)``.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        /// What was wrong.
        public let message: String
        /// The byte offset of the problem.
        public let offset: Int
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Parses a complete JSON text (white space around the value allowed).
    ///
    /// - Parameter bytes: the UTF-8 text.
    /// - Returns: the value, with object keys in wire order.
    /// - Throws: ``ParseError`` naming the first offending byte.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 512) throws(ParseError) -> JSONValue {
        try read(JSONReader.self, bytes, maxDepth: maxDepth)
    }

    /// Reads a complete JSON text into `Sink`'s value (white space around it allowed).
    static func read<Sink: JSONSink>(_: JSONScanner<Sink>.Type, _ bytes: some Collection<UInt8>, maxDepth: Int)
        throws(ParseError) -> Sink.Value
    {
        var reader = JSONScanner<Sink>(maxDepth: maxDepth)
        return try read(&reader, bytes, maxDepth: maxDepth)
    }

    /// Reads a complete JSON text with `reader`.
    static func read<Sink: JSONSink>(_ reader: inout JSONScanner<Sink>, _ bytes: some Collection<UInt8>, maxDepth: Int)
        throws(ParseError) -> Sink.Value
    {
        // An array is read in place (a value's held text is not copied again).
        let w = (bytes as? [UInt8]).map { ByteWindow(holding: $0) } ?? ByteWindow(holding: Array(bytes))
        return try read(&reader, w, 0..<w.end, maxDepth: maxDepth)
    }

    /// Reads a complete JSON text that is the bytes `range` of `w`, in place.
    static func read<Sink: JSONSink>(_ reader: inout JSONScanner<Sink>, _ w: ByteWindow, _ range: Range<Int>, maxDepth: Int)
        throws(ParseError) -> Sink.Value
    {
        var pos = range.lowerBound
        let end = range.upperBound
        var value: Sink.Value?
        loop: while true {
            switch reader.advance(w, from: &pos, to: end) {
            case .complete(let v, _):
                value = v
                break loop
            case .needMore:
                if let v = reader.finishTopLevelNumber() {
                    value = v
                    break loop
                }
                throw ParseError(message: "unexpected end of input", offset: pos)
            case .error(let m, let at): throw ParseError(message: m, offset: at)
            case .tooDeep(let at): throw ParseError(message: nestingTooDeep(maxDepth), offset: at)
            case .valueStart, .valueEnd: continue
            }
        }
        while pos < end {
            guard JSONReader.isSpace(w[pos]) else {
                throw ParseError(message: "unexpected data after the value", offset: pos)
            }
            pos += 1
        }
        return value!
    }

    /// Parses a complete JSON text given as a string.
    public static func parse(_ text: String) throws(ParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

extension JSONScanner where Sink == CanonicalWriter {
    /// With ``detachesReported``: the string member just reported, dropped from the value
    /// (nil when it is not a string). A short string costs no allocation.
    mutating func detachReportedString() -> String? { writer.dropLastMember() }

    /// With ``detachesReported``: drops the member just reported.
    mutating func dropReported() { _ = writer.dropLastMember() }
}
