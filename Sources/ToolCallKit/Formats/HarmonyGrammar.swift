// ToolCallKit — the channel-style message family: Harmony (gpt-oss, messages with channels and
// calls addressed to `functions.NAME`) and the formats framed the same way (Muse Glimmer's ATEM
// messages); ``MessageDialect`` says what differs.

/// What a message header makes of the body that follows it.
enum MessageMeaning: Sendable {
    case text, reasoning, markup
    /// A call addressed to `recipient`.
    case call(recipient: [UInt8])
    /// Content, unless the body opens with the dialect's call block (a header that lost its
    /// recipient): then that block is the call.
    case textOrCall
}

/// A format of the channel-style message family: its tokens, what a header means, and how a
/// call's body is written. Made once per format, shared by its decoders.
final class MessageDialect: Sendable {
    enum TokenKind: Sendable, Equatable {
        /// Begins a header (`<|start|>`), names its channel (`<|channel|>`), ends it (`<|message|>`).
        case start, channel, message
        /// Ends a message.
        case end
        /// Names a content type inside a header; a stray one in a body is markup.
        case constrain
    }

    /// How a call's arguments are written in its body.
    enum CallBody: Sendable {
        /// One JSON object (Harmony).
        case jsonObject
        /// One block of the tagged-functions family (Muse Glimmer's ATEM), read by
        /// ``TaggedFunctionParser``; the invoked name must agree with the recipient.
        case tagged(TaggedFunctionTags, open: [UInt8])
    }

    let startToken: String
    let messageToken: String
    /// Every special token, and what each is.
    let tokens: MarkerSet
    let kinds: [TokenKind]
    /// The tokens that end a body (and their kinds).
    let bodyTokens: MarkerSet
    let bodyKinds: [TokenKind]
    /// A start token inside a body ends it only when a whole header (`ROLE[ to=R]` and the
    /// message token) follows it; otherwise it is data (Muse: "`<|start|>` that is not a valid
    /// header is literal text").
    let startNeedsHeader: Bool
    let markers: [Marker]
    let skipRule: SkipRule
    let meaning: @Sendable (_ role: [UInt8]?, _ channel: [UInt8]?, _ recipient: [UInt8]?) -> MessageMeaning
    let callBody: CallBody
    /// The call's name from its recipient (or from the invoked name of a tagged body), given
    /// the declared tools.
    let callName: @Sendable (_ name: [UInt8], _ tools: ToolSet?) -> String

    init(start: String, channel: String?, message: String, ends: [String], constrain: String?,
         bodyEndedBy: [TokenKind], startNeedsHeader: Bool, skipThrough: [String],
         callBody: CallBody,
         meaning: @escaping @Sendable ([UInt8]?, [UInt8]?, [UInt8]?) -> MessageMeaning,
         callName: @escaping @Sendable ([UInt8], ToolSet?) -> String) {
        var list: [(String, TokenKind)] = [(start, .start)]
        if let channel { list.append((channel, .channel)) }
        list.append((message, .message))
        list += ends.map { ($0, .end) }
        if let constrain { list.append((constrain, .constrain)) }
        startToken = start
        messageToken = message
        tokens = MarkerSet(list.map(\.0))
        kinds = list.map(\.1)
        let body = list.filter { bodyEndedBy.contains($0.1) }
        bodyTokens = MarkerSet(body.map(\.0))
        bodyKinds = body.map(\.1)
        self.startNeedsHeader = startNeedsHeader
        markers = list.filter { $0.1 != .end && $0.1 != .constrain }.map { Marker($0.0) }
            + [Marker("to=", condition: .atStart), Marker("assistant", condition: .atStart)]
            + list.filter { $0.1 == .end || $0.1 == .constrain }.map { Marker($0.0, kind: .stray) }
        skipRule = .through(skipThrough.map { Array($0.utf8) })
        self.callBody = callBody
        self.meaning = meaning
        self.callName = callName
    }

    /// Harmony, as gpt-oss writes it.
    static let harmony = MessageDialect(
        start: HarmonyGrammar.start, channel: HarmonyGrammar.channel, message: HarmonyGrammar.message,
        ends: [HarmonyGrammar.end, HarmonyGrammar.call, HarmonyGrammar.returnToken], constrain: HarmonyGrammar.constrain,
        bodyEndedBy: [.start, .channel, .message, .end, .constrain], startNeedsHeader: false,
        skipThrough: [HarmonyGrammar.call, HarmonyGrammar.end, HarmonyGrammar.returnToken],
        callBody: .jsonObject,
        meaning: { role, channel, recipient in
            if let recipient, !HarmonyGrammar.roles.contains(recipient) { return .call(recipient: recipient) }
            if recipient != nil || (role.map { $0 != Array("assistant".utf8) } ?? false) { return .markup }
            return channel == HarmonyGrammar.analysis ? .reasoning : .text
        },
        callName: { name, _ in
            var name = name
            if name.starts(with: HarmonyGrammar.functionsPrefix) { name.removeFirst(HarmonyGrammar.functionsPrefix.count) }
            return String(decoding: name, as: UTF8.self)
        })
}

/// Grammar for the channel-style message family; its doc below is Harmony's, the message format
/// of gpt-oss. Another dialect (``MessageDialect``) changes the tokens, what a header means
/// and how a call's body is written; the reading of headers, bodies, drifts and the end of the
/// stream is the same.
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
        /// A tagged call body (or a body that may open with one, `orText`): white space, then the
        /// block's opener.
        case blockOpen(orText: Bool)
        /// Inside the tagged block, read by `block`.
        case block
        /// After the tagged block: white space, then the message's end.
        case afterBlock
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

    let dialect: MessageDialect
    var markers: [Marker] { dialect.markers }
    var skipRule: SkipRule { dialect.skipRule }

    /// What may begin a message without a special token (the prompt had `<|start|>`).
    private static let bareHeads = MarkerSet(["to=", "assistant"])

    /// The longest header read before the message counts as malformed.
    static let maxHeaderBytes = 4096
    /// How far past a start token inside a body a header is looked for (``MessageDialect/startNeedsHeader``).
    static let maxConfirmedHeader = 512

    /// Roles: a message addressed to one, or written by one other than the assistant, is no call
    /// and no content.
    static let roles: Set<[UInt8]> = Set(["assistant", "user", "system", "developer"].map { Array($0.utf8) })
    /// Content types written as a bare word after the channel or recipient.
    private static let contentTypes: Set<[UInt8]> = Set(["json", "code", "text"].map { Array($0.utf8) })
    static let functionsPrefix = Array("functions.".utf8)
    static let analysis = Array("analysis".utf8)

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
    // A tagged call body: its grammar, what it reported, and why its call is refused (the
    // invoked name and the recipient disagree).
    private var block: TaggedFunctionParser?
    private var blockActions: [GrammarAction] = []
    private var refused: String?

    init(dialect: MessageDialect = .harmony) {
        self.dialect = dialect
    }

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
        case .blockOpen(let orText):
            if orText {
                actions.append(.text(end: w.end))
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            }
        case .block:
            blockActions.removeAll(keepingCapacity: true)
            block?.finish(w, context: context, actions: &blockActions)
            relay(context: context, actions: &actions)
            block = nil
        case .afterBlock:
            actions.append(.markup(end: w.end))
        case .badCall(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }

    /// Whether the header read so far addresses a call.
    private var isCall: Bool {
        if case .call = dialect.meaning(role, channelName, recipient) { return true }
        return false
    }

    /// The token at `pos` when one begins there: its index, `-1` while the received bytes
    /// cannot tell, nil when none does.
    private func tokenAt(_ w: ByteWindow, final: Bool) -> (k: Int, after: Int)?? {
        let t = dialect.tokens
        switch t.search(w, from: pos, end: min(w.end, pos + t.maxLength), isFinal: final || pos + t.maxLength <= w.end) {
        case .found(let k, let at) where at == pos: return .some((k, at + t.markers[k].count))
        case .partial(let at) where at == pos: return .some(nil)
        default: return nil
        }
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
                    switch tokenAt(w, final: final) {
                    case .some(.some(let (k, after))):
                        switch dialect.kinds[k] {
                        case .start, .channel, .message:
                            startHeader(token: k, at: pos, after: after)
                        case .end, .constrain:
                            // A repeated end marker or a stray `<|constrain|>`.
                            pos = after
                            actions.append(.markup(end: after))
                        }
                        continue
                    case .some(.none):
                        return nil
                    case .none:
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
                switch dialect.bodyTokens.search(w, from: pos, end: w.end, isFinal: final) {
                case .found(let k, let at):
                    let tokenKind = dialect.bodyKinds[k]
                    let after = at + dialect.bodyTokens.markers[k].count
                    if tokenKind == .start && dialect.startNeedsHeader {
                        switch headerFollows(w, after: after, final: final) {
                        case .some(false):
                            pos = after  // not a header: data
                            continue
                        case .none:
                            flushBody(kind, w, upTo: at, actions: &actions)
                            pos = at
                            return nil
                        case .some(true):
                            break
                        }
                    }
                    if at > emitted { actions.append(report(kind, end: at)) }
                    switch tokenKind {
                    case .start, .channel, .message:
                        // The next header ends a body whose end marker is missing.
                        startHeader(token: dialect.tokens.markers.firstIndex(of: dialect.bodyTokens.markers[k]) ?? 0, at: at, after: after)
                    case .end, .constrain:
                        actions.append(.markup(end: after))
                        pos = after
                        emitted = after
                        if tokenKind == .end { state = .between }
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
                    let t = dialect.tokens
                    switch t.search(w, from: pos, end: min(w.end, pos + t.maxLength), isFinal: final || pos + t.maxLength <= w.end) {
                    case .found(let k, let at) where at == pos && dialect.kinds[k] != .constrain:
                        let after = at + t.markers[k].count
                        actions.append(.delta(EventText("{}")))
                        if dialect.kinds[k] != .end {
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
                switch tokenAt(w, final: final) {
                case .some(.some(let (k, after))):
                    switch dialect.kinds[k] {
                    case .start, .channel, .message:
                        actions.append(.accept(arguments: CanonicalJSON(value), end: pos))
                        startHeader(token: k, at: pos, after: after)
                    case .constrain:
                        state = .badCall(detail: "text after the call's arguments")
                    case .end:
                        actions.append(.accept(arguments: CanonicalJSON(value), end: after))
                        pos = after
                        state = .between
                    }
                case .some(.none):
                    return nil
                case .none:
                    if final { return nil }
                    state = .badCall(detail: "text after the call's arguments")
                }
            case .blockOpen(let orText):
                guard case .tagged(let tags, let open) = dialect.callBody else { preconditionFailure("a tagged body without tags") }
                let p = w.skipSpace(from: pos)
                guard p < w.end else { return nil }
                switch TagMatch.at(w, p, [open], isFinal: final) {
                case .found:
                    var parser = TaggedFunctionParser(tags: tags)
                    parser.begin(marker: 0, at: p, bodyStart: p + open.count, atStart: false, context: context)
                    block = parser
                    refused = nil
                    pos = p
                    state = .block
                case .partial:
                    return nil
                case .none:
                    if orText {
                        if pos > emitted { actions.append(.markup(end: pos)) }
                        state = .body(.text)
                    } else {
                        state = .badCall(detail: "the tool message's body is not \(String(decoding: open, as: UTF8.self)) block")
                    }
                }
            case .block:
                blockActions.removeAll(keepingCapacity: true)
                let stepped = block!.advance(w, context: context, actions: &blockActions)
                relay(context: context, actions: &actions)
                switch stepped {
                case .needMore:
                    return nil
                case .skip:
                    block = nil
                    return .skip
                case .finished(let at):
                    block = nil
                    pos = at
                    emitted = at
                    state = .afterBlock
                }
            case .afterBlock:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return nil }
                if case .tagged(_, let open) = dialect.callBody {
                    switch TagMatch.at(w, pos, [open], isFinal: final) {
                    case .found:
                        // Another block in the same message.
                        state = .blockOpen(orText: false)
                        continue
                    case .partial:
                        if tokenAt(w, final: final) == nil { return nil }
                    case .none:
                        break
                    }
                }
                switch tokenAt(w, final: final) {
                case .some(.some(let (k, after))):
                    switch dialect.kinds[k] {
                    case .start, .channel, .message:
                        actions.append(.markup(end: pos))
                        startHeader(token: k, at: pos, after: after)
                    case .end, .constrain:
                        actions.append(.markup(end: after))
                        pos = after
                        emitted = after
                        state = .between
                    }
                case .some(.none):
                    return nil
                case .none:
                    // Text after the block, in a message that was a call: not content.
                    state = .body(.markup)
                }
            case .badCall(let detail):
                switch dialect.tokens.search(w, from: pos, end: w.end, isFinal: final) {
                case .found(let k, let at) where dialect.kinds[k] != .constrain:
                    let after = at + dialect.tokens.markers[k].count
                    if dialect.kinds[k] == .end {
                        actions.append(.reject(.malformed, detail: detail, end: after))
                        pos = after
                        state = .between
                    } else {
                        actions.append(.reject(.malformed, detail: detail, end: at))
                        startHeader(token: k, at: at, after: after)
                    }
                case .found(let k, let at):
                    pos = at + dialect.tokens.markers[k].count
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

    /// Passes on what the tagged block's grammar reported, naming its calls as the dialect does:
    /// a call whose invoked name disagrees with a recipient that names a tool is refused
    /// (`malformed`, its deltas dropped); a recipient that names no declared tool (a fumbled
    /// header) yields to the invoked name.
    private mutating func relay(context: GrammarContext, actions: inout [GrammarAction]) {
        for a in blockActions {
            switch a {
            case .start(let invoked, let id):
                let name = dialect.callName(Self.withoutTokens(Array(invoked.utf8)), context.tools)
                refused = nil
                if let recipient, case .call = dialect.meaning(role, channelName, recipient) {
                    let addressed = dialect.callName(recipient, context.tools)
                    let fumbled = context.tools.map { !$0.declares(addressed) && $0.declares(name) } ?? false
                    if addressed != name && !fumbled {
                        refused = "the message is addressed to \(JSONValue.string(addressed).jsonText) but invokes \(JSONValue.string(name).jsonText)"
                        continue
                    }
                }
                actions.append(.start(name: name, id: id))
            case .delta:
                if refused == nil { actions.append(a) }
            case .accept(_, let end), .reject(_, _, let end):
                if let refused {
                    actions.append(.reject(.malformed, detail: refused, end: end))
                    self.refused = nil
                } else {
                    actions.append(a)
                }
            default:
                actions.append(a)
            }
        }
    }

    /// A name without the special tokens a model slipped into it (`read<|message|>`: a token is
    /// never part of a name).
    private static func withoutTokens(_ name: [UInt8]) -> [UInt8] {
        guard name.contains(UInt8(ascii: "|")) else { return name }
        var out: [UInt8] = []
        var i = 0
        while i < name.count {
            if name[i] == UInt8(ascii: "<"), i + 1 < name.count, name[i + 1] == UInt8(ascii: "|") {
                var j = i + 2
                while j + 1 < name.count && !(name[j] == UInt8(ascii: "|") && name[j + 1] == UInt8(ascii: ">")) { j += 1 }
                if j + 1 < name.count {
                    i = j + 2
                    continue
                }
            }
            out.append(name[i])
            i += 1
        }
        return out
    }

    /// Whether a whole header follows a start token inside a body (ending at `p`): a role word,
    /// optionally ` to=RECIPIENT`, then the message token, within ``maxConfirmedHeader`` bytes.
    /// nil while the received bytes cannot tell.
    private func headerFollows(_ w: ByteWindow, after p: Int, final: Bool) -> Bool? {
        let limit = p + Self.maxConfirmedHeader
        var i = p
        var words = 0
        while true {
            guard i < w.end else { return final ? false : nil }
            if i >= limit { return false }
            let b = w[i]
            if b == UInt8(ascii: "<") {
                let message = Array(dialect.messageToken.utf8)
                switch TagMatch.at(w, i, [message], isFinal: final) {
                case .found: return words > 0
                case .partial: return nil
                case .none: return false
                }
            }
            if JSONReader.isSpace(b) {
                i += 1
                continue
            }
            // A word: the role, then at most a `to=` recipient.
            let wordStart = i
            while i < w.end && i < limit && !JSONReader.isSpace(w[i]) && w[i] != UInt8(ascii: "<") { i += 1 }
            guard i < w.end else { return final ? false : nil }
            words += 1
            if words == 2 && !w.bytes(wordStart..<min(i, wordStart + 3)).elementsEqual("to=".utf8) { return false }
            if words > 2 { return false }
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
        let kind = dialect.kinds[k]
        slot = kind == .start ? .role : kind == .channel ? .channel : .any
        state = .header(start: at)
        // `<|message|>` alone is an empty header: the step reads the token again as its end.
        pos = kind == .message ? at : after
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
                switch tokenAt(w, final: final) {
                case .some(.some(let (k, after))):
                    let at = pos
                    switch dialect.kinds[k] {
                    case .channel:
                        slot = .channel
                        confirmed = true
                        pos = after
                        continue
                    case .constrain:
                        slot = .contentType
                        confirmed = true
                        pos = after
                        continue
                    case .message:
                        confirmed = true
                        beginBody(at: after, context: context, actions: &actions)
                        return nil
                    case .start:
                        // A new message before this header's body: this one is abandoned.
                        if bare && !confirmed { actions.append(.text(end: at)) }
                        else if isCall { actions.append(.reject(.malformed, detail: "the call's header has no body", end: at)) }
                        else { actions.append(.markup(end: at)) }
                        startHeader(token: k, at: at, after: after)
                        return nil
                    case .end:
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
                case .some(.none):
                    return .needMore
                case .none:
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
            beginBody(at: wordStart, context: context, actions: &actions)
            return nil
        }
    }

    /// The header is complete; the body begins at `at`.
    private mutating func beginBody(at: Int, context: GrammarContext, actions: inout [GrammarAction]) {
        pos = at
        emitted = at
        switch dialect.meaning(role, channelName, recipient) {
        case .call(let recipient):
            if case .tagged = dialect.callBody {
                // The header is the call's markup: its raw span begins with it.
                state = .blockOpen(orText: false)
                return
            }
            let name = dialect.callName(recipient, context.tools)
            guard !name.isEmpty else {
                state = .badCall(detail: "the recipient names no function")
                return
            }
            actions.append(.start(name: name, id: nil))
            state = .argsOpen
        case .textOrCall:
            actions.append(.markup(end: at))
            if case .tagged = dialect.callBody {
                state = .blockOpen(orText: true)
            } else {
                state = .body(.text)
            }
        case .markup:
            actions.append(.markup(end: at))
            state = .body(.markup)
        case .reasoning:
            actions.append(.markup(end: at))
            state = .body(.reasoning)
        case .text:
            actions.append(.markup(end: at))
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
        switch state {
        case .args: return streamer.passThrough(argsReader, pos: pos, at: end)
        case .block: return block?.passThrough(at: end)
        default: return nil
        }
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        switch state {
        case .args: streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
        case .block: block!.takePassThrough(count, w)
        default: preconditionFailure("takePassThrough outside a run")
        }
    }
}
