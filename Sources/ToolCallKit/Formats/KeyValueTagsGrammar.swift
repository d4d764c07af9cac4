// ToolCallKit — the key/value-tags family with a format's own tags: GLM's shape,
// `OPEN NAME (KEY k /KEY VALUE v /VALUE)* CLOSE`, written with other tags, in a section, with a
// name separator or a type tag (k2_horizon, hy_v3). glm4's own spelling is ``GLM4Grammar``'s.

/// The tags of one key/value-tags format.
///
/// The shape every format of the family writes: an optional section holding calls, and per call
/// `OPEN NAME [SEP] (KEY k /KEY [TYPE t /TYPE] VALUE v /VALUE)* CLOSE`. A format may spell its
/// tags more than one way (Hy3's released template suffixes every token with `:opensource`,
/// its peers' tests do not): each spelling is a ``Dialect``, and a frame is read in the
/// dialect of the marker that opened it.
///
/// A class, made once per format and shared by every decoder of it: the tag lists and marker
/// sets the grammar matches against are built here, not per decoder or per step.
final class KeyValueTags: Sendable {
    /// One spelling of every tag.
    final class Dialect: Sendable {
        let sectionOpen: [UInt8]?
        let sectionClose: [UInt8]?
        let open: [UInt8]
        let close: [UInt8]
        /// Written between the name and the first key (Hy3's `<tool_sep>`).
        let nameSeparator: [UInt8]?
        let keyOpen: [UInt8]
        let keyClose: [UInt8]
        let valueOpen: [UInt8]
        /// The value's type, between key and value (K2-Horizon's `<ifm|arg_type>`).
        let typeOpen: [UInt8]?
        let valueTags: TextValueScanner.Tags
        let keyCloseSet: MarkerSet
        let typeCloseSet: MarkerSet?
        /// Where a malformed call ends: its close (and, inside a section, the section's close).
        let closeSet: MarkerSet
        let sectionStops: MarkerSet
        /// Between a call's elements: key, value, close, then type, separator and the section's
        /// close when written.
        let bodyTags: [[UInt8]]
        let typeIndex: Int
        let separatorIndex: Int
        let sectionCloseIndex: Int
        /// What ends a name: key, key close, value, close, then the separator when written.
        let nameEnds: [[UInt8]]
        /// Between the calls of a section: a call's opener, the section's close.
        let sectionTags: [[UInt8]]

        init(section: (String, String)?, call: (String, String), nameSeparator: String?,
             key: (String, String), type: (String, String)?, value: (String, String)) {
            sectionOpen = section.map { Array($0.0.utf8) }
            sectionClose = section.map { Array($0.1.utf8) }
            open = Array(call.0.utf8)
            close = Array(call.1.utf8)
            self.nameSeparator = nameSeparator.map { Array($0.utf8) }
            keyOpen = Array(key.0.utf8)
            keyClose = Array(key.1.utf8)
            valueOpen = Array(value.0.utf8)
            typeOpen = type.map { Array($0.0.utf8) }
            valueTags = TextValueScanner.Tags(
                close: value.1, follows: [key.0, value.0, call.1] + (section.map { [$0.1] } ?? []),
                breaks: [key.0, call.1], stripNewlines: false)
            keyCloseSet = MarkerSet([keyClose])
            typeCloseSet = type.map { MarkerSet([$0.1]) }
            closeSet = MarkerSet([close])
            sectionStops = MarkerSet([close] + (sectionClose.map { [$0] } ?? []))
            var body = [keyOpen, valueOpen, close]
            typeIndex = typeOpen == nil ? -1 : body.count
            if let typeOpen { body.append(typeOpen) }
            separatorIndex = self.nameSeparator == nil ? -1 : body.count
            if let sep = self.nameSeparator { body.append(sep) }
            sectionCloseIndex = sectionClose == nil ? -1 : body.count
            if let sectionClose { body.append(sectionClose) }
            bodyTags = body
            nameEnds = [keyOpen, keyClose, valueOpen, close] + (self.nameSeparator.map { [$0] } ?? [])
            sectionTags = [open] + (sectionClose.map { [$0] } ?? [])
        }
    }

    let dialects: [Dialect]
    /// A JSON call object (`{"name", "arguments"}`) may stand for the name and the pairs inside
    /// a call (K2-Horizon's `json` call format); its string arguments are typed by the schema.
    let jsonCalls: Bool
    /// Per dialect: the section's opener, the call's opener, then the stray closers; then the
    /// ``markup`` tokens.
    let markers: [Marker]
    /// The dialect of each marker (for the start markers).
    let markerDialect: [Int]
    let skip: SkipRule

    /// - Parameter markup: tokens that are markup wherever they stand (an end-of-turn token the
    ///   template writes after the calls).
    init(_ dialects: [Dialect], jsonCalls: Bool = false, markup: [String] = []) {
        self.dialects = dialects
        self.jsonCalls = jsonCalls
        var markers: [Marker] = []
        var owner: [Int] = []
        for (k, d) in dialects.enumerated() {
            if let s = d.sectionOpen {
                markers.append(Marker(String(decoding: s, as: UTF8.self), role: .section))
                owner.append(k)
            }
            markers.append(Marker(String(decoding: d.open, as: UTF8.self), role: .call))
            owner.append(k)
        }
        for d in dialects {
            markers.append(Marker(String(decoding: d.close, as: UTF8.self), kind: .stray))
            if let s = d.sectionClose { markers.append(Marker(String(decoding: s, as: UTF8.self), kind: .stray)) }
        }
        markers += markup.map { Marker($0, kind: .stray) }
        owner += Array(repeating: 0, count: markers.count - owner.count)
        self.markers = markers
        self.markerDialect = owner
        skip = .through(dialects.map(\.close))
    }

}

/// Grammar for the formats of the key/value-tags family that a ``KeyValueTags`` names.
///
/// GLM's grammar (``GLM4Grammar``) with the tags as data, and the structure GLM does not write:
/// a section around the calls, a name separator, a type tag, several spellings, a JSON call
/// object in place of the pairs. The rules GLM's models need are the same here, and its drift
/// rules are kept (so the two may become one grammar). Values go through ``TextValueScanner``
/// and ``TextArgumentEmitter`` (shared with the tagged-functions family). Rules
/// (docs/formats.md; written with glm4's tags, each format has its own):
///
/// - The name runs from the opener to a newline, the name separator (when the format writes
///   one) or the first tag; it is trimmed and announced as soon as it ends.
///   `<tool_call>get_time</tool_call>` is a call with `{}`; an empty `<tool_call></tool_call>`
///   is `markup`.
/// - Keys are trimmed. Values are kept exactly as written (white space included, no newline
///   stripping, no entity decoding).
/// - Drifts tolerated: no newlines at all (GLM-4.7); a missing `</arg_value>` (the next
///   `<arg_key>` or `</tool_call>` closes the value); a missing `<arg_value>` (the value starts
///   at the first non-space byte after `</arg_key>`); keys grouped before their values (paired
///   in order); a missing `<arg_key>` that fuses name and key (`fkey</arg_key>`), recovered only
///   when a declared tool's name is a prefix, else `malformed`.
/// - `</arg_value>` ends a value only when `<arg_key>`, `<arg_value>`, `</tool_call>` (or the
///   section's close) or the end of the stream follows it (after at most 256 bytes of white
///   space).
/// - A `{`/`[` value that is JSON only once `\"` is unescaped (a common GLM drift) is read
///   unescaped.
/// - A section (when the format has one) holds calls separated by white space; its close ends
///   the frame, and a call's missing close is tolerated before it. A call opener without the
///   section is a call too.
/// - A type tag between key and value (when the format has one) names the value's type: it
///   picks the member of a declared union, and types an argument the tool does not declare.
/// - A JSON call object inside the call (when the format allows it) is read as in `json`; its
///   string arguments whose declared type admits no string are typed from their text, as a
///   text value would be (`"2"` for an integer is 2), and one that does not fit is
///   `invalid_arguments`. It streams when no tools are declared (nothing to type), and is
///   reported whole when they are.
/// - End of stream: accepted when only `</tool_call>` (or part of it) is missing after at least
///   one closed value; cut inside the name, a key or a value, or a key left without a value,
///   is `incomplete`. A section cut before its first call is `incomplete`; one cut after a call
///   is markup.
struct KeyValueTagsGrammar: CallGrammar {
    private enum State: Sendable {
        /// Inside a section, between calls.
        case section
        case name
        case body
        case key(start: Int)
        /// A type tag's text, which began at `start`.
        case type(start: Int)
        case value(TextValueScanner)
        /// A JSON call object, read by `jsonReader`.
        case json
        /// After a JSON call object: the call's close.
        case afterJSON
        case junk(String)
    }

    static let maxNameBytes = 512
    static let maxKeyBytes = 1024

    let tags: KeyValueTags
    private var d: KeyValueTags.Dialect
    private var state: State = .name
    private var pos = 0
    private var wrapped = false
    private var callsInFrame = 0
    private var nameStart: Int?
    private var pendingKeys: [(key: String, type: String?)] = []
    private var tool: ToolDefinition?
    private var emitter = TextArgumentEmitter(unescapeQuotedJSON: true)
    private var jsonReader = CallObjectReader(at: 0, streaming: false, maxDepth: 0)
    /// Where the last JSON call object ended.
    private var jsonEnd = 0

    init(tags: KeyValueTags) {
        self.tags = tags
        self.d = tags.dialects[0]
    }

    var markers: [Marker] { tags.markers }
    var skipRule: SkipRule { tags.skip }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        d = tags.dialects[tags.markerDialect[marker]]
        wrapped = tags.markers[marker].role == .section
        callsInFrame = 0
        pos = bodyStart
        beginCall(context: context)
        if wrapped { state = .section }
    }

    private mutating func beginCall(context: GrammarContext) {
        state = .name
        nameStart = nil
        pendingKeys = []
        tool = nil
        emitter = TextArgumentEmitter(maxDepth: context.maxDepth, unescapeQuotedJSON: true)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .section:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, d.sectionTags) {
                case .found(0):
                    pos += d.open.count
                    beginCall(context: context)
                case .found:
                    let end = pos + d.sectionClose!.count
                    actions.append(.markup(end: end))
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    state = .junk("expected a call in the section")
                }
            case .name:
                if nameStart == nil {
                    skipSpace(w)
                    guard pos < w.end else { return .needMore }
                    if tags.jsonCalls && w[pos] == UInt8(ascii: "{") {
                        jsonReader = CallObjectReader(at: pos, streaming: context.tools == nil, maxDepth: context.maxDepth)
                        state = .json
                        continue
                    }
                    nameStart = pos
                }
                guard let step = readName(w, context: context, actions: &actions) else { return .needMore }
                if let step { return step }
            case .body:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, d.bodyTags) {
                case .found(0):
                    pos += d.keyOpen.count
                    state = .key(start: pos)
                case .found(1):
                    guard !pendingKeys.isEmpty else {
                        state = .junk("a value without a key")
                        continue
                    }
                    pos += d.valueOpen.count
                    beginValue(at: pos, actions: &actions)
                case .found(2):
                    let end = pos + d.close.count
                    if !pendingKeys.isEmpty {
                        actions.append(.reject(.malformed, detail: "a key without a value", end: end))
                    } else {
                        settle(end: end, actions: &actions)
                    }
                    if let step = endCall(at: end) { return step }
                case .found(let k) where k == d.sectionCloseIndex:
                    // The call's close is missing; the section's close ends both.
                    let end = pos + d.sectionClose!.count
                    if !pendingKeys.isEmpty {
                        actions.append(.reject(.malformed, detail: "a key without a value", end: end))
                    } else {
                        settle(end: end, actions: &actions)
                    }
                    return .finished(at: end)
                case .found(let k) where k == d.typeIndex:
                    guard !pendingKeys.isEmpty, pendingKeys[pendingKeys.count - 1].type == nil else {
                        state = .junk("a type without a key")
                        continue
                    }
                    pos += d.typeOpen!.count
                    state = .type(start: pos)
                case .found:
                    // The name separator again (after a newline that ended the name).
                    guard !emitter.hasValues && pendingKeys.isEmpty else {
                        state = .junk("unexpected text in the call")
                        continue
                    }
                    pos += d.nameSeparator!.count
                case .partial:
                    return .needMore
                case .none:
                    guard !pendingKeys.isEmpty else {
                        state = .junk("unexpected text in the call")
                        continue
                    }
                    // `<arg_value>` is missing: the value starts here.
                    beginValue(at: pos, actions: &actions)
                }
            case .key(let start):
                guard let text = readTagText(w, start: start, closeSet: d.keyCloseSet, missing: "a key without its close tag") else {
                    if case .junk = state { continue }
                    return .needMore
                }
                pendingKeys.append((key: text, type: nil))
                state = .body
            case .type(let start):
                guard let text = readTagText(w, start: start, closeSet: d.typeCloseSet!, missing: "a type without its close tag") else {
                    if case .junk = state { continue }
                    return .needMore
                }
                pendingKeys[pendingKeys.count - 1].type = text
                state = .body
            case .value(var scanner):
                switch scanner.advance(w, tags: d.valueTags, emitter: &emitter, actions: &actions) {
                case .needMore:
                    state = .value(scanner)
                    return .needMore
                case .ended(let next):
                    pos = next
                    state = .body
                }
            case .json:
                let result = jsonReader.advance(w, actions: &actions)
                pos = jsonReader.pos
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
                    pos = end
                    guard let name = call.name,
                        let arguments = call.arguments ?? (call.hasArgumentsKey ? nil : .object([])),
                        arguments.isObject
                    else {
                        state = .junk("the call object has no name or no argument object")
                        continue
                    }
                    if jsonReader.started {
                        actions.append(.accept(arguments: arguments, end: end))
                    } else {
                        let tool = context.tools?[name]
                        switch Self.typed(arguments, tool: tool) {
                        case .success(let typed):
                            if typed == arguments {
                                jsonReader.reportUnstarted(call, name: name, arguments: typed, w: w, actions: &actions)
                            } else {
                                // Typing changed a value: the delta is the typed arguments' text.
                                actions.append(.start(name: name, id: call.id))
                                actions.append(.delta(EventText(utf8: typed.bytes)))
                            }
                            actions.append(.accept(arguments: typed, end: end))
                        case .failure(let m):
                            actions.append(.start(name: name, id: call.id))
                            actions.append(.reject(.invalidArguments, detail: m.detail, end: end))
                        }
                    }
                    callsInFrame += 1
                    jsonEnd = end
                    state = .afterJSON
                }
            case .afterJSON:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, d.sectionTags.count > 1 ? [d.close, d.sectionTags[1]] : [d.close]) {
                case .found(0):
                    let end = pos + d.close.count
                    actions.append(.markup(end: end))
                    if let step = endCall(at: end) { return step }
                case .found:
                    let end = pos + d.sectionClose!.count
                    actions.append(.markup(end: end))
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    // The call's close is missing: what follows is not the call's.
                    if wrapped {
                        state = .junk("unexpected text after the call object")
                    } else {
                        return .finished(at: jsonEnd)
                    }
                }
            case .junk(let detail):
                let stops = wrapped ? d.sectionStops : d.closeSet
                switch stops.search(w, from: pos, end: w.end) {
                case .found(let k, let at):
                    let end = at + stops.markers[k].count
                    actions.append(.reject(.malformed, detail: detail, end: end))
                    // Inside a section, a malformed call ends at its own close and the section
                    // goes on.
                    if k == 0, let step = endCall(at: end) { return step }
                    if k > 0 { return .finished(at: end) }
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

    /// After a call's close at `end`: back to the section, or the frame is over.
    private mutating func endCall(at end: Int) -> GrammarStep? {
        pos = end
        callsInFrame += 1
        guard wrapped else { return .finished(at: end) }
        state = .section
        return nil
    }

    /// Reads a key's or type's text from `start` to its close tag; nil: need more bytes (or the
    /// state turned to junk: the caller goes on).
    private mutating func readTagText(_ w: ByteWindow, start: Int, closeSet: MarkerSet, missing: String) -> String? {
        let match = closeSet.search(w, from: pos, end: w.end)
        switch match {
        case .found(let k, let at) where at - start <= Self.maxKeyBytes:
            pos = at + closeSet.markers[k].count
            return trimmed(w, start..<at)
        case .found, .partial, .none:
            // Too long to be a key, whether or not its close came in this chunk: the frame is
            // junk, and the search for its end starts where the key began (at most the key cap
            // is read again), so every chunking finds the same end.
            let scanned: Int
            switch match {
            case .found(_, let at), .partial(let at): scanned = at
            case .none: scanned = w.end
            }
            guard scanned - start > Self.maxKeyBytes else {
                pos = scanned
                return nil
            }
            pos = start
            state = .junk(missing)
            return nil
        }
    }

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
                switch TagMatch.at(w, pos, d.nameEnds) {
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
        if terminator == 4 { pos += d.nameSeparator!.count }
        if text.isEmpty {
            if terminator == 3 {
                let end = pos + d.close.count
                actions.append(.markup(end: end))
                if let step = endCall(at: end) { return .some(step) }
                return .some(nil)
            }
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
            pendingKeys.append((key: key, type: nil))
            pos += d.keyClose.count
        }
        actions.append(.start(name: name, id: nil))
        tool = context.tools?[name]
        state = .body
        return .some(nil)
    }

    private mutating func beginValue(at start: Int, actions: inout [GrammarAction]) {
        let (key, type) = pendingKeys.removeFirst()
        if let type {
            emitter.beginValue(key: key, schema: Self.schema(tool?.typingSchema(forArgument: key), wire: type), actions: &actions)
        } else {
            emitter.beginValue(key: key, tool: tool, actions: &actions)
        }
        state = .value(TextValueScanner(start: start))
        pos = start
    }

    /// The schema a value is typed by when the wire names its type: the declared one, narrowed
    /// to the wire's member when it is a union that has it; the wire's type alone when the
    /// argument is not declared. A wire type that is no single JSON type (`any`,
    /// `string|null`) says nothing; `array[string]` is an array.
    static func schema(_ declared: JSONValue?, wire: String) -> JSONValue? {
        var t = wire.lowercased()
        if let bracket = t.firstIndex(of: "[") { t = String(t[..<bracket]) }
        let known = SchemaTyping.types(of: .object([(key: "type", value: .string(t))]))
        guard known.count == 1, let member = known.first,
            ["string", "integer", "number", "boolean", "null", "object", "array"].contains(member)
        else { return declared }
        let narrowed = JSONValue.object([(key: "type", value: .string(member))])
        guard let declared else { return narrowed }
        let types = SchemaTyping.types(of: declared)
        return types.count > 1 && types.contains(member) ? narrowed : declared
    }

    /// A JSON call's arguments typed by the tool's schema: a string whose declared type admits
    /// no string is typed from its text, as a text value would be.
    static func typed(_ arguments: CanonicalJSON, tool: ToolDefinition?) -> Result<CanonicalJSON, ArgumentsMismatch> {
        guard let tool, case .object(let members) = arguments.value else { return .success(arguments) }
        var out = members
        var changed = false
        var errors: [String] = []
        for (i, m) in members.enumerated() {
            guard case .string(let text) = m.value, let schema = tool.typingSchema(forArgument: m.key) else { continue }
            let types = SchemaTyping.types(of: schema)
            guard !types.isEmpty, !types.contains("string") else { continue }
            switch SchemaTyping.type(text, schema: schema) {
            case .success(let v):
                out[i].value = v
                changed = true
            case .failure(let mismatch):
                errors.append(SchemaTyping.detail(pointer: SchemaTyping.pointer(m.key), mismatch, found: text))
            }
        }
        if !errors.isEmpty {
            return .failure(ArgumentsMismatch(reason: .invalidArguments, detail: errors.joined(separator: "\n")))
        }
        return .success(changed ? CanonicalJSON.object(out) : arguments)
    }

    func passThrough(at end: Int) -> PassThrough? {
        switch state {
        case .value(let scanner):
            guard scanner.isCaughtUp(at: end), emitter.streamsString else { return nil }
            return d.valueTags.passThrough
        case .json:
            return jsonReader.passThrough(at: end)
        default:
            return nil
        }
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        switch state {
        case .value(var scanner):
            scanner.takeForwarded(count, w, emitter: &emitter)
            state = .value(scanner)
        case .json:
            jsonReader.takePassThrough(count, w)
            pos = jsonReader.pos
        default:
            preconditionFailure("takePassThrough outside a run")
        }
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .section:
            if callsInFrame == 0 {
                actions.append(.reject(.incomplete, detail: "the stream ended before a call", end: w.end))
            } else {
                actions.append(.markup(end: w.end))
            }
        case .name:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the function name", end: w.end))
        case .body:
            var rest = TagMatch.none
            if pos < w.end { rest = TagMatch.at(w, pos, [d.close] + (d.sectionClose.map { [$0] } ?? [])) }
            if pendingKeys.isEmpty && emitter.hasValues && (pos >= w.end || rest == .partial) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            }
        case .key:
            actions.append(.reject(.incomplete, detail: "the stream ended inside a key", end: w.end))
        case .type:
            actions.append(.reject(.incomplete, detail: "the stream ended inside a type", end: w.end))
        case .value(var scanner):
            if scanner.finish(w, tags: d.valueTags, emitter: &emitter, actions: &actions) && pendingKeys.isEmpty {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a value", end: w.end))
            }
        case .json:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterJSON:
            // A cut-off close after the object is the call's markup, as in every format; white
            // space alone stays text.
            if wrapped || w.skipSpace(from: jsonEnd) < w.end {
                if w.end > jsonEnd { actions.append(.markup(end: w.end)) }
            } else if w.end > jsonEnd {
                actions.append(.text(end: w.end))
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
