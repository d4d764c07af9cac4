// ToolCallKit — the `gemma4` format (Gemma 4): `<|tool_call>call:f{a:<|"|>v<|"|>}<tool_call|>`.
//
// The Gemma-values family (``GemmaFrameParser``, ``GemmaValueReader``) with `<|tool_call>` and
// `<tool_call|>` as markers and `<|"|>` as the string delimiter, inside which nothing is
// escaped (`say \"hello\"` keeps its backslashes) and `<tool_call|>` does not end the call.
// Drifts the model is known for are read too: `call:name(key=value, ...)`, `<|"|>`-quoted keys,
// plain JSON strings mixed in, missing commas, and names with colons, hyphens and dots
// (`google:mcp:x:create-pdf-file`; the name runs to the `{` or `(`).
//
// Repairs for known slips: a bare word that runs into `<|"|>` is a string ended by it (the
// opening delimiter was dropped); a stray `<|"|>` after a finished value is noise; and at the
// end of the stream, a string whose closing `<|"|>` is missing before `}<tool_call|>`
// (ollama#15315) ends before the `}` (those bytes are held back from its deltas until more
// follows, so the deltas never need taking back).
//
// A bare `None` is null, whatever the schema: the template delimits every string and writes a
// null as Python's `None`, so an undelimited `None` can only be one.
//
// A duplicate `<tool_call|>` after a call and a stray `<|tool_response>` are markup.
// Reasoning: `<think>…</think>` and the thought channel `<|channel>…<channel|>` (the label
// `thought` after the opener, when present, is part of the marker); a call inside an unclosed
// block stays reasoning.

extension FormatDefinition {
    /// How Gemma 4's template writes values: `<|"|>` strings, keys in `dictsort` order, null as
    /// `None`.
    static let gemma4Style = CallRenderer.GemmaStyle(delimiter: Array("<|\"|>".utf8), sortKeys: true, null: Array("None".utf8))

    /// `<|tool_call>call:NAME{...}<tool_call|>` per call (``CallRenderer/gemma``).
    static let gemma4Layout = CallLayout.perCall("<|tool_call>", [
        .markup("call:"), .name(.bare), .arguments(.gemma(gemma4Style)), .markup("<tool_call|>"),
    ], textAfter: true)

    static let gemma4: FormatDefinition = FormatDefinition(
        name: "gemma4",
        summary: #"Gemma 4. Example: <|tool_call>call:f{a:<|"|>v<|"|>}<tool_call|>"#,
        grammar: { _ in
            GemmaFrameParser(start: "<|tool_call>", end: "<tool_call|>", delimiter: "<|\"|>", strays: ["<|tool_response>"], noneIsNull: true)
        },
        reasoning: ReasoningSyntax.think.adding("<|channel>thought", "<channel|>").adding("<|channel>", "<channel|>"),
        inference: InferenceDeclaration(
            parserNames: ["gemma4"],
            templates: [TemplateSignature(rank: 20, "<|tool_call> and <tool_call|>", .literal(["<|tool_call>"]), .literal(["<tool_call|>"]))],
            tokens: [("<|tool_call>", 20)],
            modelTypes: [ModelTypeRule(rank: 30, prefix: "gemma4", format: "gemma4")]),
        layout: gemma4Layout,
        renderer: FormatRenderer(keyOrder: .templateSorted) { format, calls, text throws(RenderError) in
            // As Gemma 4's template writes a turn: keys sorted (`dictsort`), null as `None`,
            // the content after the calls.
            try CallRenderer.gemma(calls, text: text, start: "<|tool_call>", end: "<tool_call|>", style: gemma4Style, textAfter: true)
        },
        fuzzWords: ["call:", #"<|"|>"#])
}

extension ToolCallFormat {
    /// Gemma 4. Example: `<|tool_call>call:f{a:<|"|>v<|"|>}<tool_call|>`
    public static let gemma4: ToolCallFormat = ToolCallFormat(.gemma4)
}
