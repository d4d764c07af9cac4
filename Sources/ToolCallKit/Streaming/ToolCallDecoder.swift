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
        /// Which calls the request allows (OpenAI's `tool_choice`): a call of a tool it does not
        /// allow is rejected as `tool_not_chosen`; when it requires a call and the stream ends
        /// with none accepted, a `rejected` event with reason `no_tool_call` (and no bytes)
        /// comes before `end`. The grammars of ``ToolCallFormat/grammar(tools:options:)`` admit
        /// the same calls.
        public var toolChoice: ToolChoice = .auto
        /// With false, every call after the first accepted one is rejected as
        /// `parallel_tool_call` (OpenAI's `parallel_tool_calls`).
        public var parallelToolCalls: Bool = true

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

    /// The settings and the marker plan, fixed when the decoder is made (one heap object,
    /// shared by copies).
    let setup: DecoderSetup
    public var format: ToolCallFormat { setup.context.format }
    public var tools: ToolSet? { setup.context.tools }
    public var options: Options { setup.options }
    /// The tools with compiled validators, when ``Options/validate`` is on.
    @inline(__always) var validation: ToolSet? { setup.options.validate ? setup.context.tools : nil }

    // The stream's state. Word-sized fields come first, then the one-byte ones (which fill the
    // padding after `mode`), then `carry`, so that the layout wastes no padding: an idle
    // decoder is its storage (328 bytes) plus its setup and grammar context (176), and nothing
    // else (`toolcall-bench --idle`). The hot paths read the setup's plan in place
    // (`setup.plan.laterSet`), never through a copy.

    /// The format's grammar. An idle decoder holds a placeholder (``IdleGrammar``, no heap):
    /// the real one is made when the first frame begins (``grammarMade``).
    var grammar: any CallGrammar = IdleGrammar()
    var window = ByteWindow()
    var ids: CallIDGenerator
    var events: [ToolCallEvent] = []
    var actions: [GrammarAction] = []
    var streamActions: [StreamAction] = []
    /// With ``Options/wholeCalls``: the arguments text of the call being read, emitted in one
    /// delta when the call is accepted.
    var heldArguments: [UInt8] = []
    /// The first byte not yet accounted for by an event.
    var cut = 0
    var nextIndex = 0
    var accepted = 0
    var rejectedCount = 0
    /// Where the search for the end of a skipped oversized call resumes.
    var skipFrom = 0
    /// Where the current reasoning block's text begins (after its open marker).
    var reasoningTextStart = 0
    /// Where the current frame began.
    var frameStart = 0
    var passFrom = 0
    var passEnd = 0
    /// ``Options/maxCallBytes`` as a count (unlimited: a number no call reaches), and
    /// ``Options/wholeCalls``: read on every chunk inside a call, so kept here, not behind the
    /// setup's pointer.
    let callCap: Int
    var current: Current = .none
    /// The run the grammar offered after its last step, if any; the bytes from `passFrom` to
    /// `passEnd` were forwarded by ``forward(_:_:into:)`` and are not yet taken by the grammar.
    var passRun: PassThrough?
    var mode: Mode = .text
    /// How many bytes `carry` holds (0 to 8): a byte, so that the small fields pack.
    var heldCount: UInt8 = 0
    var grammarMade = false
    /// Whether visible (non-white-space) text has been emitted.
    var sawVisibleText = false
    /// Whether the next chunk may take a text fast path: plain text, visible text already
    /// emitted, nothing in the window and nothing unaccounted for (only `carry` may be held).
    /// Set at the end of each slow step (``updatePlainText()``); the fast paths keep it true.
    var plainText = false
    var openerChecked = false
    /// Why the current `.undeclared` call is refused (``Refusal``).
    var refusal: UInt8 = 0
    let wholeCalls: Bool
    /// What the text fast path holds back outside the window (little-endian, `carryCount`
    /// bytes): an unfinished UTF-8 sequence (up to 3 bytes), or up to 8 bytes from one that
    /// may begin a marker (ASCII: its first byte is below 0x80, a UTF-8 tail's is not). The
    /// window takes them before the next slow step. (Last, after the one-byte fields, which
    /// fill the padding after `mode`.)
    var carry: UInt64 = 0
    /// ``heldCount`` as a count.
    @inline(__always) var carryCount: Int {
        get { Int(heldCount) }
        set { heldCount = UInt8(truncatingIfNeeded: newValue) }
    }

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
        // With validation on, the tools carry their compiled validators (equal to `tools`).
        let tools = options.validate ? tools?.compilingValidatorsLeniently() : tools
        let context = GrammarContext(
            format: format, tools: tools, maxDepth: min(options.maxDepth.count, Self.deepestNesting), prompt: options.prompt)
        let definition = format.definition
        var first: (any CallGrammar)? = nil
        let plan = definition.plans.plan(
            toolsDeclared: tools != nil, reasoning: options.reasoning, reasoningOpen: options.reasoningOpen
        ) {
            let grammar = definition.makeGrammar(context)
            first = grammar
            return MarkerPlan(
                grammarMarkers: grammar.markers, ownsStream: grammar.ownsStream, syntax: definition.reasoning,
                toolsDeclared: tools != nil, reasoning: options.reasoning, reasoningOpen: options.reasoningOpen)
        }
        self.setup = DecoderSetup(
            context: context, options: options, plan: plan)
        self.callCap = options.maxCallBytes.count
        self.wholeCalls = options.wholeCalls
        if options.reasoningOpen && !plan.ownsStream { self.mode = .reasoning(pair: nil) }
        self.ids = CallIDGenerator(seed: options.idSeed)
        if plan.ownsStream {
            // The grammar parses from the first byte: it is needed now.
            grammar = first ?? definition.makeGrammar(context)
            grammarMade = true
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
        let n = chunk.count
        guard n > 0 else { return }
        if plainText {
            if n &+ carryCount <= 16, setup.plan.laterSet.hasWordTest {
                // A token-sized chunk is packed into two words once: they are tested for a
                // marker's first byte and become the text event's inline storage.
                if feedPacked(EventText.pack(chunk), count: n, into: &out) { return }
            } else if feedPlainChunk(chunk, into: &out) {
                return
            }
        }
        feedSlowly(chunk, into: &out)
    }

    /// ``feed(_:into:)`` past the text fast paths: the chunk joins the window, and the argument
    /// fast path or the scanner and the grammar read it. (Out of line, so that the fast paths'
    /// frame stays small.)
    @inline(never)
    private mutating func feedSlowly(_ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) {
        // After finish() the stream is over: a late chunk is ignored (documented, no trap).
        guard !isFinished else { return }
        syncCut()
        restoreCarry()
        window.append(chunk)
        if let run = passRun, forward(run, chunk, into: &out) { return }
        // Events are appended straight into the caller's array.
        swap(&events, &out)
        defer { swap(&events, &out) }
        run(isFinal: false)
        compact()
        updatePlainText()
    }

    /// The fast path for a chunk that is not packed (longer, or no word test), in plain text:
    /// true when it held no byte that may begin a marker and was emitted. (Out of line: its
    /// reads of the marker set would otherwise be hoisted into the packed path.)
    @inline(never)
    private mutating func feedPlainChunk(_ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) -> Bool {
        // A held byte below 0x80 is a marker's possible first byte, which the packed path
        // holds: the scanner reads it with this chunk.
        guard carryCount == 0 || carry & 0x80 != 0, setup.plan.laterSet.hasNoCandidate(in: chunk) else { return false }
        feedPlainText(chunk, into: &out)
        return true
    }

    /// While ``plainText`` holds, everything received has been accounted for: the text fast
    /// paths advance `window.base` only, and `cut` catches up here, before a slow step.
    @inline(__always)
    mutating func syncCut() {
        if plainText { cut = window.base }
    }

    /// Whether the stream is in plain text with nothing held in the window: what the fast
    /// paths ask, kept in ``plainText`` so that they test one flag.
    @inline(__always)
    mutating func updatePlainText() {
        if case .text = mode {
            plainText = sawVisibleText && window.storage.isEmpty && cut == window.base
        } else {
            plainText = false
        }
    }

    /// The fast path for a chunk of `n` bytes packed into two words (``EventText/pack(_:)``),
    /// with `n + carryCount` at most 16, in plain text and with a marker set that has a word
    /// test: true when the chunk was text (emitted, or held: an unfinished UTF-8 character,
    /// or the last bytes when a marker may begin there); false when the scanner must read it.
    ///
    /// The held bytes (`carry`) and the chunk are joined in the words, the marker test runs
    /// over both, and what is emitted is cut from the words, with no pass over bytes.
    @inline(__always)
    private mutating func feedPacked(_ words: (UInt64, UInt64), count n: Int, into out: inout [ToolCallEvent]) -> Bool {
        var (l, h) = words
        let held = carryCount
        if held > 0 {
            // Up to 8 held bytes before the chunk: a shift of the 128-bit whole.
            let v = (UInt128(h) &<< 64 | UInt128(l)) &<< UInt128(truncatingIfNeeded: held &* 8) | UInt128(carry)
            (l, h) = (UInt64(truncatingIfNeeded: v), UInt64(truncatingIfNeeded: v &>> 64))
        }
        let total = n &+ held
        var hold = -1
        switch setup.plan.laterSet.test(lo: l, hi: h, count: total) {
        case .text: break
        case .hold(let from): hold = from
        case .scan: return false
        }
        // What is held back: from a possible marker, else an unfinished UTF-8 character.
        let tail = hold >= 0 ? total &- hold
            : Self.byte(total &- 1, l, h) < 0x80 ? 0 : Self.unfinishedTail(l, h, count: total)
        let emit = total &- tail
        if tail == 0 {
            carry = 0
        } else {
            // The held bytes (1 to 8) from `emit`; only the emitted ones stay in the words
            // (the rest zero, as packed text has it).
            let v = UInt128(h) &<< 64 | UInt128(l)
            let s = UInt128(truncatingIfNeeded: emit &* 8)
            carry = UInt64(truncatingIfNeeded: v &>> s) & (UInt64.max &>> UInt64(truncatingIfNeeded: 64 &- tail &* 8))
            (l, h) = Self.prefix(l, h, count: emit)
        }
        carryCount = tail
        if emit > 0 {
            out.append(.text(EventText(packed: l, h, count: emit)))
            // (`cut` follows `window.base` lazily while `plainText` holds; see `syncCut`.)
            window.skipEmpty(emit)
        }
        return true
    }

    /// ``feed(_:into:)`` for the bytes `table[range]` (a token's bytes in a tokenizer's table,
    /// passed borrowed): the fast path reads them in place, and only a chunk the scanner must
    /// read becomes a slice.
    @inline(__always)
    mutating func feed(table: [UInt8], _ range: Range<Int>, into out: inout [ToolCallEvent]) {
        let n = range.count
        guard n > 0 else { return }
        if plainText, n &+ carryCount <= 16, setup.plan.laterSet.hasWordTest {
            let words = unsafe table.withUnsafeBufferPointer { unsafe EventText.pack(UnsafeRawPointer($0.baseAddress! + range.lowerBound), count: n) }
            if feedPacked(words, count: n, into: &out) { return }
        }
        feed(table[range], into: &out)
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
        syncCut()
        swap(&events, &out)
        defer { swap(&events, &out) }
        restoreCarry()
        run(isFinal: true)
        switch mode {
        case .frame where setup.plan.ownsStream:
            // Everything, however long: the grammar rejects an oversized region itself.
            grammar.scanStream(window, context: setup.context, isFinal: true, actions: &streamActions)
            applyStream()
            closeFrame(at: window.received, reason: .incomplete)
        case .frame:
            actions.removeAll(keepingCapacity: true)
            window.limit = cut + callCap
            grammar.finish(window, context: setup.context, actions: &actions)
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
        if accepted == 0 && setup.options.toolChoice.requiresCall {
            rejectedCount += 1
            events.append(.rejected(RejectedToolCall(
                reason: .noToolCall, format: format, raw: [],
                detail: "tool_choice \(setup.options.toolChoice) requires a call, and none was accepted")))
        }
        mode = .finished
        plainText = false
        events.append(.end(toolCalls: accepted, rejected: rejectedCount, bytes: window.received))
    }

    /// Bytes of input storage the decoder holds right now (its window's capacity): for tests
    /// that a finished large call leaves nothing large behind.
    package var retainedInputBytes: Int { window.storage.capacity }

    /// The texts of the format's markers (start markers and stray end markers), for layers
    /// that need to know them: the token layer keeps special tokens with these texts.
    package var markerTexts: [String] {
        var seen: [String] = []
        for m in setup.plan.markers {
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
