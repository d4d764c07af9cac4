// ToolCallKit — the `harmony` format (gpt-oss): messages with channels, calls addressed to
// `functions.NAME`.

/// Grammar for Harmony, the message format of gpt-oss.
///
/// The output is a run of messages, `[<|start|>ROLE] HEADER <|message|> BODY END`, where `END`
/// is `<|end|>`, `<|call|>` or `<|return|>`. The header holds, in any order and separated by
/// optional white space: `<|channel|>CHANNEL`, ` to=RECIPIENT`, and a content type
/// (`<|constrain|>json`, ` <|constrain|>json`, or a bare ` json` / ` code`). One frame reads
/// messages for as long as they follow one another (white space between them is markup); the
/// first byte that begins no message ends the frame, and the decoder reads on as text.
///
/// What a message is, from its header:
/// - A recipient other than a role (`assistant`, `user`, `system`, `developer`) is a call: the
///   name is the recipient without its `functions.` prefix (a bare `get_weather` or a dotted
///   `browser.search` is kept whole). Its body is the JSON arguments object, streamed as deltas,
///   on any channel (gpt-oss writes calls on `analysis` too). The call's raw span is the whole
///   message, header and end included; it is accepted at its end marker (any of the three: a
///   call ended by `<|end|>` or `<|return|>` is a drift we take), at a header that begins the
///   next message, or at the end of the stream once the object is complete. A body that is no
///   JSON object, or bytes after the object, reject the call as `malformed` through its end
///   marker; a stream cut inside it is `incomplete`, never a call.
/// - A recipient that is a role, or a role other than `assistant` (a tool's reply the model
///   wrote itself, `<|start|>functions.f to=assistant…`), is no content: its body is markup.
/// - The `analysis` channel is reasoning: its body is reported as `reasoning` (a `reasoning`
///   event with reasoning separation on, plain text with it off).
/// - Every other message (`final`, `commentary` without a recipient, no channel) is content:
///   its body streams as `text`.
/// Headers and end markers are markup in every case, so no header text reaches content.
///
/// Where the stream starts: after the prompt's `<|start|>assistant`, so inside the first
/// header (`<|channel|>…`, ` to=functions.f…`, `assistant…` or straight at `<|message|>`), or
/// with plain text. A header begun by a bare ` to=` or `assistant` (no special token) counts
/// only once a `<|channel|>`, `<|constrain|>` or `<|message|>` follows; a word in its place
/// gives the bytes back as text. The same holds after a message's end, where a missing
/// `<|start|>` is tolerated.
///
/// Drifts and recovery:
/// - A call's empty body (its end marker, or the next header, right after `<|message|>`) is
///   `{}`.
/// - A header word that is no header field begins the body: the model left `<|message|>` out
///   (`<|channel|>analysis I must refuse<|end|>` is reasoning `I must refuse`).
/// - A body ends at `<|start|>`, `<|channel|>` or `<|message|>` as well as at an end marker: a
///   message whose end is missing is ended by the next header. This is also the rule for a
///   call that opens inside unterminated reasoning: the analysis message ends there, and the
///   call is read as usual.
/// - A header cut by `<|start|>` or an end marker before its body began is markup (or, for a
///   call, rejected as `malformed`); a header longer than ``maxHeaderBytes`` is `malformed`.
/// - A stray `<|constrain|>` in a body is markup.
/// - Special tokens inside a JSON string are string content (the object decides where the
///   arguments end).
struct HarmonyGrammar: CallGrammar {
    /// What the frame is reading.
    private enum State: Sendable {
        /// Between messages (or at the frame's first byte): white space, then a message or the
        /// frame's end.
        case between
        /// Reading a header that began at `start`.
        case header(start: Int)
        /// Streaming a body whose bytes are `kind`.
        case body(BodyKind)
        /// A call's body: white space, then `{`.
        case argsOpen
        /// Reading the arguments object.
        case args
        /// The arguments object is complete: white space, then the message's end.
        case afterArgs(JSONValue)
        /// Skipping a message that cannot be a call, to its end.
        case badCall(detail: String)
    }

    /// What a body's bytes are.
    private enum BodyKind: Sendable {
        case text, reasoning, markup
    }

    /// What the next header word is, after the token before it.
    private enum Slot: Sendable {
        case role, channel, contentType, any
    }

    static let start = "<|start|>"
    static let channel = "<|channel|>"
    static let message = "<|message|>"
    static let end = "<|end|>"
    static let call = "<|call|>"
    static let returnToken = "<|return|>"
    static let constrain = "<|constrain|>"

    let markers: [Marker] = [
        Marker(HarmonyGrammar.start),
        Marker(HarmonyGrammar.channel),
        Marker(HarmonyGrammar.message),
        Marker("to=", condition: .atStart),
        Marker("assistant", condition: .atStart),
        Marker(HarmonyGrammar.end, kind: .stray),
        Marker(HarmonyGrammar.call, kind: .stray),
        Marker(HarmonyGrammar.returnToken, kind: .stray),
        Marker(HarmonyGrammar.constrain, kind: .stray),
    ]
    let skipRule = SkipRule.through([Array(HarmonyGrammar.call.utf8), Array(HarmonyGrammar.end.utf8), Array(HarmonyGrammar.returnToken.utf8)])

    /// The special tokens, in the order the steps below switch over: the three that begin a
    /// header, the three end markers, then `<|constrain|>`.
    private static let tokens = MarkerSet([start, channel, message, end, call, returnToken, constrain])
    /// What may begin a message without a special token (the prompt had `<|start|>`).
    private static let bareHeads = MarkerSet(["to=", "assistant"])
    private static let tokenStart = 0, tokenChannel = 1, tokenMessage = 2, tokenConstrain = 6

    /// The longest header read before the message counts as malformed.
    static let maxHeaderBytes = 4096

    /// Roles: a message addressed to one, or written by one other than the assistant, is no call
    /// and no content.
    private static let roles: Set<[UInt8]> = Set(["assistant", "user", "system", "developer"].map { Array($0.utf8) })
    /// Content types written as a bare word after the channel or recipient.
    private static let contentTypes: Set<[UInt8]> = Set(["json", "code", "text"].map { Array($0.utf8) })
    private static let functionsPrefix = Array("functions.".utf8)
    private static let analysis = Array("analysis".utf8)

    private var state: State = .between
    private var pos = 0
    /// The first byte of the current body not yet reported.
    private var emitted = 0

    // The header being read.
    private var slot: Slot = .any
    private var role: [UInt8]?
    private var channelName: [UInt8]?
    private var recipient: [UInt8]?
    /// Whether the header began without a special token (a bare ` to=` or `assistant`).
    private var bare = false
    /// Whether a `<|channel|>`, `<|constrain|>` or `<|message|>` confirmed a bare header.
    private var confirmed = false

    // The arguments reader lives in stored properties, so it mutates in place.
    private var argsReader = JSONReader()
    private var streamer = RawDeltaStreamer(from: 0)

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        // The marker is read again as the first message's head.
        pos = at
        state = .between
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        step(w, final: false, context: context, actions: &actions) ?? .needMore
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        // The end of the stream ends every word and rules out every partial token; what is
        // still open after that is settled here.
        if case .finished = step(w, final: true, context: context, actions: &actions) {
            // What follows the frame's end is text (a partial token or a bare head cut off).
            actions.append(.text(end: w.end))
            return
        }
        switch state {
        case .between:
            actions.append(.markup(end: w.end))
        case .header:
            if bare && !confirmed {
                actions.append(.text(end: w.end))
            } else if isCall {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call's header", end: w.end))
            } else {
                actions.append(.markup(end: w.end))
            }
        case .body(let kind):
            actions.append(report(kind, end: w.end))
        case .argsOpen, .args:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterArgs(let value):
            // Complete arguments whose end marker never came: the call stands; a partial
            // marker after them is text.
            actions.append(.accept(arguments: CanonicalJSON(value), end: pos))
            if w.end > pos { actions.append(.text(end: w.end)) }
        case .badCall(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }

    /// Whether the header read so far addresses a call.
    private var isCall: Bool {
        guard let recipient else { return false }
        return !Self.roles.contains(recipient)
    }

    /// Reads as far as the bytes allow; returns the frame's end, or nil for more bytes.
    private mutating func step(_ w: ByteWindow, final: Bool, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep? {
        typealias H = HarmonyGrammar
        while true {
            switch state {
            case .between:
                pos = w.skipSpace(from: pos)
                actions.append(.markup(end: pos))
                guard pos < w.end else { return nil }
                if w[pos] == UInt8(ascii: "<") {
                    switch H.tokens.search(w, from: pos, end: min(w.end, pos + H.tokens.maxLength), isFinal: final || pos + H.tokens.maxLength <= w.end) {
                    case .found(let k, let at) where at == pos:
                        let after = at + H.tokens.markers[k].count
                        if k <= H.tokenMessage {
                            startHeader(token: k, at: at, after: after)
                        } else {
                            // A repeated end marker or a stray `<|constrain|>`.
                            pos = after
                            actions.append(.markup(end: after))
                        }
                        continue
                    case .partial(let at) where at == pos:
                        return nil
                    default:
                        return .finished(at: pos)
                    }
                }
                switch H.bareHeads.search(w, from: pos, end: min(w.end, pos + H.bareHeads.maxLength), isFinal: final || pos + H.bareHeads.maxLength <= w.end) {
                case .found(_, let at) where at == pos:
                    startBareHeader(at: at)
                case .partial(let at) where at == pos:
                    return nil
                default:
                    return .finished(at: pos)
                }
            case .header(let start):
                if let stop = header(w, start: start, final: final, context: context, actions: &actions) {
                    if case .needMore = stop { return nil }
                    return stop
                }
            case .body(let kind):
                switch H.tokens.search(w, from: pos, end: w.end, isFinal: final) {
                case .found(let k, let at):
                    if at > emitted { actions.append(report(kind, end: at)) }
                    let after = at + H.tokens.markers[k].count
                    if k <= H.tokenMessage {
                        // The next header ends a body whose end marker is missing.
                        startHeader(token: k, at: at, after: after)
                    } else {
                        actions.append(.markup(end: after))
                        pos = after
                        emitted = after
                        if k != H.tokenConstrain { state = .between }
                    }
                case .partial(let at):
                    flushBody(kind, w, upTo: at, actions: &actions)
                    pos = at
                    return nil
                case .none:
                    if final {
                        pos = w.end
                        return nil
                    }
                    flushBody(kind, w, upTo: w.end, actions: &actions)
                    pos = w.end
                    return nil
                }
            case .argsOpen:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return nil }
                if w[pos] == UInt8(ascii: "<") {
                    // An empty body: the message's end (or the next header) right after
                    // `<|message|>` is a call with no arguments.
                    switch H.tokens.search(w, from: pos, end: min(w.end, pos + H.tokens.maxLength), isFinal: final || pos + H.tokens.maxLength <= w.end) {
                    case .found(let k, let at) where at == pos && k != H.tokenConstrain:
                        let after = at + H.tokens.markers[k].count
                        actions.append(.delta(EventText("{}")))
                        if k <= H.tokenMessage {
                            actions.append(.accept(arguments: CanonicalJSON(.object([])), end: at))
                            startHeader(token: k, at: at, after: after)
                        } else {
                            actions.append(.accept(arguments: CanonicalJSON(.object([])), end: after))
                            pos = after
                            state = .between
                        }
                        continue
                    case .partial(let at) where at == pos:
                        return nil
                    default:
                        break
                    }
                }
                guard w[pos] == UInt8(ascii: "{") else {
                    state = .badCall(detail: "the call's body is not a JSON object")
                    continue
                }
                argsReader = JSONReader(maxDepth: context.maxDepth)
                streamer = RawDeltaStreamer(from: pos)
                state = .args
            case .args:
                let event = argsReader.advance(w, from: &pos, to: w.end)
                switch event {
                case .needMore, .valueStart, .valueEnd:
                    streamer.flush(w, upTo: pos, final: false, actions: &actions)
                    if case .needMore = event { return nil }
                case .complete(let value, let end):
                    streamer.flush(w, upTo: end, final: true, actions: &actions)
                    argsReader = JSONReader()
                    state = .afterArgs(value)
                case .error(let m, let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    argsReader = JSONReader()
                    pos = at
                    state = .badCall(detail: m)
                case .tooDeep(let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    argsReader = JSONReader()
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .afterArgs(let value):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return nil }
                guard w[pos] == UInt8(ascii: "<") else {
                    state = .badCall(detail: "text after the call's arguments")
                    continue
                }
                switch H.tokens.search(w, from: pos, end: min(w.end, pos + H.tokens.maxLength), isFinal: final || pos + H.tokens.maxLength <= w.end) {
                case .found(let k, let at) where at == pos:
                    let after = at + H.tokens.markers[k].count
                    if k <= H.tokenMessage {
                        actions.append(.accept(arguments: CanonicalJSON(value), end: at))
                        startHeader(token: k, at: at, after: after)
                    } else if k == H.tokenConstrain {
                        state = .badCall(detail: "text after the call's arguments")
                    } else {
                        actions.append(.accept(arguments: CanonicalJSON(value), end: after))
                        pos = after
                        state = .between
                    }
                case .partial(let at) where at == pos:
                    return nil
                default:
                    if final { return nil }
                    state = .badCall(detail: "text after the call's arguments")
                }
            case .badCall(let detail):
                switch H.tokens.search(w, from: pos, end: w.end, isFinal: final) {
                case .found(let k, let at) where k != H.tokenConstrain:
                    let after = at + H.tokens.markers[k].count
                    if k <= H.tokenMessage {
                        actions.append(.reject(.malformed, detail: detail, end: at))
                        startHeader(token: k, at: at, after: after)
                    } else {
                        actions.append(.reject(.malformed, detail: detail, end: after))
                        pos = after
                        state = .between
                    }
                case .found(let k, let at):
                    pos = at + H.tokens.markers[k].count
                case .partial(let at):
                    pos = at
                    return nil
                case .none:
                    pos = w.end
                    return nil
                }
            }
        }
    }

    // MARK: - Headers

    /// A header begins with the special token `k` at `at`.
    private mutating func startHeader(token k: Int, at: Int, after: Int) {
        role = nil
        channelName = nil
        recipient = nil
        bare = false
        confirmed = true
        slot = k == Self.tokenStart ? .role : k == Self.tokenChannel ? .channel : .any
        state = .header(start: at)
        // `<|message|>` alone is an empty header: the step reads the token again as its end.
        pos = k == Self.tokenMessage ? at : after
    }

    /// A header begins with a bare ` to=` or `assistant` at `at` (its `<|start|>` was in the prompt).
    private mutating func startBareHeader(at: Int) {
        role = nil
        channelName = nil
        recipient = nil
        bare = true
        confirmed = false
        slot = .role
        state = .header(start: at)
        pos = at
    }

    /// Reads header fields; returns a step when the frame must stop (`.needMore` for more bytes),
    /// nil when the state changed and the loop goes on.
    private mutating func header(_ w: ByteWindow, start: Int, final: Bool, context: GrammarContext,
                                 actions: inout [GrammarAction]) -> GrammarStep? {
        typealias H = HarmonyGrammar
        while true {
            pos = w.skipSpace(from: pos)
            guard pos < w.end else { return .needMore }
            if pos - start > H.maxHeaderBytes {
                // The next field begins past the header's cap: too long, however the bytes
                // came (the check is made where a field begins, so every chunking makes it
                // at the same byte).
                actions.append(.reject(.malformed, detail: "a message header longer than \(H.maxHeaderBytes) bytes", end: pos))
                return .finished(at: pos)
            }
            if w[pos] == UInt8(ascii: "<") {
                switch H.tokens.search(w, from: pos, end: min(w.end, pos + H.tokens.maxLength), isFinal: final || pos + H.tokens.maxLength <= w.end) {
                case .found(let k, let at) where at == pos:
                    let after = at + H.tokens.markers[k].count
                    switch k {
                    case H.tokenChannel:
                        slot = .channel
                        confirmed = true
                        pos = after
                        continue
                    case H.tokenConstrain:
                        slot = .contentType
                        confirmed = true
                        pos = after
                        continue
                    case H.tokenMessage:
                        confirmed = true
                        beginBody(at: after, actions: &actions)
                        return nil
                    case H.tokenStart:
                        // A new message before this header's body: this one is abandoned.
                        if bare && !confirmed { actions.append(.text(end: at)) }
                        else if isCall { actions.append(.reject(.malformed, detail: "the call's header has no body", end: at)) }
                        else { actions.append(.markup(end: at)) }
                        startHeader(token: k, at: at, after: after)
                        return nil
                    default:
                        // An end marker before any body: an empty message.
                        if bare && !confirmed {
                            actions.append(.text(end: at))
                            return .finished(at: at)
                        }
                        if isCall { actions.append(.reject(.malformed, detail: "the call's header has no body", end: after)) }
                        else { actions.append(.markup(end: after)) }
                        pos = after
                        state = .between
                        return nil
                    }
                case .partial(let at) where at == pos:
                    return .needMore
                default:
                    break  // a `<` that begins no token: a word
                }
            }
            // A word: up to white space or `<` (or the end of the stream).
            // A word longer than the header's cap is no header field, whatever follows it.
            let wordStart = pos
            let wordLimit = min(w.end, wordStart + H.maxHeaderBytes + 1)
            var i = pos
            while i < wordLimit && !JSONReader.isSpace(w[i]) && (w[i] != UInt8(ascii: "<") || i == wordStart) { i += 1 }
            let tooLong = i - wordStart > H.maxHeaderBytes
            if i == w.end && !final && !tooLong { return .needMore }
            let word = tooLong ? [] : w.bytes(wordStart..<i)
            if tooLong {
                // Falls through to "no header field" below.
            } else if word.starts(with: Array("to=".utf8)) {
                recipient = Array(word.dropFirst(3))
                slot = .any
                pos = i
                continue
            }
            switch tooLong ? .any : slot {
            case .role:
                role = word
                slot = .any
                pos = i
                continue
            case .channel:
                channelName = word
                slot = .any
                pos = i
                continue
            case .contentType:
                slot = .any
                pos = i
                continue
            case .any:
                if !tooLong && H.contentTypes.contains(word) {
                    pos = i
                    continue
                }
            }
            // No header field: the body begins here (its `<|message|>` was left out), unless
            // nothing confirmed a bare header, whose bytes are text after all.
            if bare && !confirmed {
                // (A head word too long to read is given back whole, so the scan moves on.)
                let back = wordStart > start ? wordStart : i
                actions.append(.text(end: back))
                return .finished(at: back)
            }
            beginBody(at: wordStart, actions: &actions)
            return nil
        }
    }

    /// The header is complete; the body begins at `at`.
    private mutating func beginBody(at: Int, actions: inout [GrammarAction]) {
        pos = at
        emitted = at
        if isCall {
            var name = recipient ?? []
            if name.starts(with: Self.functionsPrefix) { name.removeFirst(Self.functionsPrefix.count) }
            guard !name.isEmpty else {
                state = .badCall(detail: "the recipient names no function")
                return
            }
            actions.append(.start(name: String(decoding: name, as: UTF8.self), id: nil))
            state = .argsOpen
            return
        }
        actions.append(.markup(end: at))
        if recipient != nil || (role.map { $0 != Array("assistant".utf8) } ?? false) {
            state = .body(.markup)
        } else if channelName == Self.analysis {
            state = .body(.reasoning)
        } else {
            state = .body(.text)
        }
    }

    // MARK: - Bodies

    private func report(_ kind: BodyKind, end: Int) -> GrammarAction {
        switch kind {
        case .text: return .text(end: end)
        case .reasoning: return .reasoning(end: end)
        case .markup: return .markup(end: end)
        }
    }

    /// Reports the body up to `upTo`, holding back an unfinished UTF-8 sequence.
    private mutating func flushBody(_ kind: BodyKind, _ w: ByteWindow, upTo: Int, actions: inout [GrammarAction]) {
        let end = UTF8Boundary.safeEnd(w, start: emitted, end: upTo)
        guard end > emitted else { return }
        actions.append(report(kind, end: end))
        emitted = end
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .args = state else { return nil }
        return streamer.passThrough(argsReader, pos: pos, at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
    }
}
