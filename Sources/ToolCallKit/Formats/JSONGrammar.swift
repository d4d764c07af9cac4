// ToolCallKit — the `json` format (Hermes / Qwen): `<tool_call>{"name": .., "arguments": ..}</tool_call>`.

/// Grammar for the `json` format.
///
/// Frames: `<tool_call>` + a call object + `</tool_call>`. Several objects may share one frame,
/// separated by white space or a comma. Rules beyond that frame (docs/formats.md):
///
/// - `arguments` or `parameters`; an object, or a JSON string that encodes an object (decoded
///   once). A name-only object inside tags is a zero-argument call (`{}`).
/// - The end marker inside a JSON string is data: the call object is parsed, not searched.
/// - A missing end marker at end of stream is accepted when the object is complete.
/// - The doubled-brace drift of some Qwen templates, `{{` + object + `}}` with the closing
///   tag missing, is accepted; any other tail after the object is `malformed`.
/// - With `tools`, a bare call object in prose whose name is declared is a call; any other
///   bare JSON (or prose with braces) is text. Bare objects are reported when complete, since
///   until then they may still be prose; one cut off by the end of the stream after its
///   declared name is `incomplete`.
/// - A JSON array of call objects inside the tags (a drift) holds one call per object; an
///   element that is JSON but no call (not an object, no name, arguments that are no object)
///   is rejected on its own (`malformed`) and its neighbours stand; a trailing comma, or a
///   missing one between objects, is read; an empty list is `markup`.
/// - Orphan end markers are `markup`.
struct JSONGrammar: CallGrammar {
    private enum State: Sendable {
        /// After the opening tag: white space, then `{` (or `{{`).
        case open
        /// Reading a call object (``reader``); `doubled` when the drift `{{` opened it.
        case object(doubled: Bool)
        /// After an object: white space, closers owed by `{{`, then the end tag or another object.
        case afterObject(closersOwed: Int)
        /// After garbage: skipping to the end tag; the frame is rejected as `malformed`.
        case junk(detail: String)
        /// A bare object in prose (not streamed), read by ``reader``.
        case bare
        /// Inside `[ ... ]` after the tag, read by ``list``.
        case list
        /// After the list's `]`: white space, then the end tag.
        case afterList
    }

    let markers: [Marker] = [
        Marker("<tool_call>"),
        Marker("</tool_call>", kind: .stray),
        Marker("{", role: .bareObject, condition: .whenToolsDeclared),
    ]
    private static let endTags = MarkerSet(["</tool_call>"])
    let skipRule = SkipRule.through([Array("</tool_call>".utf8)])

    private var state: State = .open
    private var pos = 0
    /// The call object being read. A stored property, not an enum payload, so that it is
    /// mutated in place (a payload would be copied on every chunk).
    private var reader = CallObjectReader(at: 0, streaming: false, maxDepth: 0)
    /// Whether the current call in this frame was reported (start .. accept pending).
    private var pendingCall: (call: ParsedCallObject, end: Int)?
    /// The JSON array of call objects a frame may hold (a drift some models write).
    private var list = CallListReader.idle
    /// The list's rules: its calls stream and are accepted at the separator after them; an
    /// element that is JSON but no call is rejected on its own; a trailing comma and a missing
    /// one are read.
    private static let listRules = CallListRules(
        streams: true, nameOnlyIsCall: true, trailingComma: true, missingComma: true,
        rejectsNonObjectsAlone: true, acceptsAtSeparator: true)

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        pendingCall = nil
        if markers[marker].role == .bareObject {
            reader = CallObjectReader(at: at, streaming: false, maxDepth: context.maxDepth)
            state = .bare
            pos = at
        } else {
            state = .open
            pos = bodyStart
        }
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .open:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: "[") {
                    list.begin(at: pos + 1, rules: Self.listRules, maxDepth: context.maxDepth)
                    pos += 1
                    state = .list
                    continue
                }
                guard w[pos] == UInt8(ascii: "{") else {
                    if let step = endTagOrJunk(w, detail: "expected a JSON object after the tag", actions: &actions) {
                        return step
                    }
                    continue
                }
                // Look past `{` and white space for the doubled-brace drift.
                var j = pos + 1
                j = w.skipSpace(from: j)
                guard j < w.end else { return .needMore }
                let doubled = w[j] == UInt8(ascii: "{")
                let start = doubled ? j : pos
                reader = CallObjectReader(at: start, streaming: true, maxDepth: context.maxDepth)
                state = .object(doubled: doubled)
                pos = start
            case .object(let doubled):
                let result = reader.advance(w, actions: &actions)
                pos = reader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .tooDeep(let at):
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                case .error(let m, let at):
                    pos = at
                    state = .junk(detail: m)
                case .complete(let call, let end):
                    guard let name = call.name else {
                        pos = end
                        state = .junk(detail: "the call object has no name")
                        continue
                    }
                    guard let arguments = call.arguments ?? (call.hasArgumentsKey ? nil : .object([])),
                        arguments.isObject
                    else {
                        pos = end
                        state = .junk(detail: "arguments is not a JSON object")
                        continue
                    }
                    if !reader.started {
                        reader.reportUnstarted(call, name: name, arguments: arguments, w: w, actions: &actions)
                    }
                    var settled = call
                    settled.arguments = arguments
                    pendingCall = (settled, end)
                    state = .afterObject(closersOwed: doubled ? 2 : 0)
                    pos = end
                }
            case .afterObject(let owed):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                if owed > 0 && b == UInt8(ascii: "}") {
                    pos += 1
                    state = .afterObject(closersOwed: owed - 1)
                } else if owed == 0 && (b == UInt8(ascii: ",") || b == UInt8(ascii: "{")) {
                    // Another object in the same frame: the pending call ends here.
                    acceptPending(actions: &actions, end: pos)
                    if b == UInt8(ascii: ",") { pos += 1 }
                    state = .open
                } else if b == UInt8(ascii: "<") && owed == 0 {
                    switch JSONGrammar.endTags.search(w, from: pos, end: min(w.end, pos + 20)) {
                    case .found(let k, let at) where at == pos:
                        let end = pos + JSONGrammar.endTags.markers[k].count
                        acceptPending(actions: &actions, end: end)
                        return .finished(at: end)
                    case .partial(let at) where at == pos:
                        return .needMore
                    default:
                        state = .junk(detail: "unexpected text after the call object")
                    }
                } else {
                    state = .junk(detail: owed > 0 ? "expected '}'" : "unexpected text after the call object")
                }
            case .list:
                switch list.read(w, actions: &actions) {
                case .needMore:
                    pos = list.pos
                    return .needMore
                case .end(let end):
                    pos = end
                    state = .afterList
                case .malformed(let detail, let at):
                    pos = at
                    state = .junk(detail: detail)
                case .skip:
                    return .skip
                }
            case .afterList:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                if let step = endTagOrJunk(w, detail: "unexpected text after the call list", actions: &actions) {
                    return step
                }
            case .junk(let detail):
                pendingCall = nil
                return JSONGrammar.endTags.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in true }
            case .bare:
                let result = reader.advance(w, actions: &actions)
                pos = reader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .error(_, let at), .tooDeep(let at):
                    actions.append(.text(end: at))
                    return .finished(at: at)
                case .complete(let call, let end):
                    guard let name = call.name, let tools = context.tools, tools.declares(name),
                        call.hasArgumentsKey, let arguments = call.arguments, arguments.isObject
                    else {
                        actions.append(.text(end: end))
                        return .finished(at: end)
                    }
                    reader.reportUnstarted(call, name: name, arguments: arguments, w: w, actions: &actions)
                    actions.append(.accept(arguments: arguments, end: end))
                    return .finished(at: end)
                }
            }
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        switch state {
        case .object: return reader.passThrough(at: end)
        case .list: return list.passThrough(at: end)
        default: return nil
        }
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        if case .list = state {
            list.takePassThrough(count, w)
            pos = list.pos
        } else {
            reader.takePassThrough(count, w)
            pos = reader.pos
        }
    }

    /// Where an object belongs, or after a call list: the end tag closes the frame as markup,
    /// anything else is junk.
    private mutating func endTagOrJunk(_ w: ByteWindow, detail: String, actions: inout [GrammarAction]) -> GrammarStep? {
        switch JSONGrammar.endTags.search(w, from: pos, end: min(w.end, pos + 20)) {
        case .found(let k, let at) where at == pos:
            let end = pos + JSONGrammar.endTags.markers[k].count
            actions.append(.markup(end: end))
            return .finished(at: end)
        case .partial(let at) where at == pos:
            return .needMore
        default:
            state = .junk(detail: detail)
            return nil
        }
    }

    private mutating func acceptPending(actions: inout [GrammarAction], end: Int) {
        if let p = pendingCall {
            actions.append(.accept(arguments: p.call.arguments ?? .object([]), end: end))
            pendingCall = nil
        }
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .open, .object:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterObject(let owed):
            if owed == 0 {
                acceptPending(actions: &actions, end: w.end)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended before the closing braces", end: w.end))
            }
        case .junk(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        case .list:
            if list.isInObject {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            } else if !list.acceptPending(end: w.end, actions: &actions) {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call list", end: w.end))
            }
        case .afterList:
            // The list is complete; its end tag never came.
            actions.append(.markup(end: w.end))
        case .bare:
            // A bare object whose declared name was read, cut off: a call cut off is
            // `incomplete`, never text. One that never named a declared tool is text.
            if let name = reader.knownName, context.tools?.declares(name) ?? false {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            } else {
                actions.append(.text(end: w.end))
            }
        }
    }
}
