// ToolCallKit — the events a decoder emits (docs/events.md).

/// A complete, accepted tool call.
///
/// Held memory: the arguments are kept as their compact JSON text (``argumentsJSON``), one
/// byte array no longer than what the model wrote and at most twice that by capacity, not as a
/// ``JSONValue`` tree (which cost 8 to 30 bytes per input byte when the arguments are many
/// small values). While a call is read the decoder holds the call's input bytes and that text,
/// nothing per value (a text-valued parameter is read from the input when it ends, not copied
/// while it arrives). Measured with `toolcall decode` on a 10 MB argument of small integers,
/// nested arrays or short strings, the whole process (output lines included) peaks at 4.0
/// bytes per input byte for the JSON-payload formats and at 3.9 to 4.6 for lfm2, gemma4 and
/// the text-valued formats, about 13 MB of which is the idle process (docs/library.md, Held
/// memory). The typed tree is built only when ``arguments`` is read.
public struct ToolCall: Sendable, Equatable {
    /// The call's position among the calls started in this stream, from 0.
    public var index: Int
    /// The call id: the model's own when it gave a fresh one, otherwise generated.
    public var id: String
    /// The function name.
    public var name: String
    /// The typed arguments (always a JSON object).
    ///
    /// Built from ``argumentsJSON`` each time it is read, in O(n) time and memory in the
    /// arguments' size: read it once and keep the value when it is used more than once.
    /// Setting it stores the value's compact text.
    public var arguments: JSONValue {
        get { canonicalArguments.value }
        set { canonicalArguments = CanonicalJSON(newValue) }
    }
    /// The arguments as compact JSON text (UTF-8): ``JSONValue/jsonText`` of ``arguments``,
    /// the bytes the `tool_call` event writes. O(1): the stored text itself.
    public var argumentsJSON: [UInt8] { canonicalArguments.bytes }
    /// The exact input bytes of the call, markers included, when raw spans were requested.
    public var raw: [UInt8]?
    /// The arguments' canonical text.
    var canonicalArguments: CanonicalJSON

    public init(index: Int, id: String, name: String, arguments: JSONValue, raw: [UInt8]? = nil) {
        self.init(index: index, id: id, name: name, canonicalArguments: CanonicalJSON(arguments), raw: raw)
    }

    init(index: Int, id: String, name: String, canonicalArguments: CanonicalJSON, raw: [UInt8]?) {
        self.index = index
        self.id = id
        self.name = name
        self.canonicalArguments = canonicalArguments
        self.raw = raw
    }

    /// Calls are equal when every field is, the arguments compared as values (``JSONValue``'s
    /// equality: `1.0` equals `1`).
    public static func == (a: ToolCall, b: ToolCall) -> Bool {
        a.index == b.index && a.id == b.id && a.name == b.name && a.raw == b.raw
            && a.canonicalArguments == b.canonicalArguments
    }
}

/// Tool-call markup that could not become a call.
///
/// A rejection is data, not an error: the stream goes on. `raw` holds every byte the rejection
/// accounts for, so nothing the model wrote is lost; it may contain sensitive argument values.
public struct RejectedToolCall: Sendable, Equatable {
    /// Why the markup was rejected.
    public struct Reason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The markup does not follow the format's grammar.
        public static let malformed = Reason(rawValue: "malformed")
        /// The stream ended inside the call's payload.
        public static let incomplete = Reason(rawValue: "incomplete")
        /// `tools` was given and does not declare the name.
        public static let undeclaredTool = Reason(rawValue: "undeclared_tool")
        /// The call passed the size cap or the nesting cap.
        public static let tooLarge = Reason(rawValue: "too_large")
        /// The arguments do not fit the tool's schema.
        public static let invalidArguments = Reason(rawValue: "invalid_arguments")
        /// The request's `tool_choice` does not allow this tool (or, with `none`, any call).
        public static let toolNotChosen = Reason(rawValue: "tool_not_chosen")
        /// A call after the first accepted one, with `parallel_tool_calls` false.
        public static let parallelToolCall = Reason(rawValue: "parallel_tool_call")
        /// The stream ended without the call `tool_choice` required (no bytes: `raw` is empty).
        public static let noToolCall = Reason(rawValue: "no_tool_call")
    }

    public var reason: Reason
    /// The format's raw value (`xml_function`, not `xmlFunction`).
    public var format: ToolCallFormat
    /// The bytes this rejection accounts for.
    public var raw: [UInt8]
    /// A human-readable explanation; for `invalid_arguments`, one line per violation.
    public var detail: String
    /// Set when the call had started (a `tool_call_start` was emitted).
    public var index: Int?
    public var id: String?
    public var name: String?

    public init(
        reason: Reason, format: ToolCallFormat, raw: [UInt8], detail: String,
        index: Int? = nil, id: String? = nil, name: String? = nil
    ) {
        self.reason = reason
        self.format = format
        self.raw = raw
        self.detail = detail
        self.index = index
        self.id = id
        self.name = name
    }
}

/// Text of an event, kept as the UTF-8 bytes the model wrote.
///
/// Decoding a `String` validates every byte, which would cost more than finding the markers,
/// and a small array costs an allocation; so the bytes are kept as they came (up to 16 bytes
/// inline, the common case when a server feeds a few bytes at a time; longer text in an array)
/// and the string is made only when asked for (``string``). Invalid UTF-8 stays in ``utf8``
/// byte for byte and becomes U+FFFD in ``string``.
public struct EventText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    @usableFromInline
    enum Storage: Sendable, Hashable {
        /// Up to 16 bytes in two words (little-endian byte order), and their count.
        case inline(UInt64, UInt64, count: UInt8)
        case bytes([UInt8])
    }

    @usableFromInline
    let storage: Storage

    public init(utf8: [UInt8]) { storage = .bytes(utf8) }

    public init(_ string: String) {
        let u = string.utf8
        guard u.count <= 16 else {
            storage = .bytes(Array(u))
            return
        }
        var lo: UInt64 = 0
        var hi: UInt64 = 0
        for (k, b) in u.enumerated() {
            if k < 8 { lo |= UInt64(b) << UInt64(k * 8) } else { hi |= UInt64(b) << UInt64((k - 8) * 8) }
        }
        storage = .inline(lo, hi, count: UInt8(u.count))
    }
    public init(stringLiteral value: String) { self.init(value) }

    /// Text from a slice of the input: inline when short, else copied to an array.
    @inline(__always)
    init(_ slice: ArraySlice<UInt8>) {
        let n = slice.count
        guard n <= 16 else {
            storage = .bytes(Array(slice))
            return
        }
        let (lo, hi) = Self.pack(slice)
        storage = .inline(lo, hi, count: UInt8(n))
    }

    /// Inline text of `count` (at most 16) bytes packed as ``pack(_:)`` packs them.
    @inline(__always)
    init(packed lo: UInt64, _ hi: UInt64, count: Int) {
        storage = .inline(lo, hi, count: UInt8(truncatingIfNeeded: count))
    }

    /// At most 16 bytes packed little-endian into two words, the unused bytes zero: byte `k`
    /// is bits `8k..<8k+8` of `lo` (k < 8) or of `hi` (k - 8). A few overlapping loads, no
    /// loop and no read outside the slice.
    @inline(__always)
    static func pack(_ slice: ArraySlice<UInt8>) -> (UInt64, UInt64) {
        let n = slice.count
        guard n > 0 else { return (0, 0) }
        return unsafe slice.withUnsafeBufferPointer { unsafe pack(UnsafeRawPointer($0.baseAddress!), count: n) }
    }

    /// ``pack(_:)`` of the `n` (1 to 16) bytes at `raw`.
    @inline(__always)
    static func pack(_ raw: UnsafeRawPointer, count n: Int) -> (UInt64, UInt64) {
        switch n {
        case 1...3:
            // Bytes 0, n/2 and n-1 cover 1, 2 or 3 bytes (a repeated one ORs in equal).
            let a = UInt64(unsafe raw.load(as: UInt8.self))
            let b = UInt64(unsafe raw.load(fromByteOffset: n >> 1, as: UInt8.self)) << UInt64((n >> 1) &* 8)
            let c = UInt64(unsafe raw.load(fromByteOffset: n &- 1, as: UInt8.self)) << UInt64((n &- 1) &* 8)
            return (a | b | c, 0)
        case 4...8:
            // Bytes 0..<4 and n-4..<n: they overlap in equal bytes.
            let a = UInt64(unsafe raw.loadUnaligned(as: UInt32.self))
            let b = UInt64(unsafe raw.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
            return (a | b << UInt64((n &- 4) &* 8), 0)
        default:
            // Bytes 0..<8, and n-8..<n shifted down to bytes 8..<n.
            let a = unsafe raw.loadUnaligned(as: UInt64.self)
            let b = unsafe raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            return (a, b >> UInt64((16 &- n) &* 8))
        }
    }

    /// Text of `count` (at most 3) bytes held in `carry` (little-endian), followed by `slice`.
    init(carry: UInt32, count: Int, _ slice: ArraySlice<UInt8>) {
        let n = count &+ slice.count
        guard n <= 16 else {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(n)
            for k in 0..<count { bytes.append(UInt8(truncatingIfNeeded: carry >> UInt32(k &* 8))) }
            bytes.append(contentsOf: slice)
            storage = .bytes(bytes)
            return
        }
        var lo = UInt64(carry)
        var hi: UInt64 = 0
        var k = count
        for b in slice {
            if k < 8 { lo |= UInt64(b) << UInt64(k &* 8) } else { hi |= UInt64(b) << UInt64((k &- 8) &* 8) }
            k &+= 1
        }
        storage = .inline(lo, hi, count: UInt8(n))
    }

    /// The bytes, exactly as they came.
    public var utf8: [UInt8] {
        switch storage {
        case .inline(let lo, let hi, let count):
            var out: [UInt8] = []
            out.reserveCapacity(Int(count))
            for k in 0..<Int(count) {
                out.append(UInt8(truncatingIfNeeded: (k < 8 ? lo : hi) >> UInt64((k & 7) * 8)))
            }
            return out
        case .bytes(let b): return b
        }
    }

    /// The number of bytes.
    @inlinable
    public var utf8Count: Int {
        switch storage {
        case .inline(_, _, let count): return Int(count)
        case .bytes(let b): return b.count
        }
    }

    /// Calls `body` with the bytes, without allocating.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case .inline(let lo, let hi, let count):
            let words = (lo.littleEndian, hi.littleEndian)
            return try unsafe Swift.withUnsafeBytes(of: words) { raw in
                try unsafe body(UnsafeRawBufferPointer(rebasing: unsafe raw[0..<Int(count)]))
            }
        case .bytes(let b): return try unsafe b.withUnsafeBytes { try unsafe body($0) }
        }
    }

    /// The text as a `String` (invalid bytes become U+FFFD).
    public var string: String { String(decoding: utf8, as: UTF8.self) }

    public var isEmpty: Bool { utf8Count == 0 }
    public var description: String { string }

    public static func == (a: EventText, b: EventText) -> Bool { a.utf8 == b.utf8 }
    public func hash(into h: inout Hasher) { h.combine(utf8) }
}

/// One event of a decoded stream, in source order (docs/events.md).
public enum ToolCallEvent: Sendable, Equatable {
    /// Visible content. Its raw span is its own bytes.
    case text(EventText)
    /// Content of a reasoning block (with reasoning separation on); `raw` (with raw spans on)
    /// also holds the block's markers.
    case reasoning(EventText, raw: [UInt8]?)
    /// A call has begun and its name is known.
    indirect case toolCallStart(index: Int, id: String, name: String)
    /// The next fragment of a call's arguments, as JSON text (UTF-8 bytes; `arguments.string`).
    case toolCallDelta(index: Int, arguments: EventText)
    /// A call is complete.
    indirect case toolCall(ToolCall)
    /// Markup that could not become a call.
    indirect case rejected(RejectedToolCall)
    /// Markup that yields no call and is no error (emitted only with raw spans on).
    case markup(raw: [UInt8])
    /// The stream has finished.
    case end(toolCalls: Int, rejected: Int, bytes: Int)

    /// The input bytes this event accounts for, when it carries any.
    public var rawBytes: [UInt8]? {
        switch self {
        case .text(let t): return t.utf8
        case .reasoning(_, let raw): return raw
        case .toolCall(let c): return c.raw
        case .rejected(let r): return r.raw
        case .markup(let raw): return raw
        case .toolCallStart, .toolCallDelta, .end: return nil
        }
    }
}
