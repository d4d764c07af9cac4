// ToolCallKit — the `llama3` format: `<|python_tag|>{"name": .., "parameters": ..}` or bare JSON.

/// Grammar for Llama 3.x JSON tool calls.
///
/// - After `<|python_tag|>`: one or more call objects (`parameters` or `arguments`), separated
///   by `;` or white space, or a JSON array of them. These are streamed, and a malformed one is
///   `rejected` (`malformed`) up to the next `<|python_tag|>` or the end of the stream, since
///   the format has no end marker. In the array, an element that is JSON but no call is
///   `rejected` on its own and its neighbours stand; a trailing comma, or a missing one between
///   objects, is read; `[]` is markup.
/// - A bare call object (or array of them) at the start of the output, or anywhere when
///   `tools` declares its name, is a call; further objects may follow after `;` or newlines.
///   A bare object is reported only when complete, because until then it may be prose: JSON
///   that is not a call (no name, no arguments, invalid) stays text, and so does a bare
///   object in mid-prose whose name is not declared. A bare object that counts and is cut
///   off by the end of the stream after its name is `incomplete`.
/// - A call object in Python's spelling (`{'name': 'f', 'parameters': {'a': 'v'}}`, single
///   quotes, `True`/`None`) counts where a JSON one does; it is read when its closing brace
///   arrives, so it is reported whole.
/// - After `<|python_tag|>`, a Python call `name(key=value, ...)` or a list of them
///   (`[f(a=1), g()]`), read by ``PythonCallReader``: the built-in tool form
///   (`brave_search.call(query="...")`). A JSON `{` or `[{` keeps the JSON path.
/// - Text after the last call is text.
struct Llama3Grammar: CallGrammar {
    private enum State: Sendable {
        /// After `<|python_tag|>`: white space, then `{` or `[`.
        case open
        /// Reading a call object, or a JSON list of them (``inList``), with ``list``; `bare`
        /// when it may still be prose.
        case list(bare: Bool)
        /// After a call: separators, then another call or the end of the frame.
        case between(bare: Bool)
        /// A Python call after `<|python_tag|>`, alone or in a list.
        case python(inList: Bool)
        /// After a Python call in a list: `,` or `]`.
        case pythonNext
        /// In a Python list after `,`: a call or `]`.
        case pythonElement
        /// A call object in Python's spelling (`{'name': 'f', 'parameters': {...}}`) that began at
        /// `start`, skipped to its closing brace and then read as a Python literal.
        case pythonDict(bare: Bool, start: Int, skipper: PythonCallSkipper)
        /// Malformed tagged call: skipping to the next `<|python_tag|>`.
        case malformed(detail: String)
    }

    /// Llama 3.1's end of a message that expects a tool result.
    static let endOfMessage = Array("<|eom_id|>".utf8)

    /// Whether the bytes after `p` are separators and then a cut-off `<|eom_id|>`.
    static func endsInEndOfMessage(_ w: ByteWindow, after p: Int) -> Bool {
        var j = p
        while j < w.end && (w[j] == UInt8(ascii: ";") || JSONReader.isSpace(w[j])) { j += 1 }
        return j < w.end && TagMatch.at(w, j, [endOfMessage]) == .partial
    }

    let markers: [Marker] = [
        Marker("<|python_tag|>", role: .section),
        Marker("{", role: .bareObject, condition: .atStartOrWhenToolsDeclared),
        Marker("[", role: .bareList, condition: .atStartOrWhenToolsDeclared),
    ]
    private static let tag = MarkerSet(["<|python_tag|>"])
    let skipRule = SkipRule.before([Array("<|python_tag|>".utf8)])

    private var state: State = .open
    /// The JSON call object, or list of them, being read (a stored property, so it mutates in
    /// place). A lone object is read as a "list" of one.
    private var list = CallListReader.idle
    /// Tagged calls stream; bare ones are reported when complete, since until then they may be
    /// prose. An object needs an arguments key; a list takes a trailing and a missing comma. In
    /// a tagged list an element that is JSON but no call is rejected on its own (in a bare one
    /// it is prose), and a first element that begins like a name is a Python call.
    private static let taggedRules = CallListRules(
        streams: true, trailingComma: true, missingComma: true, rejectsNonObjectsAlone: true, leavesNamesToOwner: true)
    private static let bareRules = CallListRules(streams: false, trailingComma: true, missingComma: true)
    /// The Python call being read (likewise).
    private var pythonReader = PythonCallReader(at: 0, context: GrammarContext(format: .llama3, tools: nil, maxDepth: 0))
    private var pos = 0
    private var inList = false
    /// The frame began at the start of the output (a bare call there needs no declared name).
    private var atStart = false
    /// Where text after the last call would begin (separators are given back as text).
    private var lastCallEnd = 0

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        self.atStart = atStart
        inList = false
        lastCallEnd = at
        switch markers[marker].role {
        case .bareObject:
            beginObject(at: at, bare: true, context: context)
        case .bareList:
            beginList(at: bodyStart, bare: true, context: context)
        case .section, .call, .none:
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
                switch w[pos] {
                case UInt8(ascii: "{"):
                    beginObject(at: pos, bare: false, context: context)
                case UInt8(ascii: "["):
                    beginList(at: pos + 1, bare: false, context: context)
                case let b where PythonCallReader.isNameStart(b):
                    pythonReader = PythonCallReader(at: pos, context: context)
                    state = .python(inList: false)
                default:
                    state = .malformed(detail: "expected a JSON call after <|python_tag|>")
                }
            case .list(let bare):
                let step = list.advance(w, actions: &actions)
                pos = list.pos
                switch step {
                case .needMore:
                    return .needMore
                case .object(let end):
                    guard let call = list.call() else {
                        if bare { return giveBack(at: end, actions: &actions) }
                        if inList {
                            list.rejectAlone(list.notACallDetail, end: end, actions: &actions)
                        } else {
                            pos = end
                            state = .malformed(detail: "not a call object (a name and an arguments object)")
                        }
                        continue
                    }
                    if bare && !atStart && !(context.tools?.declares(call.name) ?? false) {
                        return giveBack(at: end, actions: &actions)
                    }
                    list.report(call, end: end, w: w, actions: &actions)
                    pos = end
                    lastCallEnd = end
                case .end(let end):
                    guard inList else {
                        // The lone object was a call: more may follow.
                        state = .between(bare: bare)
                        continue
                    }
                    if bare && list.count == 0 { return giveBack(at: end, actions: &actions) }
                    actions.append(.markup(end: end))
                    return .finished(at: end)
                case .unexpected(.element, let at):
                    if list.count == 0 && !bare && PythonCallReader.isNameStart(w[at]) {
                        pos = at
                        pythonReader = PythonCallReader(at: pos, context: context)
                        state = .python(inList: true)
                        continue
                    }
                    if bare { return giveBack(at: at, actions: &actions) }
                    pos = at
                    state = .malformed(detail: CallListReader.Expected.element.detail)
                case .unexpected(.separator, _):
                    // The rest is text (after the last call, or an element rejected alone).
                    return .finished(at: max(lastCallEnd, list.settledEnd))
                case .tooDeep(let at):
                    if bare { return giveBack(at: at, actions: &actions) }
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                case .error(let at):
                    if let start = Self.pythonDictStart(w, quoteAt: at) {
                        pos = start + 1
                        state = .pythonDict(bare: bare, start: start, skipper: PythonCallSkipper(depth: 1))
                        continue
                    }
                    if bare { return giveBack(at: at, actions: &actions) }
                    pos = at
                    state = .malformed(detail: list.errorMessage)
                }
            case .between(let bare):
                // Separators: `;`, white space. Another `{` continues the frame.
                var j = pos
                while j < w.end && (w[j] == UInt8(ascii: ";") || JSONReader.isSpace(w[j])) { j += 1 }
                guard j < w.end else { return .needMore }
                if w[j] == UInt8(ascii: "{") {
                    beginObject(at: j, bare: bare, context: context)
                } else {
                    // Llama 3.1 ends a tool-call message with `<|eom_id|>`: right after a call it
                    // is the call's markup, not text.
                    switch TagMatch.at(w, j, [Self.endOfMessage]) {
                    case .found:
                        let end = j + Self.endOfMessage.count
                        actions.append(.markup(end: end))
                        return .finished(at: end)
                    case .partial:
                        return .needMore
                    case .none:
                        return .finished(at: lastCallEnd)
                    }
                }
            case .python(let list):
                let result = pythonReader.advance(w, actions: &actions)
                pos = pythonReader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .complete(let arguments, let end):
                    actions.append(.accept(arguments: arguments, end: end))
                    lastCallEnd = end
                    if !list { return .finished(at: end) }
                    state = .pythonNext
                case .invalid(let detail, let end):
                    actions.append(.reject(.invalidArguments, detail: detail, end: end))
                    lastCallEnd = end
                    if !list { return .finished(at: end) }
                    state = .pythonNext
                case .error(let m, let at):
                    pos = at
                    state = .malformed(detail: m)
                case .tooDeep(let at):
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .pythonNext:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: ",") {
                    pos += 1
                    state = .pythonElement
                } else if w[pos] == UInt8(ascii: "]") {
                    pos += 1
                    actions.append(.markup(end: pos))
                    return .finished(at: pos)
                } else {
                    return .finished(at: lastCallEnd)
                }
            case .pythonElement:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                if PythonCallReader.isNameStart(w[pos]) {
                    pythonReader = PythonCallReader(at: pos, context: context)
                    state = .python(inList: true)
                } else if w[pos] == UInt8(ascii: "]") {
                    pos += 1
                    actions.append(.markup(end: pos))
                    return .finished(at: pos)
                } else {
                    state = .malformed(detail: "expected a call in the list")
                }
            case .pythonDict(let bare, let start, var skipper):
                switch skipper.skip(w, from: &pos, stopAt: Llama3Grammar.tag) {
                case .needMore:
                    state = .pythonDict(bare: bare, start: start, skipper: skipper)
                    return .needMore
                case .marker(let at):
                    if bare { return giveBack(at: at, actions: &actions) }
                    state = .malformed(detail: "an unfinished call object")
                case .at(let end):
                    let text = String(decoding: w.slice(start..<end), as: UTF8.self)
                    let object = PythonCallReader.literal(text, maxDepth: context.maxDepth)
                    guard let name = object?["name"]?.stringValue,
                        let arguments = object?["parameters"] ?? object?["arguments"], arguments.isObject
                    else {
                        if bare { return giveBack(at: end, actions: &actions) }
                        state = .malformed(detail: "not a call object (a name and an arguments object)")
                        continue
                    }
                    if bare && !atStart && !(context.tools?.declares(name) ?? false) {
                        return giveBack(at: end, actions: &actions)
                    }
                    actions.append(.start(name: name, id: nil))
                    actions.append(.delta(EventText(arguments.jsonText)))
                    actions.append(.accept(arguments: CanonicalJSON(arguments), end: end))
                    pos = end
                    lastCallEnd = end
                    if inList {
                        list.resume(after: end)
                        state = .list(bare: bare)
                    } else {
                        state = .between(bare: bare)
                    }
                }
            case .malformed(let detail):
                return Llama3Grammar.tag.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in false }
            }
        }
    }

    /// Reads one call object at `at` (its `{`).
    private mutating func beginObject(at: Int, bare: Bool, context: GrammarContext) {
        pos = at
        inList = false
        list.begin(loneObjectAt: at, rules: bare ? Self.bareRules : Self.taggedRules, maxDepth: context.maxDepth)
        state = .list(bare: bare)
    }

    /// Reads a list of call objects from `at` (just after its `[`).
    private mutating func beginList(at: Int, bare: Bool, context: GrammarContext) {
        pos = at
        inList = true
        list.begin(at: at, rules: bare ? Self.bareRules : Self.taggedRules, maxDepth: context.maxDepth)
        state = .list(bare: bare)
    }

    /// Where a call object in Python's spelling begins, when the JSON reader stopped at a single
    /// quote that opens its first key (`{'name': ...`).
    private static func pythonDictStart(_ w: ByteWindow, quoteAt at: Int) -> Int? {
        guard at < w.end, w[at] == UInt8(ascii: "'") else { return nil }
        var s = at - 1
        while s >= w.base && JSONReader.isSpace(w[s]) && at - s < 256 { s -= 1 }
        guard s >= w.base, w[s] == UInt8(ascii: "{") else { return nil }
        return s
    }

    /// A bare candidate turned out to be prose: the bytes since the last call are text, and
    /// scanning resumes after the byte that decided it.
    private mutating func giveBack(at: Int, actions: inout [GrammarAction]) -> GrammarStep {
        let end = max(at, lastCallEnd + 1)
        actions.append(.text(end: end))
        return .finished(at: end)
    }

    func passThrough(at end: Int) -> PassThrough? {
        switch state {
        case .list: return list.passThrough(at: end)
        case .python: return pythonReader.passThrough(at: end)
        default: return nil
        }
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        if case .python = state {
            pythonReader.takeForwarded(count, w)
            pos = pythonReader.pos
        } else {
            list.takePassThrough(count, w)
            pos = list.pos
        }
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        if case .python(let list) = state, pythonReader.isAwaitingArgumentEnd {
            // The last argument's string may have ended just before the end of the stream.
            switch pythonReader.advance(w, actions: &actions, isFinal: true) {
            case .complete(let arguments, let end):
                actions.append(.accept(arguments: arguments, end: end))
                if w.end > end { actions.append(list ? .markup(end: w.end) : .text(end: w.end)) }
                return
            case .invalid(let detail, let end):
                actions.append(.reject(.invalidArguments, detail: detail, end: end))
                if w.end > end { actions.append(list ? .markup(end: w.end) : .text(end: w.end)) }
                return
            default:
                break
            }
        }
        switch state {
        case .list(bare: true) where list.isInObject:
            // A bare object that counts (at the start, or its name declared) and is cut off is
            // a call cut off: `incomplete`, never text. One that never named a call is text.
            if let name = list.knownName, atStart || (context.tools?.declares(name) ?? false) {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            } else {
                actions.append(.text(end: w.end))
            }
        case .pythonDict(bare: true, _, _):
            actions.append(.text(end: w.end))
        case .pythonDict:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .between where Self.endsInEndOfMessage(w, after: lastCallEnd):
            // A cut-off `<|eom_id|>` right after the call: markup, as a cut end marker is.
            actions.append(.markup(end: w.end))
        case .between, .list(bare: true), .pythonNext:
            // After a call, or inside a bare candidate: the rest is text.
            actions.append(.text(end: w.end))
        case .open, .list, .python, .pythonElement:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .malformed(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }
}
