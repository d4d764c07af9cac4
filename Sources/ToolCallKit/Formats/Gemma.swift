// ToolCallKit — the `gemma` format (FunctionGemma):
// `<start_function_call>call:f{a:<escape>v<escape>}<end_function_call>`.
//
// The Gemma-values family (``GemmaFrameParser``, ``GemmaValueReader``) with `<escape>` as the
// string delimiter: `call:NAME{key:value,...}`, one call per frame.
//
// - The name runs from after `call:` to the first `{` (or `(`); white space around it is
//   ignored, and a name with white space, quotes or markup inside is `malformed`.
// - After the closing `}` the end marker is consumed when it follows (white space allowed);
//   otherwise the call is complete where its object ends and what follows is text. An end marker
//   before the object closes makes the call `malformed`; a stream that ends inside it,
//   `incomplete`. A malformed frame runs through the next end marker (or up to the next start
//   marker, or the end of the stream).
// - A lone `<end_function_call>` is markup.
// - Reasoning: `<think>…</think>`; a call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<start_function_call>call:NAME{...}<end_function_call>` per call (``CallRenderer/gemma``).
    static let gemmaLayout = CallLayout.perCall("<start_function_call>", [
        .markup("call:"), .name(.bare), .arguments(.gemma(CallRenderer.GemmaStyle(delimiter: Array("<escape>".utf8)))), .markup("<end_function_call>"),
    ])

    static let gemma: FormatDefinition = FormatDefinition(
        name: "gemma",
        summary: "FunctionGemma. Example: <start_function_call>call:f{a:<escape>v<escape>}<end_function_call>",
        grammar: { _ in
            GemmaFrameParser(start: "<start_function_call>", end: "<end_function_call>", delimiter: "<escape>")
        },
        inference: InferenceDeclaration(
            parserNames: ["function_gemma", "functiongemma", "gemma"],
            templates: [TemplateSignature(rank: 30, "<start_function_call>", .literal(["<start_function_call>"]))],
            tokens: [("<start_function_call>", 30)]),
        layout: gemmaLayout,
        renderer: FormatRenderer { format, calls, text throws(RenderError) in
            try CallRenderer.gemma(calls, text: text, start: "<start_function_call>", end: "<end_function_call>",
                                  style: CallRenderer.GemmaStyle(delimiter: Array("<escape>".utf8)))
        },
        fuzzWords: ["call:", "<escape>"],
        familyNames: (["functiongemma", "function_gemma"], "FunctionGemma writes"))
}

extension ToolCallFormat {
    /// FunctionGemma. Example: `<start_function_call>call:f{a:<escape>v<escape>}<end_function_call>`
    public static let gemma: ToolCallFormat = ToolCallFormat(.gemma)
}
