// ToolCallKit — the `mistral` format: `[TOOL_CALLS]name[ARGS]{..}` and `[TOOL_CALLS][{..}, ..]`.

/// Grammar for Mistral tool calls, in both spellings.
///
/// - v11 and later: `[TOOL_CALLS]NAME[ARGS]{json}`, optionally `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}`,
///   repeated per call. `[TOOL_CALLS]NAME{json}` without `[ARGS]` is accepted too (servers that
///   skip special tokens drop it). White space around the name is ignored.
/// - Before v11: `[TOOL_CALLS][{"name": .., "arguments": ..}, ..]`; a list entry's `id` is
///   passed through. An entry that is JSON but no call (not an object, no name, no arguments
///   object) is `rejected` on its own (`malformed`) and its neighbours stand; a trailing comma,
///   or a missing one between entries, is read; `[]` is markup. Junk between the marker and the list (`[TOOL_CALLS] junk [{..}]`) is
///   tolerated and kept in the first call's raw span.
/// - There is no end marker: a call ends where its JSON value ends, and what follows is text.
///   A malformed call runs to the next `[TOOL_CALLS]` or the end of the stream and is
///   `rejected` as `malformed`; one cut off inside its JSON is `incomplete`.
struct MistralGrammar: CallGrammar {
    private enum State: Sendable {
        /// After `[TOOL_CALLS]`: white space, then a name or `[`.
        case open
        /// Reading a name that began at `start`.
        case name(start: Int)
        /// After the name: `[ARGS]`, `[CALL_ID]`, `{`, or a list after junk.
        case afterName(name: String, id: String?)
        /// After `[ARGS]`: white space, then the arguments object (and nothing else).
        case afterArgs(name: String, id: String?)
        /// Reading a `[CALL_ID]` value that began at `start`.
        case callID(name: String, start: Int)
        /// Reading the arguments object.
        case args
        /// Reading the list with ``list``.
        case list
        /// Skipping a malformed call to the next `[TOOL_CALLS]`.
        case malformed(detail: String)
    }

    let markers: [Marker] = [Marker("[TOOL_CALLS]")]
    private static let startMarker = MarkerSet(["[TOOL_CALLS]"])
    private static let innerMarkers = MarkerSet(["[ARGS]", "[CALL_ID]"])
    let skipRule = SkipRule.before([Array("[TOOL_CALLS]".utf8)])

    private var state: State = .open
    private var pos = 0
    // Readers live in stored properties, not enum payloads, so they mutate in place.
    private var argsReader = JSONTextReader()
    private var streamer = RawDeltaStreamer(from: 0)
    private var list = CallListReader.idle
    /// The list's rules: entries are not streamed, since Mistral's templates write an entry's
    /// `id` after its `arguments` and a model-supplied id must be passed through (the call is
    /// announced once its object ends, start and one delta together); an entry needs an
    /// arguments object; an entry that is JSON but no call is rejected on its own; a trailing
    /// and a missing comma are read.
    private static let listRules = CallListRules(
        streams: false, trailingComma: true, missingComma: true, rejectsNonObjectsAlone: true)

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        state = .open
        pos = bodyStart
    }

    private static func endsName(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "[") || b == UInt8(ascii: "{") || JSONReader.isSpace(b)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .open:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: "[") {
                    pos += 1
                    beginList(context: context)
                } else if w[pos] == UInt8(ascii: "{") {
                    state = .malformed(detail: "arguments without a function name")
                } else {
                    state = .name(start: pos)
                }
            case .name(let start):
                while pos < w.end && !MistralGrammar.endsName(w[pos]) { pos += 1 }
                guard pos < w.end else { return .needMore }
                let name = String(decoding: w.slice(start..<pos), as: UTF8.self)
                state = .afterName(name: name, id: nil)
            case .afterName(let name, let id):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: "{") {
                    beginArgs(name: name, id: id, actions: &actions, context: context)
                    continue
                }
                guard w[pos] == UInt8(ascii: "[") else {
                    state = .malformed(detail: "expected [ARGS] or a JSON object after the name")
                    continue
                }
                switch MistralGrammar.innerMarkers.search(w, from: pos, end: min(w.end, pos + 9)) {
                case .found(let k, let at) where at == pos:
                    pos += MistralGrammar.innerMarkers.markers[k].count
                    if k == 0 {
                        state = .afterArgs(name: name, id: id)
                    } else {
                        state = .callID(name: name, start: pos)
                    }
                case .partial(let at) where at == pos:
                    return .needMore
                default:
                    // `[` that is not a marker: a call list after junk, or garbage.
                    var j = pos + 1
                    j = w.skipSpace(from: j)
                    guard j < w.end else { return .needMore }
                    if w[j] == UInt8(ascii: "{") {
                        pos += 1
                        beginList(context: context)
                    } else {
                        state = .malformed(detail: "expected [ARGS] after the name")
                    }
                }
            case .afterArgs(let name, let id):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                guard w[pos] == UInt8(ascii: "{") else {
                    state = .malformed(detail: "expected a JSON object after [ARGS]")
                    continue
                }
                beginArgs(name: name, id: id, actions: &actions, context: context)
            case .callID(let name, let start):
                while pos < w.end && !MistralGrammar.endsName(w[pos]) { pos += 1 }
                guard pos < w.end else { return .needMore }
                let id = String(decoding: w.slice(start..<pos), as: UTF8.self)
                state = .afterName(name: name, id: id.isEmpty ? nil : id)
            case .args:
                let event = argsReader.advance(w, from: &pos, to: w.end)
                switch event {
                case .needMore, .valueStart, .valueEnd:
                    streamer.flush(w, upTo: pos, final: false, actions: &actions)
                    if case .needMore = event { return .needMore }
                case .complete(let value, let end):
                    streamer.flush(w, upTo: end, final: true, actions: &actions)
                    actions.append(.accept(arguments: value, end: end))
                    return .finished(at: end)
                case .error(let m, let at):
                    // The deltas of the valid prefix, however the input was chunked.
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    pos = at
                    state = .malformed(detail: m)
                case .tooDeep(let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .list:
                switch list.read(w, actions: &actions) {
                case .needMore:
                    pos = list.pos
                    return .needMore
                case .end(let end):
                    actions.append(.markup(end: end))
                    return .finished(at: end)
                case .malformed(let detail, let at):
                    pos = at
                    state = .malformed(detail: detail)
                case .skip:
                    return .skip
                }
            case .malformed(let detail):
                return MistralGrammar.startMarker.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in false }
            }
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        switch state {
        case .args:
            return streamer.passThrough(argsReader, pos: pos, at: end)
        case .list:
            return list.passThrough(at: end)
        default:
            return nil
        }
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        if case .args = state {
            streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
        } else {
            list.takePassThrough(count, w)
            pos = list.pos
        }
    }

    private mutating func beginList(context: GrammarContext) {
        list.begin(at: pos, rules: Self.listRules, maxDepth: context.maxDepth)
        state = .list
    }

    private mutating func beginArgs(name: String, id: String?, actions: inout [GrammarAction], context: GrammarContext) {
        actions.append(.start(name: name, id: id))
        argsReader = JSONTextReader(maxDepth: context.maxDepth)
        streamer = RawDeltaStreamer(from: pos)
        state = .args
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .malformed(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        case .list where list.isAfterElement:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call list", end: w.end))
        default:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        }
    }
}
