// ToolCallKit — the `phi4_mini` format (Phi-4-mini, FireFunction v2):
// `functools[{"name": "f", "arguments": {"a": 1}}, …]`.
//
// The JSON-call-list family (``JSONCallListGrammar``, its doc comment has the rules) opened by
// `functools[` (the marker holds the bracket, so the word alone in prose stays text); a
// leading space before it is text, as FireFunction writes it. There is no end marker: the
// list's `]` ends the frame and what follows is text; a list cut off before its `]` at the end
// of the stream is `incomplete`. Reasoning: `<think>…</think>`; a call inside an unclosed
// block stays reasoning.

extension FormatDefinition {
    /// `functools[{"name": NAME, "arguments": {...}}, ...]` (``renderPhi4Mini``).
    static let phi4MiniLayout = CallLayout(
        trigger: "functools[",
        call: [.markup("{\"name\": "), .name(.jsonString), .markup(", \"arguments\": "), .arguments(.json), .markup("}")],
        separator: ", ", close: [.markup("]")])

    static let phi4Mini: FormatDefinition = FormatDefinition(
        name: "phi4_mini",
        summary: #"Phi-4-mini / FireFunction v2 JSON call lists. Example: functools[{"name": "f", "arguments": {}}]"#,
        grammar: { _ in JSONCallListGrammar(phi4MiniSyntax) },
        inference: InferenceDeclaration(
            parserNames: ["phi4_mini", "phi4_mini_json", "phi4mini", "firefunction", "firefunction_v2"],
            templates: [
                TemplateSignature(rank: 84, "Phi-4-mini's <|tool|>…<|/tool|> tool list", .literal(["<|tool|>"]), .literal(["<|/tool|>"])),
                TemplateSignature(rank: 86, "functools (Phi-4-mini / FireFunction call list)", .literal(["functools"])),
            ],
            // Phi-4-mini's vocabulary has `<|tool_call|>` (Granite's marker) and its closing
            // `<|/tool_call|>`, which Granite's lacks: the closing token decides first.
            tokens: [("<|/tool_call|>", 84)]),
        layout: phi4MiniLayout,
        renderer: FormatRenderer(render: renderPhi4Mini),
        familyNames: (["phi4", "phi-4-mini", "phi4-mini", "firefunction-v2"], "Phi-4-mini and FireFunction v2 write"))

    static let phi4MiniSyntax = JSONCallListSyntax(opens: ["functools["], close: nil)

    /// `functools[{"name": "f", "arguments": {...}}, ...]` right after the text. No id: the
    /// format carries none. Every name and value is expressible (JSON escapes).
    private static func renderPhi4Mini(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("functools".utf8)
        CallRenderer.writeJSONCallList(calls, nameKey: "name", argumentsKey: "arguments", to: &out)
        return out
    }
}

extension ToolCallFormat {
    /// Phi-4-mini / FireFunction v2 JSON call lists. Example: `functools[{"name": "f", "arguments": {}}]`
    public static let phi4Mini: ToolCallFormat = ToolCallFormat(.phi4Mini)
}
