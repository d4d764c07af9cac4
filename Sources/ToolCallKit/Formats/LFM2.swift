// ToolCallKit — the `lfm2` format (Liquid LFM2 / LFM2.5):
// `<|tool_call_start|>[f(a='v', b=1), g()]<|tool_call_end|>`.
//
// Parsed by ``PythonListGrammar`` configured for LFM2 (its doc comment has the rules), over
// the Python-call family (``PythonCallReader``). With tools declared, an output that is exactly a
// bare list of calls naming declared tools (the markers stripped by a server) is a call list,
// recognised at the end of the stream. Reasoning: `<think>…</think>`; a call inside an unclosed
// block stays reasoning.

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

extension ToolCallFormat {
    /// Liquid LFM2 Python-literal call lists. Example: `<|tool_call_start|>[f(a='v')]<|tool_call_end|>`
    public static let lfm2: ToolCallFormat = ToolCallFormat(.lfm2)
}
