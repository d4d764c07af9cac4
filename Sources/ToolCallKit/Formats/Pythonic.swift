// ToolCallKit — the `pythonic` format (Llama 3.2 / Llama 4 pythonic, Olmo 3):
// `[f(a=1), g(b='x')]`, optionally between `<|python_start|>` and `<|python_end|>`.
//
// The Python-call-list family (``PythonListGrammar``, its doc comment has the rules) with
// Llama 4's markers, and a bare list anywhere in the text: a `[` counts only when white space,
// a name and `(` follow it, so bracketed prose (`[1]`, `[don't panic]`, a Markdown link) stays
// text. Values are Python literals (``PythonCallReader``: strings in either quote, triple
// quotes, `True`/`False`/`None`, dicts, lists); a value JSON cannot carry (`b'..'`, `1e999`)
// or a positional argument rejects that call alone. The end of stream: a complete list needs
// no end marker; one cut off inside a call is `incomplete`. A call without brackets is text
// unless it follows `<|python_start|>`. A call over the size cap is skipped through the next
// `<|python_end|>`, or to the end of the stream when none comes. Reasoning: `<think>…</think>`; a call inside an
// unclosed block stays reasoning.

extension FormatDefinition {
    /// `[f(a='v'), g()]` (``renderPythonic``).
    static let pythonicLayout = CallLayout(
        trigger: "[",
        call: [.name(.bare), .markup("("), .arguments(.python), .markup(")")],
        separator: ", ", close: [.markup("]")])

    static let pythonic: FormatDefinition = FormatDefinition(
        name: "pythonic",
        summary: "Llama 3.2 / 4 and Olmo Python call lists. Example: [f(a=1, b='x')]",
        grammar: { _ in PythonListGrammar(.pythonic) },
        inference: InferenceDeclaration(
            parserNames: ["pythonic", "llama4_pythonic", "llama3_pythonic", "olmo3", "olmo"],
            templates: [
                TemplateSignature(rank: 115, "<|python_start|> (Llama 4 pythonic calls)", .literal(["<|python_start|>"])),
                TemplateSignature(rank: 116, "the pythonic call instruction [func_name1(params_name1=...)]",
                                  .literal(["[func_name1(", "[func_name(", "[function_name("])),
            ],
            tokens: [("<|python_start|>", 94)],
            modelTypes: [
                ModelTypeRule(rank: 89, exactly: ["llama4", "llama4_text", "olmo3"]) { t, _ in
                    "→ pythonic, the \(t.hasPrefix("olmo") ? "Olmo 3" : "Llama 4") default (ambiguous: a template may ask for JSON calls)"
                },
            ]),
        layout: pythonicLayout,
        renderer: FormatRenderer(render: renderPythonic),
        fuzzWords: ["None", "True", "False", "({", "})", "'''"],
        familyNames: (["llama4", "llama-4", "olmo3", "olmo-3", "llama3.2-pythonic"], "Llama 4 and Olmo 3 write"))

    /// `[f(a='v', b=1), g()]` right after the text, as the pythonic instruction asks. A string
    /// is a single-quoted Python literal (escaped); an object is JSON; lists, numbers,
    /// `True`/`False`/`None` are Python literals. Names and keys must be Python call names (see
    /// ``CallRenderer/writePythonCalls(_:format:to:)``). A text holding a bare `[` that a call
    /// follows (`see [f(x)`) is refused: it would be read as a list.
    private static func renderPythonic(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        if let at = out.indices.first(where: { out[$0] == UInt8(ascii: "[") && bareCallFollows(out, at: $0) }) {
            let shown = String(decoding: out[at..<min(out.count, at + 24)], as: UTF8.self)
            throw RenderError(index: nil, name: nil, reason: "the text holds \(JSONValue.string(shown).jsonText), a '[' and a call, which pythonic reads as a call list")
        }
        guard !calls.isEmpty else { return out }
        // A bare `[` is a list only when the first name ends within the look-ahead.
        if calls[0].name.utf8.count >= PythonListGrammar.maxCandidateBytes {
            throw RenderError(index: 0, name: calls[0].name, reason: "a bare pythonic list is recognized by a first name shorter than \(PythonListGrammar.maxCandidateBytes) bytes")
        }
        out.append(UInt8(ascii: "["))
        try CallRenderer.writePythonCalls(calls, format: "pythonic", to: &out)
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// Whether `bytes` hold, after the `[` at `at`, white space, a name and `(`.
    private static func bareCallFollows(_ bytes: [UInt8], at: Int) -> Bool {
        var i = at + 1
        while i < bytes.count && JSONReader.isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count, PythonCallReader.isNameStart(bytes[i]) else { return false }
        while i < bytes.count && PythonCallReader.isNameByte(bytes[i]) { i += 1 }
        return i < bytes.count && bytes[i] == UInt8(ascii: "(")
    }
}

extension ToolCallFormat {
    /// Llama 3.2 / 4 and Olmo Python call lists. Example: `[f(a=1, b='x')]`
    public static let pythonic: ToolCallFormat = ToolCallFormat(.pythonic)
}
