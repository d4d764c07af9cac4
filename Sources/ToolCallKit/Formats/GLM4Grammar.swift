// ToolCallKit — the key/value-tags family (GLM-4.5 / 4.6 / 4.7 / 5, and the formats that took
// GLM's tags: Ling 3, Poolside Laguna): `<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`.

/// What a format of the key/value-tags family adds to GLM's grammar. Made once per format and
/// shared by its decoders.
final class GLM4Dialect: Sendable {
    /// The start marker, then `</tool_call>` and the format's own stray markers.
    let markers: [Marker]
    /// The turn's end tokens the model writes after its last call (`<|role_end|>`,
    /// `</assistant>`): after a call's close, white space and one of them are the call's
    /// markup, not text.
    let turnEnds: [[UInt8]]
    /// A key followed by another key (or by `</tool_call>`) before its value is dropped: the
    /// newer key takes the value (Laguna). Without it, keys written before their values are
    /// paired with the values in order (GLM).
    let orphanKeysDropped: Bool
    /// Inside `<tool_call>`, the arguments may be one JSON object after the name line, or the
    /// whole call a JSON call object `{"name": .., "arguments": {..}}` (Laguna falls back to both).
    let jsonBodies: Bool

    init(strays: [String] = [], turnEnds: [String] = [], orphanKeysDropped: Bool = false, jsonBodies: Bool = false) {
        markers = [Marker("<tool_call>"), Marker("</tool_call>", kind: .stray)] + strays.map { Marker($0, kind: .stray) }
        self.turnEnds = turnEnds.map { Array($0.utf8) }
        self.orphanKeysDropped = orphanKeysDropped
        self.jsonBodies = jsonBodies
    }

    /// GLM-4.5 and later, as they write.
    static let glm = GLM4Dialect()
}

/// Grammar for the key/value-tags family (`glm4`, `ling3`, `poolside_v1`; ``GLM4Dialect`` says
/// what each adds).
///
/// Values go through ``TextValueScanner`` and ``TextArgumentEmitter`` (shared with the
/// tagged-functions family). Rules (docs/formats.md):
///
/// - The name runs from the opener to a newline or the first tag; it is trimmed and announced
///   as soon as it ends. `<tool_call>get_time</tool_call>` is a call with `{}`; an empty
///   `<tool_call></tool_call>` (white space only) is a call without a name: `malformed`.
/// - Keys are trimmed. Values are kept exactly as written (white space included, no newline
///   stripping, no entity decoding).
/// - Drifts tolerated: no newlines at all (GLM-4.7); a missing `</arg_value>` (the next
///   `<arg_key>` or `</tool_call>` closes the value); a missing `<arg_value>` (the value starts
///   at the first non-space byte after `</arg_key>`); keys grouped before their values (paired
///   in order); a missing `<arg_key>` that fuses name and key (`fkey</arg_key>`), recovered only
///   when a declared tool's name is a prefix, else `malformed`.
/// - Inside `<arg_value>` only `</arg_value>` is structure (a value may quote markup: a prompt
///   that describes the call syntax, a file that holds a call). `</arg_value>` ends a value only
///   when `<arg_key>`, `<arg_value>`, `</tool_call>`, the next `<tool_call>` or the end of the stream follows it (after
///   at most 256 bytes of white space). A tag that would stand for a missing `</arg_value>` is
///   data unless what follows confirms it: `<arg_key>` only with a key (one that may come next;
///   declared, when the tool declares its parameters) and its `</arg_key>` within 1 KiB;
///   `</tool_call>` only before (after at most 256 bytes of white space) another `<tool_call>`,
///   a special token (`<|`) or the end of the stream.
/// - A `<tool_call>` between arguments ends the call (its `</tool_call>` is missing: accepted
///   when no key waits for its value, else `malformed`) and opens the next one.
/// - A `{`/`[` value that is JSON only once `\"` is unescaped (a common GLM drift) is read
///   unescaped.
/// - End of stream: accepted when only `</tool_call>` (or part of it) is missing after at least
///   one closed value; cut inside the name, a key or a value, or a key left without a value,
///   is `incomplete`.
struct GLM4Grammar: CallGrammar {
    private enum State: Sendable {
        case name
        case body
        case key(start: Int)
        case value(TextValueScanner)
        /// A JSON call object where the name belongs (``GLM4Dialect/jsonBodies``), read by
        /// `callReader` (kept out of the enum: a reader with heap state in a payload is copied on
        /// every step).
        case callObject
        /// The arguments as one JSON object after the name, read by `argsReader`.
        case argsObject
        /// The JSON call or arguments ended at `end`: `</tool_call>` may follow.
        case afterObject(CanonicalJSON, end: Int)
        /// The call closed at `end`: white space and a turn's end may follow (``GLM4Dialect/turnEnds``).
        case afterClose(end: Int)
        case junk(String)
    }

    static let open = Array("<tool_call>".utf8)
    static let close = Array("</tool_call>".utf8)
    static let keyOpen = Array("<arg_key>".utf8)
    static let keyClose = Array("</arg_key>".utf8)
    private static let valueOpen = Array("<arg_value>".utf8)
    private static let valueTags = TextValueScanner.Tags(
        close: "</arg_value>", follows: ["<arg_key>", "<arg_value>", "</tool_call>", "<tool_call>"],
        breaks: ["<arg_key>", "</tool_call>"], stripNewlines: false)
    private static let keyCloseSet = MarkerSet([keyClose])
    private static let closeSet = MarkerSet([close])
    static let maxNameBytes = 512
    static let maxKeyBytes = 1024

    // Tag lists made once, not per decoder or per step.
    private static let bodyTags = [keyOpen, valueOpen, close, open]
    private static let nameEnds = [keyOpen, keyClose, valueOpen, close]
    private static let closeTags = [close]
    private static let afterObjectTags = [close, open]
    private static let skip = SkipRule.through([Array("</tool_call>".utf8)])

    let dialect: GLM4Dialect
    var markers: [Marker] { dialect.markers }
    var skipRule: SkipRule { Self.skip }

    private var state: State = .name
    private var pos = 0
    private var nameStart: Int?
    private var pendingKeys: [String] = []
    private var tool: ToolDefinition?
    private var emitter = TextArgumentEmitter(unescapeQuotedJSON: true)
    private var callReader = CallObjectReader(at: 0, streaming: true, maxDepth: 0)
    private var argsReader = JSONReader()
    private var streamer = RawDeltaStreamer(from: 0)

    init(dialect: GLM4Dialect = .glm) {
        self.dialect = dialect
    }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        state = .name
        pos = bodyStart
        nameStart = nil
        pendingKeys = []
        tool = nil
        emitter = TextArgumentEmitter(maxDepth: context.maxDepth, unescapeQuotedJSON: true)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .name:
                if nameStart == nil {
                    skipSpace(w)
                    guard pos < w.end else { return .needMore }
                    if dialect.jsonBodies && w[pos] == UInt8(ascii: "{") {
                        callReader = CallObjectReader(at: pos, streaming: true, maxDepth: context.maxDepth)
                        state = .callObject
                        continue
                    }
                    nameStart = pos
                }
                guard let step = readName(w, context: context, actions: &actions) else { return .needMore }
                if let step { return step }
            case .body:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, Self.bodyTags) {
                case .found(0):
                    if dialect.orphanKeysDropped { pendingKeys.removeAll() }
                    pos += Self.keyOpen.count
                    state = .key(start: pos)
                case .found(1):
                    guard !pendingKeys.isEmpty else {
                        state = .junk("a value without a key")
                        continue
                    }
                    pos += Self.valueOpen.count
                    beginValue(at: pos, actions: &actions)
                case .found(2):
                    let end = pos + Self.close.count
                    settleClosed(end: end, actions: &actions)
                    if dialect.turnEnds.isEmpty { return .finished(at: end) }
                    pos = end
                    state = .afterClose(end: end)
                case .found:
                    // The next call opens: this one's `</tool_call>` is missing.
                    settleClosed(end: pos, actions: &actions)
                    return .finished(at: pos)
                case .partial:
                    return .needMore
                case .none:
                    if dialect.jsonBodies && !emitter.hasValues && pendingKeys.isEmpty && w[pos] == UInt8(ascii: "{") {
                        argsReader = JSONReader(maxDepth: context.maxDepth)
                        streamer = RawDeltaStreamer(from: pos)
                        state = .argsObject
                        continue
                    }
                    guard !pendingKeys.isEmpty else {
                        state = .junk("unexpected text in the call")
                        continue
                    }
                    // `<arg_value>` is missing: the value starts here.
                    beginValue(at: pos, actions: &actions)
                }
            case .key(let start):
                let match = Self.keyCloseSet.search(w, from: pos, end: w.end)
                switch match {
                case .found(_, let at) where at - start <= Self.maxKeyBytes:
                    pendingKeys.append(trimmed(w, start..<at))
                    pos = at + Self.keyClose.count
                    state = .body
                case .found, .partial, .none:
                    // Too long to be a key, whether or not its close came in this chunk: the
                    // frame is junk, and the search for its end starts where the key began (at
                    // most the key cap is read again), so every chunking finds the same end.
                    let scanned: Int
                    switch match {
                    case .found(_, let at), .partial(let at): scanned = at
                    case .none: scanned = w.end
                    }
                    guard scanned - start > Self.maxKeyBytes else {
                        pos = scanned
                        return .needMore
                    }
                    pos = start
                    state = .junk("a key without </arg_key>")
                }
            case .value(var scanner):
                switch scanner.advance(w, tags: Self.valueTags, emitter: &emitter, actions: &actions, judge: judge) {
                case .needMore:
                    state = .value(scanner)
                    return .needMore
                case .ended(let next):
                    pos = next
                    state = .body
                }
            case .callObject:
                let result = callReader.advance(w, actions: &actions)
                pos = callReader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .tooDeep(let at):
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                case .error(let m, let at):
                    pos = at
                    state = .junk(m)
                case .complete(let call, let end):
                    guard let name = call.name,
                        let arguments = call.arguments ?? (call.hasArgumentsKey ? nil : .object([])),
                        arguments.isObject
                    else {
                        pos = end
                        state = .junk("the call object has no name or no argument object")
                        continue
                    }
                    if !callReader.started {
                        callReader.reportUnstarted(call, name: name, arguments: arguments, w: w, actions: &actions)
                    }
                    callReader = CallObjectReader(at: 0, streaming: true, maxDepth: 0)
                    pos = end
                    state = .afterObject(arguments, end: end)
                }
            case .argsObject:
                let event = argsReader.advance(w, from: &pos, to: w.end)
                switch event {
                case .needMore, .valueStart, .valueEnd:
                    streamer.flush(w, upTo: pos, final: false, actions: &actions)
                    if case .needMore = event { return .needMore }
                case .complete(let value, let end):
                    streamer.flush(w, upTo: end, final: true, actions: &actions)
                    argsReader = JSONReader()
                    pos = end
                    state = .afterObject(CanonicalJSON(value), end: end)
                case .error(let m, let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    argsReader = JSONReader()
                    pos = at
                    state = .junk(m)
                case .tooDeep(let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    argsReader = JSONReader()
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .afterObject(let arguments, let end):
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, Self.afterObjectTags) {
                case .found(0):
                    let closeEnd = pos + Self.close.count
                    actions.append(.accept(arguments: arguments, end: closeEnd))
                    if dialect.turnEnds.isEmpty { return .finished(at: closeEnd) }
                    pos = closeEnd
                    state = .afterClose(end: closeEnd)
                case .found:
                    // The next call opens: this one's `</tool_call>` is missing.
                    actions.append(.accept(arguments: arguments, end: pos))
                    return .finished(at: pos)
                case .partial:
                    return .needMore
                case .none:
                    // Text after the object: the call ends with it.
                    actions.append(.accept(arguments: arguments, end: end))
                    return .finished(at: end)
                }
            case .afterClose(let end):
                while pos < w.end && JSONReader.isSpace(w[pos]) && pos - end < TextValueScanner.maxSpaceAfterClose { pos += 1 }
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, dialect.turnEnds) {
                case .found(let k):
                    let after = pos + dialect.turnEnds[k].count
                    actions.append(.markup(end: after))
                    return .finished(at: after)
                case .partial:
                    return .needMore
                case .none:
                    return .finished(at: end)
                }
            case .junk(let detail):
                return Self.closeSet.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in true }
            }
        }
    }

    private var judge: GLM4ValueJudge { GLM4ValueJudge(tool: tool) }

    /// Reads the name; nil: need more bytes; `.some(nil)`: go on; `.some(step)`: return it.
    private mutating func readName(
        _ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]
    ) -> GrammarStep?? {
        guard let nameStart else { return nil }
        var terminator = -1
        while pos < w.end {
            if pos - nameStart > Self.maxNameBytes {
                state = .junk("the function name is too long")
                return .some(nil)
            }
            let b = w[pos]
            if b == 0x0A || b == 0x0D {
                terminator = 9
                break
            }
            if b == UInt8(ascii: "<") {
                switch TagMatch.at(w, pos, Self.nameEnds) {
                case .found(let k):
                    terminator = k
                case .partial:
                    return nil
                case .none:
                    break
                }
                if terminator >= 0 { break }
            }
            pos += 1
        }
        guard terminator >= 0 else { return nil }
        let text = trimmed(w, nameStart..<pos)
        if terminator == 9 { pos += 1 }
        if text.isEmpty {
            if terminator == 9 {
                // A blank line before the name: keep looking for it.
                self.nameStart = nil
                return .some(nil)
            }
            state = .junk("the call has no function name")
            return .some(nil)
        }
        if text.utf8.first == UInt8(ascii: "{") {
            state = .junk("expected a function name")
            return .some(nil)
        }
        var name = text
        if terminator == 1 {
            // `<arg_key>` is missing: the name and the first key are fused.
            guard let tools = context.tools,
                let t = tools.tools.filter({ text.hasPrefix($0.name) && text.utf8.count > $0.name.utf8.count })
                    .max(by: { $0.name.utf8.count < $1.name.utf8.count })
            else {
                state = .junk("the function name and the first key are fused")
                return .some(nil)
            }
            name = t.name
            let key = SchemaTyping.trimSpace(String(text.dropFirst(t.name.count)))
            guard !key.isEmpty else {
                state = .junk("the function name and the first key are fused")
                return .some(nil)
            }
            pendingKeys.append(key)
            pos += Self.keyClose.count
        }
        actions.append(.start(name: name, id: nil))
        tool = context.tools?[name]
        state = .body
        return .some(nil)
    }

    private mutating func beginValue(at start: Int, actions: inout [GrammarAction]) {
        let key = dialect.orphanKeysDropped ? pendingKeys.removeLast() : pendingKeys.removeFirst()
        if dialect.orphanKeysDropped { pendingKeys.removeAll() }
        emitter.beginValue(key: key, tool: tool, actions: &actions)
        state = .value(TextValueScanner(start: start))
        pos = start
    }

    /// The call's close (or the next call's opener) came between arguments: a key still
    /// waiting for its value makes the call `malformed` (Laguna drops it), else the call settles.
    private mutating func settleClosed(end: Int, actions: inout [GrammarAction]) {
        if dialect.orphanKeysDropped { pendingKeys.removeAll() }
        if !pendingKeys.isEmpty {
            actions.append(.reject(.malformed, detail: "a key without a value", end: end))
        } else {
            settle(end: end, actions: &actions)
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        switch state {
        case .value(let scanner):
            guard scanner.isCaughtUp(at: end), emitter.streamsString else { return nil }
            return Self.valueTags.passThrough
        case .callObject:
            return callReader.passThrough(at: end)
        case .argsObject:
            return streamer.passThrough(argsReader, pos: pos, at: end)
        default:
            return nil
        }
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        switch state {
        case .value(var scanner):
            scanner.takeForwarded(count, w, emitter: &emitter)
            state = .value(scanner)
        case .callObject:
            callReader.takePassThrough(count, w)
            pos = callReader.pos
        case .argsObject:
            streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
        default:
            preconditionFailure("takePassThrough outside a run")
        }
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .name:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the function name", end: w.end))
        case .body:
            var rest = TagMatch.none
            if pos < w.end { rest = TagMatch.at(w, pos, Self.closeTags) }
            if dialect.orphanKeysDropped { pendingKeys.removeAll() }
            if pendingKeys.isEmpty && emitter.hasValues && (pos >= w.end || rest == .partial) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            }
        case .key:
            actions.append(.reject(.incomplete, detail: "the stream ended inside a key", end: w.end))
        case .value(var scanner):
            if dialect.orphanKeysDropped { pendingKeys.removeAll() }
            if scanner.finish(w, tags: Self.valueTags, emitter: &emitter, actions: &actions, judge: judge) && pendingKeys.isEmpty {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a value", end: w.end))
            }
        case .callObject, .argsObject:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterObject(let arguments, let end):
            // A complete object whose `</tool_call>` never came (a cut-off prefix of it is markup).
            actions.append(.accept(arguments: arguments, end: end))
            if w.end > end { actions.append(.markup(end: w.end)) }
        case .afterClose(let end):
            // White space, or a cut-off turn end, after the last call.
            if w.end > end {
                if pos < w.end, TagMatch.at(w, pos, dialect.turnEnds) == .partial { actions.append(.markup(end: w.end)) }
                else { actions.append(.text(end: w.end)) }
            }
        case .junk(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }

    /// Ends a call whose closing tags never came (the stream ended): accepted only when no
    /// parameter its schema requires is missing, else `incomplete`.
    private mutating func settleCutOff(end: Int, actions: inout [GrammarAction]) {
        if let detail = emitter.cutOffDetail(tool) {
            actions.append(.reject(.incomplete, detail: detail, end: end))
        } else {
            settle(end: end, actions: &actions)
        }
    }

    private mutating func settle(end: Int, actions: inout [GrammarAction]) {
        switch emitter.finishCall(actions: &actions) {
        case .success(let arguments):
            actions.append(.accept(arguments: arguments, end: end))
        case .failure(let m):
            actions.append(.reject(m.reason, detail: m.detail, end: end))
        }
    }

    private mutating func skipSpace(_ w: ByteWindow) {
        pos = w.skipSpace(from: pos)
    }

    private func trimmed(_ w: ByteWindow, _ r: Range<Int>) -> String {
        SchemaTyping.trimSpace(String(decoding: w.slice(r), as: UTF8.self))
    }
}

/// Judges a tag met inside `<arg_value>` that would stand for a missing `</arg_value>`
/// (``TagJudge``): only `</arg_value>` itself is structure as written, so a value may quote the
/// format's markup. `<arg_key>` is structure when a key that may come next and its `</arg_key>`
/// follow within ``GLM4Grammar/maxKeyBytes``; `</tool_call>` when, after at most 256 bytes of
/// white space, another `<tool_call>`, a special token (`<|`) or the end of the stream follows.
/// After a `</arg_value>`, the tags that confirm it are structure as they come.
struct GLM4ValueJudge: TagJudge {
    let tool: ToolDefinition?

    private static let afterCallEnd = [GLM4Grammar.open, Array("<|".utf8)]

    func verdict(_ w: ByteWindow, _ tag: [UInt8], _ at: Int, _ isFinal: Bool, _ afterClose: Bool,
                 _ emitter: TextArgumentEmitter) -> TextValueScanner.Verdict {
        if afterClose { return .structure }
        if tag == GLM4Grammar.keyOpen {
            let start = at + tag.count
            var i = start
            while true {
                guard i < w.end else { return isFinal ? .data : .undecided }
                if i - start > GLM4Grammar.maxKeyBytes { return .data }
                if w[i] == UInt8(ascii: "<") { break }
                i += 1
            }
            switch TagMatch.at(w, i, [GLM4Grammar.keyClose], isFinal: isFinal) {
            case .partial: return .undecided
            case .none: return .data
            case .found:
                let key = SchemaTyping.trimSpace(String(decoding: w.slice(start..<i), as: UTF8.self))
                return !key.isEmpty && emitter.admitsNextKey(key, tool: tool, declaredOnly: true) ? .structure : .data
            }
        }
        let after = at + tag.count
        var p = after
        while p < w.end && JSONReader.isSpace(w[p]) && p - after < TextValueScanner.maxSpaceAfterClose { p += 1 }
        if p - after >= TextValueScanner.maxSpaceAfterClose { return .data }
        if p == w.end { return isFinal ? .structure : .undecided }
        switch TagMatch.at(w, p, Self.afterCallEnd, isFinal: isFinal) {
        case .found: return .structure
        case .partial: return .undecided
        case .none: return .data
        }
    }
}
