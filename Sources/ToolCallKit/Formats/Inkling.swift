// ToolCallKit — the `inkling` format (Thinking Machines Inkling):
// `get_weather<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "SF"}}<|end_message|>`.
//
// The block-message family (``InklingGrammar``, its doc comment has the rules): the output is a
// run of blocks `<|message_model|>[HEADER]<|content_KIND|>BODY<|end_message|>`, and the
// generation prompt ends with `<|message_model|>`, so the output opens inside the first block's
// header.
//
// - `<|content_invoke_tool_json|>` blocks are calls, their body `{"name", "args"}`; the header
//   (the tool's name) is markup, and the payload's name is the call's.
// - `<|content_text|>`, `<|content_tool_error|>` and `<|content_invoke_tool_text|>` blocks are
//   content: a `_tool_text` block is text, never a call.
// - `<|content_thinking|>` blocks are reasoning; several join, and thinking may follow text.
// - Text before any kind token is content (a word there is a header only when a kind token
//   follows it).
// - End of stream: a complete payload without `<|end_message|>` is a call; a cut-off one is
//   `incomplete`.

extension FormatDefinition {
    /// Each call a tool block of its own, as the renderer writes it:
    /// `NAME<|content_invoke_tool_json|>{"name": NAME, "args": ARGS}<|end_message|>`, after
    /// `<|message_model|>`, or bare at the start of the output (the prompt wrote that token).
    static let inklingLayout = CallLayout(
        trigger: InklingGrammar.messageModel,
        call: [
            .name(.bare), .markup(InklingGrammar.toolJSON + "{\"name\": "), .name(.jsonString), .markup(", \"args\": "),
            .arguments(.json), .markup("}" + InklingGrammar.endMessage),
        ],
        oneCallPerBlock: true, bareAtStart: true)

    static let inkling: FormatDefinition = FormatDefinition(
        name: "inkling",
        summary: #"Thinking Machines Inkling blocks. Example: f<|content_invoke_tool_json|>{"name": "f", "args": {"a": 1}}<|end_message|>"#,
        grammar: { _ in InklingGrammar() },
        reasoning: ReasoningSyntax(pairs: [(InklingGrammar.thinking, InklingGrammar.endMessage)], endedBy: []),
        inference: InferenceDeclaration(
            parserNames: ["inkling", "tml", "thinking_machines", "inkling_json"],
            templates: [
                TemplateSignature(rank: 8, "Inkling blocks (<|content_invoke_tool_json|>)",
                                  .literal([InklingGrammar.toolJSON])),
            ],
            tokens: [(InklingGrammar.toolJSON, 8)]),
        layout: inklingLayout,
        renderer: FormatRenderer(render: renderInkling),
        fuzzWords: ["{\"name\": \"", "\"args\": ", "<|content_text|>", "<|content_thinking|>"],
        familyNames: (["inkling", "thinking-machines", "tml"], "Thinking Machines Inkling writes"))

    /// After the prompt's `<|message_model|>`: the text first, as plain text (a block without its
    /// kind token: content), then per call a tool block
    /// `NAME<|content_invoke_tool_json|>{"name": NAME, "args": ARGS}<|end_message|>`, each after
    /// `<|message_model|>` but the first when there is no text. The header is one word before a token, so a name may
    /// hold no white space and no `<|`.
    private static func renderInkling(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        guard !calls.isEmpty else { return Array(text.utf8) }
        var out = Array(text.utf8)
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            if name.contains(where: JSONReader.isSpace) || name.count > InklingGrammar.maxHeaderBytes || call.name.contains("<|") {
                throw RenderError(index: i, name: call.name, reason: "an inkling header is one word of at most \(InklingGrammar.maxHeaderBytes) bytes before a token, so the name cannot hold white space or '<|'")
            }
            if !out.isEmpty { out += Array(InklingGrammar.messageModel.utf8) }
            out += name + Array(InklingGrammar.toolJSON.utf8)
            out += Array("{\"name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"args\": ".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out += Array("}".utf8) + Array(InklingGrammar.endMessage.utf8)
        }
        return out
    }
}

extension ToolCallFormat {
    /// Thinking Machines Inkling blocks. Example: `f<|content_invoke_tool_json|>{"name": "f", "args": {"a": 1}}<|end_message|>`
    public static let inkling: ToolCallFormat = ToolCallFormat(.inkling)
}
