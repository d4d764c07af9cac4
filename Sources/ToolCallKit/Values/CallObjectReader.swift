// ToolCallKit — reading a JSON call object while it streams, and streaming its arguments.

/// Emits the bytes of a JSON value as `delta` actions while they arrive, never splitting a
/// UTF-8 sequence. The bytes are the model's own JSON text, so the deltas concatenate to JSON
/// that equals the final arguments, with two repairs that make that text strict JSON (what a
/// client's `json.loads` or `JSON.parse` accepts) and keep it equal to the arguments the
/// lenient reader built:
///
/// - a raw control byte inside a string (models write raw newlines and tabs) is sent escaped:
///   `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`;
/// - a lone UTF-16 surrogate escape (`\ud83d` not followed by its low half, or a low half
///   alone) is sent as `\ufffd`, the character the reader puts in the arguments for it.
///
/// What is emitted after any prefix of the value depends on that prefix alone, never on how it
/// was chunked: an escape is emitted only once it is complete, and a high surrogate escape only
/// once the bytes after it show whether its low half follows (at most 12 bytes are held).
struct RawDeltaStreamer: Sendable {
    /// The next byte to emit.
    private(set) var from: Int
    /// Whether `from` is inside a string of the JSON text.
    private var inString = false

    init(from: Int) { self.from = from }

    /// The run the decoder may forward while `reader` streams these bytes: inside a string,
    /// with everything up to `end` read (`pos`) and emitted.
    func passThrough<S>(_ reader: JSONScanner<S>, pos: Int, at end: Int) -> PassThrough? {
        guard pos == end, from == end, inString, reader.isInString else { return nil }
        return .jsonString
    }

    /// Takes `count` string bytes the decoder forwarded as deltas: `reader` reads them, and
    /// they are not emitted again. (Forwarded bytes are plain string bytes: no quote,
    /// backslash or control byte, so the string is still open after them.)
    mutating func takeForwarded<S>(_ count: Int, _ w: ByteWindow, reader: inout JSONScanner<S>, pos: inout Int) {
        reader.takeStringRun(w, from: &pos, count: count)
        from = pos
    }

    /// Emits `[from, upTo)`, holding back an unfinished UTF-8 sequence or escape unless `final`.
    mutating func flush(_ w: ByteWindow, upTo: Int, final: Bool, actions: inout [GrammarAction]) {
        guard upTo > from else { return }
        let end = final ? upTo : UTF8Boundary.safeEnd(w, start: from, end: upTo)
        guard end > from else { return }
        if let text = take(w, end: end, final: final) { actions.append(.delta(text)) }
    }

    /// The whole JSON text `range` as one delta, repaired as the streamed form would be.
    static func wholeText(_ w: ByteWindow, _ range: Range<Int>) -> EventText {
        var s = RawDeltaStreamer(from: range.lowerBound)
        return s.take(w, end: range.upperBound, final: true) ?? EventText(utf8: [])
    }

    /// Scans `[from, end)`, advancing `from` to where emission stops; returns the text to emit.
    private mutating func take(_ w: ByteWindow, end: Int, final: Bool) -> EventText? {
        var out: [UInt8] = []
        var repaired = false
        var copied = from  // bytes [copied, i) are verbatim and not yet in `out`
        var i = from
        var inString = self.inString
        func replace(_ count: Int, with bytes: [UInt8]) {
            if !repaired {
                repaired = true
                out.reserveCapacity(end - from + 8)
            }
            out.append(contentsOf: w.slice(copied..<i))
            out.append(contentsOf: bytes)
            i += count
            copied = i
        }
        let span = w.storage.span
        let base = w.base
        scan: while i < end {
            let b = span[i &- base]
            if !inString {
                if b == 0x22 { inString = true }
                i += 1
                continue
            }
            if b == 0x22 {
                inString = false
                i += 1
            } else if b >= 0x20 && b != 0x5C {
                i += 1
            } else if b < 0x20 {
                replace(1, with: Self.escape(controlByte: b))
            } else {
                // An escape: emitted only whole, and a surrogate only once it is settled.
                guard i + 1 < end else {
                    if final { i = end }
                    break scan
                }
                guard w[i + 1] == UInt8(ascii: "u") else {
                    i += 2
                    continue
                }
                guard i + 6 <= end else {
                    if final { i = end }
                    break scan
                }
                guard let unit = Self.hex4(w, at: i + 2) else {
                    i += 2  // not an escape the reader accepts; it reports the error
                    continue
                }
                if UTF16Unit.isLow(unit) {
                    replace(6, with: Self.replacementEscape)
                } else if UTF16Unit.isHigh(unit) {
                    switch Self.lowHalf(w, at: i + 6, end: end) {
                    case .some(true): i += 12
                    case .some(false): replace(6, with: Self.replacementEscape)
                    case .none:
                        if final {
                            replace(6, with: Self.replacementEscape)
                        } else {
                            break scan
                        }
                    }
                } else {
                    i += 6
                }
            }
        }
        guard i > from else { return nil }
        let text: EventText
        if repaired {
            out.append(contentsOf: w.slice(copied..<i))
            text = EventText(utf8: out)
        } else {
            text = EventText(w.slice(from..<i))
        }
        from = i
        self.inString = inString
        return text
    }

    private static let replacementEscape = Array("\\ufffd".utf8)

    /// The JSON escape for a control byte.
    static func escape(controlByte b: UInt8) -> [UInt8] {
        switch b {
        case 0x0A: return Array("\\n".utf8)
        case 0x09: return Array("\\t".utf8)
        case 0x0D: return Array("\\r".utf8)
        case 0x08: return Array("\\b".utf8)
        case 0x0C: return Array("\\f".utf8)
        default:
            let digits = Array("0123456789abcdef".utf8)
            return Array("\\u00".utf8) + [digits[Int(b >> 4)], digits[Int(b & 15)]]
        }
    }

    private static func hex4(_ w: ByteWindow, at p: Int) -> UInt32? {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = JSONReader.hexValue(w[p + k]) else { return nil }
            v = v << 4 | UInt32(h)
        }
        return v
    }

    /// Whether the bytes at `p` are a low surrogate escape (`\uDC00`...`\uDFFF`): true, false,
    /// or nil while the bytes before `end` cannot tell yet.
    private static func lowHalf(_ w: ByteWindow, at p: Int, end: Int) -> Bool? {
        for k in 0..<6 {
            guard p + k < end else { return nil }
            let b = w[p + k]
            let fits: Bool
            switch k {
            case 0: fits = b == 0x5C
            case 1: fits = b == UInt8(ascii: "u")
            case 2: fits = b | 0x20 == UInt8(ascii: "d")
            case 3: fits = (UInt8(ascii: "c")...UInt8(ascii: "f")).contains(b | 0x20)
            default: fits = JSONReader.hexValue(b) != nil
            }
            if !fits { return false }
        }
        return true
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
    /// The arguments' canonical text, decoded from a JSON-encoded string when the model wrote
    /// one.
    var arguments: CanonicalJSON?
    /// Whether the object had an `arguments` or `parameters` key at all.
    var hasArgumentsKey: Bool
}

/// The key names a call object uses for its name, arguments and id.
struct CallObjectKeys: Sendable {
    var name: [String]
    var arguments: [String]
    var id: [String]

    /// `{"name", "arguments"|"parameters", "id"}`, what most templates write.
    static let standard = CallObjectKeys(name: ["name"], arguments: ["arguments", "parameters"], id: ["id"])
}

/// Reads one call object incrementally: `{"name": S, "arguments"|"parameters": V, "id": S}`
/// (other key names by ``CallObjectKeys``), or the OpenAI envelope
/// `{"id", "type", "function": {"name", "arguments"}}`.
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

    private var reader: JSONTextReader
    /// The cursor: the next byte to read.
    private(set) var pos: Int
    let streaming: Bool
    private var name: String?
    private var id: String?
    /// The container depth where `name` and `arguments` live: 1, or 2 inside `function`.
    private var callDepth = 1
    private var argsStart: Int?
    private var argsEnd: Int?
    private var argsValue: CanonicalJSON?
    private var streamer: RawDeltaStreamer?
    private(set) var started = false
    private let keys: CallObjectKeys

    init(at pos: Int, streaming: Bool, maxDepth: Int, keys: CallObjectKeys = .standard) {
        self.pos = pos
        self.streaming = streaming
        self.keys = keys
        // Every reported member is taken out of the call object's text as it ends: the
        // object itself is never needed, and its arguments are then held once.
        self.reader = JSONTextReader(reportDepth: 1, maxDepth: maxDepth)
        self.reader.detachesReported = true
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

    private func isArgumentsKey(_ k: String?) -> Bool { k.map(keys.arguments.contains) ?? false }

    mutating func advance(_ w: ByteWindow, actions: inout [GrammarAction]) -> Result {
        while true {
            let event = reader.advance(w, from: &pos, to: w.end)
            switch event {
            case .needMore:
                streamer?.flush(w, upTo: pos, final: false, actions: &actions)
                return .needMore
            case .error(let m, let at):
                // The deltas of the valid prefix, however the input was chunked.
                streamer?.flush(w, upTo: at, final: false, actions: &actions)
                return .error(m, at: at)
            case .tooDeep(let at):
                streamer?.flush(w, upTo: at, final: false, actions: &actions)
                return .tooDeep(at: at)
            case .valueStart(let depth, let key, let at):
                if depth == 1 && key == "function" && w[at] == UInt8(ascii: "{") && name == nil {
                    callDepth = 2
                    reader.reportDepth = 2
                } else if depth == callDepth && isArgumentsKey(key) && argsStart == nil {
                    argsStart = at
                    if streaming, let name, w[at] == UInt8(ascii: "{") {
                        actions.append(.start(name: name, id: id))
                        started = true
                        streamer = RawDeltaStreamer(from: at)
                    }
                }
            case .valueEnd(let depth, let key, _, let end):
                // Each member is taken out of the object's text as it ends (nothing is kept
                // that is not needed; the arguments are held once).
                guard let key else { continue }
                if depth == callDepth {
                    switch key {
                    case let k where keys.name.contains(k):
                        let s = reader.detachReportedString()
                        if name == nil, let s { name = s }
                    case let k where keys.id.contains(k):
                        let s = reader.detachReportedString()
                        if id == nil, let s { id = s }
                    case let k where isArgumentsKey(k):
                        if argsEnd == nil {
                            argsEnd = end
                            argsValue = reader.detachReported()
                            streamer?.flush(w, upTo: end, final: true, actions: &actions)
                            streamer = nil
                        } else {
                            reader.dropReported()
                        }
                    default: reader.dropReported()
                    }
                } else if depth == 1 && key == "id" && id == nil {
                    id = reader.detachReportedString()
                } else {
                    reader.dropReported()
                }
            case .complete(_, let end):
                var args = argsValue
                if let a = args, a.isString, let s = a.stringValue {
                    // A JSON-encoded string of an object: decode it once.
                    args = CanonicalJSON.parse(Array(s.utf8)).flatMap { $0.isObject ? $0 : nil } ?? a
                }
                return .complete(
                    ParsedCallObject(name: name, id: id, arguments: args, hasArgumentsKey: argsStart != nil),
                    end: end)
            }
        }
    }

    /// Reports a call that was not streamed (or whose name came after its arguments): `start`,
    /// one delta with the whole arguments, in the model's own text when it wrote an object.
    func reportUnstarted(_ call: ParsedCallObject, name: String, arguments: CanonicalJSON, w: ByteWindow,
                         actions: inout [GrammarAction]) {
        actions.append(.start(name: name, id: call.id))
        if let s = argsStart, let e = argsEnd, w[s] == UInt8(ascii: "{") {
            actions.append(.delta(RawDeltaStreamer.wholeText(w, s..<e)))
        } else {
            actions.append(.delta(EventText(utf8: arguments.bytes)))
        }
    }
}
