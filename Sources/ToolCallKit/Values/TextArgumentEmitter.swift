// ToolCallKit — streaming and typing text-valued arguments (the tagged-functions and key/value-tags families).

/// Builds one call's arguments from `key → text` pairs and streams them as `delta` JSON text.
///
/// The three text-valued formats differ only in their tags; this type does everything that
/// happens once the grammar knows "a value for `key` begins" and hands over its bytes:
///
/// - Deltas: `{` + `"key":` is emitted when a value begins; a value that is a string streams as
///   `"` + JSON-escaped fragments + `"` while its bytes arrive; any other value is emitted as
///   compact JSON when it ends; `}` closes the object. The fragments of one call concatenate to
///   JSON that parses equal to the final arguments.
/// - Typing (docs/formats.md, ``SchemaTyping``): a declared `string` streams at once; without a
///   schema a value is held only while it could still be a JSON number, `true`, `false` or
///   `null` (``ScalarProbe``), and a value starting with `{` or `[` is held to its end; a
///   `string`/`null` union is held only while it could still be `null`/`None`; any other
///   declared type is held to its end and then typed. A value that does not fit its type is
///   recorded as an `invalid_arguments` detail line and no more deltas are sent for the call.
///
/// It does not find values in the input: ``TextValueScanner`` and the grammars do.
struct TextArgumentEmitter: Sendable {
    /// How the current value is being handled.
    private enum Mode: Sendable {
        /// A string: streamed while it arrives.
        case stream
        /// Held until it ends, then typed.
        case held
        /// Held while the probe says it may still be a scalar; then streamed as a string.
        case probe(ScalarProbe)
    }

    /// The arguments' canonical text so far (no tree: see ``CanonicalJSON``).
    private var members = CanonicalWriter()
    /// The keys given so far, for a constant-time "already given?" (a call with many
    /// parameters would otherwise cost the square of their number).
    private var memberKeys: Set<String> = []
    private var errors: [String] = []
    private var began = 0
    /// After a type mismatch the call will be rejected: no more deltas.
    private var silent = false
    private var key = ""
    private var schema: JSONValue?
    private var typed = false
    private var mode: Mode = .held
    /// The current value's bytes are `[valueStart, valueEnd)` of the decoder's window, which
    /// holds the call's input until the call ends: the value is read there when it ends, never
    /// copied while it arrives (a held copy would cost the value's size once more). -1: no
    /// byte yet.
    private var valueStart = -1
    private var valueEnd = -1
    /// A held `{`/`[` value nested deeper than this is `too_large`.
    let maxDepth: Int
    private var tooDeep = false
    /// glm4: retry a `{`/`[` value with `\"` unescaped when it is not JSON as written.
    let unescapeQuotedJSON: Bool
    /// Keys of a parameter that may wrap all the arguments (``beginValue(key:tool:asString:actions:)``).
    let wrapperKeys: [String]
    /// The current value may be the whole arguments: its key prefix is held back, and these are
    /// the tool's declared parameters it must stay within.
    private var wrapperOf: Set<String>?
    private var heldPrefix: [UInt8] = []
    /// A wrapper candidate (``beginWrapperCandidate(key:asString:tool:actions:)``), boxed so
    /// that the emitter of every other call stays small: nil almost always.
    private var wrap: WrapperCandidate? = nil

    /// The first value of a call held as a possible wrapper of all the arguments. Immutable
    /// (replaced, never changed), so copies of an emitter stay independent.
    private final class WrapperCandidate: Sendable {
        let key: String
        let asString: Bool
        /// The tool whose schema the object must fit, while the value is read.
        let tool: ToolDefinition?
        /// The value's bytes, once it ended (nil while it is read).
        let bytes: [UInt8]?
        /// The arguments it stands for, when its text is an object that fits the tool.
        let unwrapped: JSONValue?

        init(key: String, asString: Bool, tool: ToolDefinition?, bytes: [UInt8]? = nil, unwrapped: JSONValue? = nil) {
            self.key = key
            self.asString = asString
            self.tool = tool
            self.bytes = bytes
            self.unwrapped = unwrapped
        }
    }

    init(maxDepth: Int = 512, unescapeQuotedJSON: Bool = false, wrapperKeys: [String] = []) {
        self.maxDepth = maxDepth
        self.unescapeQuotedJSON = unescapeQuotedJSON
        self.wrapperKeys = wrapperKeys
    }

    /// Whether any value began in this call.
    var hasValues: Bool { began > 0 }

    /// A value for `key` begins; `schema` is the argument's schema when the tool declares it.
    /// `asString`: the format marks the value as a string (DSML's `string="true"`): it is one
    /// unless the schema admits no string.
    ///
    /// The first value of a call, under one of ``wrapperKeys`` that `tool` does not declare while
    /// it declares other parameters, may be the whole arguments (models wrap them all in one
    /// `arguments` or `properties` parameter): it is held to its end, and when it is an object
    /// (JSON or its Python spelling) whose keys are all declared parameters, its members are the
    /// call's; otherwise it is an ordinary undeclared argument. Without tools nothing is unwrapped.
    mutating func beginValue(key: String, tool: ToolDefinition?, asString: Bool = false, actions: inout [GrammarAction]) {
        if began == 0, !wrapperKeys.isEmpty, wrapperKeys.contains(key), case .object(let props)? = tool?.parameters["properties"],
            !props.isEmpty, !props.contains(where: { $0.key == key })
        {
            wrapperOf = Set(props.map(\.key))
        }
        beginValue(key: key, schema: tool?.typingSchema(forArgument: key), asString: asString, actions: &actions)
    }

    /// The first value of a call, for `key`, which `tool` does not declare and in which some
    /// models wrap all the arguments (DeepSeek V3.2's `arguments` or `input`, holding a JSON
    /// object): held, nothing sent. If the call ends with it alone and its text is a JSON
    /// object whose keys fit the tool (``ToolDefinition/admits(keys:)``), that object is the
    /// arguments; otherwise (another parameter begins, or it does not fit) it is sent as the
    /// parameter it is written as.
    mutating func beginWrapperCandidate(key: String, asString: Bool, tool: ToolDefinition, actions: inout [GrammarAction]) {
        self.key = key
        schema = nil
        typed = false
        valueStart = -1
        valueEnd = -1
        began += 1
        mode = .held
        wrap = WrapperCandidate(key: key, asString: asString, tool: tool)
    }

    /// Sends the held wrapper candidate as the parameter it is written as.
    private mutating func releaseWrapper(actions: inout [GrammarAction]) {
        guard let held = wrap, let bytes = held.bytes else { return }
        wrap = nil
        if members.depth == 0 { members.beginObject() }
        var out: [UInt8] = [UInt8(ascii: "{")]
        JSONValue.writeString(held.key, to: &out)
        out.append(UInt8(ascii: ":"))
        members.key(held.key)
        let start = members.count
        if held.asString {
            members.string(utf8: bytes[...])
        } else {
            if Self.nesting(bytes) > maxDepth {
                tooDeep = true
                silent = true
            }
            SchemaTyping.untyped(ByteWindow(holding: bytes), 0..<bytes.count, into: &members)
        }
        out += members.text(from: start)
        emit(out, actions: &actions)
    }

    /// A value for `key` begins, typed by `schema` (`{"type": ...}`; nil: the no-schema rule).
    /// For formats whose wire says more than the tool's schema (Kimi K3's `type` attribute).
    mutating func beginValue(key: String, schema: JSONValue?, asString: Bool = false, actions: inout [GrammarAction]) {
        if wrap != nil { releaseWrapper(actions: &actions) }
        self.key = key
        self.schema = schema
        var types = SchemaTyping.types(of: schema)
        if asString && (types.isEmpty || types.contains("string")) { types = ["string"] }
        typed = !types.isEmpty
        valueStart = -1
        valueEnd = -1
        var prefix: [UInt8] = [UInt8(ascii: began == 0 ? "{" : ",")]
        JSONValue.writeString(key, to: &prefix)
        prefix.append(UInt8(ascii: ":"))
        began += 1
        if wrapperOf != nil {
            mode = .held
            heldPrefix = prefix
            return
        } else if types.isEmpty {
            mode = .probe(ScalarProbe(kind: .untyped))
        } else if types == ["string"] {
            mode = .stream
            prefix.append(UInt8(ascii: "\""))
        } else if types.contains("string") && types.allSatisfy({ $0 == "string" || $0 == "null" }) {
            mode = .probe(ScalarProbe(kind: .nullOnly))
        } else {
            mode = .held
        }
        emit(prefix, actions: &actions)
    }

    /// The next bytes of the current value. `[from, to)` must not end inside a UTF-8 sequence
    /// that later bytes could complete (the scanner ensures it), and must follow the bytes
    /// given before (a value is one run of the window).
    mutating func append(_ w: ByteWindow, from: Int, to: Int, actions: inout [GrammarAction]) {
        guard to > from else { return }
        extend(from: from, to: to)
        switch mode {
        case .stream:
            streamPiece(w.slice(from..<to), actions: &actions)
        case .held:
            break
        case .probe(var probe):
            var i = from
            while i < to && probe.feed(w[i]) { i += 1 }
            if i == to {
                mode = probe.isStructured ? .held : .probe(probe)
            } else {
                // It can no longer be a number or literal: a string from here on.
                mode = .stream
                emit([UInt8(ascii: "\"")], actions: &actions)
                streamPiece(w.slice(valueStart..<to), actions: &actions)
            }
        }
    }

    private mutating func extend(from: Int, to: Int) {
        if valueStart < 0 { valueStart = from }
        assert(valueEnd < 0 || valueEnd == from, "a value's bytes must be one run")
        valueEnd = to
    }

    /// Whether the current value streams as a string with deltas (forwarded bytes need no
    /// decision but escaping).
    var streamsString: Bool {
        if case .stream = mode, !silent { return true }
        return false
    }

    /// Whether a parameter `key` may begin after the current value: not the current key and not
    /// one already set; and, with `declaredOnly`, declared when `tool` declares its parameters.
    @inline(__always)
    func admitsNextKey(_ key: String, tool: ToolDefinition?, declaredOnly: Bool) -> Bool {
        guard key != self.key, !memberKeys.contains(key) else { return false }
        if declaredOnly, case .object(let props)? = tool?.parameters["properties"] {
            return props.contains { $0.key == key }
        }
        return true
    }

    /// The parameters `tool`'s schema marks `required` that this call has not given, in the
    /// schema's order. A tagged call cut off before its closing tags is a call only when this
    /// is empty: otherwise the stream ended before the parameters the tool cannot do without.
    func missingRequired(_ tool: ToolDefinition?) -> [String] {
        guard case .array(let required)? = tool?.parameters["required"] else { return [] }
        // A held wrapper whose object fits the tool holds every required property.
        if wrap?.unwrapped != nil && memberKeys.count == 1 { return [] }
        return required.compactMap { $0.stringValue }.filter { !memberKeys.contains($0) && $0 != key }
    }

    /// For a call cut off before its closing tags: nil when it may be accepted, else the
    /// `incomplete` detail naming the required parameters it lacks.
    func cutOffDetail(_ tool: ToolDefinition?) -> String? {
        let missing = missingRequired(tool)
        guard !missing.isEmpty else { return nil }
        let names = missing.map { JSONValue.string($0).jsonText }.joined(separator: ", ")
        return "the stream ended before the call's closing tags, without its required \(names)"
    }

    /// String bytes `[from, to)` of the window that the decoder already sent as a delta.
    mutating func takeForwarded(from: Int, to: Int) {
        guard to > from else { return }
        extend(from: from, to: to)
    }

    /// The current value ended; its bytes are read from `w`.
    mutating func endValue(_ w: ByteWindow, actions: inout [GrammarAction]) {
        let value: ArraySlice<UInt8> = valueStart < 0 ? [] : w.slice(valueStart..<valueEnd)
        if let held = wrap, held.bytes == nil {
            let bytes = Array(value)
            var unwrapped: JSONValue? = nil
            if Self.nesting(bytes) <= maxDepth, case .object(let members)? = try? JSONValue.parse(bytes),
                held.tool?.admits(keys: Set(members.map(\.key))) == true
            {
                unwrapped = .object(members)
            }
            wrap = WrapperCandidate(key: held.key, asString: held.asString, tool: nil, bytes: bytes, unwrapped: unwrapped)
            memberKeys.insert(key)
            return
        }
        if members.depth == 0 { members.beginObject() }
        switch mode {
        case .stream:
            emit([UInt8(ascii: "\"")], actions: &actions)
            members.key(key)
            members.reserve(value.count)
            members.string(utf8: value)
        case .held, .probe:
            if Self.nesting(value) > maxDepth {
                tooDeep = true
                silent = true
            }
            if let declared = wrapperOf {
                wrapperOf = nil
                if !tooDeep, case .success(.object(let inner)) = SchemaTyping.type(String(decoding: value, as: UTF8.self), schema: Self.objectSchema),
                    !inner.isEmpty, inner.allSatisfy({ declared.contains($0.key) }), Set(inner.map(\.key)).count == inner.count
                {
                    // The parameter wrapped the arguments: its members are the call's.
                    var out: [UInt8] = []
                    for (i, m) in inner.enumerated() {
                        out.append(UInt8(ascii: i == 0 ? "{" : ","))
                        JSONValue.writeString(m.key, to: &out)
                        out.append(UInt8(ascii: ":"))
                        m.value.write(to: &out)
                        members.key(m.key)
                        members.value(m.value)
                        memberKeys.insert(m.key)
                    }
                    emit(out, actions: &actions)
                    return
                }
                emit(heldPrefix, actions: &actions)
            }
            var raw = value
            var unescaped: [UInt8]? = nil
            if unescapeQuotedJSON, let u = Self.unescapedJSON(raw) {
                unescaped = u
                raw = u[...]
            }
            let result: Result<JSONValue, SchemaTyping.Mismatch>
            if tooDeep {
                result = .success(.null)  // the call is rejected as too_large
            } else if typed {
                result = SchemaTyping.type(String(decoding: raw, as: UTF8.self), schema: schema)
            } else {
                // Read straight into the arguments' text; the delta is a copy of it.
                members.key(key)
                let start = members.count
                members.reserve(raw.count)
                if let unescaped {
                    SchemaTyping.untyped(ByteWindow(holding: unescaped), 0..<unescaped.count, into: &members)
                } else if valueStart >= 0 {
                    SchemaTyping.untyped(w, valueStart..<valueEnd, into: &members)
                } else {
                    members.string(utf8: [])
                }
                emit(Array(members.text(from: start)), actions: &actions)
                memberKeys.insert(key)
                return
            }
            switch result {
            case .success(let v):
                var out: [UInt8] = []
                v.write(to: &out)
                emit(out, actions: &actions)
                members.key(key)
                members.value(v)
            case .failure(let m):
                let text = String(decoding: raw, as: UTF8.self)
                errors.append(SchemaTyping.detail(pointer: SchemaTyping.pointer(key), m, found: text))
                silent = true
                members.key(key)
                members.string(text)
            }
        }
        memberKeys.insert(key)
    }

    private static let objectSchema: JSONValue = .object([(key: "type", value: .string("object"))])

    /// A whole value for `key`, already typed (a nested element tree): emitted at once.
    mutating func addValue(key: String, _ value: JSONValue, actions: inout [GrammarAction]) {
        releaseWrapper(actions: &actions)
        var out: [UInt8] = [UInt8(ascii: began == 0 ? "{" : ",")]
        JSONValue.writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        value.write(to: &out)
        began += 1
        emit(out, actions: &actions)
        if members.depth == 0 { members.beginObject() }
        members.key(key)
        members.value(value)
        memberKeys.insert(key)
    }

    /// A value for `key` that does not fit its schema: the call will be `invalid_arguments`.
    mutating func addMismatch(_ detail: String) {
        errors.append(detail)
        silent = true
    }

    /// A value nested deeper than the cap: the call will be `too_large`.
    mutating func markTooDeep() {
        tooDeep = true
        silent = true
    }


    /// The call ended: its arguments, or the `invalid_arguments` detail.
    mutating func finishCall(actions: inout [GrammarAction]) -> Result<CanonicalJSON, ArgumentsMismatch> {
        if tooDeep {
            return .failure(ArgumentsMismatch(reason: .tooLarge, detail: nestingTooDeep(maxDepth)))
        }
        if !errors.isEmpty {
            return .failure(ArgumentsMismatch(reason: .invalidArguments, detail: errors.joined(separator: "\n")))
        }
        if let held = wrap, let unwrapped = held.unwrapped {
            // The call's one parameter wraps its arguments: they are the object it holds.
            wrap = nil
            let arguments = CanonicalJSON(unwrapped)
            emit(arguments.bytes, actions: &actions)
            return .success(arguments)
        }
        releaseWrapper(actions: &actions)
        if tooDeep {
            return .failure(ArgumentsMismatch(reason: .tooLarge, detail: nestingTooDeep(maxDepth)))
        }
        emit(Array((began == 0 ? "{}" : "}").utf8), actions: &actions)
        if members.depth == 0 { members.beginObject() }
        members.end()
        return .success(members.take())
    }

    private mutating func streamPiece(_ bytes: ArraySlice<UInt8>, actions: inout [GrammarAction]) {
        guard !silent else { return }
        actions.append(.delta(.jsonStringFragment(bytes)))
    }

    private func emit(_ bytes: [UInt8], actions: inout [GrammarAction]) {
        guard !silent, !bytes.isEmpty else { return }
        actions.append(.delta(EventText(utf8: bytes)))
    }

    /// The deepest `{`/`[` nesting in JSON-like text, strings skipped (a linear scan).
    static func nesting(_ b: some Collection<UInt8>) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for c in b {
            if inString {
                if escaped { escaped = false }
                else if c == UInt8(ascii: "\\") { escaped = true }
                else if c == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch c {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// ``unescapedJSONIfNeeded(_:)`` on bytes: nil when the text is kept as written. Text that
    /// does not start with `{`/`[` or holds no `\\` is passed over without a copy.
    static func unescapedJSON(_ raw: ArraySlice<UInt8>) -> [UInt8]? {
        guard let f = raw.first(where: { !JSONReader.isSpace($0) }), f == UInt8(ascii: "{") || f == UInt8(ascii: "["),
            raw.contains(UInt8(ascii: "\\"))
        else { return nil }
        let text = String(decoding: raw, as: UTF8.self)
        let result = unescapedJSONIfNeeded(text)
        return result == text ? nil : Array(result.utf8)
    }

    /// `[{\"id\": \"1\"}]` → `[{"id": "1"}]`: a `{`/`[` value that is not JSON as written but is
    /// the body of a JSON string whose content is JSON (GLM escapes its arguments once too often).
    static func unescapedJSONIfNeeded(_ raw: String) -> String {
        let t = SchemaTyping.trimSpace(raw)
        guard let f = t.utf8.first, f == UInt8(ascii: "{") || f == UInt8(ascii: "["),
            t.utf8.contains(UInt8(ascii: "\\")), CanonicalJSON.parse(Array(t.utf8)) == nil
        else { return raw }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.append(contentsOf: t.utf8)
        quoted.append(UInt8(ascii: "\""))
        guard case .string(let inner)? = try? JSONValue.parse(quoted),
            CanonicalJSON.parse(Array(inner.utf8)) != nil
        else { return raw }
        return inner
    }
}

/// The `invalid_arguments` detail of a call whose values do not fit their schema.
struct ArgumentsMismatch: Error, Sendable {
    /// `invalidArguments`, or `tooLarge` for a value nested deeper than the cap.
    var reason: RejectedToolCall.Reason
    var detail: String
}

/// Decides, byte by byte, whether a text value may still become a JSON scalar.
///
/// It accepts exactly `ws* (number | true | false | null) ws*` (untyped) or
/// `ws* (null | None) ws*` (a string/null union), so when it says no, the typing rules are
/// sure to give a string whatever follows. A value starting with `{` or `[` is structured
/// (untyped only): held to its end.
struct ScalarProbe: Sendable {
    enum Kind: Sendable { case untyped, nullOnly }
    private enum Phase: Sendable {
        case lead
        case number(Num)
        case word(index: Int, matched: Int)
        case trail
        case structured
    }
    private enum Num: Sendable { case sign, zero, int, dot, frac, exp, expSign, expDigits }

    private static let untypedWords: [[UInt8]] = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]
    private static let nullWords: [[UInt8]] = [Array("null".utf8), Array("None".utf8)]

    let kind: Kind
    private var phase: Phase = .lead

    init(kind: Kind) { self.kind = kind }

    var isStructured: Bool {
        if case .structured = phase { return true }
        return false
    }

    private var words: [[UInt8]] { kind == .untyped ? Self.untypedWords : Self.nullWords }

    /// Feeds one byte; false when the value can no longer be a scalar.
    mutating func feed(_ b: UInt8) -> Bool {
        let space = JSONReader.isSpace(b)
        let digit = b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
        switch phase {
        case .structured:
            return true
        case .lead:
            if space { return true }
            if kind == .untyped {
                if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                    phase = .structured
                    return true
                }
                if b == UInt8(ascii: "-") {
                    phase = .number(.sign)
                    return true
                }
                if digit {
                    phase = .number(b == UInt8(ascii: "0") ? .zero : .int)
                    return true
                }
            }
            for (k, word) in words.enumerated() where word[0] == b {
                phase = .word(index: k, matched: 1)
                return true
            }
            return false
        case .word(let k, let matched):
            let word = words[k]
            if matched == word.count {
                guard space else { return false }
                phase = .trail
                return true
            }
            guard word[matched] == b else { return false }
            phase = .word(index: k, matched: matched + 1)
            return true
        case .trail:
            return space
        case .number(let n):
            let e = b | 0x20 == UInt8(ascii: "e")
            let next: Num?
            switch n {
            case .sign: next = digit ? (b == UInt8(ascii: "0") ? .zero : .int) : nil
            case .zero: next = b == UInt8(ascii: ".") ? .dot : (e ? .exp : nil)
            case .int: next = digit ? .int : (b == UInt8(ascii: ".") ? .dot : (e ? .exp : nil))
            case .dot: next = digit ? .frac : nil
            case .frac: next = digit ? .frac : (e ? .exp : nil)
            case .exp: next = digit ? .expDigits : (b == UInt8(ascii: "+") || b == UInt8(ascii: "-") ? .expSign : nil)
            case .expSign: next = digit ? .expDigits : nil
            case .expDigits: next = digit ? .expDigits : nil
            }
            if let next {
                phase = .number(next)
                return true
            }
            if space, n == .zero || n == .int || n == .frac || n == .expDigits {
                phase = .trail
                return true
            }
            return false
        }
    }
}

/// Finds the end of one text value in the input and feeds its bytes to a ``TextArgumentEmitter``.
///
/// A value ends at a `close` tag (`</parameter>`) that is confirmed by what follows it, or at a
/// `break` tag that begins the next element when the close tag is missing (`<parameter=`,
/// `</function>`). **The close rule** (linear time, bounded holdback): a close tag ends the value
/// only when, after at most 256 bytes of white space, one of the `follows` tags (or the end of
/// the stream) comes next; otherwise the close tag and the white space are part of the value,
/// and scanning goes on after them. So a value may contain `</parameter>` literally, and
/// nothing is held back beyond the close tag, 256 bytes of white space and a partial tag.
///
/// With `stripNewlines`, exactly one leading and one trailing `\n` are not part of the value.
///
/// **Layout before a break.** When a break tag ends the value (its close tag is missing), the
/// line break and indentation before the tag are layout, not value: the templates put each tag
/// on a line of its own, so a model that leaves the close tag out still ends the value's line
/// (`--5\n  </invoke>` is `--5`). The layout is the value's trailing run of white space from the
/// run's first line break (`\n` or `\r`), when that is at most ``maxLayout`` bytes long (a
/// longer run is data, as is trailing white space on the value's own line and everything before
/// a close tag). So the scanner holds back such a run while it is open: at most ``maxLayout``
/// bytes, and no byte is looked at twice to find it.
struct TextValueScanner: Sendable {
    /// The tags that end a value, for one format.
    struct Tags: Sendable {
        let close: [UInt8]
        let follows: [[UInt8]]
        /// Tags that end a value whose close tag is missing.
        let breaks: [[UInt8]]
        let stripNewlines: Bool
        /// A value may be one `<![CDATA[…]]>` section, as a whole (MiniCPM5 wraps a value that
        /// holds `<`, `&` or a newline in one): inside it only `]]>` followed by the close tag
        /// (or a tag that stands for it) ends the value; the section's markers are not data.
        let cdata: Bool
        /// Openers and closers of the format's own markup quoted inside a value (a file that
        /// holds a call): while one is open, every tag is data.
        let nestOpens: [[UInt8]]
        let nestCloses: [[UInt8]]
        /// For each opener, the tags that confirm it (``TextValueScanner`` explains the rule).
        let nestConfirmers: [[[UInt8]]]
        /// Close tag at index 0, then the breaks, then the nest openers and closers.
        let inValue: MarkerSet
        /// The bytes of a streamed value the decoder may forward itself.
        let passThrough: PassThrough

        init(close: String, follows: [String], breaks: [String], stripNewlines: Bool, cdata: Bool = false,
             nests: [(open: String, close: String, confirmedBy: [String])] = []) {
            precondition(!(cdata && stripNewlines), "a CDATA value is taken exactly as written")
            self.close = Array(close.utf8)
            self.follows = follows.map { Array($0.utf8) }
            self.breaks = breaks.map { Array($0.utf8) }
            self.stripNewlines = stripNewlines
            self.cdata = cdata
            self.nestOpens = nests.map { Array($0.open.utf8) }
            self.nestCloses = nests.map { Array($0.close.utf8) }
            self.nestConfirmers = nests.map { $0.confirmedBy.map { Array($0.utf8) } }
            self.inValue = MarkerSet([self.close] + self.breaks + nestOpens + nestCloses)
            self.passThrough = .textValue(tags: inValue.markers + (cdata ? [TextValueScanner.cdataClose] : []))
        }
    }

    static let cdataOpen = Array("<![CDATA[".utf8)
    static let cdataClose = Array("]]>".utf8)
    private static let cdataCloseSet = MarkerSet([cdataClose])

    /// What a tag met inside a value is: structure that ends the value, data, or not yet known.
    enum Verdict: Sendable {
        case structure
        case data
        /// More bytes are needed to tell (a bounded look-ahead).
        case undecided
    }

    /// Every tag is structure (the formats that need no judgement).
    struct TagsAreStructure: TagJudge {
        func verdict(_ w: ByteWindow, _ tag: [UInt8], _ at: Int, _ isFinal: Bool, _ afterClose: Bool,
                     _ emitter: TextArgumentEmitter) -> Verdict { .structure }
    }

    enum Outcome: Sendable {
        case needMore
        /// The value ended; the grammar resumes at `next`.
        case ended(next: Int)
    }

    static let maxSpaceAfterClose = 256
    /// The longest layout before a break tag (from the first line break of the trailing white
    /// space to the tag).
    static let maxLayout = 256

    private var start: Int
    private var pos: Int
    private var emitted: Int
    private var leadChecked = false
    private var pendingClose: Int?
    /// How many quoted blocks of the format's markup are open inside the value.
    private var nesting: Int32 = 0
    /// The value's bytes before this were checked for trailing white space.
    private var spaceChecked: Int
    /// The first line break of the white space that ends the bytes checked so far (-1 when
    /// they end with another byte, or with white space that holds no line break; not an
    /// optional, which would make the scanner, an enum payload copied at every step, larger).
    private var runBreak = -1
    /// The value is a CDATA section (its opener skipped): only `]]>` may end it.
    private var inCDATA = false

    init(start: Int) {
        self.start = start
        self.pos = start
        self.emitted = start
        self.spaceChecked = start
    }

    /// Everything up to `end` was scanned and handed to the emitter, no close tag is pending
    /// and no white space run with a line break is open: the next plain bytes are value bytes
    /// (``PassThrough/textValue(tags:)``; they hold no line break, which stops a run).
    func isCaughtUp(at end: Int) -> Bool {
        leadChecked && pendingClose == nil && runBreak < 0 && pos == end && emitted == end
    }

    /// Takes `count` value bytes that the decoder forwarded: hands them to `emitter` as read.
    mutating func takeForwarded(_ count: Int, _ w: ByteWindow, emitter: inout TextArgumentEmitter) {
        emitter.takeForwarded(from: pos, to: pos + count)
        pos += count
        emitted = pos
        spaceChecked = pos
    }

    /// Brings ``runBreak`` up to `end`: looks back from `end` over the new bytes only, to the
    /// last byte that is no white space.
    private mutating func checkSpace(_ w: ByteWindow, upTo end: Int) {
        guard end > spaceChecked else { return }
        var i = end
        var firstBreak = -1
        while i > spaceChecked {
            let b = w[i - 1]
            guard JSONReader.isSpace(b) else {
                runBreak = firstBreak  // the run begins after this byte
                spaceChecked = end
                return
            }
            i -= 1
            if b == 0x0A || b == 0x0D { firstBreak = i }
        }
        // Every new byte is white space: the run goes on.
        if runBreak < 0 { runBreak = firstBreak }
        spaceChecked = end
    }

    /// Where the layout before `end` begins (``maxLayout``), or `end` when there is none.
    private func layoutStart(before end: Int) -> Int {
        guard runBreak >= 0, end - runBreak <= Self.maxLayout else { return end }
        return runBreak
    }

    /// Scans what arrived; feeds value bytes to `emitter`.
    mutating func advance(
        _ w: ByteWindow, tags: Tags, emitter: inout TextArgumentEmitter, actions: inout [GrammarAction],
        judge: some TagJudge = TagsAreStructure()
    ) -> Outcome {
        if !leadChecked {
            guard start < w.end else { return .needMore }
            if tags.cdata {
                switch TagMatch.at(w, start, [Self.cdataOpen]) {
                case .found:
                    inCDATA = true
                    start += Self.cdataOpen.count
                case .partial: return .needMore
                case .none: break
                }
            } else if tags.stripNewlines && w[start] == 0x0A {
                start += 1
            }
            pos = start
            emitted = start
            spaceChecked = start
            leadChecked = true
        }
        if inCDATA { return advanceCDATA(w, tags: tags, emitter: &emitter, actions: &actions) }
        while true {
            if let c = pendingClose {
                let afterTag = c + tags.close.count
                while pos < w.end && JSONReader.isSpace(w[pos]) && pos - afterTag < Self.maxSpaceAfterClose {
                    pos += 1
                }
                if pos - afterTag >= Self.maxSpaceAfterClose {
                    return end(at: c, next: pos, w, tags: tags, emitter: &emitter, actions: &actions)
                }
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, tags.follows) {
                case .found(let k):
                    switch judge.verdict(w, tags.follows[k], pos, false, true, emitter) {
                    case .structure:
                        return end(at: c, next: pos, w, tags: tags, emitter: &emitter, actions: &actions)
                    case .undecided:
                        return .needMore
                    case .data:
                        pendingClose = nil  // the close tag was data; go on scanning at pos
                    }
                case .partial:
                    return .needMore
                case .none:
                    pendingClose = nil  // the close tag was data; go on scanning at pos
                }
            }
            switch tags.inValue.search(w, from: pos, end: w.end) {
            case .found(let k, let at):
                let tag = tags.inValue.markers[k]
                if nesting > 0 || k > tags.breaks.count {
                    // Quoted markup: a confirmed opener nests, its closer unnests; all of it
                    // is data.
                    if tags.nestCloses.contains(tag) && nesting > 0 {
                        nesting -= 1
                    } else if let o = tags.nestOpens.firstIndex(of: tag) {
                        switch Self.confirms(w, after: at + tag.count, named: tag.last != UInt8(ascii: ">"), by: tags.nestConfirmers[o],
                                             isFinal: false, judge: nesting == 0 ? judge : nil, emitter: emitter) {
                        case .some(true): nesting += 1
                        case .some(false): break
                        case .none:
                            flush(w, upTo: at, tags: tags, emitter: &emitter, actions: &actions)
                            pos = at
                            return .needMore
                        }
                    }
                    pos = at + tag.count
                    continue
                }
                if k == 0 {
                    flush(w, upTo: at, tags: tags, emitter: &emitter, actions: &actions)
                    pendingClose = at
                    pos = at + tags.close.count
                } else {
                    switch judge.verdict(w, tags.breaks[k - 1], at, false, false, emitter) {
                    case .structure:
                        return end(atBreak: at, w, tags: tags, emitter: &emitter, actions: &actions)
                    case .undecided:
                        // Hold the tag back until the look-ahead can tell.
                        flush(w, upTo: at, tags: tags, emitter: &emitter, actions: &actions)
                        pos = at
                        return .needMore
                    case .data:
                        pos = at + 1  // the tag's bytes stay in the value
                    }
                }
            case .partial(let at):
                flush(w, upTo: at, tags: tags, emitter: &emitter, actions: &actions)
                pos = at
                return .needMore
            case .none:
                flush(w, upTo: w.end, tags: tags, emitter: &emitter, actions: &actions)
                pos = w.end
                return .needMore
            }
        }
    }

    /// Inside a CDATA section: `]]>` ends the value when, after at most 256 bytes of white
    /// space, the close tag or a tag that stands for a missing one follows; otherwise it is data.
    private mutating func advanceCDATA(
        _ w: ByteWindow, tags: Tags, emitter: inout TextArgumentEmitter, actions: inout [GrammarAction]
    ) -> Outcome {
        while true {
            switch Self.cdataCloseSet.search(w, from: pos, end: w.end) {
            case .found(_, let at):
                flush(w, upTo: at, tags: tags, emitter: &emitter, actions: &actions)
                let after = at + Self.cdataClose.count
                var p = after
                while p < w.end && JSONReader.isSpace(w[p]) && p - after < Self.maxSpaceAfterClose { p += 1 }
                if p - after >= Self.maxSpaceAfterClose {
                    pos = p
                    continue
                }
                guard p < w.end else {
                    pos = at
                    return .needMore
                }
                switch TagMatch.at(w, p, [tags.close] + tags.breaks) {
                case .found(0):
                    return end(at: at, next: p + tags.close.count, w, tags: tags, emitter: &emitter, actions: &actions)
                case .found:
                    return end(at: at, next: p, w, tags: tags, emitter: &emitter, actions: &actions)
                case .partial:
                    pos = at
                    return .needMore
                case .none:
                    pos = after  // `]]>` inside the section: data
                }
            case .partial(let at):
                flush(w, upTo: at, tags: tags, emitter: &emitter, actions: &actions)
                pos = at
                return .needMore
            case .none:
                flush(w, upTo: w.end, tags: tags, emitter: &emitter, actions: &actions)
                pos = w.end
                return .needMore
            }
        }
    }

    /// The longest name a quoted function opener may have before its `>`, and the most white
    /// space before the tag that confirms an opener: the look-ahead is bounded.
    static let maxQuotedName = 512
    static let maxSpaceBeforeConfirmer = 64

    /// Whether a quoted opener whose tag ends before `p` is confirmed: after its name up to `>`
    /// (`named`: a function opener such as `<function=`), and white space, comes one of the tags
    /// that may follow it (a function opener after a wrapper; a parameter or the function's
    /// close after a function). Only a confirmed opener nests: a lone `<tool_call>` mentioned
    /// in a value is data and never changes how the value's own `</parameter>` reads. nil
    /// while the received bytes cannot tell.
    ///
    /// At the value's own level, `judge` may refuse a confirming tag
    /// (``TagJudge/confirmsNest(_:_:_:_:_:)``): a parameter opener that continues the current
    /// call confirms no quoted opener before it.
    static func confirms<J: TagJudge>(_ w: ByteWindow, after p: Int, named: Bool, by confirmers: [[UInt8]], isFinal: Bool,
                                      judge: J?, emitter: TextArgumentEmitter) -> Bool? {
        var i = p
        if named {
            while true {
                guard i < w.end else { return isFinal ? false : nil }
                let b = w[i]
                if b == UInt8(ascii: ">") { break }
                if b == UInt8(ascii: "<") || b == 0x0A || i - p >= maxQuotedName { return false }
                i += 1
            }
            i += 1
        }
        let spaceStart = i
        while i < w.end && JSONReader.isSpace(w[i]) {
            if i - spaceStart >= maxSpaceBeforeConfirmer { return false }
            i += 1
        }
        guard i < w.end else { return isFinal ? false : nil }
        switch TagMatch.at(w, i, confirmers, isFinal: isFinal) {
        case .found(let k):
            guard let judge else { return true }
            return judge.confirmsNest(w, confirmers[k], i, isFinal, emitter)
        case .partial: return isFinal ? false : nil
        case .none: return false
        }
    }

    /// End of stream inside the value: true when a close tag had already ended it.
    mutating func finish(
        _ w: ByteWindow, tags: Tags, emitter: inout TextArgumentEmitter, actions: inout [GrammarAction],
        judge: some TagJudge = TagsAreStructure()
    ) -> Bool {
        if let c = pendingClose {
            _ = end(at: c, next: w.end, w, tags: tags, emitter: &emitter, actions: &actions)
            return true
        }
        if inCDATA {
            // Ended only by `]]>` with nothing but white space or a cut-off close tag after it.
            guard case .found(_, let at) = Self.cdataCloseSet.search(w, from: pos, end: w.end) else { return false }
            var p = at + Self.cdataClose.count
            while p < w.end && JSONReader.isSpace(w[p]) { p += 1 }
            guard p == w.end || TagMatch.at(w, p, [tags.close]) == .partial else { return false }
            _ = end(at: at, next: w.end, w, tags: tags, emitter: &emitter, actions: &actions)
            return true
        }
        // A tag held back as undecided may be structure now that nothing follows it.
        if leadChecked, nesting == 0, pos < w.end, case .found(let k, let at) = tags.inValue.search(w, from: pos, end: w.end),
            k > 0, k <= tags.breaks.count, at == pos, judge.verdict(w, tags.breaks[k - 1], at, true, false, emitter) == .structure
        {
            _ = end(atBreak: at, w, tags: tags, emitter: &emitter, actions: &actions)
            return true
        }
        return false
    }

    /// Ends the value at a break tag at `at` (its close tag is missing): the layout before the
    /// tag is not the value's.
    private mutating func end(
        atBreak at: Int, _ w: ByteWindow, tags: Tags, emitter: inout TextArgumentEmitter, actions: inout [GrammarAction]
    ) -> Outcome {
        checkSpace(w, upTo: at)
        let valueEnd = max(layoutStart(before: at), emitted)
        return end(at: valueEnd, next: at, w, tags: tags, emitter: &emitter, actions: &actions)
    }

    private mutating func end(
        at valueEnd: Int, next: Int, _ w: ByteWindow, tags: Tags, emitter: inout TextArgumentEmitter,
        actions: inout [GrammarAction]
    ) -> Outcome {
        var e = valueEnd
        if tags.stripNewlines && e > start && w[e - 1] == 0x0A { e -= 1 }
        if e > emitted { emitter.append(w, from: emitted, to: e, actions: &actions) }
        emitted = max(emitted, e)
        emitter.endValue(w, actions: &actions)
        pendingClose = nil
        return .ended(next: next)
    }

    private mutating func flush(
        _ w: ByteWindow, upTo: Int, tags: Tags, emitter: inout TextArgumentEmitter, actions: inout [GrammarAction]
    ) {
        guard upTo > emitted else { return }
        var e = UTF8Boundary.safeEnd(w, start: emitted, end: upTo)
        // Held back: a run that may yet be layout before a break (it covers the one newline
        // that `stripNewlines` holds before a close tag).
        checkSpace(w, upTo: e)
        e = layoutStart(before: e)
        if tags.stripNewlines && e > emitted && w[e - 1] == 0x0A { e -= 1 }
        guard e > emitted else { return }
        emitter.append(w, from: emitted, to: e, actions: &actions)
        emitted = e
    }
}

/// The grammar's judgement of a tag inside a value (`tag` at `at`; `isFinal` at the end of the
/// stream; `afterClose` when it follows a close tag, else it stands for a missing one), given
/// the call's arguments so far (a generic parameter, so judging allocates nothing).
protocol TagJudge {
    func verdict(_ w: ByteWindow, _ tag: [UInt8], _ at: Int, _ isFinal: Bool, _ afterClose: Bool,
                 _ emitter: TextArgumentEmitter) -> TextValueScanner.Verdict
    /// Whether `tag` at `at`, found right after a quoted opener, confirms it (nil: more bytes
    /// needed). By default every confirming tag does.
    func confirmsNest(_ w: ByteWindow, _ tag: [UInt8], _ at: Int, _ isFinal: Bool, _ emitter: TextArgumentEmitter) -> Bool?
}

extension TagJudge {
    func confirmsNest(_ w: ByteWindow, _ tag: [UInt8], _ at: Int, _ isFinal: Bool, _ emitter: TextArgumentEmitter) -> Bool? {
        true
    }
}

/// Whether one of a few tags sits exactly at a position.
enum TagMatch: Equatable {
    case found(Int)
    /// The received bytes end inside a possible tag.
    case partial
    case none

    static func at(_ w: ByteWindow, _ pos: Int, _ tags: [[UInt8]], isFinal: Bool = false) -> TagMatch {
        var partial = false
        for (k, t) in tags.enumerated() {
            let n = min(t.count, w.end - pos)
            var j = 0
            while j < n && w[pos + j] == t[j] { j += 1 }
            if j == t.count { return .found(k) }
            if j == n && !isFinal { partial = true }
        }
        return partial ? .partial : .none
    }
}
