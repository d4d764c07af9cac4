// ToolCallKit — the `granite` format (IBM Granite 3.x):
// `<|tool_call|>[{"name": "f", "arguments": {"a": 1}}, …]`.
//
// The JSON-call-list family (``JSONCallListGrammar``, its doc comment has the rules) opened by
// `<|tool_call|>` or Granite 3.1's `<tool_call>` spelling. There is no end marker: the list's
// `]` ends the frame, and what follows is text; at the end of the stream a list cut off before
// its `]` is `incomplete`. `arguments` may come before `name`. Granite 3.3 wraps its answer in
// `<response>…</response>`: both tags are markup (an orphan `</tool_call>` too). Reasoning:
// `<think>…</think>`; a call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<|tool_call|>[{"name": NAME, "arguments": {...}}, ...]` (``renderGranite``).
    static let graniteLayout = CallLayout(
        trigger: "<|tool_call|>", open: [.markup("[")],
        call: [.markup("{\"name\": "), .name(.jsonString), .markup(", \"arguments\": "), .arguments(.json), .markup("}")],
        separator: ", ", close: [.markup("]")])

    static let granite: FormatDefinition = FormatDefinition(
        name: "granite",
        summary: #"IBM Granite 3.x JSON call lists. Example: <|tool_call|>[{"name": "f", "arguments": {}}]"#,
        grammar: { _ in JSONCallListGrammar(graniteSyntax) },
        inference: InferenceDeclaration(
            parserNames: ["granite", "granite3", "granite_3"],
            templates: [TemplateSignature(rank: 85, "<|tool_call|> (Granite JSON call list)", .literal(["<|tool_call|>"]))],
            tokens: [("<|tool_call|>", 85)],
            modelTypes: [
                ModelTypeRule(rank: 75, exactly: ["granite", "granitemoe"]) { _, _ in
                    "→ granite, the Granite 3.x default (no template or tokens to confirm it)"
                },
            ]),
        layout: graniteLayout,
        renderer: FormatRenderer(render: renderGranite),
        familyNames: (["granite3", "granite-3", "ibm-granite"], "IBM Granite 3 models write"))

    static let graniteSyntax = JSONCallListSyntax(
        opens: ["<|tool_call|>", "<tool_call>"], close: nil,
        markup: ["<response>", "</response>", "</tool_call>"])

    /// `<|tool_call|>[{"name": "f", "arguments": {...}}, ...]` right after the text, as the
    /// model is told to answer. No id: the format carries none. Every name and value is
    /// expressible (JSON escapes).
    private static func renderGranite(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<|tool_call|>".utf8)
        CallRenderer.writeJSONCallList(calls, nameKey: "name", argumentsKey: "arguments", to: &out)
        return out
    }
}

extension ToolCallFormat {
    /// IBM Granite 3.x JSON call lists. Example: `<|tool_call|>[{"name": "f", "arguments": {}}]`
    public static let granite: ToolCallFormat = ToolCallFormat(.granite)
}
