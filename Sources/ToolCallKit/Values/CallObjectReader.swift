// ToolCallKit — reading a JSON call object while it streams, and streaming its arguments.

/// Emits the bytes of a JSON value as `delta` actions while they arrive, never splitting a
/// UTF-8 sequence. The bytes are the model's own JSON text, so the deltas concatenate to JSON
/// that equals the final arguments.
struct RawDeltaStreamer: Sendable {
    /// The next byte to emit.
    private(set) var from: Int

    init(from: Int) { self.from = from }

    /// The run the decoder may forward while `reader` streams these bytes: inside a string,
    /// with everything up to `end` read (`pos`) and emitted.
    func passThrough(_ reader: JSONReader, pos: Int, at end: Int) -> PassThrough? {
        guard pos == end, from == end, reader.isInString else { return nil }
        return .jsonString
    }

    /// Takes `count` string bytes the decoder forwarded as deltas: `reader` reads them, and
    /// they are not emitted again.
    mutating func takeForwarded(_ count: Int, _ w: ByteWindow, reader: inout JSONReader, pos: inout Int) {
        reader.takeStringRun(w, from: &pos, count: count)
        from = pos
    }

    /// Emits `[from, upTo)`, holding back an unfinished UTF-8 sequence unless `final`.
    mutating func flush(_ w: ByteWindow, upTo: Int, final: Bool, actions: inout [GrammarAction]) {
        guard upTo > from else { return }
        let end = final ? upTo : UTF8Boundary.safeEnd(w, start: from, end: upTo)
        guard end > from else { return }
        actions.append(.delta(EventText(w.slice(from..<end))))
        from = end
    }
}

extension EventText {
    /// A piece of a string value as JSON string-body text (escaped, no quotes), for a delta.
    ///
    /// Most pieces need no escaping: then the piece itself is the JSON text (kept inline when
    /// small, so no allocation). Otherwise it is escaped, invalid UTF-8 becoming U+FFFD.
    static func jsonStringFragment(_ bytes: ArraySlice<UInt8>) -> EventText {
        if !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) && UTF8Boundary.isValid(bytes) {
            return EventText(bytes)
        }
        let piece = String(decoding: bytes, as: UTF8.self)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        JSONValue.writeEscaped(piece.utf8.span, to: &out)
        return EventText(utf8: out)
    }
}

/// A call read from a JSON object.
struct ParsedCallObject: Sendable {
    var name: String?
    var id: String?
    /// The arguments, decoded from a JSON-encoded string when the model wrote one.
    var arguments: JSONValue?
    /// Whether the object had an `arguments` or `parameters` key at all.
    var hasArgumentsKey: Bool
}

/// Reads one call object incrementally: `{"name": S, "arguments"|"parameters": V, "id": S}`,
/// or the OpenAI envelope `{"id", "type", "function": {"name", "arguments"}}`.
///
/// With `streaming` on it reports `start` as soon as the name is known and the arguments
/// object begins, then the arguments' bytes as deltas while they arrive. With it off (a bare
/// object that may still turn out to be prose) it reports nothing; the grammar decides at the
/// end. It does not authorize names or decide what the object means; grammars do.
struct CallObjectReader: Sendable {
    enum Result {
        case needMore
        /// The object ended at `end` (one past its `}`).
        case complete(ParsedCallObject, end: Int)
        /// Not JSON at `at`.
        case error(String, at: Int)
        /// Deeper than the nesting cap.
        case tooDeep(at: Int)
    }

    private var reader: JSONReader
    /// The cursor: the next byte to read.
    private(set) var pos: Int
    let streaming: Bool
    private var name: String?
    private var id: String?
    /// The container depth where `name` and `arguments` live: 1, or 2 inside `function`.
    private var callDepth = 1
    private var argsStart: Int?
    private var argsEnd: Int?
    private var argsValue: JSONValue?
    private var streamer: RawDeltaStreamer?
    private(set) var started = false

    init(at pos: Int, streaming: Bool, maxDepth: Int) {
        self.pos = pos
        self.streaming = streaming
        self.reader = JSONReader(reportDepth: 1, maxDepth: maxDepth)
    }

    /// The name, once read.
    var knownName: String? { name }

    /// True when nothing but the opening bytes have been read.
    var hasReadNothing: Bool { reader.isAtStart }

    /// Inside a string of the streamed arguments, with everything up to `end` read and
    /// reported: the decoder may forward the string's bytes itself.
    func passThrough(at end: Int) -> PassThrough? {
        streamer?.passThrough(reader, pos: pos, at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        streamer?.takeForwarded(count, w, reader: &reader, pos: &pos)
    }

    private static func isArgumentsKey(_ k: String?) -> Bool { k == "arguments" || k == "parameters" }

    mutating func advance(_ w: ByteWindow, actions: inout [GrammarAction]) -> Result {
        while true {
            let event = reader.advance(w, from: &pos, to: w.end)
            switch event {
            case .needMore:
                streamer?.flush(w, upTo: pos, final: false, actions: &actions)
                return .needMore
            case .error(let m, let at):
                return .error(m, at: at)
            case .tooDeep(let at):
                return .tooDeep(at: at)
            case .valueStart(let depth, let key, let at):
                if depth == 1 && key == "function" && w[at] == UInt8(ascii: "{") && name == nil {
                    callDepth = 2
                    reader.reportDepth = 2
                } else if depth == callDepth && CallObjectReader.isArgumentsKey(key) && argsStart == nil {
                    argsStart = at
                    if streaming, let name, w[at] == UInt8(ascii: "{") {
                        actions.append(.start(name: name, id: id))
                        started = true
                        streamer = RawDeltaStreamer(from: at)
                    }
                }
            case .valueEnd(let depth, let key, let value, let end):
                if depth == callDepth {
                    switch key {
                    case "name":
                        if name == nil, let s = value.stringValue { name = s }
                    case "id":
                        if id == nil, let s = value.stringValue { id = s }
                    case let k where CallObjectReader.isArgumentsKey(k):
                        if argsEnd == nil {
                            argsEnd = end
                            argsValue = value
                            streamer?.flush(w, upTo: end, final: true, actions: &actions)
                            streamer = nil
                        }
                    default: break
                    }
                } else if depth == 1 && key == "id" && id == nil, let s = value.stringValue {
                    id = s
                }
            case .complete(_, let end):
                var args = argsValue
                if case .string(let s)? = args {
                    // A JSON-encoded string of an object: decode it once.
                    args = (try? JSONValue.parse(s)).flatMap { $0.isObject ? $0 : nil } ?? .string(s)
                }
                return .complete(
                    ParsedCallObject(name: name, id: id, arguments: args, hasArgumentsKey: argsStart != nil),
                    end: end)
            }
        }
    }

    /// Reports a call that was not streamed (or whose name came after its arguments): `start`,
    /// one delta with the whole arguments, in the model's own text when it wrote an object.
    func reportUnstarted(_ call: ParsedCallObject, name: String, arguments: JSONValue, w: ByteWindow,
                         actions: inout [GrammarAction]) {
        actions.append(.start(name: name, id: call.id))
        if let s = argsStart, let e = argsEnd, w[s] == UInt8(ascii: "{") {
            actions.append(.delta(EventText(w.slice(s..<e))))
        } else {
            actions.append(.delta(EventText(arguments.jsonText)))
        }
    }
}
