// ToolCallKit — how a format lays out its calls, declared as data: what the grammar exporter
// reads, and what the tests check against the format's renderer and parser.

/// The canonical layout of a format's calls: the bytes its renderer writes, piece by piece.
///
/// A *block* is what one start marker opens: a section holding a list of calls (Kimi's
/// `<|tool_calls_section_begin|>`, LFM2's `<|tool_call_start|>[`), or a single call for formats
/// whose every call has its own frame (`json`'s `<tool_call>`). Text stands before, between and
/// after blocks. Each format's file declares its layout next to its grammar and renderer, built
/// from the same marker constants, and the tests hold the three together: the layout's own
/// writer (``write(_:)``) must give the renderer's bytes, and every output of the exported
/// grammar must decode as accepted calls.
public struct CallLayout: Sendable {
    /// One piece of a layout.
    enum Piece: Sendable {
        /// Markup bytes (a special token when the model's vocabulary has the text as one).
        case markup(String)
        /// The function name, spelt as the format writes it.
        case name(Spelling)
        /// The position of the call in its block (Kimi K2's `functions.f:0`, Kimi K3's
        /// `index="1"`): any digits in the grammar, counted from `from` by the writer.
        case index(from: Int)
        /// An id the model may write (Mistral's `[CALL_ID]` + 9 letters and digits): optional in
        /// the grammar, written when the call carries one of this shape.
        case optionalID(prefix: String, length: Int)
        /// A quoted id that the layout always writes (Cohere's `tool_call_id`): a JSON string of
        /// letters, digits, `_` and `-`; the writer uses the call's id or its position.
        case quotedID
        /// `prefix` and the call's id as a JSON string, when the call has one (Mistral Small
        /// 3.1's `, "id": "..."`): optional in the grammar (letters, digits, `_` and `-`).
        case optionalQuotedID(prefix: String)
        /// The arguments.
        case arguments(Arguments)
    }

    /// How a name or key is spelt.
    enum Spelling: Sendable {
        /// As it is.
        case bare
        /// A JSON string.
        case jsonString
        /// An XML attribute value with `&` and `"` escaped (Kimi K3).
        case attribute
    }

    /// How the arguments are written.
    enum Arguments: Sendable {
        /// One JSON object.
        case json
        /// Python keyword arguments `key=value, ...` (strings, lists and scalars as Python
        /// literals; an object value as JSON, as the templates write it).
        case python
        /// Python keyword arguments as LFM2.5's template writes them: a string argument between
        /// `'` quotes with nothing escaped, an object as JSON, anything else as Python's `str()`.
        case pythonVerbatim
        /// A Gemma object `{key:value,...}` in a Gemma style (delimiter, key order, null).
        case gemma(CallRenderer.GemmaStyle)
        /// One tagged parameter per argument.
        case tagged(TaggedArguments)
    }

    /// Tagged parameters: `open` (with the key) + the value's text + `close`, per argument in
    /// the schema's order.
    struct TaggedArguments: Sendable {
        /// The pieces before the value; `.key` pieces stand for the argument's key.
        var open: [ParameterPiece]
        /// The markup after the value (`.key` pieces stand for the key: MiniMax M3 closes a
        /// parameter with its key).
        var close: [ParameterPiece]
        /// Strings a value's text never holds in the grammar (the format's tags: a value that
        /// quoted one could be read as structure).
        var valueExcludes: [String]
        /// The parser strips one newline at each end of a value beyond what the layout writes
        /// around it: the grammar writes values that neither begin nor end with one. No
        /// built-in format does since issue 32 (each strips only what its template writes).
        var stripsNewlines: Bool
        /// How a value that is not a string is spelt.
        var values: TaggedValues = .json
        /// A string that holds `<`, `&` or a newline is written as one `<![CDATA[…]]>` section,
        /// any other raw (MiniCPM5's template); the grammar admits a section for any string.
        var cdata: Bool = false
        /// The value's text is XML character data (cohere_xml): the writer escapes `&`, `<` and
        /// `>` as entities, as the renderer does, and the parser decodes them.
        var escapesXML = false

        /// Whether the layout writes `s` as a CDATA section.
        func writesCDATA(_ s: String) -> Bool {
            cdata && s.utf8.contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") || $0 == 0x0A }
        }
    }

    /// How a tagged format writes a value that is not a string (a string is its raw text).
    enum TaggedValues: Sendable {
        /// JSON.
        case json
        /// Booleans and null as Python's `True`, `False`, `None`; objects, arrays and numbers as
        /// JSON (Qwen3-Coder's and Qwen3.5's templates: `| string` for scalars).
        case pythonScalars
        /// Python's `str()`: `True`, `None`, lists and dicts as their `repr` (Seed-OSS's template).
        case pythonStr

        /// Whether `value` (not a string) is written as Python's `str()` rather than JSON.
        func writesPython(_ value: JSONValue) -> Bool {
            switch (self, value) {
            case (.pythonStr, _), (.pythonScalars, .null), (.pythonScalars, .bool): return true
            default: return false
            }
        }

        /// Whether a value of JSON type `type` is written as Python's `str()` rather than JSON.
        func writesPython(type: String) -> Bool {
            switch self {
            case .json: return false
            case .pythonScalars: return type == "boolean" || type == "null"
            case .pythonStr: return true
            }
        }
    }

    enum ParameterPiece: Sendable {
        /// Markup bytes.
        case markup(String)
        case key(Spelling)
        /// DSML's `string` attribute: `true` for a string value, `false` for any other.
        case stringFlag
        /// Kimi K3's `type` attribute: the value's JSON type (`number` for integers).
        case typeName
    }

    /// The start marker that opens a block (the grammar's trigger).
    let trigger: String
    /// The block's pieces before its first call (after the trigger, which is written first).
    let open: [Piece]
    /// One call.
    let call: [Piece]
    /// Between two calls of one block.
    let separator: String
    /// After the last call of a block.
    let close: [Piece]
    /// Whether each call is a block of its own (the block is one call, calls are separated by
    /// text), rather than a list of calls in one block.
    let oneCallPerBlock: Bool
    /// Whether a block ends the message, so that nothing follows it (Kimi K3).
    let endsMessage: Bool
    /// Whether, at the very start of the output, a block may be written without its trigger
    /// (Llama 3's bare call object; `open` then begins the block).
    let bareAtStart: Bool
    /// Whether the model's template writes the content after the calls (Gemma 4), so that text
    /// may follow the last block even when one call is allowed.
    let textAfter: Bool
    /// How text at the very start of the output is written, where the format reads the first
    /// line its own way (nil: like any text).
    let startText: StartText?

    /// Text at the very start of the output of a format that reads the first line as a header
    /// (Functionary: the prompt wrote the first `>>>`, so a first line of name characters names
    /// a recipient). Such text begins with `header` (the template's `all\n`), or its first line
    /// holds, after name characters only (`name`), one of `plain`, which no header holds. This,
    /// and a bare block (``bareAtStart``), hold only at the very start: after a reasoning block
    /// the text is like any text.
    struct StartText: Sendable {
        var header: String
        var name: CharacterClass
        var plain: CharacterClass
    }

    init(
        trigger: String, open: [Piece] = [], call: [Piece], separator: String = "", close: [Piece] = [],
        oneCallPerBlock: Bool = false, endsMessage: Bool = false, bareAtStart: Bool = false, textAfter: Bool = false,
        startText: StartText? = nil
    ) {
        self.trigger = trigger
        self.open = open
        self.call = call
        self.separator = separator
        self.close = close
        self.oneCallPerBlock = oneCallPerBlock
        self.endsMessage = endsMessage
        self.bareAtStart = bareAtStart
        self.textAfter = textAfter
        self.startText = startText
    }

    /// A format whose calls are each a block: `trigger` + the call's pieces.
    static func perCall(_ trigger: String, _ call: [Piece], textAfter: Bool = false) -> CallLayout {
        CallLayout(trigger: trigger, call: call, oneCallPerBlock: true, textAfter: textAfter)
    }

    // MARK: - Writing

    /// Writes `calls` by the layout (no text): each call its own block, or one block holding
    /// them all. The tests compare this with the format's renderer.
    func write(_ calls: [RenderedCall]) -> [UInt8] {
        var out: [UInt8] = []
        if oneCallPerBlock {
            for (i, c) in calls.enumerated() {
                out += Array(trigger.utf8)
                write(call, c, position: i, to: &out)
            }
            return out
        }
        out += Array(trigger.utf8)
        for p in open { write(p, nil, position: 0, to: &out) }
        for (i, c) in calls.enumerated() {
            if i > 0 { out += Array(separator.utf8) }
            write(call, c, position: i, to: &out)
        }
        for p in close { write(p, nil, position: 0, to: &out) }
        return out
    }

    private func write(_ pieces: [Piece], _ c: RenderedCall, position: Int, to out: inout [UInt8]) {
        for p in pieces { write(p, c, position: position, to: &out) }
    }

    private func write(_ p: Piece, _ c: RenderedCall?, position: Int, to out: inout [UInt8]) {
        switch p {
        case .markup(let s):
            out += Array(s.utf8)
        case .name(let spelling):
            if let c { Self.spell(c.name, spelling, to: &out) }
        case .index(let from):
            out += Array(String(position + from).utf8)
        case .optionalID(let prefix, let length):
            if let id = c?.id, id.utf8.count == length, id.utf8.allSatisfy(CallRenderer.isASCIIAlphanumeric) {
                out += Array(prefix.utf8) + Array(id.utf8)
            }
        case .quotedID:
            JSONValue.writeString(c?.id ?? String(position), to: &out)
        case .optionalQuotedID(let prefix):
            if let id = c?.id, !id.isEmpty {
                out += Array(prefix.utf8)
                JSONValue.writeString(id, to: &out)
            }
        case .arguments(let a):
            guard let c else { return }
            write(a, c.arguments, to: &out)
        }
    }

    static func spell(_ s: String, _ spelling: Spelling, to out: inout [UInt8]) {
        switch spelling {
        case .bare: out += Array(s.utf8)
        case .jsonString: JSONValue.writeString(s, to: &out)
        case .attribute:
            for b in s.utf8 {
                switch b {
                case UInt8(ascii: "&"): out += Array("&amp;".utf8)
                case UInt8(ascii: "\""): out += Array("&quot;".utf8)
                default: out.append(b)
                }
            }
        }
    }

    private func write(_ a: Arguments, _ arguments: JSONValue, to out: inout [UInt8]) {
        switch a {
        case .json:
            CallRenderer.writeTemplateJSON(arguments, to: &out)
        case .python:
            for (k, m) in (arguments.objectValue ?? []).enumerated() {
                if k > 0 { out += Array(", ".utf8) }
                out += Array(m.key.utf8) + [UInt8(ascii: "=")]
                if m.value.isObject { CallRenderer.writeTemplateJSON(m.value, to: &out) } else { CallRenderer.writePython(m.value, to: &out) }
            }
        case .pythonVerbatim:
            for (k, m) in (arguments.objectValue ?? []).enumerated() {
                if k > 0 { out += Array(", ".utf8) }
                out += Array(m.key.utf8) + [UInt8(ascii: "=")]
                switch m.value {
                case .string(let s): out += [UInt8(ascii: "'")] + Array(s.utf8) + [UInt8(ascii: "'")]
                case .object: CallRenderer.writeTemplateJSON(m.value, to: &out)
                default: CallRenderer.writePythonRepr(m.value, to: &out)
                }
            }
        case .gemma(let style):
            CallRenderer.writeGemma(arguments, style, to: &out)
        case .tagged(let t):
            for m in arguments.objectValue ?? [] {
                for p in t.open {
                    switch p {
                    case .markup(let s): out += Array(s.utf8)
                    case .key(let spelling): Self.spell(m.key, spelling, to: &out)
                    case .stringFlag: out += Array((m.value.stringValue != nil ? "true" : "false").utf8)
                    case .typeName: out += Array(CallRenderer.schemaType(of: m.value).utf8)
                    }
                }
                var value: [UInt8]
                if t.escapesXML {
                    var text: [UInt8] = []
                    if case .string(let s) = m.value { text = Array(s.utf8) } else { CallRenderer.writeTemplateJSON(m.value, to: &text) }
                    value = []
                    for b in text {
                        switch b {
                        case UInt8(ascii: "&"): value += Array("&amp;".utf8)
                        case UInt8(ascii: "<"): value += Array("&lt;".utf8)
                        case UInt8(ascii: ">"): value += Array("&gt;".utf8)
                        default: value.append(b)
                        }
                    }
                } else if case .string(let s) = m.value {
                    value = t.writesCDATA(s) ? TextValueScanner.cdataOpen + Array(s.utf8) + TextValueScanner.cdataClose : Array(s.utf8)
                } else if t.values.writesPython(m.value) {
                    value = []
                    CallRenderer.writePythonRepr(m.value, to: &value)
                    if t.valueExcludes.contains(where: { CallRenderer.firstIndex(of: Array($0.utf8), in: value) != nil }) {
                        value = ValueGrammar.escapeExcludedPython(value, "<")
                    }
                } else {
                    value = []
                    CallRenderer.writeTemplateJSON(m.value, to: &value)
                    if t.valueExcludes.contains(where: { CallRenderer.firstIndex(of: Array($0.utf8), in: value) != nil }) {
                        value = ValueGrammar.escapeExcluded(value, "<")
                    }
                }
                if t.stripsNewlines {
                    if value.first == 0x0A { value.insert(0x0A, at: 0) }
                    if value.last == 0x0A { value.append(0x0A) }
                }
                out += value + Array(t.closeText(m.key).utf8)
            }
        }
    }
}

extension CallLayout.TaggedArguments {
    /// The close after the value of `key`.
    func closeText(_ key: String) -> String {
        var out: [UInt8] = []
        for p in close {
            switch p {
            case .markup(let s): out += Array(s.utf8)
            case .key(let spelling): CallLayout.spell(key, spelling, to: &out)
            case .stringFlag, .typeName: break
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    init(open: [CallLayout.ParameterPiece], close: String, valueExcludes: [String], stripsNewlines: Bool,
         values: CallLayout.TaggedValues = .json, cdata: Bool = false) {
        self.open = open
        self.close = [.markup(close)]
        self.valueExcludes = valueExcludes
        self.stripsNewlines = stripsNewlines
        self.values = values
        self.cdata = cdata
    }

    init(open: [CallLayout.ParameterPiece], closing: [CallLayout.ParameterPiece], valueExcludes: [String], stripsNewlines: Bool) {
        self.open = open
        self.close = closing
        self.valueExcludes = valueExcludes
        self.stripsNewlines = stripsNewlines
    }
}

extension CallLayout {
    /// The layout of a tagged-functions format (``TaggedFunctionTags``): `wrapper` opens a block
    /// of function blocks, or each function block is a block of its own (`wrapperPerCall`).
    /// The tags come from the parser's declaration; the white space between them is the
    /// renderer's.
    static func tagged(
        _ tags: TaggedFunctionTags, wrapperPerCall: Bool, afterWrapperOpen: String, afterName: String,
        afterKey: String, beforeClose: String = "", afterValue: String, afterFunction: String, stringFlag: Bool = false,
        quoted: Bool, stripsNewlines: Bool, values: TaggedValues = .json, wrapper: Int = 0
    ) -> CallLayout {
        let s = { (b: [UInt8]) in String(decoding: b, as: UTF8.self) }
        let wrapOpen = s(tags.wrapperOpens[wrapper]), wrapClose = s(tags.wrapperCloses[wrapper])
        let q = quoted ? "\"" : ""
        var open: [ParameterPiece] = [.markup(s(tags.parameterOpen) + q), .key(.bare)]
        if stringFlag { open += [.markup("\" string=\""), .stringFlag, .markup("\"" + afterKey)] } else { open.append(.markup(q + afterKey)) }
        let args = TaggedArguments(
            open: open, close: beforeClose + s(tags.value.close) + afterValue,
            valueExcludes: tags.rendering.tags.map(s), stripsNewlines: stripsNewlines, values: values)
        let function: [Piece] = [
            .markup(s(tags.functionOpen) + q), .name(.bare), .markup(q + afterName), .arguments(.tagged(args)),
            .markup(s(tags.functionClose) + afterFunction),
        ]
        if wrapperPerCall {
            return .perCall(wrapOpen, [.markup(afterWrapperOpen)] + function + [.markup(wrapClose)])
        }
        return CallLayout(trigger: wrapOpen, open: [.markup(afterWrapperOpen)], call: function, close: [.markup(wrapClose)])
    }
}
