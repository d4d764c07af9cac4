// ToolCallKit — the block-message family (Thinking Machines Inkling): the output is a run of
// blocks `<|message_model|>[HEADER]<|content_KIND|>BODY<|end_message|>`.

/// Grammar for Inkling's blocks. It owns the stream (``CallGrammar/ownsStream``): the generation
/// prompt ends with `<|message_model|>`, so the output opens inside a block's header, and whether
/// the first word is a header (the tool's name, metadata) or the answer's first word is told
/// only by the token after it. No start marker can say that; a grammar that sees every byte can
/// hold the word until it knows. (The channel-style message family, ``HarmonyGrammar``, begins
/// at a token and leaves the text between messages to the decoder.)
///
/// Rules (docs/formats.md):
/// - A block's kind token says what its body is: `<|content_text|>`, `<|content_tool_error|>` and
///   `<|content_invoke_tool_text|>` are content; `<|content_thinking|>` is reasoning;
///   `<|content_invoke_tool_json|>` is a call, its body the JSON object
///   `{"name": NAME, "args": {...}}` (`arguments` read too; no `args` is `{}`), streamed as the
///   `json` format's calls are. The payload's name is the call's (a header naming another tool
///   is ignored).
/// - The header, between `<|message_model|>` (or the stream's start, or a block's end) and a kind
///   token, is markup when it is one word (white space around it, at most 256 bytes); anything
///   else there is content (a block without its header), and text before a block's end or a
///   new block is content. A word held as a possible header is content at the end of the stream.
/// - Every token is structure wherever it is, in a body too (a kind token right after a body
///   begins the next block without `<|message_model|>`); `<|end_message|>` and
///   `<|content_model_end_sampling|>` end a block. Tokens and headers are markup.
/// - A call is accepted at its `<|end_message|>` (part of its raw), at the next token, or at the
///   end of the stream once its object is complete; bytes after the object inside the block are
///   markup. A payload that is not a call object (no name, arguments that are not an object,
///   not JSON) is `malformed` up to the next token; one cut off is `incomplete`; one larger than
///   the call cap is `too_large` and skipped to the next token.
struct InklingGrammar: CallGrammar {
    private enum State: Sendable {
        /// Where a header may be; its bytes (from `start`) are held until a token or a second
        /// word decides.
        case header(start: Int)
        /// A body reported as it streams.
        case body(BodyKind)
        /// After `<|content_invoke_tool_json|>`: white space, then `{`.
        case callOpen
        /// The call object, read by `reader`.
        case call
        /// The call object is complete: white space, then a token.
        case afterCall(CanonicalJSON, end: Int)
        /// Skipping a payload that is no call, to the next token.
        case badCall(String)
        /// Skipping the rest of a call past the size cap, to the next token, in pieces of
        /// `pieceSize` bytes counted from where the skipping began (the same pieces however the
        /// input was chunked).
        case oversized
    }

    private enum BodyKind: Sendable {
        case text, reasoning, markup
    }

    private enum Token: Sendable {
        case blockStart, blockEnd
        case kind(BodyKind)
        case call
    }

    static let messageModel = "<|message_model|>"
    static let endMessage = "<|end_message|>"
    static let thinking = "<|content_thinking|>"
    static let toolJSON = "<|content_invoke_tool_json|>"

    private static let tokenList: [(String, Token)] = [
        (messageModel, .blockStart),
        ("<|content_text|>", .kind(.text)),
        (thinking, .kind(.reasoning)),
        (toolJSON, .call),
        ("<|content_invoke_tool_text|>", .kind(.text)),
        ("<|content_tool_error|>", .kind(.text)),
        (endMessage, .blockEnd),
        ("<|content_model_end_sampling|>", .blockEnd),
    ]
    private static let tokens = MarkerSet(tokenList.map(\.0))
    private static let tokenKinds = tokenList.map(\.1)
    private static let markerList = tokenList.map { Marker($0.0, kind: .stray) }
    /// The call object's keys: `{"name", "args"}` (and the usual spellings).
    private static let keys = CallObjectKeys(name: ["name"], arguments: ["args", "arguments", "parameters"], id: ["id"])

    /// The longest header word, and the most white space held around it.
    static let maxHeaderBytes = 256
    /// The largest piece of a skipped oversized call.
    static let maxSkipPiece = 64 << 10

    var markers: [Marker] { Self.markerList }
    var skipRule: SkipRule { .before([]) }
    var ownsStream: Bool { true }

    private var state: State = .header(start: 0)
    private var pos = 0
    /// The first byte of the current body (or header) not yet reported.
    private var emitted = 0
    // The header word: where it begins and where the white space after it begins.
    private var wordStart: Int?
    private var wordEnd: Int?
    private var reader = CallObjectReader(at: 0, streaming: true, maxDepth: 0, keys: InklingGrammar.keys)
    private var scratch: [GrammarAction] = []
    /// The pieces an oversized call is skipped in: at most 64 KiB, and short enough of the call
    /// cap that a token beginning inside a piece is seen whole before the piece is reported.
    private var pieceSize = InklingGrammar.maxSkipPiece - 64
    /// The call cap: how far past the last event the decoder shows bytes.
    private var capBytes = Int.max

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {}

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        preconditionFailure("the inkling grammar is driven by scanStream")
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {}

    mutating func scanStream(_ w: ByteWindow, context: GrammarContext, isFinal: Bool, actions: inout [StreamAction]) {
        if w.limit != .max {
            // The decoder shows the call cap's worth of bytes past the last event (`emitted`).
            capBytes = w.limit - emitted
            pieceSize = max(1, min(capBytes, Self.maxSkipPiece) - Self.tokens.maxLength)
        }
        /// Whether bytes held from `from` reach the cap (the decoder shows no more): what is still
        /// undecided cannot wait.
        let cap = capBytes
        func capped(from: Int) -> Bool { !isFinal && w.end < w.received && w.end >= from &+ cap }
        while true {
            switch state {
            case .header(let start):
                switch Self.tokens.search(w, from: pos, end: w.end, isFinal: isFinal) {
                case .found(let k, let at):
                    guard readHeader(w, upTo: at, start: start) else {
                        beginBody(.text, at: start)
                        continue
                    }
                    if at > start {
                        switch Self.tokenKinds[k] {
                        case .kind, .call:
                            actions.append(.action(.markup(end: at)))  // the header
                        case .blockStart, .blockEnd:
                            // A word before a block's end or a new block is content; white space alone is not.
                            actions.append(.action(wordStart == nil ? .markup(end: at) : .text(end: at)))
                        }
                    }
                    take(k, at: at, actions: &actions)
                case .partial(let at):
                    guard readHeader(w, upTo: at, start: start), !capped(from: start) else {
                        beginBody(.text, at: start)
                        continue
                    }
                    return
                case .none:
                    guard readHeader(w, upTo: w.end, start: start), !isFinal, !capped(from: start) else {
                        beginBody(.text, at: start)
                        if isFinal && w.end > start {
                            actions.append(.action(.text(end: w.end)))
                            emitted = w.end
                            pos = w.end
                            return
                        }
                        continue
                    }
                    return
                }
            case .body(let kind):
                switch Self.tokens.search(w, from: pos, end: w.end, isFinal: isFinal) {
                case .found(let k, let at):
                    if at > emitted { actions.append(.action(report(kind, end: at))) }
                    take(k, at: at, actions: &actions)
                case .partial(let at):
                    flush(kind, w, upTo: at, actions: &actions)
                    pos = at
                    return
                case .none:
                    if isFinal {
                        if w.end > emitted { actions.append(.action(report(kind, end: w.end))) }
                        emitted = w.end
                    } else {
                        flush(kind, w, upTo: w.end, actions: &actions)
                    }
                    pos = w.end
                    return
                }
            case .callOpen:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else {
                    if isFinal { settleEnd(w, "the stream ended before the call's payload", actions: &actions) }
                    else { overCap(w, isFinal: isFinal, actions: &actions) }
                    return
                }
                guard w[pos] == UInt8(ascii: "{") else {
                    state = .badCall("the tool block's body is not a JSON object")
                    continue
                }
                reader = CallObjectReader(at: pos, streaming: true, maxDepth: context.maxDepth, keys: Self.keys)
                state = .call
            case .call:
                scratch.removeAll(keepingCapacity: true)
                let result = reader.advance(w, actions: &scratch)
                for a in scratch { actions.append(.action(a)) }
                pos = reader.pos
                switch result {
                case .needMore:
                    if isFinal { settleEnd(w, "the stream ended inside the call's payload", actions: &actions) }
                    else { overCap(w, isFinal: isFinal, actions: &actions) }
                    return
                case .tooDeep(let at):
                    actions.append(.action(.tooDeep(context, end: at)))
                    reader = CallObjectReader(at: 0, streaming: true, maxDepth: 0, keys: Self.keys)
                    pos = at
                    emitted = at
                    state = .oversized
                case .error(let m, let at):
                    pos = at
                    state = .badCall(m)
                case .complete(let call, let end):
                    guard let name = call.name,
                        let arguments = call.arguments ?? (call.hasArgumentsKey ? nil : .object([])),
                        arguments.isObject
                    else {
                        pos = end
                        state = .badCall("the tool block's object has no name or no argument object")
                        continue
                    }
                    if !reader.started {
                        scratch.removeAll(keepingCapacity: true)
                        reader.reportUnstarted(call, name: name, arguments: arguments, w: w, actions: &scratch)
                        for a in scratch { actions.append(.action(a)) }
                    }
                    reader = CallObjectReader(at: 0, streaming: true, maxDepth: 0, keys: Self.keys)
                    pos = end
                    state = .afterCall(arguments, end: end)
                }
            case .afterCall(let arguments, let end):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else {
                    if isFinal {
                        actions.append(.action(.accept(arguments: arguments, end: end)))
                        if w.end > end { actions.append(.action(.markup(end: w.end))) }
                        emitted = w.end
                    } else if capped(from: emitted) {
                        // White space past the cap after a complete call: the call stands.
                        actions.append(.action(.accept(arguments: arguments, end: end)))
                        emitted = end
                        state = .body(.markup)
                        continue
                    }
                    return
                }
                switch Self.tokens.search(w, from: pos, end: min(w.end, pos + Self.tokens.maxLength), isFinal: isFinal || pos + Self.tokens.maxLength <= w.end) {
                case .found(let k, let at) where at == pos:
                    if case .blockEnd = Self.tokenKinds[k] {
                        let after = at + Self.tokens.markers[k].count
                        actions.append(.action(.accept(arguments: arguments, end: after)))
                        pos = after
                        emitted = after
                        beginHeader(at: after)
                    } else {
                        actions.append(.action(.accept(arguments: arguments, end: at)))
                        take(k, at: at, actions: &actions)
                    }
                case .partial(let at) where at == pos && !isFinal:
                    return
                default:
                    // Bytes after the object inside the block: not content.
                    actions.append(.action(.accept(arguments: arguments, end: end)))
                    emitted = end
                    state = .body(.markup)
                }
            case .badCall(let detail):
                switch Self.tokens.search(w, from: pos, end: w.end, isFinal: isFinal) {
                case .found(let k, let at):
                    if case .blockEnd = Self.tokenKinds[k] {
                        let after = at + Self.tokens.markers[k].count
                        actions.append(.action(.reject(.malformed, detail: detail, end: after)))
                        emitted = after
                        pos = after
                        beginHeader(at: after)
                    } else {
                        actions.append(.action(.reject(.malformed, detail: detail, end: at)))
                        take(k, at: at, actions: &actions)
                    }
                case .partial(let at) where !isFinal:
                    pos = at
                    overCap(w, isFinal: isFinal, actions: &actions)
                    return
                case .partial, .none:
                    pos = w.end
                    if isFinal {
                        actions.append(.action(.reject(.malformed, detail: detail, end: w.end)))
                        emitted = w.end
                    } else {
                        overCap(w, isFinal: isFinal, actions: &actions)
                    }
                    return
                }
            case .oversized:
                let found = Self.tokens.search(w, from: pos, end: w.end, isFinal: isFinal)
                var stop = w.end
                switch found {
                case .found(_, let at), .partial(let at): stop = at
                case .none: break
                }
                while emitted + pieceSize <= stop {
                    emitted += pieceSize
                    actions.append(.action(.reject(.tooLarge, detail: "skipped part of an oversized call", end: emitted)))
                }
                switch found {
                case .found(let k, let at):
                    if at > emitted { actions.append(.action(.reject(.tooLarge, detail: "skipped part of an oversized call", end: at))) }
                    emitted = at
                    take(k, at: at, actions: &actions)
                case .partial(let at):
                    pos = at
                    return
                case .none:
                    pos = w.end
                    if isFinal && w.end > emitted {
                        actions.append(.action(.reject(.tooLarge, detail: "skipped part of an oversized call", end: w.end)))
                        emitted = w.end
                    }
                    return
                }
            }
        }
    }

    /// Reads the header's bytes `[pos, upTo)`: whether they may still be a header (one word, with
    /// at most ``maxHeaderBytes`` of it and of white space on each side).
    private mutating func readHeader(_ w: ByteWindow, upTo end: Int, start: Int) -> Bool {
        var i = pos
        while i < end {
            if JSONReader.isSpace(w[i]) {
                if wordStart != nil && wordEnd == nil { wordEnd = i }
                if i - (wordEnd ?? start) >= Self.maxHeaderBytes { return false }
            } else {
                if wordEnd != nil { return false }
                if wordStart == nil { wordStart = i }
                if i - wordStart! >= Self.maxHeaderBytes { return false }
            }
            i += 1
        }
        pos = end
        return true
    }

    /// The bytes from `at` are a body of `kind` (a header that turned out to be text).
    private mutating func beginBody(_ kind: BodyKind, at: Int) {
        state = .body(kind)
        pos = at
        emitted = at
        wordStart = nil
        wordEnd = nil
    }

    private mutating func beginHeader(at: Int) {
        state = .header(start: at)
        pos = at
        emitted = at
        wordStart = nil
        wordEnd = nil
    }

    /// Token `k` begins at `at` (everything before it is reported): what it opens.
    private mutating func take(_ k: Int, at: Int, actions: inout [StreamAction]) {
        let after = at + Self.tokens.markers[k].count
        switch Self.tokenKinds[k] {
        case .blockStart, .blockEnd:
            actions.append(.action(.markup(end: after)))
            beginHeader(at: after)
        case .kind(let kind):
            actions.append(.action(.markup(end: after)))
            beginBody(kind, at: after)
        case .call:
            // The token is the call's markup: its raw span begins with it.
            state = .callOpen
            pos = after
            emitted = at
            wordStart = nil
            wordEnd = nil
        }
    }

    /// At the end of the stream inside a call.
    private mutating func settleEnd(_ w: ByteWindow, _ detail: String, actions: inout [StreamAction]) {
        actions.append(.action(.reject(.incomplete, detail: detail, end: w.end)))
        emitted = w.end
        pos = w.end
        state = .body(.markup)
    }

    /// The decoder showed only the cap's worth of a call that has not ended: it is too large.
    private mutating func overCap(_ w: ByteWindow, isFinal: Bool, actions: inout [StreamAction]) {
        // (A limit set before the call began shows less than its cap: the decoder asks again.)
        guard !isFinal, w.end < w.received, w.end >= emitted &+ capBytes else { return }
        reader = CallObjectReader(at: 0, streaming: true, maxDepth: 0, keys: Self.keys)
        actions.append(.action(.reject(.tooLarge, detail: "the tool block is larger than the call cap", end: w.end)))
        emitted = w.end
        pos = w.end
        state = .oversized
    }

    private func report(_ kind: BodyKind, end: Int) -> GrammarAction {
        switch kind {
        case .text: return .text(end: end)
        case .reasoning: return .reasoning(end: end)
        case .markup: return .markup(end: end)
        }
    }

    /// Reports the body up to `upTo`, holding back an unfinished UTF-8 sequence.
    private mutating func flush(_ kind: BodyKind, _ w: ByteWindow, upTo: Int, actions: inout [StreamAction]) {
        let end = UTF8Boundary.safeEnd(w, start: emitted, end: upTo)
        guard end > emitted else { return }
        actions.append(.action(report(kind, end: end)))
        emitted = end
    }
}
