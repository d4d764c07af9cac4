// ToolCallKit — the `cohere_xml` format (Cohere Command "cmd5"): `<cofl:…>` elements with
// attributes, whose values nest.

/// Grammar for Cohere's cofl calls.
///
/// A section `<cofl:tool_calls>` holds `<cofl:tool_call id="ID" name="NAME">` elements (a call
/// element without the section is a call too), ended by `</cofl:tool_call>` and
/// `</cofl:tool_calls>`. A call holds its arguments in either of the two spellings the cmd5
/// templates write:
///
/// - flat: `<cofl:tool_param name="K" string="true">V</cofl:tool_param>`. `string="true"` (or no
///   `string` attribute) makes the body a string, `string="false"` JSON;
/// - nested: `<cofl:value name="K" type="raw|json|dict|list">`. `raw` is a string, `json` a
///   JSON literal, and `dict` and `list` hold further `<cofl:value>` elements (a list's carry no
///   name), to any depth.
///
/// Rules:
///
/// - Attributes are `key="value"` (or single-quoted) in any order; their values and the
///   bodies have the five XML entities decoded (`&lt;` `&gt;` `&amp;` `&quot;` `&apos;`, read
///   left to right, so `&amp;lt;` is `&lt;`); a body ends at the first close tag of its
///   element. The model's `id` passes through.
/// - A string body streams as it arrives (a trailing `&` that may begin an entity waits for its
///   `;`). A top-level argument whose declared type admits no string is typed from its text
///   instead. A JSON body that is a JSON string literal is that string (when a string may stand
///   there); otherwise it is typed by the declared schema, else read as JSON when it is a JSON
///   number, literal, object or array and kept as text otherwise (the text-value rules). A value
///   that does not fit its declared type makes the call `invalid_arguments`.
/// - What is not an element where one belongs makes the call `malformed` up to its close
///   (inside a section, the section goes on after it).
/// - End of stream: a call cut off after a whole argument is accepted when no required
///   parameter is missing; one cut inside a header, a body or a container, or before its first
///   argument, is `incomplete`; a section cut before its first call is `incomplete`.
struct CoflGrammar: CallGrammar {
    private enum State: Sendable {
        /// Inside a section, between calls.
        case section
        /// After `<cofl:tool_call`: its attributes up to `>`, from `start`.
        case callHeader(start: Int)
        /// Inside a call or a container, between elements.
        case elements
        /// After an argument's opener (`flat`: `<cofl:tool_param`): attributes up to `>`.
        case valueHeader(start: Int, flat: Bool)
        /// A leaf body from `start`: a string (streamed unless `held`) or JSON.
        case leaf(start: Int, string: Bool, held: Bool, flat: Bool)
        /// Skipping to the frame's end; the call is `malformed`.
        case junk(String)
    }

    /// An open container: the call's arguments (depth 0), a dict or a list.
    private struct Container: Sendable {
        var isList: Bool
        /// Its key in the parent (nil in a list, or for the arguments).
        var key: String?
        var members: [(key: String, value: JSONValue)] = []
        var elements: [JSONValue] = []
        var count: Int { isList ? elements.count : members.count }
    }

    static let sectionOpen = Array("<cofl:tool_calls>".utf8)
    static let sectionClose = Array("</cofl:tool_calls>".utf8)
    static let callOpen = Array("<cofl:tool_call".utf8)
    static let callClose = Array("</cofl:tool_call>".utf8)
    static let paramOpen = Array("<cofl:tool_param".utf8)
    static let paramClose = Array("</cofl:tool_param>".utf8)
    static let valueOpen = Array("<cofl:value".utf8)
    static let valueClose = Array("</cofl:value>".utf8)
    static let maxHeaderBytes = 4096
    /// The framing of Command's answers: markup wherever it stands.
    static let framing = ["<|START_TEXT|>", "<|END_TEXT|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|END_OF_TURN_TOKEN|>"]

    private static let sectionTags = [callOpen, sectionClose]
    private static let elementTags = [paramOpen, valueOpen, valueClose, callClose, sectionClose]
    private static let paramCloseSet = MarkerSet([paramClose])
    private static let valueCloseSet = MarkerSet([valueClose])
    private static let bareStops = MarkerSet([callClose])
    private static let wrappedStops = MarkerSet([callClose, sectionClose])
    private static let markerList: [Marker] =
        [Marker("<cofl:tool_calls>", role: .section), Marker("<cofl:tool_call ", role: .call),
         Marker("</cofl:tool_call>", kind: .stray), Marker("</cofl:tool_calls>", kind: .stray)]
        + framing.map { Marker($0, kind: .stray) }
    private static let skip = SkipRule.through([callClose, sectionClose])
    /// The bytes of a streamed string body the decoder may forward itself: all but the close
    /// tag's `<`, an entity's `&`, and what a delta escapes.
    private static let bodyRun = PassThrough.textValue(tags: [Array("<".utf8), Array("&".utf8)])

    var markers: [Marker] { Self.markerList }
    var skipRule: SkipRule { Self.skip }

    private var state: State = .section
    private var pos = 0
    private var wrapped = false
    private var callsInFrame = 0
    private var tool: ToolDefinition?
    private var stack: [Container] = []
    /// The errors of the current call's values (`invalid_arguments`), and whether it went too deep.
    private var errors: [String] = []
    private var tooDeep = false
    /// The current leaf's key, and whether the arguments' `{` was sent.
    private var leafKey: String?
    private var opened = false
    /// Where the current string leaf's undecoded bytes not yet streamed begin.
    private var streamed = 0
    private var maxDepth = 512
    /// The quote a header read so far left open (a header's scan resumes where it stopped).
    private var headerQuote: UInt8?

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        wrapped = Self.markerList[marker].role == .section
        maxDepth = context.maxDepth
        callsInFrame = 0
        pos = bodyStart
        state = wrapped ? .section : .callHeader(start: bodyStart)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .section:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, Self.sectionTags) {
                case .found(0):
                    pos += Self.callOpen.count
                    state = .callHeader(start: pos)
                case .found:
                    let end = pos + Self.sectionClose.count
                    actions.append(.markup(end: end))
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    state = .junk("expected a call in the section")
                }
            case .callHeader(let start):
                guard let attrs = readHeader(w, start: start) else { return .needMore }
                guard let attrs else { continue }
                guard let name = attrs["name"], !name.isEmpty else {
                    state = .junk("the call has no name")
                    continue
                }
                actions.append(.start(name: name, id: attrs["id"].flatMap { $0.isEmpty ? nil : $0 }))
                tool = context.tools?[name]
                stack = [Container(isList: false)]
                errors = []
                tooDeep = false
                opened = false
                state = .elements
            case .elements:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, Self.elementTags) {
                case .found(let k) where k <= 1:
                    let flat = k == 0
                    guard !flat || stack.count == 1 else {
                        state = .junk("a parameter inside a value")
                        continue
                    }
                    pos += flat ? Self.paramOpen.count : Self.valueOpen.count
                    state = .valueHeader(start: pos, flat: flat)
                case .found(2):
                    guard stack.count > 1 else {
                        state = .junk("a value's close outside a value")
                        continue
                    }
                    pos += Self.valueClose.count
                    let done = stack.removeLast()
                    emit(done.isList ? "]" : "}", actions: &actions)
                    add(done.isList ? .array(done.elements) : JSONValue.object(uniquing: done.members), key: done.key)
                case .found(3):
                    guard stack.count == 1 else {
                        state = .junk("the call closed inside a value")
                        continue
                    }
                    let end = pos + Self.callClose.count
                    settle(end: end, actions: &actions)
                    pos = end
                    if !wrapped { return .finished(at: end) }
                    state = .section
                case .found:
                    // The section's close: the call's close is missing.
                    guard wrapped, stack.count == 1 else {
                        state = .junk("the section closed inside a call")
                        continue
                    }
                    let end = pos + Self.sectionClose.count
                    settle(end: end, actions: &actions)
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    state = .junk("expected an argument element")
                }
            case .valueHeader(let start, let flat):
                guard let attrs = readHeader(w, start: start) else { return .needMore }
                guard let attrs else { continue }
                let inList = stack[stack.count - 1].isList
                let key = attrs["name"]
                guard inList || key != nil else {
                    state = .junk("an argument without a name")
                    continue
                }
                let kind = flat ? (attrs["string"] == "false" ? "json" : "raw") : (attrs["type"] ?? "raw")
                if kind == "dict" || kind == "list" {
                    guard stack.count < context.maxDepth else {
                        actions.append(.tooDeep(context, end: pos))
                        return .skip
                    }
                    emitKey(inList ? nil : key, actions: &actions)
                    emit(kind == "list" ? "[" : "{", actions: &actions)
                    stack.append(Container(isList: kind == "list", key: inList ? nil : key))
                    state = .elements
                    continue
                }
                let string = kind != "json"
                var held = !string
                if stack.count == 1, let key {
                    // A top-level argument: its declared type decides when it admits no string.
                    let types = SchemaTyping.types(of: tool?.typingSchema(forArgument: key))
                    if string && !types.isEmpty && !types.contains("string") { held = true }
                }
                leafKey = inList ? nil : key
                if !held {
                    emitKey(leafKey, actions: &actions)
                    emit("\"", actions: &actions)
                }
                streamed = pos
                state = .leaf(start: pos, string: string, held: held, flat: flat)
            case .leaf(let start, let string, let held, let flat):
                let closeSet = flat ? Self.paramCloseSet : Self.valueCloseSet
                switch closeSet.search(w, from: pos, end: w.end) {
                case .found(_, let at):
                    if !held { streamPiece(w, upTo: at, final: true, actions: &actions) }
                    endLeaf(w, start..<at, string: string, held: held, actions: &actions)
                    pos = at + closeSet.markers[0].count
                    state = .elements
                case .partial(let at):
                    if !held { streamPiece(w, upTo: at, final: false, actions: &actions) }
                    pos = at
                    return .needMore
                case .none:
                    if !held { streamPiece(w, upTo: w.end, final: false, actions: &actions) }
                    pos = w.end
                    return .needMore
                }
            case .junk(let detail):
                let stops = wrapped ? Self.wrappedStops : Self.bareStops
                switch stops.search(w, from: pos, end: w.end) {
                case .found(let k, let at):
                    let end = at + stops.markers[k].count
                    actions.append(.reject(.malformed, detail: detail, end: end))
                    callsInFrame += 1
                    if !wrapped || k == 1 { return .finished(at: end) }
                    // Inside a section, a malformed call ends at its own close and the section
                    // goes on.
                    pos = end
                    state = .section
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none:
                    pos = w.end
                    return .needMore
                }
            }
        }
    }

    // MARK: - Headers

    /// Reads an element's attributes from `start` through its `>`: nil (outer) when more bytes
    /// are needed; `.some(nil)` when the header is broken (the state is junk).
    private mutating func readHeader(_ w: ByteWindow, start: Int) -> [String: String]?? {
        if pos == start { headerQuote = nil }
        var i = pos
        var quote = headerQuote
        defer { headerQuote = quote }
        while i < w.end {
            let b = w[i]
            if let q = quote {
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: ">") {
                pos = i + 1
                guard let attrs = Self.attributes(w, start..<i) else {
                    state = .junk("an element whose attributes cannot be read")
                    return .some(nil)
                }
                return .some(attrs)
            } else if b == UInt8(ascii: "<") {
                pos = i
                state = .junk("an element whose header does not end with '>'")
                return .some(nil)
            }
            i += 1
            if i - start > Self.maxHeaderBytes {
                pos = start
                state = .junk("an element header longer than \(Self.maxHeaderBytes) bytes")
                return .some(nil)
            }
        }
        pos = i
        return nil
    }

    /// ` key="value"` pairs (values entity-decoded); nil when the text is not such pairs.
    static func attributes(_ w: ByteWindow, _ r: Range<Int>) -> [String: String]? {
        var out: [String: String] = [:]
        var i = r.lowerBound
        while true {
            while i < r.upperBound && JSONReader.isSpace(w[i]) { i += 1 }
            if i == r.upperBound || (w[i] == UInt8(ascii: "/") && i + 1 == r.upperBound) { return out }
            let keyStart = i
            while i < r.upperBound && w[i] != UInt8(ascii: "=") && !JSONReader.isSpace(w[i]) { i += 1 }
            let key = String(decoding: w.slice(keyStart..<i), as: UTF8.self)
            while i < r.upperBound && JSONReader.isSpace(w[i]) { i += 1 }
            guard !key.isEmpty, i < r.upperBound, w[i] == UInt8(ascii: "=") else { return nil }
            i += 1
            while i < r.upperBound && JSONReader.isSpace(w[i]) { i += 1 }
            guard i < r.upperBound, w[i] == UInt8(ascii: "\"") || w[i] == UInt8(ascii: "'") else { return nil }
            let q = w[i]
            i += 1
            let valueStart = i
            while i < r.upperBound && w[i] != q { i += 1 }
            guard i < r.upperBound else { return nil }
            if out[key] == nil { out[key] = String(decoding: decodeEntities(w.slice(valueStart..<i)), as: UTF8.self) }
            i += 1
        }
    }

    // MARK: - Entities

    private static let entities: [(name: [UInt8], byte: UInt8)] = [
        (Array("lt;".utf8), UInt8(ascii: "<")), (Array("gt;".utf8), UInt8(ascii: ">")),
        (Array("amp;".utf8), UInt8(ascii: "&")), (Array("quot;".utf8), UInt8(ascii: "\"")),
        (Array("apos;".utf8), UInt8(ascii: "'")),
    ]

    /// The five XML entities decoded, left to right (`&amp;lt;` is `&lt;`); any other `&` is
    /// kept as written.
    static func decodeEntities(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "&"), let (n, byte) = entity(bytes, at: i + 1) {
                out.append(byte)
                i += 1 + n
            } else {
                out.append(b)
                i += 1
            }
        }
        return out
    }

    /// The entity after an `&` at `at`: its length and byte.
    private static func entity(_ bytes: ArraySlice<UInt8>, at: Int) -> (Int, UInt8)? {
        for e in entities where at + e.name.count <= bytes.endIndex {
            if bytes[at..<(at + e.name.count)].elementsEqual(e.name) { return (e.name.count, e.byte) }
        }
        return nil
    }

    /// Where the decodable part of `[from, to)` ends: before a trailing `&` whose entity may
    /// still come (at most 5 bytes), and before an unfinished UTF-8 sequence.
    private static func decodableEnd(_ w: ByteWindow, from: Int, to: Int) -> Int {
        var end = UTF8Boundary.safeEnd(w, start: from, end: to)
        var i = end - 1
        while i >= from && end - i <= 5 {
            if w[i] == UInt8(ascii: ";") { break }
            if w[i] == UInt8(ascii: "&") {
                let tail = w.slice((i + 1)..<end)
                if entities.contains(where: { $0.name.starts(with: tail) }) { end = i }
                break
            }
            i -= 1
        }
        return end
    }

    // MARK: - Values and deltas

    /// Streams the decoded bytes of a string leaf up to `upTo`.
    private mutating func streamPiece(_ w: ByteWindow, upTo: Int, final: Bool, actions: inout [GrammarAction]) {
        let end = final ? upTo : Self.decodableEnd(w, from: streamed, to: upTo)
        guard end > streamed else { return }
        let piece = w.slice(streamed..<end)
        streamed = end
        guard errors.isEmpty, !tooDeep else { return }
        if piece.contains(UInt8(ascii: "&")) {
            actions.append(.delta(.jsonStringFragment(Self.decodeEntities(piece)[...])))
        } else {
            actions.append(.delta(.jsonStringFragment(piece)))
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .leaf(_, true, false, _) = state, pos == end, streamed == end, errors.isEmpty, !tooDeep else { return nil }
        return Self.bodyRun
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        pos += count
        streamed = pos
    }

    private mutating func endLeaf(_ w: ByteWindow, _ r: Range<Int>, string: Bool, held: Bool, actions: inout [GrammarAction]) {
        let text = Self.decodeEntities(w.slice(r))
        if !held {
            emit("\"", actions: &actions)
            add(.string(String(decoding: text, as: UTF8.self)), key: leafKey)
            return
        }
        var value: JSONValue
        let schema = stack.count == 1 ? leafKey.flatMap { tool?.typingSchema(forArgument: $0) } : nil
        let types = SchemaTyping.types(of: schema)
        let textString = String(decoding: text, as: UTF8.self)
        if !string && TextArgumentEmitter.nesting(text) + stack.count > maxDepth {
            tooDeep = true
            value = .null
        } else if !string, case .string(let s)? = CanonicalJSON.parse(text, maxDepth: maxDepth)?.value,
            types.isEmpty || types.contains("string")
        {
            // A JSON body that is a string literal: the string.
            value = .string(s)
        } else if !types.isEmpty {
            switch SchemaTyping.type(textString, schema: schema) {
            case .success(let v):
                value = v
            case .failure(let m):
                errors.append(SchemaTyping.detail(pointer: SchemaTyping.pointer(leafKey ?? ""), m, found: textString))
                value = .string(textString)
            }
        } else if string {
            value = .string(textString)
        } else {
            value = SchemaTyping.untyped(text).value
        }
        emitKey(leafKey, actions: &actions)
        var out: [UInt8] = []
        value.write(to: &out)
        emitBytes(out, actions: &actions)
        add(value, key: leafKey)
    }

    /// Adds a finished value to the innermost container.
    private mutating func add(_ value: JSONValue, key: String?) {
        if stack[stack.count - 1].isList {
            stack[stack.count - 1].elements.append(value)
        } else {
            stack[stack.count - 1].members.append((key: key ?? "", value: value))
        }
    }

    /// The separator and key before a value in the innermost container (and the arguments'
    /// `{` before the first). A container's first element follows its opener with no comma;
    /// later ones need one (its count of finished elements says which: a child container is
    /// added when it closes).
    private mutating func emitKey(_ key: String?, actions: inout [GrammarAction]) {
        var out: [UInt8] = []
        if stack.count == 1 && !opened {
            out.append(UInt8(ascii: "{"))
            opened = true
        } else if stack[stack.count - 1].count > 0 {
            out.append(UInt8(ascii: ","))
        }
        if !stack[stack.count - 1].isList {
            JSONValue.writeString(key ?? "", to: &out)
            out.append(UInt8(ascii: ":"))
        }
        emitBytes(out, actions: &actions)
    }

    private func emit(_ s: String, actions: inout [GrammarAction]) { emitBytes(Array(s.utf8), actions: &actions) }

    private func emitBytes(_ bytes: [UInt8], actions: inout [GrammarAction]) {
        guard errors.isEmpty, !tooDeep, !bytes.isEmpty else { return }
        actions.append(.delta(EventText(utf8: bytes)))
    }

    /// The call ended at `end`: accepted, or rejected for its values.
    private mutating func settle(end: Int, actions: inout [GrammarAction]) {
        callsInFrame += 1
        if tooDeep {
            actions.append(.reject(.tooLarge, detail: nestingTooDeep(maxDepth), end: end))
            return
        }
        if !errors.isEmpty {
            actions.append(.reject(.invalidArguments, detail: errors.joined(separator: "\n"), end: end))
            return
        }
        emit(opened ? "}" : "{}", actions: &actions)
        actions.append(.accept(arguments: CanonicalJSON.object(stack[0].members), end: end))
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .section:
            if callsInFrame == 0 {
                actions.append(.reject(.incomplete, detail: "the stream ended before a call", end: w.end))
            } else {
                actions.append(.markup(end: w.end))
            }
        case .elements where stack.count == 1 && stack[0].count > 0:
            var rest = TagMatch.none
            if pos < w.end { rest = TagMatch.at(w, pos, [Self.callClose, Self.sectionClose]) }
            guard pos >= w.end || rest == .partial else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
                return
            }
            if let detail = cutOffDetail() {
                actions.append(.reject(.incomplete, detail: detail, end: w.end))
            } else {
                settle(end: w.end, actions: &actions)
            }
        case .callHeader:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call's header", end: w.end))
        case .elements, .valueHeader, .leaf:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .junk(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }

    /// For a call cut off before its close: nil when it may be accepted, else the detail naming
    /// the required parameters it lacks.
    private func cutOffDetail() -> String? {
        guard case .array(let required)? = tool?.parameters["required"] else { return nil }
        let given = Set(stack[0].members.map(\.key))
        let missing = required.compactMap(\.stringValue).filter { !given.contains($0) }
        guard !missing.isEmpty else { return nil }
        let names = missing.map { JSONValue.string($0).jsonText }.joined(separator: ", ")
        return "the stream ended before the call's close, without its required \(names)"
    }
}
