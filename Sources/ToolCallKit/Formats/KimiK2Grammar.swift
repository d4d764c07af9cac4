// ToolCallKit — the `kimiK2` format: sections of
// `<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{..}<|tool_call_end|>`.

/// Grammar for Kimi K2 tool-call sections.
///
/// `<|tool_calls_section_begin|>` then calls
/// `<|tool_call_begin|>ID<|tool_call_argument_begin|>{json}<|tool_call_end|>`, then
/// `<|tool_calls_section_end|>`. `ID` is `functions.NAME:IDX`: the name is what precedes the last
/// `:DIGITS`, minus `functions.` (names may hold `-`, `__`, dots and colons). The id text is
/// passed to the decoder as the call's id (which replaces a duplicate). An id without a name
/// (a bare counter `0`, or a client's own id such as `call_3`, with neither `.` nor `:`) names
/// a declared tool: the only one, or else the only one whose parameters admit the arguments'
/// keys (each key a declared property, every required property present); such a call starts
/// when its arguments are complete, and fitting no tool or several is `malformed`. Without
/// `tools` it is `malformed`.
///
/// - Every call of a section is reported. The first call's raw span starts at the section
///   opener (noise before its `<|tool_call_begin|>` included); bytes between calls and the
///   section end are markup. An empty section is markup.
/// - `<|tool_call_begin|>` may be missing (the id follows the opener or noise directly; the id is
///   then the last white-space-separated word before `<|tool_call_argument_begin|>`), and so may
///   `<|tool_call_end|>` (the call ends with its JSON object).
/// - A malformed id or invalid argument JSON rejects that call (`malformed`) through its
///   `<|tool_call_end|>` (or up to the next call or the section end); its siblings are kept.
/// - At the end of the stream a missing section end is fine after complete calls; a call cut off
///   inside is `incomplete`, and so is a section that never held a call.
/// - `<|tool_call_begin|>` outside a section starts a lone call when its id is well formed;
///   otherwise the marker alone is rejected as `malformed` and what follows is text again (text
///   never holds markup). Cut off inside its id by the end of the stream, it is `incomplete`.
/// - Orphan `<|tool_calls_section_end|>`, `<|tool_call_end|>` and
///   `<|tool_call_argument_begin|>` are markup.
struct KimiK2Grammar: CallGrammar {
    private enum State: Sendable {
        /// Inside a section, between calls; bytes from `from` may be an id without its begin marker.
        case section(from: Int)
        /// Reading an id that began at `start`.
        case id(start: Int)
        /// After `<|tool_call_argument_begin|>`: white space, then `{`.
        case argsOpen
        /// Reading the arguments object.
        case args
        /// The arguments ended at `end`: `<|tool_call_end|>` may follow.
        case afterArgs(CanonicalJSON, end: Int)
        /// Skipping a call that cannot be parsed, to its end.
        case badCall(detail: String)
    }

    static let sectionBegin = "<|tool_calls_section_begin|>"
    static let sectionEnd = "<|tool_calls_section_end|>"
    static let callBegin = "<|tool_call_begin|>"
    static let callEnd = "<|tool_call_end|>"
    static let argumentBegin = "<|tool_call_argument_begin|>"

    let markers: [Marker] = [
        Marker(KimiK2Grammar.sectionBegin, role: .section),
        Marker(KimiK2Grammar.callBegin, role: .call),
        Marker(KimiK2Grammar.sectionEnd, kind: .stray),
        Marker(KimiK2Grammar.callEnd, kind: .stray),
        Marker(KimiK2Grammar.argumentBegin, kind: .stray),
    ]
    let skipRule = SkipRule.through([Array(KimiK2Grammar.callEnd.utf8), Array(KimiK2Grammar.sectionEnd.utf8)])

    /// What a section holds between calls: a call, an id's end, or the section's end.
    private static let sectionMarkers = MarkerSet([callBegin, sectionEnd, argumentBegin])
    /// What ends an id.
    private static let idMarkers = MarkerSet([argumentBegin, callEnd, callBegin, sectionEnd])
    /// What ends a call that cannot be parsed: through the first, before the others.
    private static let badCallMarkers = MarkerSet([callEnd, callBegin, sectionEnd])
    private static let callEndBytes = Array(callEnd.utf8)

    /// The longest id read before the call counts as malformed.
    static let maxIDBytes = 1024

    private var state: State = .section(from: 0)
    // The arguments reader lives in stored properties, so it mutates in place.
    private var argsReader = JSONTextReader()
    private var streamer = RawDeltaStreamer(from: 0)
    private var pos = 0
    private var inSection = false
    private var callsSeen = 0
    /// The first byte after the frame's marker.
    private var bodyStart = 0
    /// The id of a call whose name waits for its arguments (an id without a name, several tools).
    private var pendingID: String?

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        pos = bodyStart
        self.bodyStart = bodyStart
        callsSeen = 0
        pendingID = nil
        inSection = markers[marker].role == .section
        state = inSection ? .section(from: bodyStart) : .id(start: bodyStart)
    }

    /// What an id text says about the call's name.
    enum IDReading: Equatable {
        /// `functions.NAME:IDX` or `NAME:IDX`.
        case named(String)
        /// A bare counter, or an id with neither `.` nor `:` (a client's own): no name.
        case anonymous
        case malformed
    }

    static func readID(_ text: String) -> IDReading {
        let b = Array(text.utf8)
        guard !b.isEmpty, !b.contains(where: { JSONReader.isSpace($0) }) else { return .malformed }
        var i = b.count
        while i > 0 && b[i - 1] >= 0x30 && b[i - 1] <= 0x39 { i -= 1 }
        if i < b.count && i > 0 && b[i - 1] == UInt8(ascii: ":") {
            var name = Array(b[0..<(i - 1)])
            let prefix = Array("functions.".utf8)
            if name.starts(with: prefix) { name.removeFirst(prefix.count) }
            return name.isEmpty ? .anonymous : .named(String(decoding: name, as: UTF8.self))
        }
        if i == 0 || !b.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") }) { return .anonymous }
        return .malformed
    }

    private static func trimmed(_ w: ByteWindow, _ r: Range<Int>) -> Range<Int> {
        var s = r.lowerBound
        var e = r.upperBound
        (s, e) = w.trimmingSpace(s, e)
        return s..<e
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        typealias K = KimiK2Grammar
        while true {
            switch state {
            case .section(let from):
                switch K.sectionMarkers.search(w, from: pos, end: w.end) {
                case .found(let k, let at):
                    let end = at + K.sectionMarkers.markers[k].count
                    switch k {
                    case 0:
                        if callsSeen > 0 { actions.append(.markup(end: at)) }
                        pos = end
                        state = .id(start: end)
                    case 1:
                        actions.append(.markup(end: end))
                        return .finished(at: end)
                    default:
                        // An id without `<|tool_call_begin|>`: the last word before the marker.
                        let r = K.trimmed(w, from..<at)
                        var s = r.upperBound
                        while s > r.lowerBound && !JSONReader.isSpace(w[s - 1]) { s -= 1 }
                        if callsSeen > 0 { actions.append(.markup(end: s)) }
                        pos = end
                        _ = startCall(idRange: s..<r.upperBound, w, context: context, actions: &actions)
                    }
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none:
                    pos = w.end
                    return .needMore
                }
            case .id(let start):
                let limit = min(w.end, start + K.maxIDBytes + K.idMarkers.maxLength)
                // A bound short of the received bytes is no end of the stream: a marker cut by
                // it begins too late for an id anyway.
                switch K.idMarkers.search(w, from: pos, end: limit, isFinal: limit < w.end) {
                case .found(let k, let at) where k == 0 && at - start <= K.maxIDBytes:
                    pos = at + K.idMarkers.markers[k].count
                    if !startCall(idRange: K.trimmed(w, start..<at), w, context: context, actions: &actions)
                        && !inSection
                    {
                        return giveBack(actions: &actions)
                    }
                case .found(_, let at) where at - start <= K.maxIDBytes:
                    if !inSection { return giveBack(actions: &actions) }
                    pos = at
                    state = .badCall(detail: "expected an id and <|tool_call_argument_begin|>")
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none where limit - start <= K.maxIDBytes:
                    pos = limit
                    return .needMore
                case .found, .none:
                    // No marker begins within the id's cap: too long, however the bytes came.
                    // The search for the call's end starts where the id began (at most the cap
                    // is read again), so every chunking finds the same end.
                    if !inSection { return giveBack(actions: &actions) }
                    pos = start
                    state = .badCall(detail: "the call id is too long")
                }
            case .argsOpen:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                guard w[pos] == UInt8(ascii: "{") else {
                    state = .badCall(detail: "expected a JSON object after <|tool_call_argument_begin|>")
                    continue
                }
                argsReader = JSONTextReader(maxDepth: context.maxDepth)
                streamer = RawDeltaStreamer(from: pos)
                state = .args
            case .args:
                let event = argsReader.advance(w, from: &pos, to: w.end)
                switch event {
                case .needMore, .valueStart, .valueEnd:
                    if pendingID == nil { streamer.flush(w, upTo: pos, final: false, actions: &actions) }
                    if case .needMore = event { return .needMore }
                case .complete(let value, let end):
                    if let id = pendingID {
                        pendingID = nil
                        let fits = context.tools?.tools(admittingKeysOf: value) ?? []
                        guard fits.count == 1 else {
                            pos = end
                            let id = JSONValue.string(id).jsonText
                            state = .badCall(detail: fits.isEmpty
                                ? "call id \(id) names no tool, and no declared tool takes these arguments"
                                : "call id \(id) names no tool, and the arguments fit several tools")
                            continue
                        }
                        // Named by its arguments: started now, its arguments in one delta.
                        actions.append(.start(name: fits[0].name, id: id))
                        actions.append(.delta(RawDeltaStreamer.wholeText(w, streamer.from..<end)))
                    } else {
                        streamer.flush(w, upTo: end, final: true, actions: &actions)
                    }
                    state = .afterArgs(value, end: end)
                case .error(let m, let at):
                    // The deltas of the valid prefix, however the input was chunked.
                    if pendingID == nil { streamer.flush(w, upTo: at, final: false, actions: &actions) }
                    pos = at
                    state = .badCall(detail: m)
                case .tooDeep(let at):
                    if pendingID == nil { streamer.flush(w, upTo: at, final: false, actions: &actions) }
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .afterArgs(let value, let end):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                var i = 0
                while i < K.callEndBytes.count && pos + i < w.end && w[pos + i] == K.callEndBytes[i] { i += 1 }
                if i < K.callEndBytes.count && pos + i == w.end { return .needMore }
                let close = i == K.callEndBytes.count ? pos + i : end
                actions.append(.accept(arguments: value, end: close))
                if let step = callEnded(at: close) { return step }
            case .badCall(let detail):
                switch K.badCallMarkers.search(w, from: pos, end: w.end) {
                case .found(let k, let at):
                    let close = k == 0 ? at + K.callEndBytes.count : at
                    actions.append(.reject(.malformed, detail: detail, end: close))
                    if let step = callEnded(at: close) { return step }
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none:
                    pos = w.end
                    return .needMore
                }
            }
        }
    }

    /// A call of the frame ended at `close`: the section goes on, or a lone call's frame ends.
    private mutating func callEnded(at close: Int) -> GrammarStep? {
        callsSeen += 1
        pos = close
        guard inSection else { return .finished(at: close) }
        state = .section(from: close)
        return nil
    }

    /// Starts the call named by the id in `idRange`; false (and a call to skip) when it is malformed.
    private mutating func startCall(idRange: Range<Int>, _ w: ByteWindow, context: GrammarContext,
                                    actions: inout [GrammarAction]) -> Bool {
        let text = String(decoding: w.slice(idRange), as: UTF8.self)
        switch (KimiK2Grammar.readID(text), context.tools) {
        case (.named(let name), _):
            actions.append(.start(name: name, id: text))
        case (.anonymous, let tools?) where tools.tools.count == 1:
            actions.append(.start(name: tools.tools[0].name, id: text))
        case (.anonymous, let tools?) where tools.tools.count > 1:
            pendingID = text
        default:
            state = .badCall(detail: "malformed call id \(JSONValue.string(text).jsonText)")
            return false
        }
        state = .argsOpen
        return true
    }

    /// A lone `<|tool_call_begin|>` that no call follows: the marker alone is rejected, and
    /// what follows it is text again.
    private mutating func giveBack(actions: inout [GrammarAction]) -> GrammarStep {
        actions.append(.reject(.malformed, detail: "a call-begin marker that no call follows", end: bodyStart))
        return .finished(at: bodyStart)
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .args = state, pendingID == nil else { return nil }
        return streamer.passThrough(argsReader, pos: pos, at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .section:
            if callsSeen > 0 {
                actions.append(.markup(end: w.end))
            } else {
                let detail = "the stream ended inside an empty call section"
                actions.append(.reject(.incomplete, detail: detail, end: w.end))
            }
        case .id:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call id", end: w.end))
        case .argsOpen, .args:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterArgs(let value, let end):
            actions.append(.accept(arguments: value, end: end))
            if w.end > end { actions.append(inSection ? .markup(end: w.end) : .text(end: w.end)) }
        case .badCall(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }
}
