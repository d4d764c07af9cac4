// ToolCallKit — the `functionary_v32` format: messages `>>>RECIPIENT\nBODY`, the first one's
// `>>>` in the prompt.

/// Grammar for Functionary v3.2's messages.
///
/// The output is a run of messages, each a recipient line and a body: `all\n` then content, or
/// `NAME\n` then the call's arguments as one JSON object. The generation prompt ends with the
/// separator `>>>`, so the first message's header is the output's first line
/// (``CallGrammar/opensAtStart``); every later message begins with `>>>`. Rules:
///
/// - A recipient is a name of at most 128 bytes (letters, digits, `_`, `-`, `.`, `:`, non-ASCII
///   characters), ended by a newline. `all` makes the body content: its header is markup, and the text after it is
///   text up to the next `>>>`.
/// - Any other recipient is a call when its body is a JSON object (white space before it
///   allowed): `start` once `{` arrives, then the object's bytes as deltas; the call ends with
///   its object, and what follows is text. The code interpreter `python` may take raw code
///   instead, which runs to the end of the stream and is the call `{"code": CODE}`.
/// - What is not such a header is text: a `>>>` with no name after it (a Python prompt quoted in
///   content), a first line of prose, a name whose body is neither JSON nor (for `python`)
///   code. Deciding needs at most the recipient's bound and 256 bytes of white space after it.
///   In a run of more than three `>`, the last three are the separator (`>>>>f\n{}` is the
///   text `>` and a call of `f`).
/// - A body that is not valid JSON is `malformed` up to the next `>>>` (the format has no end
///   marker); one cut off by the end of the stream is `incomplete`, and so is a `>>>` header
///   cut off there. A first line the stream cut off is text.
struct FunctionaryGrammar: CallGrammar {
    private enum State: Sendable {
        /// The recipient line, which began at `start`.
        case recipient(start: Int)
        /// After a call's recipient line: white space, then the body.
        case body(name: String, lineEnd: Int)
        /// Reading the arguments object.
        case args
        /// Raw code for the code interpreter, to the end of the stream.
        case code
        /// Skipping a malformed call to the next `>>>`.
        case malformed(detail: String)
    }

    static let separator = Array(">>>".utf8)
    static let maxRecipientBytes = 128
    static let maxSpaceBeforeBody = 256
    private static let separatorSet = MarkerSet([separator])
    private static let codeSchema = JSONValue.object([(key: "type", value: .string("string"))])

    let markers: [Marker] = [Marker(">>>", role: .call)]
    let skipRule = SkipRule.before([separator])
    var opensAtStart: Bool { true }

    private var state: State = .recipient(start: 0)
    private var pos = 0
    /// Where the frame's marker began (the frame's first byte).
    private var frameStart = 0
    /// The frame began with `>>>` (not at the start of the output).
    private var marked = false
    private var argsReader = JSONTextReader()
    private var streamer = RawDeltaStreamer(from: 0)
    private var emitter = TextArgumentEmitter()

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        frameStart = at
        marked = bodyStart > at
        pos = bodyStart
        state = .recipient(start: bodyStart)
    }

    /// Letters, digits, `_`, `-`, `.`, `:`, and the bytes of non-ASCII characters.
    static func isNameByte(_ b: UInt8) -> Bool {
        CallRenderer.isASCIIAlphanumeric(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: ":") || b >= 0x80
    }

    /// Whether text at the start of the output needs the `all\n` header to be read as text:
    /// unless its first line holds, after a run of name bytes, a byte that can stand in no
    /// header (``isPlainByte``), it could read as a recipient, now or once more text follows.
    /// The renderer and the grammar export (``CallLayout/StartText``) use the same rule.
    static func textNeedsHeader(_ text: [UInt8]) -> Bool {
        var i = 0
        while i < text.count && isNameByte(text[i]) { i += 1 }
        return i == text.count || !isPlainByte(text[i])
    }

    /// An ASCII byte that is neither a name byte nor `>` nor a line break: a first line that
    /// holds one, after name bytes only, is no recipient line and no `>>>`.
    static func isPlainByte(_ b: UInt8) -> Bool {
        b < 0x80 && b != 0x0A && b != UInt8(ascii: ">") && !isNameByte(b)
    }

    /// The frame is no message: what it read is text.
    private func notAHeader(_ w: ByteWindow, _ actions: inout [GrammarAction]) -> GrammarStep {
        // After a `>>>`, only the marker is given back: scanning goes on after it. In a run of
        // more than three `>`, the recipient follows the last three: a `>` after the marker
        // gives back one byte, so that scanning finds the separator that ends the run.
        var end = frameStart
        if marked { end += pos == frameStart + Self.separator.count && pos < w.end && w[pos] == UInt8(ascii: ">") ? 1 : Self.separator.count }
        if end > frameStart { actions.append(.text(end: end)) }
        return .finished(at: end)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .recipient(let start):
                while pos < w.end && Self.isNameByte(w[pos]) && pos - start < Self.maxRecipientBytes { pos += 1 }
                guard pos < w.end else { return .needMore }
                guard w[pos] == 0x0A, pos > start else { return notAHeader(w, &actions) }
                let name = String(decoding: w.slice(start..<pos), as: UTF8.self)
                pos += 1
                if name == "all" {
                    actions.append(.markup(end: pos))
                    return .finished(at: pos)
                }
                state = .body(name: name, lineEnd: pos)
            case .body(let name, let lineEnd):
                while pos < w.end && JSONReader.isSpace(w[pos]) && pos - lineEnd < Self.maxSpaceBeforeBody { pos += 1 }
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: "{") {
                    actions.append(.start(name: name, id: nil))
                    argsReader = JSONTextReader(maxDepth: context.maxDepth)
                    streamer = RawDeltaStreamer(from: pos)
                    state = .args
                } else if name == "python" && !JSONReader.isSpace(w[pos]) {
                    actions.append(.start(name: name, id: nil))
                    emitter = TextArgumentEmitter(maxDepth: context.maxDepth)
                    emitter.beginValue(key: "code", schema: Self.codeSchema, actions: &actions)
                    state = .code
                } else {
                    return notAHeader(w, &actions)
                }
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
            case .code:
                let end = UTF8Boundary.safeEnd(w, start: pos, end: w.end)
                emitter.append(w, from: pos, to: end, actions: &actions)
                pos = end
                return .needMore
            case .malformed(let detail):
                return Self.separatorSet.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in false }
            }
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .args = state else { return nil }
        return streamer.passThrough(argsReader, pos: pos, at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .recipient, .body:
            if marked {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a message header", end: w.end))
            } else {
                // A first line that is no complete header: the output's text.
                if w.end > frameStart { actions.append(.text(end: w.end)) }
            }
        case .args:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .code:
            emitter.append(w, from: pos, to: w.end, actions: &actions)
            emitter.endValue(w, actions: &actions)
            switch emitter.finishCall(actions: &actions) {
            case .success(let arguments):
                actions.append(.accept(arguments: arguments, end: w.end))
            case .failure(let m):
                actions.append(.reject(m.reason, detail: m.detail, end: w.end))
            }
        case .malformed(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }
}
