// ToolCallKit — the `lfm2` format (Liquid LFM2 / LFM2.5):
// `<|tool_call_start|>[f(a='v', b=1), g()]<|tool_call_end|>`.
//
// Parsed by ``PythonListGrammar`` configured for LFM2 (its doc comment has the rules), over
// the Python-call family (``PythonCallReader``). With tools declared, an output that is exactly a
// bare list of calls naming declared tools (the markers stripped by a server) is a call list,
// recognised at the end of the stream. Reasoning: `<think>…</think>`; a call inside an unclosed
// block stays reasoning.
//
// Strings: the family's members may write them differently, so the convention is a choice
// (docs/formats.md, lfm2):
// - `lfm2`: a string argument is written as LFM2.5's template writes it, `'` + the value +
//   `'` with no escaping, so a backslash is data (`path='C:\Users\me\file.txt'`,
//   `'\n is not a newline'`); strings inside lists (Python's `repr`) and dicts (JSON) keep their
//   escapes. `toolcall infer` names `lfm2` for every LFM2 and LFM2.5 folder.
// - `lfm2_python` (a model variant): every string is a Python literal, escapes and all
//   (`'a\nb'` is a newline), for a model that writes Python's `repr` of its strings (LFM2's
//   template passes the model's calls through as text; its documentation writes Python).
//   `lfm25`, LFM2.5's earlier name, is another name for `lfm2`.

extension FormatDefinition {
    /// `<|tool_call_start|>[f(a='v'), g()]<|tool_call_end|>`, string arguments verbatim
    /// (``renderLFM2``).
    static let lfm2Layout = CallLayout(
        trigger: "<|tool_call_start|>", open: [.markup("[")],
        call: [.name(.bare), .markup("("), .arguments(.pythonVerbatim), .markup(")")],
        separator: ", ", close: [.markup("]<|tool_call_end|>")])

    static let lfm2: FormatDefinition = FormatDefinition(
        name: "lfm2",
        summary: "Liquid LFM2 and LFM2.5 Python-literal call lists, string arguments written verbatim. Example: <|tool_call_start|>[f(path='C:\\dir')]<|tool_call_end|>",
        grammar: { _ in PythonListGrammar(.lfm2) },
        inference: InferenceDeclaration(
            parserNames: ["lfm2", "lfm2_5", "lfm2.5", "lfm25"],
            templates: [
                TemplateSignature(rank: 49, "<|tool_call_start|>[ written by the template, string values quoted with a bare '",
                                  .literal(["<|tool_call_start|>["]), .literal([#""'" + arg_value + "'""#, #"'\'' + "#, #""'" + value + "'""#])),
                TemplateSignature(rank: 50, "<|tool_call_start|> or <|tool_list_start|>",
                                  .literal(["<|tool_call_start|>", "<|tool_list_start|>"])),
            ],
            tokens: [("<|tool_call_start|>", 50), ("<|tool_list_start|>", 51)],
            modelTypes: [ModelTypeRule(rank: 10, prefix: "lfm2", format: "lfm2")]),
        layout: lfm2Layout,
        renderer: FormatRenderer(render: renderLFM2),
        fuzzWords: ["None", "True", "False", "({", "})"],
        familyNames: (["lfm", "lfm2.5", "liquid"], "Liquid LFM2 writes"))

    /// `lfm2` with every string a Python literal, escapes and all (see the header).
    static let lfm2Python: FormatDefinition = lfm2.variant(
        "lfm2_python",
        summary: "Liquid LFM2 call lists with Python-escaped strings (lfm2 reading strings as Python literals: '\\n' is a newline). Example: <|tool_call_start|>[f(a='line\\n')]<|tool_call_end|>",
        grammar: { _ in PythonListGrammar(.lfm2Python) },
        inference: InferenceDeclaration(parserNames: ["lfm2_python"]),
        layout: CallLayout(
            trigger: "<|tool_call_start|>", open: [.markup("[")],
            call: [.name(.bare), .markup("("), .arguments(.python), .markup(")")],
            separator: ", ", close: [.markup("]<|tool_call_end|>")]),
        renderer: FormatRenderer(render: renderLFM2Python))

    /// `<|tool_call_start|>[f(a='v', b=1), g()]<|tool_call_end|>` right after the text. A string
    /// is a single-quoted Python literal (escaped); an object is JSON, as the template writes
    /// it; lists, numbers, `True`/`False`/`None` are Python literals. Names and keys must be what
    /// the Python call reader takes for a name: a letter, `_` or a non-ASCII byte, then letters,
    /// digits, `_`, `.`, `-` or non-ASCII bytes.
    ///
    /// A call whose one argument is `properties`, `parameters`, `arguments`, `args` or `kwargs`
    /// holding an object reads back unwrapped unless the tool's schema declares that key (LFM2
    /// models write `f(properties={...})`).
    private static func renderLFM2Python(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<|tool_call_start|>[".utf8)
        try CallRenderer.writePythonCalls(calls, format: format.rawValue, to: &out)
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
    private static func renderLFM2(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<|tool_call_start|>[".utf8)
        for (i, call) in calls.enumerated() {
            guard CallRenderer.isPythonName(call.name) else {
                throw RenderError(index: i, name: call.name, reason: "\(format.rawValue) writes a Python call, and this name is not one (letters, digits, '_', '.', '-')")
            }
            if i > 0 { out += Array(", ".utf8) }
            var bytes = Array(call.name.utf8) + [UInt8(ascii: "(")]
            for (k, member) in (call.arguments.objectValue ?? []).enumerated() {
                guard CallRenderer.isPythonName(member.key) else {
                    throw RenderError(index: i, name: call.name, reason: "\(format.rawValue) writes keyword arguments, and the key \(JSONValue.string(member.key).jsonText) is not a Python name")
                }
                if k > 0 { bytes += Array(", ".utf8) }
                bytes += Array(member.key.utf8) + [UInt8(ascii: "=")]
                switch member.value {
                case .string(let s):
                    bytes += try verbatimString(format, s, key: member.key, call: call, index: i)
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
                throw RenderError(index: i, name: call.name, reason: "\(format.rawValue) writes string arguments verbatim, and these do not read back as given")
            }
            out += bytes
        }
        out += Array("]<|tool_call_end|>".utf8)
        return out
    }

    /// `'s'` verbatim, or `"s"` when only that reads back alone (`f(k=...)`).
    private static func verbatimString(_ format: ToolCallFormat, _ s: String, key: String, call: RenderedCall, index: Int) throws(RenderError) -> [UInt8] {
        let body = Array(s.utf8)
        for quote in [UInt8(ascii: "'"), UInt8(ascii: "\"")] {
            let literal = [quote] + body + [quote]
            guard body.contains(quote) else { return literal }
            let probe = RenderedCall(name: "f", arguments: .object([(key: "k", value: .string(s))]))
            let framed = Array("<|tool_call_start|>[f(k=".utf8) + literal + Array(")]<|tool_call_end|>".utf8)
            let back = CallRenderer.readBack(format, probe, framed, tools: ToolSet.typing([probe]))
            if case .string(let got)? = back.arguments["k"], got.utf8.elementsEqual(s.utf8) { return literal }
        }
        throw RenderError(index: index, name: call.name, reason: "the value of \(JSONValue.string(key).jsonText) cannot be written verbatim between ' or \" quotes (\(format.rawValue) has no escape)")
    }
}

extension ToolCallFormat {
    /// Liquid LFM2 and LFM2.5 Python-literal call lists, string arguments written verbatim (as
    /// LFM2.5's template writes them). Example: `<|tool_call_start|>[f(a='v')]<|tool_call_end|>`
    public static let lfm2: ToolCallFormat = ToolCallFormat(.lfm2)

    /// `lfm2` with every string a Python literal, escapes and all: for a model that writes
    /// Python's `repr` of its strings.
    public static let lfm2Python: ToolCallFormat = ToolCallFormat(.lfm2Python)
}
