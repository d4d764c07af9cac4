// ToolCallKit — the `kimi_k3` format: tagged blocks `<|open|>NAME attrs<|sep|> … <|close|>NAME<|sep|>`.

/// Grammar for Kimi K3's blocks.
///
/// Every frame begins at a `<|open|>` or `<|close|>` token; the header after it runs to
/// `<|sep|>` and holds the block's name, then ` key="value"` attributes whose values have `&amp;`,
/// `&quot;` (and `&lt;`, `&gt;`, `&apos;`, numeric references) escaped. What the block is:
///
/// - `tools`: a section of `<|open|>call tool="F" index="i"<|sep|>` blocks, ended by
///   `<|close|>tools<|sep|>`. A call holds `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`
///   blocks (or one `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>` block, whose
///   object streams as written when it is the call's first block), then
///   `<|close|>call<|sep|>`. `index` is a position, not an id: the decoder makes the ids.
/// - A `call` block outside a section is a call too (the section's tokens were stripped).
/// - A lone `<|sep|>` or `<|end_of_msg|>` is markup.
/// - `response`, `message` and any other block's opener or closer is markup (the content
///   framing), and so is a block token that no header follows; `think`'s opener and closer are text, as every format's reasoning markers are
///   when reasoning separation is off (with it on, the decoder reads them first).
/// - Values (``TextValueScanner``): the raw bytes up to `<|close|>argument<|sep|>` confirmed by
///   what follows (the next argument, the call's, section's or message's close, or the end of
///   the stream); `<|close|>argument` without `<|sep|>` is data. A missing argument close is closed by the
///   next argument or the call's close. Typing: `type="string"` keeps the text as written when
///   the tool's schema admits a string (or declares nothing); otherwise the tool's schema types
///   the text, and where it declares nothing for the argument (no tools, or a parameter it does
///   not declare) the `type` attribute does (`number`, `boolean`, `null`, `object`, `array` read
///   as JSON): the model's own word on its text, so text that is not of that type is the string
///   it reads (`type="object"` on prose), never a reason to reject the call.
/// - End of stream: a call whose last value was closed, or which was closed, is accepted (unless
///   it lacks a required parameter); one cut inside a header, a value or a JSON block, or a call
///   with no argument yet, is `incomplete`; a section cut before any call is `incomplete`.
struct KimiK3Grammar: CallGrammar {
    private enum State: Sendable {
        /// The frame's own header, after `<|open|>` (or `<|close|>` when `closing`).
        case top(closing: Bool)
        /// Inside a `tools` section, between calls.
        case section
        /// Inside a call, between arguments.
        case args
        case value(TextValueScanner)
        /// Inside a JSON arguments block that began at `start`, after arguments: read whole.
        case json(start: Int)
        /// A JSON arguments block that is the call's first: `{` is next.
        case jsonOpen
        /// Streaming that block's object (read by `argsReader`).
        case jsonStream
        /// After the streamed object: the block's close.
        case jsonClose
        /// Skipping to the frame's end; the frame is `malformed`.
        case junk(String)
    }

    static let openToken = Array("<|open|>".utf8)
    static let closeToken = Array("<|close|>".utf8)
    static let sepToken = Array("<|sep|>".utf8)
    static let closeTools = Array("<|close|>tools<|sep|>".utf8)
    static let closeCall = Array("<|close|>call<|sep|>".utf8)
    static let closeJSON = Array("<|close|>json<|sep|>".utf8)
    static let maxHeaderBytes = 2048

    static let valueTags = TextValueScanner.Tags(
        close: "<|close|>argument<|sep|>",
        follows: ["<|open|>argument ", "<|close|>call<|sep|>", "<|close|>tools<|sep|>", "<|open|>json ",
                  "<|close|>message<|sep|>", "<|end_of_msg|>"],
        breaks: ["<|open|>argument ", "<|close|>call<|sep|>"], stripNewlines: false)

    let markers: [Marker] = [
        Marker("<|open|>"),
        Marker("<|close|>"),
        Marker("<|end_of_msg|>", kind: .stray),
        // A separator outside a header (and a special token the token layer must keep).
        Marker("<|sep|>", kind: .stray),
    ]

    private var state: State = .top(closing: false)
    private var pos = 0
    private var bodyStart = 0
    /// The end of the last reported action (or the frame's first byte).
    private var accounted = 0
    private var wrapped = false
    private var callsInFrame = 0
    private var tool: ToolDefinition?
    private var emitter = TextArgumentEmitter()
    private var argsReader = JSONReader()
    private var streamer = RawDeltaStreamer(from: 0)
    /// The arguments of a streamed json block (the call's only arguments).
    private var streamedJSON: JSONValue? = nil

    var skipRule: SkipRule { .through([Self.closeCall, Self.closeTools]) }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        self.bodyStart = bodyStart
        pos = bodyStart
        accounted = at
        callsInFrame = 0
        wrapped = false
        state = .top(closing: marker == 1)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .top(let closing):
                switch Self.readHeader(w, from: pos) {
                case .needMore:
                    return .needMore
                case .invalid:
                    // A lone token: markup of the framing, never text.
                    return finish(with: .markup(end: bodyStart), actions: &actions)
                case .header(let name, let attrs, let next):
                    if name == "think" { return finish(with: .text(end: next), actions: &actions) }
                    if closing { return finish(with: .markup(end: next), actions: &actions) }
                    switch name {
                    case "tools":
                        wrapped = true
                        pos = next
                        state = .section
                    case "call":
                        beginCall(attrs, next: next, context: context, actions: &actions)
                    case "argument", "json":
                        return finish(with: .reject(.malformed, detail: "an \(name) block outside a call", end: next), actions: &actions)
                    default:
                        return finish(with: .markup(end: next), actions: &actions)
                    }
                }
            case .section:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch Self.match(w, pos, [Self.openToken, Self.closeTools]) {
                case .found(0):
                    switch Self.readHeader(w, from: pos + Self.openToken.count) {
                    case .needMore: return .needMore
                    case .invalid: state = .junk("a block header does not end with <|sep|>")
                    case .header(let name, let attrs, let next):
                        if name == "call" {
                            beginCall(attrs, next: next, context: context, actions: &actions)
                        } else {
                            state = .junk("expected a call block, found \(JSONValue.string(name).jsonText)")
                        }
                    }
                case .found(1):
                    return finish(with: .markup(end: pos + Self.closeTools.count), actions: &actions)
                case .found:
                    // Another block's close (the message's): the section's close is missing.
                    if pos > accounted { actions.append(.markup(end: pos)) }
                    return .finished(at: pos)
                case .partial:
                    return .needMore
                case .none:
                    state = .junk("unexpected text between calls")
                }
            case .args:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch Self.match(w, pos, [Self.openToken, Self.closeCall, Self.closeTools]) {
                case .found(0):
                    switch Self.readHeader(w, from: pos + Self.openToken.count) {
                    case .needMore: return .needMore
                    case .invalid: state = .junk("a block header does not end with <|sep|>")
                    case .header(let name, let attrs, let next):
                        if streamedJSON != nil {
                            state = .junk("a block after the call's json block")
                            continue
                        }
                        switch name {
                        case "argument":
                            guard let key = attrs.first(where: { $0.name == "key" })?.value else {
                                state = .junk("an argument block has no key")
                                continue
                            }
                            let type = attrs.first(where: { $0.name == "type" })?.value
                            emitter.beginValue(key: key, schema: Self.schema(for: key, type: type, tool: tool), actions: &actions)
                            pos = next
                            state = .value(TextValueScanner(start: next))
                        case "json":
                            pos = next
                            state = emitter.hasValues ? .json(start: next) : .jsonOpen
                        default:
                            state = .junk("unexpected \(JSONValue.string(name).jsonText) block in a call")
                        }
                    }
                case .found(1):
                    let end = pos + Self.closeCall.count
                    settle(end: end, actions: &actions)
                    pos = end
                    if !wrapped { return .finished(at: end) }
                    state = .section
                case .found(2):
                    // The call's close is missing; the section's close ends both.
                    let end = pos + Self.closeTools.count
                    settle(end: end, actions: &actions)
                    return .finished(at: end)
                case .found:
                    // The message's close: the call's and the section's closes are missing.
                    settleCutOff(end: pos, actions: &actions)
                    return .finished(at: pos)
                case .partial:
                    return .needMore
                case .none:
                    state = .junk("unexpected text between arguments")
                }
            case .value(var scanner):
                switch scanner.advance(w, tags: Self.valueTags, emitter: &emitter, actions: &actions) {
                case .needMore:
                    state = .value(scanner)
                    return .needMore
                case .ended(let next):
                    pos = next
                    state = .args
                }
            case .json(let start):
                switch MarkerSet([Self.closeJSON]).search(w, from: pos, end: w.end) {
                case .found(_, let at):
                    let text = Array(w.slice(start..<at))
                    if TextArgumentEmitter.nesting(text) > context.maxDepth {
                        emitter.markTooDeep()
                    } else {
                        guard case .object(let members)? = try? JSONValue.parse(text) else {
                            state = .junk("the json block is not a JSON object")
                            continue
                        }
                        for m in members { emitter.addValue(key: m.key, m.value, actions: &actions) }
                    }
                    pos = at + Self.closeJSON.count
                    state = .args
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none:
                    pos = w.end
                    return .needMore
                }
            case .jsonOpen:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                guard w[pos] == UInt8(ascii: "{") else {
                    state = .junk("the json block does not hold a JSON object")
                    continue
                }
                argsReader = JSONReader(maxDepth: context.maxDepth)
                streamer = RawDeltaStreamer(from: pos)
                state = .jsonStream
            case .jsonStream:
                let event = argsReader.advance(w, from: &pos, to: w.end)
                switch event {
                case .needMore, .valueStart, .valueEnd:
                    streamer.flush(w, upTo: pos, final: false, actions: &actions)
                    if case .needMore = event { return .needMore }
                case .complete(let value, let end):
                    streamer.flush(w, upTo: end, final: true, actions: &actions)
                    pos = end
                    streamedJSON = value
                    state = .jsonClose
                case .error(let m, let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    pos = at
                    state = .junk(m)
                case .tooDeep(let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .jsonClose:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, [Self.closeJSON]) {
                case .found:
                    pos += Self.closeJSON.count
                    state = .args
                case .partial:
                    return .needMore
                case .none:
                    // The block's close is missing: the call's close (or what else follows) ends it.
                    state = .args
                }
            case .junk(let detail):
                let stop = wrapped ? Self.closeTools : Self.closeCall
                return MarkerSet([stop]).rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in true }
            }
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        switch state {
        case .value(let scanner):
            guard scanner.isCaughtUp(at: end), emitter.streamsString else { return nil }
            return Self.valueTags.passThrough
        case .jsonStream:
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
        case .jsonStream:
            streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
        default:
            preconditionFailure("takePassThrough outside a run")
        }
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .top(let closing):
            // A header the stream cut off: a call's is a call cut off; the framing's is markup.
            var e = pos
            while e < w.end && !JSONReader.isSpace(w[e]) && w[e] != UInt8(ascii: "<") { e += 1 }
            let partial = String(decoding: w.slice(pos..<e), as: UTF8.self)
            if !closing && ("tools".hasPrefix(partial) || "call".hasPrefix(partial) || partial == "tools" || partial == "call") {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a block header", end: w.end))
            } else {
                actions.append(.markup(end: w.end))
            }
        case .section:
            if callsInFrame == 0 {
                actions.append(.reject(.incomplete, detail: "the stream ended before a call block", end: w.end))
            } else if w.end > accounted {
                actions.append(.markup(end: w.end))
            }
        case .jsonClose:
            settleCutOff(end: w.end, actions: &actions)
        case .jsonOpen, .jsonStream:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the json block", end: w.end))
        case .args:
            if (emitter.hasValues || streamedJSON != nil) && !endsInsideOpener(w) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            }
        case .value(var scanner):
            if scanner.finish(w, tags: Self.valueTags, emitter: &emitter, actions: &actions) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a value", end: w.end))
            }
        case .json:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the json block", end: w.end))
        case .junk(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }

    // MARK: - Helpers

    /// `TagMatch.at` over `tags`, then any other block's close (`.found(tags.count)`) only when
    /// none of `tags` may still be coming.
    private static func match(_ w: ByteWindow, _ pos: Int, _ tags: [[UInt8]]) -> TagMatch {
        let m = TagMatch.at(w, pos, tags)
        guard m == .none else { return m }
        switch TagMatch.at(w, pos, [closeToken]) {
        case .found: return .found(tags.count)
        case .partial: return .partial
        case .none: return .none
        }
    }

    private mutating func finish(with action: GrammarAction, actions: inout [GrammarAction]) -> GrammarStep {
        actions.append(action)
        switch action {
        case .markup(let end), .text(let end), .reject(_, _, let end), .accept(_, let end): return .finished(at: end)
        default: preconditionFailure("a frame ends with an action that accounts for bytes")
        }
    }

    private mutating func beginCall(_ attrs: [(name: String, value: String)], next: Int, context: GrammarContext,
                                    actions: inout [GrammarAction]) {
        pos = next
        guard let name = attrs.first(where: { $0.name == "tool" })?.value, !name.isEmpty else {
            state = .junk("the call block names no tool")
            return
        }
        actions.append(.start(name: name, id: nil))
        tool = context.tools?[name]
        emitter = TextArgumentEmitter(maxDepth: context.maxDepth)
        streamedJSON = nil
        state = .args
    }

    /// Whether the rest of the stream after `pos` is a block opener the stream cut off.
    private func endsInsideOpener(_ w: ByteWindow) -> Bool {
        guard pos < w.end else { return false }
        return TagMatch.at(w, pos, [Self.openToken]) != .none
    }

    private mutating func settleCutOff(end: Int, actions: inout [GrammarAction]) {
        if streamedJSON == nil, let detail = emitter.cutOffDetail(tool) {
            actions.append(.reject(.incomplete, detail: detail, end: end))
            accounted = end
            callsInFrame += 1
        } else {
            settle(end: end, actions: &actions)
        }
    }

    private mutating func settle(end: Int, actions: inout [GrammarAction]) {
        if let value = streamedJSON {
            streamedJSON = nil
            accounted = end
            callsInFrame += 1
            if value.isObject {
                actions.append(.accept(arguments: CanonicalJSON(value), end: end))
            } else {
                actions.append(.reject(.malformed, detail: "the json block is not a JSON object", end: end))
            }
            return
        }
        switch emitter.finishCall(actions: &actions) {
        case .success(let arguments):
            actions.append(.accept(arguments: arguments, end: end))
        case .failure(let m):
            actions.append(.reject(m.reason, detail: m.detail, end: end))
        }
        accounted = end
        callsInFrame += 1
    }

    private mutating func skipSpace(_ w: ByteWindow) {
        pos = w.skipSpace(from: pos)
    }

    /// How an argument's text is typed: its `type` attribute says what the model wrote; the
    /// tool's schema says what the tool takes, and wins except that a string stays a string
    /// where the schema admits one. Where the schema says nothing, the attribute types the text
    /// when the text reads as that type, and the text stays a string when it does not.
    static func schema(for key: String, type: String?, tool: ToolDefinition?) -> JSONValue? {
        let declared = tool?.typingSchema(forArgument: key)
        let types = SchemaTyping.types(of: declared)
        if type == "string" && (types.isEmpty || types.contains("string")) {
            return .object([(key: "type", value: .string("string"))])
        }
        if !types.isEmpty { return declared }
        switch type {
        case "number", "integer", "boolean", "null", "object", "array":
            // That type when the text reads as one, else the text as written.
            return .object([(key: "type", value: .array([.string(type!), .string("string")]))])
        default:
            return nil
        }
    }

    enum HeaderRead {
        case needMore
        case invalid
        case header(name: String, attrs: [(name: String, value: String)], next: Int)
    }

    /// Reads a block header from `from` through its `<|sep|>` (rescans at most
    /// ``maxHeaderBytes``): a name of letters, digits, `_`, `-`, `.` or `:`, then
    /// ` key="value"` attributes, unescaped. Anything else is `invalid` as soon as it arrives, so
    /// prose after a lone token is never held back.
    static func readHeader(_ w: ByteWindow, from: Int) -> HeaderRead {
        var i = from
        func nameByte(_ b: UInt8) -> Bool {
            CallRenderer.isASCIIAlphanumeric(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
                || b == UInt8(ascii: ".") || b == UInt8(ascii: ":") || b >= 0x80
        }
        /// A name at `i`: `.needMore`, `.none` when there is none, or its range.
        func readWord() -> WordRead {
            let start = i
            while i < w.end && nameByte(w[i]) && i - from <= maxHeaderBytes { i += 1 }
            if i - from > maxHeaderBytes { return .none }
            if i == w.end { return .needMore }
            return i > start ? .word(start..<i) : .none
        }
        guard case .word(let nameRange) = readWord() else { return i == w.end ? .needMore : .invalid }
        var attrs: [(name: String, value: String)] = []
        while true {
            if i - from > maxHeaderBytes { return .invalid }
            guard i < w.end else { return .needMore }
            let b = w[i]
            if b == UInt8(ascii: "<") {
                switch TagMatch.at(w, i, [sepToken]) {
                case .found:
                    return .header(name: String(decoding: w.slice(nameRange), as: UTF8.self), attrs: attrs, next: i + sepToken.count)
                case .partial: return .needMore
                case .none: return .invalid
                }
            }
            guard JSONReader.isSpace(b) else { return .invalid }
            while i < w.end && JSONReader.isSpace(w[i]) && i - from <= maxHeaderBytes { i += 1 }
            guard i < w.end else { return .needMore }
            if w[i] == UInt8(ascii: "<") { continue }
            let keyRange: Range<Int>
            switch readWord() {
            case .needMore: return .needMore
            case .none: return .invalid
            case .word(let r): keyRange = r
            }
            guard i + 1 < w.end else { return .needMore }
            guard w[i] == UInt8(ascii: "="), w[i + 1] == UInt8(ascii: "\"") else { return .invalid }
            i += 2
            let valueStart = i
            while i < w.end && w[i] != UInt8(ascii: "\"") {
                if i - from > maxHeaderBytes { return .invalid }
                i += 1
            }
            guard i < w.end else { return .needMore }
            attrs.append((name: String(decoding: w.slice(keyRange), as: UTF8.self), value: unescape(w.slice(valueStart..<i))))
            i += 1
        }
    }

    private enum WordRead {
        case needMore
        case none
        case word(Range<Int>)
    }

    /// `&amp;` → `&`, `&quot;` → `"`, and the other XML references; anything else is kept.
    static func unescape(_ b: ArraySlice<UInt8>) -> String {
        guard b.contains(UInt8(ascii: "&")) else { return String(decoding: b, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = b.startIndex
        let named: [(String, String)] = [("amp", "&"), ("quot", "\""), ("lt", "<"), ("gt", ">"), ("apos", "'")]
        outer: while i < b.endIndex {
            if b[i] == UInt8(ascii: "&"), let semi = b[i..<min(b.endIndex, i + 12)].firstIndex(of: UInt8(ascii: ";")) {
                let ref = String(decoding: b[(i + 1)..<semi], as: UTF8.self)
                for (n, v) in named where n == ref {
                    out += Array(v.utf8)
                    i = semi + 1
                    continue outer
                }
                if ref.hasPrefix("#") {
                    let digits = ref.dropFirst()
                    let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                    if let value, let scalar = Unicode.Scalar(value) {
                        out += Array(String(Character(scalar)).utf8)
                        i = semi + 1
                        continue outer
                    }
                }
            }
            out.append(b[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
