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
    private enum Mode: Sendable {
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
    private enum Current: Sendable {
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
    private let callCap: Int

    private var grammar: any CallGrammar
    /// The grammar parses the whole stream (a response template).
    private let ownsStream: Bool
    /// The markers that can match before any visible text (all whose condition can hold), and
    /// after it (those that hold anywhere); each with its indexes into `markers`.
    private let startSet: MarkerSet
    private let startIndexes: [Int]
    private let laterSet: MarkerSet
    private let laterIndexes: [Int]
    private let markers: [Marker]
    private let context: GrammarContext
    /// The tools with compiled validators, when ``Options/validate`` is on.
    private let validation: ToolSet?
    private var window = ByteWindow()
    private var mode: Mode = .text
    private var current: Current = .none
    /// The first byte not yet accounted for by an event.
    private var cut = 0
    /// Whether visible (non-white-space) text has been emitted.
    private var sawVisibleText = false
    private var ids: CallIDGenerator
    private var nextIndex = 0
    private var accepted = 0
    private var rejectedCount = 0
    private var events: [ToolCallEvent] = []
    private var actions: [GrammarAction] = []
    private var streamActions: [StreamAction] = []
    /// Close markers (index = pair), then the call markers that end a block.
    private let reasoningSet: MarkerSet
    private let reasoningCloseCount: Int
    /// Where the search for the end of a skipped oversized call resumes.
    private var skipFrom = 0
    /// Where the current reasoning block's text begins (after its open marker).
    private var reasoningTextStart = 0
    /// The open markers; with ``Options/reasoningOpen``, one the model writes anyway at the
    /// start (after white space) belongs to the block that is already open.
    private let reasoningOpeners: MarkerSet
    private var openerChecked = false
    /// An unfinished UTF-8 sequence (up to 3 bytes, little-endian) that the text fast path
    /// holds back outside the window; the window takes it before the next slow step.
    private var carry: UInt32 = 0
    private var carryCount = 0
    /// The run the grammar offered after its last step, if any; the bytes from `passFrom` to
    /// `passEnd` were forwarded by ``forward(_:_:into:)`` and are not yet taken by the grammar.
    private var passRun: PassThrough?
    /// With ``Options/wholeCalls``: the arguments text of the call being read, emitted in one
    /// delta when the call is accepted.
    private var heldArguments: [UInt8] = []
    /// Where the current frame began.
    private var frameStart = 0
    private var passFrom = 0
    private var passEnd = 0

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

    /// The argument fast path: inside a run the grammar offered (``CallGrammar/passThrough(at:)``),
    /// a chunk (just appended to the window) with no byte that ends the run is forwarded as a
    /// delta here, up to an unfinished UTF-8 sequence; the grammar takes the bytes at its next
    /// step. Returns false when the grammar must read the chunk.
    @inline(__always)
    private mutating func forward(_ run: PassThrough, _ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) -> Bool {
        let end = window.received
        guard end <= cut &+ callCap, run.admits(chunk) else { return false }
        let from = passEnd
        let tail = UTF8Boundary.unfinishedTail(count: end &- from) { [window] k in window[from &+ k] }
        let emitEnd = end &- tail
        guard emitEnd > from else { return true }
        let piece = window.slice(from..<emitEnd)
        if run.requiresValidUTF8 && !UTF8Boundary.isValid(piece) { return false }
        if case .started(let index, _, _) = current {
            if options.wholeCalls {
                heldArguments.append(contentsOf: piece)
            } else {
                out.append(.toolCallDelta(index: index, arguments: EventText(piece)))
            }
        }
        passEnd = emitEnd
        return true
    }

    /// The text fast path: emits `carry` and `chunk` as one text event, holding back an
    /// unfinished UTF-8 sequence at the end in `carry` (not in the window).
    @inline(__always)
    private mutating func feedPlainText(_ chunk: ArraySlice<UInt8>, into out: inout [ToolCallEvent]) {
        if carryCount == 0, chunk[chunk.endIndex &- 1] < 0x80 {
            // The common case: nothing held, and the chunk ends with ASCII.
            out.append(.text(EventText(chunk)))
            window.skipEmpty(chunk.count)
            cut = window.received
            return
        }
        let first = chunk.startIndex
        let held = carryCount
        let carry = self.carry
        let total = held &+ chunk.count
        /// Byte `k` of the held bytes followed by the chunk.
        func byte(_ k: Int) -> UInt8 {
            k < held ? UInt8(truncatingIfNeeded: carry >> UInt32(k &* 8)) : chunk[first &+ (k &- held)]
        }
        let tail = UTF8Boundary.unfinishedTail(count: total, byte)
        let emit = total &- tail
        if emit > 0 {
            // A held tail starts at a lead byte, so what is emitted covers the whole carry.
            let upTo = first &+ (emit &- held)
            out.append(.text(held == 0 ? EventText(chunk[first..<upTo]) : EventText(carry: carry, count: held, chunk[first..<upTo])))
            window.skipEmpty(emit)
            cut = window.received
        }
        // The new carry: the last `tail` bytes of carry + chunk.
        var c: UInt32 = 0
        for k in 0..<tail { c |= UInt32(byte(emit &+ k)) << UInt32(k &* 8) }
        self.carry = c
        carryCount = tail
    }

    /// Moves the text fast path's held-back bytes into the window, where the scanner sees them.
    @inline(__always)
    private mutating func restoreCarry() {
        if carryCount > 0 { moveCarryToWindow() }
    }

    private mutating func moveCarryToWindow() {
        for k in 0..<carryCount { window.append(byte: UInt8(truncatingIfNeeded: carry >> UInt32(k &* 8))) }
        carry = 0
        carryCount = 0
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
    private mutating func compact() {
        let dead = cut - window.base
        if dead > 0 && (cut == window.received || dead >= 4096) { window.discard(before: cut) }
    }

    // MARK: - The loop

    private mutating func run(isFinal: Bool) {
        while true {
            switch mode {
            case .text:
                guard scanText(isFinal: isFinal) else { return }
            case .reasoning(let pair):
                guard scanReasoning(pair: pair, isFinal: isFinal) else { return }
            case .frame where ownsStream:
                // The grammar sees at most the cap's worth of bytes past the last event; it
                // goes on while that showed it less than was received and it made progress.
                while true {
                    let before = cut
                    let limit = cut + callCap
                    window.limit = limit
                    grammar.scanStream(window, context: context, isFinal: false, actions: &streamActions)
                    window.limit = .max
                    applyStream()
                    guard limit < window.received, cut > before else { return }
                }
            case .frame:
                if passRun != nil {
                    if passEnd > passFrom { grammar.takePassThrough(passEnd - passFrom, window) }
                    passRun = nil
                }
                actions.removeAll(keepingCapacity: true)
                // The grammar sees at most the cap's worth of the current call.
                let callStart = cut
                let limit = cut + callCap
                window.limit = limit
                let step = grammar.advance(window, context: context, actions: &actions)
                window.limit = .max
                apply()
                switch step {
                case .needMore:
                    guard limit < window.received else {
                        if !isFinal, let run = grammar.passThrough(at: window.received) {
                            passRun = run
                            passFrom = window.received
                            passEnd = passFrom
                        }
                        return
                    }
                    // The grammar stopped at the cap. A call that ended inside the allowance
                    // gives the next one its own; otherwise this one is too large.
                    if cut == callStart { rejectOversized() }
                    continue
                case .finished(let at):
                    closeFrame(at: at, reason: .malformed)
                    mode = .text
                    // A large frame leaves large buffers in the grammar's readers: a fresh
                    // grammar releases them, so an idle stream holds no more than a new one.
                    if at - frameStart > Self.releaseAfterBytes { grammar = format.definition.makeGrammar(context) }
                case .skip:
                    mode = .skipping(grammar.skipRule)
                }
            case .skipping:
                guard skip(isFinal: isFinal) else { return }
            case .finished:
                return
            }
        }
    }

    /// Scans text for a marker; returns true when a frame began (the loop goes on).
    private mutating func scanText(isFinal: Bool) -> Bool {
        let end = window.received
        var match: MarkerSet.Match
        if sawVisibleText {
            match = laterSet.search(window, from: cut, end: end, isFinal: isFinal)
            if case .found(let k, let at) = match { match = .found(index: laterIndexes[k], at: at) }
        } else {
            // Markers that count only at the start of the output can begin only at the first
            // visible byte (markers never begin with white space): every start marker is tried
            // there, and the rest of the bytes are searched for the markers that hold anywhere
            // (so prose full of `{` and `[` costs no more than later text).
            var firstVisible = cut
            while firstVisible < end && JSONReader.isSpace(window[firstVisible]) { firstVisible += 1 }
            let probeEnd = min(end, firstVisible + startSet.maxLength)
            // A bound short of the received bytes is no end of the stream, but no marker that
            // begins at the first visible byte is cut by it.
            switch startSet.search(window, from: firstVisible, end: probeEnd, isFinal: isFinal || probeEnd < end) {
            case .found(let k, let at) where at == firstVisible:
                match = .found(index: startIndexes[k], at: at)
            case .partial(let at) where at == firstVisible:
                match = .partial(at: at)
            default:
                match = laterSet.search(window, from: cut, end: end, isFinal: isFinal)
                if case .found(let k, let at) = match { match = .found(index: laterIndexes[k], at: at) }
            }
        }
        switch match {
        case .none:
            let safe = isFinal ? end : UTF8Boundary.safeEnd(window, start: cut, end: end)
            if safe > cut { emitText(upTo: safe) }
            return false
        case .partial(let at):
            if at > cut { emitText(upTo: at) }
            return false
        case .found(let k, let at):
            if at > cut { emitText(upTo: at) }
            let marker = markers[k]
            let bodyStart = at + marker.bytes.count
            switch marker.kind {
            case .stray:
                emitMarkup(upTo: bodyStart)
            case .start:
                let atStart = isAtStart(at)
                grammar.begin(marker: k, at: at, bodyStart: bodyStart, atStart: atStart, context: context)
                frameStart = at
                mode = .frame
            case .reasoningOpen(let pair):
                reasoningTextStart = bodyStart
                mode = .reasoning(pair: pair)
            }
            return true
        }
    }

    /// Scans a reasoning block for its close marker (or a call marker that ends it); returns
    /// true when the block ended (the loop goes on in text).
    private mutating func scanReasoning(pair: Int?, isFinal: Bool) -> Bool {
        if pair == nil && !openerChecked {
            guard skipRedundantOpener(isFinal: isFinal) else { return false }
        }
        var from = max(cut, reasoningTextStart)
        let end = window.received
        while true {
            switch reasoningSet.search(window, from: from, end: end, isFinal: isFinal) {
            case .none:
                let safe = isFinal ? end : UTF8Boundary.safeEnd(window, start: from, end: end)
                emitReasoning(upTo: safe)
                return false
            case .partial(let at):
                emitReasoning(upTo: at)
                return false
            case .found(let k, let at):
                let length = reasoningSet.markers[k].count
                if k < reasoningCloseCount {
                    // Pairs may share a close marker (Gemma 4's labelled and bare channel).
                    let ownClose = pair.map { reasoningSet.markers[$0] }
                    guard ownClose == nil || ownClose == reasoningSet.markers[k] else {
                        // Another pair's close marker: part of the reasoning.
                        from = at + length
                        continue
                    }
                    emitReasoning(upTo: at, rawEnd: at + length)
                } else {
                    // A call marker that ends the block; the text scanner parses the call. The
                    // block is over even when it is only its open marker (else that marker would
                    // be scanned again as text, forever).
                    emitReasoning(upTo: at, final: true)
                }
                mode = .text
                return true
            }
        }
    }

    /// At the start of a stream that began inside a reasoning block: an open marker the model
    /// writes anyway (after white space) is markup of the block, not its text. Returns false
    /// while the bytes so far could still be such a marker.
    private mutating func skipRedundantOpener(isFinal: Bool) -> Bool {
        var i = cut
        while i < window.received && JSONReader.isSpace(window[i]) { i += 1 }
        if i == window.received && !isFinal { return false }
        switch reasoningOpeners.search(window, from: i, end: min(window.received, i + reasoningOpeners.maxLength), isFinal: isFinal) {
        case .found(let k, let at) where at == i:
            reasoningTextStart = at + reasoningOpeners.markers[k].count
        case .partial(let at) where at == i:
            return false
        default:
            break
        }
        openerChecked = true
        return true
    }

    /// No visible text before `at`.
    private func isAtStart(_ at: Int) -> Bool {
        guard !sawVisibleText else { return false }
        var i = cut
        while i < at {
            if !JSONReader.isSpace(window[i]) { return false }
            i += 1
        }
        return true
    }

    // MARK: - Applying grammar actions

    /// Applies what a grammar that owns the stream reported.
    private mutating func applyStream() {
        for item in streamActions {
            switch item {
            case .action(let action):
                apply(action)
            case .reasoning(let end):
                guard end > cut else { continue }
                events.append(.reasoning(EventText(window.slice(cut..<end)), raw: options.rawSpans ? window.bytes(cut..<end) : nil))
                cut = end
            }
        }
        streamActions.removeAll(keepingCapacity: true)
    }

    private mutating func apply() {
        for action in actions { apply(action) }
    }

    private mutating func apply(_ action: GrammarAction) {
        switch action {
        case .start(let name, let proposedID):
            if let tools, !tools.declares(name) {
                current = .undeclared(name: name)
            } else if options.wholeCalls {
                // Announced only once accepted; the index is taken then, so the indexes a
                // client sees have no gaps.
                current = .started(index: -1, id: ids.id(style: format.definition.ids, proposed: proposedID), name: name)
                heldArguments.removeAll(keepingCapacity: false)
            } else {
                let id = ids.id(style: format.definition.ids, proposed: proposedID)
                current = .started(index: nextIndex, id: id, name: name)
                events.append(.toolCallStart(index: nextIndex, id: id, name: name))
                nextIndex += 1
            }
        case .delta(let fragment):
            if case .started(let index, _, _) = current, !fragment.isEmpty {
                if options.wholeCalls {
                    // From the fragment's own bytes: `utf8` would make an array per delta.
                    unsafe fragment.withUnsafeBytes { unsafe heldArguments.append(contentsOf: $0) }
                } else {
                    events.append(.toolCallDelta(index: index, arguments: fragment))
                }
            }
        case .accept(let arguments, let end):
            accept(arguments, end: end)
        case .reject(let reason, let detail, let end):
            // A rejection accounts for bytes: with no call open and nothing since the last
            // event (a call list cut off right where the next start marker begins), there
            // is nothing to reject.
            if case .none = current, end <= cut { return }
            reject(reason, detail: detail, end: end)
        case .markup(let end):
            emitMarkup(upTo: end)
        case .text(let end):
            emitText(upTo: end)
        case .reasoning(let end):
            if options.reasoning { emitFramedReasoning(upTo: end) } else { emitText(upTo: end) }
        }
    }

    private mutating func accept(_ arguments: CanonicalJSON, end: Int) {
        switch current {
        case .none:
            // A grammar always names a call before accepting it; treat a slip as malformed.
            reject(.malformed, detail: "call without a name", end: end)
        case .undeclared(let name):
            current = .none
            let raw = window.bytes(cut..<end)
            cut = end
            rejectedCount += 1
            events.append(
                .rejected(
                    RejectedToolCall(
                        reason: .undeclaredTool, format: format, raw: raw,
                        detail: "\"\(name)\" is not a declared tool", name: name)))
        case .started(var index, let id, let name):
            if let failure = validation?.validationFailure(name: name, arguments: arguments) {
                reject(.invalidArguments, detail: failure, end: end)
                return
            }
            current = .none
            // The call's input is copied only when raw spans were asked for: otherwise the
            // accepted call holds its arguments' text and nothing else.
            let raw = options.rawSpans ? window.bytes(cut..<end) : nil
            cut = end
            accepted += 1
            if options.wholeCalls {
                index = nextIndex
                nextIndex += 1
                events.append(.toolCallStart(index: index, id: id, name: name))
                events.append(.toolCallDelta(index: index, arguments: EventText(utf8: heldArguments)))
                heldArguments = []
            }
            events.append(
                .toolCall(
                    ToolCall(
                        index: index, id: id, name: name, canonicalArguments: arguments, raw: raw)))
        }
    }

    private mutating func reject(_ reason: RejectedToolCall.Reason, detail: String, end: Int) {
        let raw = window.bytes(cut..<end)
        cut = end
        rejectedCount += 1
        var r = RejectedToolCall(reason: reason, format: format, raw: raw, detail: detail)
        switch current {
        case .none: break
        case .undeclared(let name): r.name = name
        case .started(let index, let id, let name):
            r.name = name
            if !options.wholeCalls {
                // A call announced with tool_call_start ends with its index and id; with whole
                // calls it was never announced, so the rejection names only the tool.
                r.index = index
                r.id = id
            } else {
                heldArguments = []
            }
        }
        current = .none
        events.append(.rejected(r))
    }

    /// Ends a frame at `at`: a call still open is rejected, unaccounted bytes become markup.
    private mutating func closeFrame(at: Int, reason: RejectedToolCall.Reason) {
        switch current {
        case .none:
            if at > cut { emitMarkup(upTo: at) }
        case .started, .undeclared:
            reject(reason, detail: reason == .incomplete ? "the stream ended inside the call" : "the call did not end", end: at)
        }
    }

    // MARK: - Oversized calls

    private mutating func rejectOversized() {
        // Exactly the allowance, so the rejection is the same however the input was chunked.
        reject(.tooLarge, detail: "the call is larger than \(callCap) bytes", end: cut + callCap)
        mode = .skipping(grammar.skipRule)
    }

    /// Skips an oversized call's remaining bytes; returns true when it ended (the loop goes on).
    @discardableResult
    private mutating func skip(isFinal: Bool) -> Bool {
        guard case .skipping(let rule) = mode else { return false }
        let terminators: [[UInt8]]
        let through: Bool
        switch rule {
        case .through(let t):
            terminators = t
            through = true
        case .before(let t):
            terminators = t
            through = false
        }
        // Resume where the last chunk's search stopped: a skipped call is searched once, not
        // from `cut` again on every chunk (cut moves only in 64 KiB pieces).
        let match = MarkerSet(terminators).search(window, from: max(cut, skipFrom), end: window.received, isFinal: isFinal)
        var stop: Int
        var ended = false
        switch match {
        case .found(let k, let at):
            stop = through ? at + terminators[k].count : at
            ended = true
        case .partial(let at):
            stop = at
        case .none:
            stop = window.received
            ended = isFinal
        }
        skipFrom = stop
        // Report in pieces of at most 64 KiB; hold back less than a piece unless ending.
        while stop - cut >= Self.skipPieceBytes {
            reject(.tooLarge, detail: "skipped part of an oversized call", end: cut + Self.skipPieceBytes)
        }
        guard ended else { return false }
        if stop > cut { reject(.tooLarge, detail: "skipped part of an oversized call", end: stop) }
        mode = .text
        grammar = format.definition.makeGrammar(context)
        return true
    }

    // MARK: - Emitting

    private mutating func emitText(upTo end: Int) {
        guard end > cut else { return }
        let slice = window.slice(cut..<end)
        if !sawVisibleText {
            sawVisibleText = slice.contains { !JSONReader.isSpace($0) }
        }
        events.append(.text(EventText(slice)))
        cut = end
    }

    /// Emits reasoning text up to `end`; its raw runs from `cut` (the open marker included) to
    /// `rawEnd` (the close marker included).
    private mutating func emitReasoning(upTo end: Int, rawEnd: Int? = nil, final: Bool = false) {
        let rawEnd = rawEnd ?? end
        let textStart = max(cut, reasoningTextStart)
        // An open marker alone waits for text or its close, unless the stream ends.
        guard rawEnd > cut, end > textStart || rawEnd > end || final else { return }
        let text = EventText(end > textStart ? window.slice(textStart..<end) : [])
        events.append(.reasoning(text, raw: options.rawSpans ? window.bytes(cut..<rawEnd) : nil))
        cut = rawEnd
    }

    /// Emits the bytes up to `end` as reasoning that a grammar reported (a reasoning body the
    /// format frames itself): its text is its raw, the markup around it is reported apart.
    private mutating func emitFramedReasoning(upTo end: Int) {
        guard end > cut else { return }
        let slice = window.slice(cut..<end)
        events.append(.reasoning(EventText(slice), raw: options.rawSpans ? Array(slice) : nil))
        cut = end
    }

    private mutating func emitMarkup(upTo end: Int) {
        guard end > cut else { return }
        if options.rawSpans { events.append(.markup(raw: window.bytes(cut..<end))) }
        cut = end
    }
}
