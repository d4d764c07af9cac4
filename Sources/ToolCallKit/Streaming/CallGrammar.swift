// ToolCallKit — the contract between the decoder and one format's grammar.

/// A literal that the text scanner looks for, and what it means.
struct Marker: Sendable {
    /// When the marker counts.
    enum Condition: Sendable {
        /// Anywhere in text.
        case always
        /// Only while no visible (non-white-space) text has been emitted.
        case atStart
        /// Only when `tools` is given.
        case whenToolsDeclared
        /// At the start of the output, or anywhere when `tools` is given.
        case atStartOrWhenToolsDeclared
        /// At the start of the output, and only when `tools` is given (lfm2's bare list, a call
        /// only when it is the whole output and names declared tools).
        case atStartWhenToolsDeclared
    }

    /// What a match does.
    enum Kind: Sendable {
        /// Begins a frame that the grammar parses.
        case start
        /// An orphan end marker: a `markup` event on its own.
        case stray
        /// Opens a reasoning block (the decoder adds these when reasoning separation is on).
        case reasoningOpen(pair: Int)
    }

    /// What a start marker opens, for the grammar (a grammar asks a marker's role, never its
    /// position in ``CallGrammar/markers``).
    enum Role: Sendable, Equatable {
        /// A section or wrapper that holds calls (`<tool_call>`, `<|tool_calls_section_begin|>`).
        case section
        /// One call, or a block that is one call without the wrapper (`<function=`).
        case call
        /// A bare JSON call object in the text (`{`).
        case bareObject
        /// A bare list of calls in the text (`[`).
        case bareList
        /// Not a start marker (stray and reasoning markers).
        case none
    }

    var bytes: [UInt8]
    var kind: Kind = .start
    var condition: Condition = .always
    var role: Role
    /// A match may turn out to be text (a bare `[` counts only when a call follows), so text
    /// that holds the marker is not refused by rendering on that ground alone.
    var candidate = false
    /// For a one-byte marker: what must follow it for it to count. The text scanner checks it
    /// where the byte is found, so a `[` of prose is passed over as text without a frame; the
    /// grammar may rely on it.
    var follows: FollowRule? = nil

    /// A marker; a start marker's role defaults to `.section`, any other's is `.none`.
    init(_ text: String, kind: Kind = .start, role: Role? = nil, condition: Condition = .always) {
        self.bytes = Array(text.utf8)
        self.kind = kind
        self.condition = condition
        if case .start = kind { self.role = role ?? .section } else { self.role = .none }
    }
}

/// What must follow a one-byte marker for it to count: a run of `skip` bytes, a `first`
/// byte, a run of `rest` bytes (the first one included), then `then`, all within `limit`
/// bytes of the marker (a bare `[`: white space, a name, `(`).
struct FollowRule: Sendable {
    let skip: ByteSet
    let first: ByteSet
    let rest: ByteSet
    let then: UInt8
    /// How far past the marker the look-ahead goes before the marker is text.
    let limit: Int

    /// Whether the `count` bytes after the marker (byte `k` read through `byte`) follow the
    /// rule: nil when they run out before it is decided.
    @inline(__always)
    func check(count: Int, _ byte: (Int) -> UInt8) -> Bool? {
        check(count: count, isSkip: { skip.contains(byte($0)) }, isFirst: { first.contains(byte($0)) },
              isRest: { rest.contains(byte($0)) }, isThen: { byte($0) == then })
    }

    /// ``check(count:_:)`` with the classes asked of byte `k` directly: the one reading of the
    /// rule, whether a reader has the byte sets (the scanner, the grammar) or a table of what
    /// each byte is (the decoder's fast path).
    @inline(__always)
    func check(
        count: Int, isSkip: (Int) -> Bool, isFirst: (Int) -> Bool, isRest: (Int) -> Bool, isThen: (Int) -> Bool
    ) -> Bool? {
        var k = 0
        while k < count && isSkip(k) {
            k &+= 1
            if k >= limit { return false }
        }
        guard k < count else { return nil }
        guard isFirst(k) else { return false }
        while k < count && isRest(k) {
            k &+= 1
            if k >= limit { return false }
        }
        guard k < count else { return nil }
        return isThen(k)
    }
}

/// How the decoder skips the rest of a call that went over the size cap (docs/events.md, Caps).
enum SkipRule: Sendable {
    /// Skip through the first of these end markers (it is part of the skipped call).
    case through([[UInt8]])
    /// Skip up to (not including) the next of these start markers, or to the end of the stream.
    case before([[UInt8]])
}

/// What the decoder tells a grammar about the stream.
///
/// A class, made once per decoder and shared: grammars and readers receive and keep it on every
/// step, and a reference costs a pointer where the fields would be copied with their reference
/// counts each time.
final class GrammarContext: Sendable {
    let format: ToolCallFormat
    let tools: ToolSet?
    let maxDepth: Int
    /// The end of the prompt (``ToolCallDecoder/Options/prompt``).
    let prompt: [UInt8]
    /// The call cap (``ToolCallDecoder/Options/maxCallBytes``): the most bytes past the last
    /// event a grammar is shown at once.
    let callBytes: Int

    init(format: ToolCallFormat, tools: ToolSet?, maxDepth: Int, prompt: [UInt8] = [], callBytes: Int = .max) {
        self.format = format
        self.tools = tools
        self.maxDepth = maxDepth
        self.prompt = prompt
        self.callBytes = callBytes
    }
}

/// What a grammar reports, in source order. Offsets are absolute stream offsets.
///
/// A call is reported as `start`, any number of `delta`s, then one `accept` or `reject`.
/// `accept`, `reject`, `markup`, `text` and `reasoning` each account for the bytes from the
/// previous such action (or the frame's first byte) up to `end`.
///
/// Most grammars parse one call frame and leave text and reasoning to the decoder. A format
/// whose whole output is framed (Harmony's messages, each with a channel) reports the regions
/// itself: `text` for a content body, `reasoning` for a reasoning body, `markup` for headers
/// and terminators. A grammar that reports `text` or `reasoning` while the frame goes on ends
/// each piece on a UTF-8 boundary (the end of the stream excepted), as the decoder does.
enum GrammarAction: Sendable {
    /// A call's name is known (and, when the format carries one, the model's id).
    case start(name: String, id: String?)
    /// The next fragment of the current call's arguments, as JSON text (UTF-8 bytes).
    case delta(EventText)
    /// The current call is complete, with its arguments' canonical text.
    case accept(arguments: CanonicalJSON, end: Int)
    /// The current markup could not become a call.
    case reject(RejectedToolCall.Reason, detail: String, end: Int)
    /// Markup that yields no call and is no error.
    case markup(end: Int)
    /// Plain text: bytes that were not markup after all, or a content body the format frames.
    case text(end: Int)
    /// The model's reasoning (a reasoning body the format frames): a `reasoning` event with
    /// reasoning separation on, plain text with it off. The bytes are the reasoning text; the
    /// markup around it is reported apart.
    case reasoning(end: Int)
}

extension GrammarAction {
    /// The rejection of a value nested deeper than the decoder allows
    /// (``GrammarContext/maxDepth``), accounting for the bytes up to `end`. Every grammar reports
    /// a value reader's `tooDeep` through this, so the reason and the wording never differ.
    static func tooDeep(_ context: GrammarContext, end: Int) -> GrammarAction {
        .reject(.tooLarge, detail: nestingTooDeep(context.maxDepth), end: end)
    }
}

/// The detail of every too-deep rejection and error: "nesting deeper than N".
func nestingTooDeep(_ maxDepth: Int) -> String { "nesting deeper than \(maxDepth)" }

/// What a grammar that owns the stream (``CallGrammar/ownsStream``) reports: the actions of
/// any grammar, and reasoning text, which such a grammar finds itself.
enum StreamAction: Sendable {
    case action(GrammarAction)
    /// Reasoning text up to `end` (its text is its raw bytes; anchors are `markup`).
    case reasoning(end: Int)
}

/// Where a grammar stopped.
enum GrammarStep: Sendable {
    /// Every byte received so far is consumed; the frame goes on.
    case needMore
    /// The frame ended at `at`; the decoder scans what follows as text. Every byte before `at`
    /// must be accounted for by an action.
    case finished(at: Int)
    /// The grammar gave up on an oversized call after rejecting what it had: the decoder skips
    /// the rest of it by the format's ``SkipRule``.
    case skip
}

/// A run of argument bytes that a grammar would only forward: the decoder may take such bytes
/// over while they stream, emitting them as deltas itself, and tell the grammar afterwards
/// (``CallGrammar/passThrough(at:)``). This is the same state machine with its most frequent
/// step done in place: the grammar's state after the run is what reading the bytes would give.
struct PassThrough: Sendable {
    /// Bytes that end a run (all ASCII): the grammar reads them itself.
    private let stops: (UInt64, UInt64)
    /// The stops as a word test, when they are every byte below 0x20 and one to four others
    /// (what every grammar's runs have): the others, one per byte (the list repeated to four);
    /// zero when there is no word test. Four bytes, not four words: the decoder keeps
    /// a run inline, and an idle decoder is kept small.
    private let wordStops: UInt32
    /// Whether a run must be well-formed UTF-8: a text value repairs invalid bytes to U+FFFD,
    /// so the grammar handles them; a JSON string's bytes are forwarded as written.
    let requiresValidUTF8: Bool

    init(stops: [UInt8], requiresValidUTF8: Bool) {
        var lo: UInt64 = 0
        var hi: UInt64 = 0
        for b in stops {
            precondition(b < 0x80, "pass-through stops are ASCII")
            if b < 64 { lo |= 1 << UInt64(b) } else { hi |= 1 << UInt64(b - 64) }
        }
        self.stops = (lo, hi)
        self.requiresValidUTF8 = requiresValidUTF8
        // From the bitmaps, with no allocation (a grammar may make a run per value).
        var others: UInt32 = 0
        var count = 0
        var rest = (lo >> 32, hi)
        while rest.0 | rest.1 != 0 && count <= 4 {
            let b = rest.0 != 0 ? 32 + rest.0.trailingZeroBitCount : 64 + rest.1.trailingZeroBitCount
            if rest.0 != 0 { rest.0 &= rest.0 - 1 } else { rest.1 &= rest.1 - 1 }
            if count < 4 { others |= UInt32(b) << UInt32(count * 8) }
            count += 1
        }
        if lo & 0xFFFF_FFFF == 0xFFFF_FFFF && (1...4).contains(count) {
            // Padded by repeating the list: with two or fewer, the high half equals the low.
            var padded = others
            for k in count..<4 { padded |= (others >> UInt32((k % count) * 8) & 0xFF) << UInt32(k * 8) }
            wordStops = padded
        } else {
            wordStops = 0
        }
    }

    /// Inside a JSON string: everything up to a quote, a backslash or a raw control byte (which
    /// a delta sends escaped) is forwarded as written.
    static let jsonString = PassThrough(stops: Array(0..<0x20) + [0x22, 0x5C], requiresValidUTF8: false)

    /// Inside a text value that streams as a JSON string: bytes that need no JSON escaping
    /// (no control character, quote or backslash) and cannot begin one of `tags`.
    static func textValue(tags: [[UInt8]]) -> PassThrough {
        PassThrough(stops: Array(0..<0x20) + [0x22, 0x5C] + tags.compactMap(\.first), requiresValidUTF8: true)
    }

    /// Whether ``admits(lo:hi:count:)`` may be asked.
    var hasWordTest: Bool { wordStops != 0 }

    /// Whether no byte of `bytes` ends a run.
    @inline(__always)
    func admits(_ bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.count <= 16, wordStops != 0 {
            let (lo, hi) = EventText.pack(bytes)
            return admits(lo: lo, hi: hi, count: bytes.count)
        }
        let (lo, hi) = stops
        for b in bytes {
            if b < 64 {
                if (lo >> UInt64(b)) & 1 != 0 { return false }
            } else if b < 128 {
                if (hi >> UInt64(b &- 64)) & 1 != 0 { return false }
            }
        }
        return true
    }

    /// ``admits(_:)`` for `count` (1 to 16) bytes packed into two words (``EventText/pack(_:)``),
    /// with ``wordStops``. A byte below 0x20 makes `(v - 0x20…) & ~v & 0x80…` nonzero, a stop
    /// byte makes `v ^ pattern` hold a zero byte; the zero padding past `count` is masked off
    /// (a borrow only runs upwards, so it cannot mark a byte before the padding).
    @inline(__always)
    func admits(lo: UInt64, hi: UInt64, count: Int) -> Bool {
        let lows: UInt64 = 0x0101_0101_0101_0101
        let p0 = UInt64(wordStops & 0xFF) &* lows
        let p1 = UInt64(wordStops >> 8 & 0xFF) &* lows
        // Two stops or fewer (a JSON string's quote and backslash): two patterns.
        let two = wordStops >> 16 == wordStops & 0xFFFF
        let p2 = UInt64(wordStops >> 16 & 0xFF) &* lows
        let p3 = UInt64(wordStops >> 24) &* lows
        @inline(__always)
        func hits(_ v: UInt64) -> UInt64 {
            let x0 = v ^ p0
            let x1 = v ^ p1
            let h = ((v &- 0x2020_2020_2020_2020) & ~v) | (x0 &- lows) & ~x0 | (x1 &- lows) & ~x1
            if two { return h }
            let x2 = v ^ p2
            let x3 = v ^ p3
            return h | (x2 &- lows) & ~x2 | (x3 &- lows) & ~x3
        }
        let highs: UInt64 = 0x8080_8080_8080_8080
        if count <= 8 {
            let valid = count == 8 ? highs : highs & ((1 &<< UInt64(truncatingIfNeeded: count &* 8)) &- 1)
            return hits(lo) & valid == 0
        }
        let valid = count == 16 ? highs : highs & ((1 &<< UInt64(truncatingIfNeeded: (count &- 8) &* 8)) &- 1)
        return hits(lo) & highs | hits(hi) & valid == 0
    }
}

/// One format's grammar: a resumable parser for what follows a start marker.
///
/// The decoder (the driver) finds the markers, owns raw-span accounting, ids, authorization,
/// caps and event order. A grammar only reads bytes from the window, keeping its own cursor, and
/// reports ``GrammarAction``s. It never rereads what it consumed, except for a bounded look
/// behind, and never reads before the end of its last reported action.
///
/// The loop contract: the decoder calls ``begin(marker:at:bodyStart:atStart:context:)`` once per frame,
/// then ``advance(_:context:actions:)`` after every chunk until it returns `.finished` or
/// `.skip`, and ``finish(_:context:actions:)`` at end of stream if the frame is still open.
protocol CallGrammar: Sendable {
    /// The literals that start (or stray into) markup for this format. Every grammar a format
    /// makes declares the same markers (and the same ``ownsStream``), whatever its context:
    /// the decoder reads them once per format (``MarkerPlan``).
    var markers: [Marker] { get }
    /// Whether the grammar parses the whole stream as one frame that begins at its first byte
    /// (a response template: regions, not start markers, structure the output). Such a grammar
    /// reports text and reasoning itself, never finishes its frame, and the decoder adds no
    /// reasoning markers of its own. The decoder calls ``scanStream(_:context:isFinal:actions:)``
    /// after every chunk and at the end, instead of the frame methods.
    var ownsStream: Bool { get }
    /// Whether the output begins inside a frame: the decoder begins one at the first byte
    /// (``begin(marker:at:bodyStart:atStart:context:)`` with marker 0 and `at == bodyStart == 0`)
    /// before it looks for any marker, unless the stream starts inside reasoning. For a format
    /// whose generation prompt ends with its message separator (Functionary's `>>>`), so that
    /// the output opens with a message header; the grammar reports text and finishes at 0 when
    /// the output turns out to begin otherwise.
    var opensAtStart: Bool { get }
    /// For a grammar that owns the stream: consumes the bytes received since the last call
    /// (all of them when `isFinal`, which accounts for every remaining byte).
    mutating func scanStream(_ w: ByteWindow, context: GrammarContext, isFinal: Bool, actions: inout [StreamAction])
    /// How to skip the rest of a call past the size cap.
    var skipRule: SkipRule { get }
    /// A frame begins: `markers[marker]` matched at `at`, and its body starts at `bodyStart`.
    /// (A grammar tells its start markers apart by ``Marker/role``.)
    /// `atStart` tells whether no visible text came before it (the start of the output).
    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext)
    /// Consumes the bytes received since the last call.
    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep
    /// The stream ended inside the frame: account for every remaining byte.
    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction])
    /// After ``advance(_:context:actions:)`` returned `.needMore`: the run the decoder may take
    /// over, when the grammar has read and reported everything up to `end` and is inside an
    /// argument string whose bytes it would only forward as deltas.
    func passThrough(at end: Int) -> PassThrough?
    /// The decoder forwarded the `count` bytes after the grammar's cursor as deltas (a run of
    /// ``passThrough(at:)``, still in `w`): take them as if read, without reporting them again.
    mutating func takePassThrough(_ count: Int, _ w: ByteWindow)
}

extension CallGrammar {
    var ownsStream: Bool { false }
    var opensAtStart: Bool { false }
    mutating func scanStream(_ w: ByteWindow, context: GrammarContext, isFinal: Bool, actions: inout [StreamAction]) {
        preconditionFailure("scanStream on a grammar that does not own the stream")
    }
    func passThrough(at end: Int) -> PassThrough? { nil }
    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        preconditionFailure("takePassThrough without passThrough")
    }
}

/// The grammar an idle decoder holds until its first frame begins: it is never asked to parse
/// (the decoder makes the format's grammar first), and it fits in the decoder's storage, so a
/// decoder that has seen no markup holds no grammar on the heap.
struct IdleGrammar: CallGrammar {
    var markers: [Marker] { [] }
    var skipRule: SkipRule { .before([]) }
    func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        preconditionFailure("the idle grammar never parses a frame")
    }
    func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        preconditionFailure("the idle grammar never parses a frame")
    }
    func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        preconditionFailure("the idle grammar never parses a frame")
    }
}
