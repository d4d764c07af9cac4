// ToolCallKit — the streaming decoder: bytes in any chunking, events in source order.

/// Turns a model's output bytes into ``ToolCallEvent``s while they stream.
///
/// One decoder serves one generation stream. Feed it chunks of any size (even one byte, even
/// half a UTF-8 sequence) with ``feed(_:)`` and call ``finish()`` once at the end. The events
/// for the same bytes are equivalent however they were chunked (docs/events.md), each byte is
/// examined a bounded number of times, and only a suffix that could still begin a marker (or
/// an unfinished UTF-8 sequence) is held back.
///
/// The decoder is the driver of the pipeline: it scans text for the format's markers, hands
/// each frame to the format's ``CallGrammar``, and owns raw-span accounting, call ids,
/// authorization against the declared tools, the size and depth caps and end of stream. It is
/// a `Sendable` value: copy it to fork a stream's state.
///
/// It does not detokenize (see ``TokenStreamDecoder``) and does not write JSON (the CLI does).
public struct ToolCallDecoder: Sendable {
    /// Settings for one decoder.
    public struct Options: Sendable {
        /// Attach `raw` bytes to every event that accounts for input (see the event contract).
        public var rawSpans: Bool = false
        /// Seed for call ids; with a seed the output is reproducible.
        public var idSeed: UInt64? = nil
        /// The largest call, in bytes, before it is rejected as `too_large` (default 16 MiB).
        public var maxCallBytes: Limit = .defaultCallBytes
        /// The deepest nesting a value parser accepts (default 512).
        public var maxDepth: Limit = .defaultDepth
        /// Separate reasoning blocks (`<think>…</think>` and the family's markers) into
        /// `reasoning` events; off, they are plain text. Always on while ``reasoningOpen`` is.
        public var reasoning: Bool {
            get { reasoningSeparation || reasoningOpen }
            set { reasoningSeparation = newValue }
        }
        private var reasoningSeparation = false
        /// Start the stream inside a reasoning block (prompts that end with `<think>`);
        /// implies ``reasoning`` however it is set.
        public var reasoningOpen: Bool = false
        /// Check each accepted call's arguments against its tool's schema (with `tools` given):
        /// a call that breaks it becomes a `rejected` event (`invalid_arguments`) whose
        /// `detail` lists every ``SchemaValidator/Violation``, one per line.
        public var validate: Bool = false
        /// Emit a call only once it is accepted: its `tool_call_start`, one `tool_call_delta`
        /// holding all its arguments and its `tool_call` come together, and a call that is
        /// rejected emits no start at all. Text and reasoning still stream. For servers whose
        /// clients must never see part of a call that is then rejected (with ``validate``, or
        /// tools that change state).
        public var wholeCalls: Bool = false
        /// The end of the prompt the model continues, for formats whose parsing depends on it
        /// (a response template's start anchor: the prompt may leave the model inside a region,
        /// such as a prefilled `<think>`). Its bytes are context and produce no events.
        public var prompt: [UInt8] = []

        public init(
            rawSpans: Bool = false, idSeed: UInt64? = nil, maxCallBytes: Limit = .defaultCallBytes,
            maxDepth: Limit = .defaultDepth, reasoning: Bool = false, reasoningOpen: Bool = false,
            validate: Bool = false, wholeCalls: Bool = false
        ) {
            self.rawSpans = rawSpans
            self.idSeed = idSeed
            self.maxCallBytes = maxCallBytes
            self.maxDepth = maxDepth
            self.reasoningSeparation = reasoning
            self.reasoningOpen = reasoningOpen
            self.validate = validate
            self.wholeCalls = wholeCalls
        }
    }

    /// The deepest nesting any value reader accepts, whatever ``Options/maxDepth`` says: deeper
    /// values would exhaust a thread's stack in the recursive steps that build, compare and
    /// print them.
    public static let deepestNesting = 10_000

    /// A frame larger than this is followed by a fresh grammar (its buffers released).
    static let releaseAfterBytes = 1 << 20

    /// The largest piece of a skipped oversized call reported in one rejection.
    static let skipPieceBytes = 64 << 10

    /// What the decoder is inside of.
    enum Mode: Sendable {
        /// Plain text, looking for markers.
        case text
        /// Inside a reasoning block opened by pair `pair` (nil: the stream started inside one).
        case reasoning(pair: Int?)
        /// A frame that the grammar is parsing.
        case frame
        /// The rest of an oversized call, skipped by the format's rule.
        case skipping(SkipRule)
        /// `finish()` ran.
        case finished
    }

    /// The call the grammar is reporting on, if any.
    enum Current: Sendable {
        case none
        /// Started and announced with `tool_call_start`.
        case started(index: Int, id: String, name: String)
        /// Named, but the name is not declared: it will be rejected, and nothing is announced.
        case undeclared(name: String)
    }

    public let format: ToolCallFormat
    public let tools: ToolSet?
    public let options: Options
    /// ``Options/maxCallBytes`` as a count (unlimited: a number no call reaches).
    let callCap: Int

    var grammar: any CallGrammar
    /// The grammar parses the whole stream (a response template).
    let ownsStream: Bool
    /// The markers that can match before any visible text (all whose condition can hold), and
    /// after it (those that hold anywhere); each with its indexes into `markers`.
    let startSet: MarkerSet
    let startIndexes: [Int]
    let laterSet: MarkerSet
    let laterIndexes: [Int]
    let markers: [Marker]
    let context: GrammarContext
    /// The tools with compiled validators, when ``Options/validate`` is on.
    let validation: ToolSet?
    var window = ByteWindow()
    var mode: Mode = .text
    var current: Current = .none
    /// The first byte not yet accounted for by an event.
    var cut = 0
    /// Whether visible (non-white-space) text has been emitted.
    var sawVisibleText = false
    var ids: CallIDGenerator
    var nextIndex = 0
    var accepted = 0
    var rejectedCount = 0
    var events: [ToolCallEvent] = []
    var actions: [GrammarAction] = []
    var streamActions: [StreamAction] = []
    /// Close markers (index = pair), then the call markers that end a block.
    let reasoningSet: MarkerSet
    let reasoningCloseCount: Int
    /// Where the search for the end of a skipped oversized call resumes.
    var skipFrom = 0
    /// Where the current reasoning block's text begins (after its open marker).
    var reasoningTextStart = 0
    /// The open markers; with ``Options/reasoningOpen``, one the model writes anyway at the
    /// start (after white space) belongs to the block that is already open.
    let reasoningOpeners: MarkerSet
    var openerChecked = false
    /// An unfinished UTF-8 sequence (up to 3 bytes, little-endian) that the text fast path
    /// holds back outside the window; the window takes it before the next slow step.
    var carry: UInt32 = 0
    var carryCount = 0
    /// The run the grammar offered after its last step, if any; the bytes from `passFrom` to
    /// `passEnd` were forwarded by ``forward(_:_:into:)`` and are not yet taken by the grammar.
    var passRun: PassThrough?
    /// With ``Options/wholeCalls``: the arguments text of the call being read, emitted in one
    /// delta when the call is accepted.
    var heldArguments: [UInt8] = []
    /// Where the current frame began.
    var frameStart = 0
    var passFrom = 0
    var passEnd = 0

    /// Creates a decoder for one stream.
    ///
    /// - Parameters:
    ///   - format: the wire format of the model's output.
    ///   - tools: the declared tools; when given, other names are rejected as
    ///     `undeclared_tool` and text-valued arguments are typed by the schemas.
    ///   - options: raw spans, id seed, caps and validation. With ``Options/validate``, pass a
    ///     tool set from ``ToolSet/compilingValidators()`` to compile schemas once and catch
    ///     bad ones up front; otherwise they are compiled here, and a tool whose schema cannot
    ///     be compiled has every call rejected.
    public init(format: ToolCallFormat, tools: ToolSet? = nil, options: Options = Options()) {
        self.format = format
        self.tools = tools
        self.options = options
        self.callCap = options.maxCallBytes.count
        self.validation = options.validate ? tools?.compilingValidatorsLeniently() : nil
        self.context = GrammarContext(
            format: format, tools: tools, maxDepth: min(options.maxDepth.count, Self.deepestNesting), prompt: options.prompt)
        self.grammar = format.definition.makeGrammar(context)
        let ownsStream = grammar.ownsStream
        self.ownsStream = ownsStream
        var markers = grammar.markers
        let syntax = format.definition.reasoning
        if options.reasoning && !ownsStream {
            // Open markers start blocks; an orphan close marker stays text (no tool-call markup).
            for (k, pair) in syntax.pairs.enumerated() {
                markers.append(Marker(pair.open, kind: .reasoningOpen(pair: k)))
            }
            self.reasoningSet = MarkerSet(syntax.pairs.map(\.close) + syntax.endedBy)
        } else {
            self.reasoningSet = MarkerSet([String]())
        }
        self.reasoningCloseCount = syntax.pairs.count
        // Only needed when the stream starts inside a block (an idle decoder stays small).
        self.reasoningOpeners = MarkerSet(options.reasoningOpen && !ownsStream ? syntax.pairs.map(\.open) : [])
        self.markers = markers
        var startIndexes: [Int] = []
        var laterIndexes: [Int] = []
        for (k, m) in markers.enumerated() {
            switch m.condition {
            case .always:
                startIndexes.append(k)
                laterIndexes.append(k)
            case .whenToolsDeclared:
                if tools != nil {
                    startIndexes.append(k)
                    laterIndexes.append(k)
                }
            case .atStart:
                startIndexes.append(k)
            case .atStartOrWhenToolsDeclared:
                startIndexes.append(k)
                if tools != nil { laterIndexes.append(k) }
            }
        }
        self.startSet = MarkerSet(startIndexes.map { markers[$0].bytes })
        self.startIndexes = startIndexes
        self.laterSet = MarkerSet(laterIndexes.map { markers[$0].bytes })
        self.laterIndexes = laterIndexes
        if options.reasoningOpen && !ownsStream { self.mode = .reasoning(pair: nil) }
        self.ids = CallIDGenerator(seed: options.idSeed)
        if ownsStream {
            grammar.begin(marker: 0, at: 0, bodyStart: 0, atStart: true, context: context)
            mode = .frame
        }
    }

    /// Consumes the next chunk of the stream.
    ///
    /// - Parameter chunk: the bytes, in any chunking.
    /// - Returns: the events these bytes completed, in source order.
    public mutating func feed(_ chunk: ArraySlice<UInt8>) -> [ToolCallEvent] {
        var out: [ToolCallEvent] = []
        feed(chunk, into: &out)
        return out
    }

    /// Consumes the next chunk of the stream.
    public mutating func feed(_ chunk: [UInt8]) -> [ToolCallEvent] { feed(chunk[...]) }

    /// Consumes the next chunk of the stream (any collection of bytes; arrays and slices take
    /// the faster concrete overloads).
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [ToolCallEvent] { feed(ArraySlice(chunk)) }

    /// Consumes the next chunk and appends its events to `out`.
    public mutating func feed(_ chunk: [UInt8], into out: inout [ToolCallEvent]) { feed(chunk[...], into: &out) }

    /// Consumes the next chunk (any collection of bytes) and appends its events to `out`.
    public mutating func feed(_ chunk: some Collection<UInt8>, into out: inout [ToolCallEvent]) {
        feed(ArraySlice(chunk), into: &out)
    }

    /// Consumes the next chunk and appends its events to `out`.
    ///
    /// The allocation-free form for servers: reuse one array across chunks
    /// (`out.removeAll(keepingCapacity: true)` after handling it).
    ///
    /// - Parameters:
    ///   - chunk: the bytes, in any chunking.
    ///   - out: where the events these bytes completed are appended, in source order.
    public mutating func feed(_ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) {
        // After finish() the stream is over: a late chunk is ignored (documented, no trap).
        guard !chunk.isEmpty, !isFinished else { return }
        // Plain text with nothing held back but an unfinished character, and no byte that could
        // begin a marker: the chunk is text, and the window is never touched.
        if case .text = mode, sawVisibleText, cut == window.received, window.storage.isEmpty,
            laterSet.hasNoCandidate(in: chunk)
        {
            feedPlainText(chunk, into: &out)
            return
        }
        restoreCarry()
        window.append(chunk)
        if let run = passRun, forward(run, chunk, into: &out) { return }
        // Events are appended straight into the caller's array.
        swap(&events, &out)
        defer { swap(&events, &out) }
        run(isFinal: false)
        compact()
    }

    /// Ends the stream: flushes held-back text, settles an open call and emits `end`.
    public mutating func finish() -> [ToolCallEvent] {
        var out: [ToolCallEvent] = []
        finish(into: &out)
        return out
    }

    /// Ends the stream, appending the last events to `out`.
    public mutating func finish(into out: inout [ToolCallEvent]) {
        guard !isFinished else { return }
        swap(&events, &out)
        defer { swap(&events, &out) }
        restoreCarry()
        run(isFinal: true)
        switch mode {
        case .frame where ownsStream:
            // Everything, however long: the grammar rejects an oversized region itself.
            grammar.scanStream(window, context: context, isFinal: true, actions: &streamActions)
            applyStream()
            closeFrame(at: window.received, reason: .incomplete)
        case .frame:
            actions.removeAll(keepingCapacity: true)
            window.limit = cut + callCap
            grammar.finish(window, context: context, actions: &actions)
            window.limit = .max
            apply()
            closeFrame(at: window.received, reason: .incomplete)
        case .skipping:
            skip(isFinal: true)
        case .reasoning:
            emitReasoning(upTo: window.received, final: true)
        case .text, .finished:
            break
        }
        if cut < window.received { emitText(upTo: window.received) }
        mode = .finished
        events.append(.end(toolCalls: accepted, rejected: rejectedCount, bytes: window.received))
    }

    /// Bytes of input storage the decoder holds right now (its window's capacity): for tests
    /// that a finished large call leaves nothing large behind.
    package var retainedInputBytes: Int { window.storage.capacity }

    /// The texts of the format's markers (start markers and stray end markers), for layers
    /// that need to know them: the token layer keeps special tokens with these texts.
    package var markerTexts: [String] {
        var seen: [String] = []
        for m in markers {
            let text = String(decoding: m.bytes, as: UTF8.self)
            if !seen.contains(text) { seen.append(text) }
        }
        return seen
    }

    /// Whether ``finish()`` has run. After it, ``feed(_:)`` is a no-op that returns no events
    /// and ``finish()`` returns none again: a server that feeds a late chunk loses nothing it
    /// had not already ended.
    public var isFinished: Bool {
        if case .finished = mode { return true }
        return false
    }

    /// Drops the bytes every event has accounted for.
    mutating func compact() {
        let dead = cut - window.base
        if dead > 0 && (cut == window.received || dead >= 4096) { window.discard(before: cut) }
    }
}
