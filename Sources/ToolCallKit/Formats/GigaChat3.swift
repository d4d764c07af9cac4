// ToolCallKit — the `gigachat3` format (GigaChat 3 and 3.1):
// `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {"a": 1}}` (3) and
// `<|function_call|>{"name": "f", "arguments": {"a": 1}}` (3.1).
//
// GigaChat's chat template frames every message as `ROLE<|role_sep|>\nBODY<|message_sep|>\n\n`;
// an assistant turn is the content message, then a message from the `function call` role whose
// body is one JSON call object. The generation prompt is `assistant<|role_sep|>\n`, so the
// output is the content, then (for a call) `<|message_sep|>\n\nfunction call<|role_sep|>\n{…}`.
// GigaChat 3.1 writes `<|function_call|>{…}` instead.
//
// The JSON-call-list family (``JSONCallListGrammar``, its doc comment has the rules) with a
// lone call object after either opener (`{"name", "arguments"}`; a list of them is read too).
// The opener includes the message separator before the role when the template's `\n\n` sits
// between them; with other white space the separator is markup and `function call<|role_sep|>`
// opens the call alone. There is no end marker: the object's `}` ends the call and what follows
// is text; the message separator after it, and the end-of-sequence `</s>` that servers leave
// in, are markup wherever they stand. A call cut off inside its object is `incomplete`.
// Reasoning: `<think>…</think>` (GigaChat 3 does not reason); a call inside an unclosed block
// stays reasoning.

extension FormatDefinition {
    /// Per call `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": NAME, "arguments": {...}}`
    /// (``renderGigaChat3``): each call a block of its own.
    static let gigachat3Layout = CallLayout.perCall("<|message_sep|>\n\nfunction call<|role_sep|>", [
        .markup("\n{\"name\": "), .name(.jsonString), .markup(", \"arguments\": "), .arguments(.json), .markup("}"),
    ])

    static let gigachat3: FormatDefinition = FormatDefinition(
        name: "gigachat3",
        summary: #"GigaChat 3 / 3.1 function-call messages. Example: <|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {}}"#,
        grammar: { _ in JSONCallListGrammar(gigachat3Syntax) },
        inference: InferenceDeclaration(
            parserNames: ["gigachat3", "gigachat", "gigachat31", "gigachat3_1"],
            templates: [
                TemplateSignature(rank: 56, "GigaChat messages (<|role_sep|>) with a function-call role",
                                  .literal(["<|role_sep|>"]), .literal(["function call", "<|function_call|>"])),
            ],
            tokens: [("<|role_sep|>", 56)]),
        layout: gigachat3Layout,
        renderer: FormatRenderer(render: renderGigaChat3),
        fuzzWords: ["function call", "<|role_sep|>", "assistant<|role_sep|>\n"],
        familyNames: (["gigachat", "gigachat-3", "gigachat3.1", "gigachat-3.1"], "GigaChat 3 writes"))

    static let gigachat3Syntax = JSONCallListSyntax(
        opens: ["<|message_sep|>\n\nfunction call<|role_sep|>", "function call<|role_sep|>", "<|function_call|>"],
        close: nil, singleObject: true, markup: ["<|message_sep|>", "</s>"])

    /// As the template writes an assistant turn after the generation prompt: the text, then per
    /// call `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {...}}`. (The
    /// template writes only the first call of a turn, and ends its message with another
    /// `<|message_sep|>`, the end of the turn for the model; further calls are further
    /// function-call messages, which decode the same way.) No id: the format carries none.
    private static func renderGigaChat3(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        for call in calls {
            out += Array("<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"arguments\": ".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        return out
    }
}

extension ToolCallFormat {
    /// GigaChat 3 / 3.1 function-call messages. Example: `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {}}`
    public static let gigachat3: ToolCallFormat = ToolCallFormat(.gigachat3)
}
