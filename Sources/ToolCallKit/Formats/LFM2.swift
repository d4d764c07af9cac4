// ToolCallKit — the `lfm2` format (Liquid LFM2 / LFM2.5):
// `<|tool_call_start|>[f(a='v', b=1), g()]<|tool_call_end|>`.
//
// Parsed by ``PythonListGrammar`` configured for LFM2 (its doc comment has the rules), over
// the Python-call family (``PythonCallReader``). With tools declared, an output that is exactly a
// bare list of calls naming declared tools (the markers stripped by a server) is a call list,
// recognised at the end of the stream. Reasoning: `<think>…</think>`; a call inside an unclosed
// block stays reasoning.
//
// Strings: the family's members write them differently, so the convention is the model's, and
// a model folder names it (docs/formats.md, lfm2):
// - `lfm2` (LFM2): every string is a Python literal, escapes and all (`'a\nb'` is a newline).
//   LFM2's template passes the model's calls through as text; its documentation writes Python.
// - `lfm25` (LFM2.5): its template writes a string argument as `'` + the value + `'`, with no
//   escaping, so a backslash is data (`path='C:\Users\me\file.txt'`, `'\n is not a newline'`);
//   strings inside lists (Python's `repr`) and dicts (JSON) keep their escapes. `toolcall infer`
//   names it for a template that quotes string values so.

extension FormatDefinition {
    /// `<|tool_call_start|>[f(a='v'), g()]<|tool_call_end|>` (``renderLFM2``).
    static let lfm2Layout = CallLayout(
        trigger: "<|tool_call_start|>", open: [.markup("[")],
        call: [.name(.bare), .markup("("), .arguments(.python), .markup(")")],
        separator: ", ", close: [.markup("]<|tool_call_end|>")])

    static let lfm2: FormatDefinition = FormatDefinition(
        name: "lfm2",
        summary: "Liquid LFM2 Python-literal call lists. Example: <|tool_call_start|>[f(a='v')]<|tool_call_end|>",
        grammar: { _ in PythonListGrammar(.lfm2) },
        inference: InferenceDeclaration(
            parserNames: ["lfm2"],
            templates: [TemplateSignature(rank: 50, "<|tool_call_start|> or <|tool_list_start|>",
                                          .literal(["<|tool_call_start|>", "<|tool_list_start|>"]))],
            tokens: [("<|tool_call_start|>", 50), ("<|tool_list_start|>", 51)],
            modelTypes: [ModelTypeRule(rank: 10, prefix: "lfm2", format: "lfm2")]),
        layout: lfm2Layout,
        renderer: FormatRenderer(render: renderLFM2),
        fuzzWords: ["None", "True", "False", "({", "})"],
        familyNames: (["lfm", "lfm2.5", "liquid"], "Liquid LFM2 writes"))

    /// LFM2.5: the `lfm2` frame with string arguments written verbatim (see the header).
    static let lfm25: FormatDefinition = lfm2.variant(
        "lfm25",
        summary: "Liquid LFM2.5 (lfm2 with string arguments written verbatim, no escapes). Example: <|tool_call_start|>[f(path='C:\\dir')]<|tool_call_end|>",
        grammar: { _ in PythonListGrammar(.lfm25) },
        inference: InferenceDeclaration(
            parserNames: ["lfm2_5", "lfm2.5"],
            templates: [TemplateSignature(rank: 49, "<|tool_call_start|>[ written by the template, string values quoted with a bare '",
                                          .literal(["<|tool_call_start|>["]), .literal([#""'" + arg_value + "'""#, #"'\'' + "#, #""'" + value + "'""#]))]),
        layout: CallLayout(
            trigger: "<|tool_call_start|>", open: [.markup("[")],
            call: [.name(.bare), .markup("("), .arguments(.pythonVerbatim), .markup(")")],
            separator: ", ", close: [.markup("]<|tool_call_end|>")]),
        renderer: FormatRenderer(render: renderLFM25))

    /// `<|tool_call_start|>[f(a='v', b=1), g()]<|tool_call_end|>` right after the text. A string
    /// is a single-quoted Python literal (escaped); an object is JSON, as the template writes
    /// it; lists, numbers, `True`/`False`/`None` are Python literals. Names and keys must be what
    /// the Python call reader takes for a name: a letter, `_` or a non-ASCII byte, then letters,
    /// digits, `_`, `.`, `-` or non-ASCII bytes.
    ///
    /// A call whose one argument is `properties`, `parameters`, `arguments`, `args` or `kwargs`
    /// holding an object reads back unwrapped unless the tool's schema declares that key (LFM2
    /// models write `f(properties={...})`).
    private static func renderLFM2(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<|tool_call_start|>[".utf8)
        try CallRenderer.writePythonCalls(calls, format: "lfm2", to: &out)
        out += Array("]<|tool_call_end|>".utf8)
        return out
    }
}

extension FormatDefinition {
    /// `<|tool_call_start|>[f(a='v', b=1), g()]<|tool_call_end|>` right after the text, as
    /// LFM2.5's template writes it: a string argument between `'` quotes with nothing escaped
    /// (between `"` quotes when the `'` spelling would not read back, say for `a', b='c`; a
    /// ``RenderError`` when neither does), a dict as JSON, anything else (lists, numbers,
    /// `True`, `False`, `None`) as Python's `str` writes it.
    private static func renderLFM25(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<|tool_call_start|>[".utf8)
        for (i, call) in calls.enumerated() {
            guard CallRenderer.isPythonName(call.name) else {
                throw RenderError(index: i, name: call.name, reason: "lfm25 writes a Python call, and this name is not one (letters, digits, '_', '.', '-')")
            }
            if i > 0 { out += Array(", ".utf8) }
            var bytes = Array(call.name.utf8) + [UInt8(ascii: "(")]
            for (k, member) in (call.arguments.objectValue ?? []).enumerated() {
                guard CallRenderer.isPythonName(member.key) else {
                    throw RenderError(index: i, name: call.name, reason: "lfm25 writes keyword arguments, and the key \(JSONValue.string(member.key).jsonText) is not a Python name")
                }
                if k > 0 { bytes += Array(", ".utf8) }
                bytes += Array(member.key.utf8) + [UInt8(ascii: "=")]
                switch member.value {
                case .string(let s):
                    bytes += try verbatimString(s, key: member.key, call: call, index: i)
                case .object:
                    CallRenderer.writeTemplateJSON(member.value, to: &bytes)
                default:
                    CallRenderer.writePythonRepr(member.value, to: &bytes)
                }
            }
            bytes.append(UInt8(ascii: ")"))
            // The whole call must read back: a verbatim string has no escape to fall back on.
            let framed = Array("<|tool_call_start|>[".utf8) + bytes + Array("]<|tool_call_end|>".utf8)
            let back = CallRenderer.readBack(format, call, framed, tools: ToolSet.typing([call]))
            guard back.name.utf8.elementsEqual(call.name.utf8), back.arguments == call.arguments,
                CallRenderer.sameBytes(back.arguments, call.arguments)
            else {
                throw RenderError(index: i, name: call.name, reason: "lfm25 writes string arguments verbatim, and these do not read back as given")
            }
            out += bytes
        }
        out += Array("]<|tool_call_end|>".utf8)
        return out
    }

    /// `'s'` verbatim, or `"s"` when only that reads back alone (`f(k=...)`).
    private static func verbatimString(_ s: String, key: String, call: RenderedCall, index: Int) throws(RenderError) -> [UInt8] {
        let body = Array(s.utf8)
        for quote in [UInt8(ascii: "'"), UInt8(ascii: "\"")] {
            let literal = [quote] + body + [quote]
            guard body.contains(quote) else { return literal }
            let probe = RenderedCall(name: "f", arguments: .object([(key: "k", value: .string(s))]))
            let framed = Array("<|tool_call_start|>[f(k=".utf8) + literal + Array(")]<|tool_call_end|>".utf8)
            let back = CallRenderer.readBack(.lfm25, probe, framed, tools: ToolSet.typing([probe]))
            if case .string(let got)? = back.arguments["k"], got.utf8.elementsEqual(s.utf8) { return literal }
        }
        throw RenderError(index: index, name: call.name, reason: "the value of \(JSONValue.string(key).jsonText) cannot be written verbatim between ' or \" quotes (lfm25 has no escape)")
    }
}

extension ToolCallFormat {
    /// Liquid LFM2 Python-literal call lists. Example: `<|tool_call_start|>[f(a='v')]<|tool_call_end|>`
    public static let lfm2: ToolCallFormat = ToolCallFormat(.lfm2)

    /// Liquid LFM2.5: `lfm2` with string arguments written verbatim (no escapes).
    public static let lfm25: ToolCallFormat = ToolCallFormat(.lfm25)
}
