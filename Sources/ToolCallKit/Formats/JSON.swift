// ToolCallKit — the `json` format (Hermes, Qwen 2.5 / 3): `<tool_call>{"name": .., "arguments": ..}</tool_call>`.
//
// Parsed by ``JSONGrammar`` (its doc comment has the rules). Reasoning: `<think>…</think>`;
// Qwen3 models open a call without closing their reasoning, so `<tool_call>` ends an open block
// and is parsed as a call.

extension FormatDefinition {
    /// `<tool_call>\n{"name": NAME, "arguments": {...}}\n</tool_call>` per call (``renderJSON``).
    static let jsonLayout = CallLayout.perCall("<tool_call>", [
        .markup("\n{\"name\": "), .name(.jsonString), .markup(", \"arguments\": "), .arguments(.json), .markup("}\n</tool_call>"),
    ])

    static let json: FormatDefinition = FormatDefinition(
        name: "json",
        summary: #"Hermes / Qwen JSON in tags. Example: <tool_call>{"name": "f", "arguments": {}}</tool_call>"#,
        grammar: { _ in JSONGrammar() },
        reasoning: ReasoningSyntax.think.endedBy(["<tool_call>"]),
        inference: InferenceDeclaration(
            parserNames: ["json_tools", "json", "hermes", "qwen25", "qwen2_5", "qwen3"],
            templates: [TemplateSignature(rank: 100, "<tool_call> (Hermes JSON)", .literal(["<tool_call>"]))],
            tokens: [("<tool_call>", 100)],
            modelTypes: [
                ModelTypeRule(rank: 80, exactly: ["qwen3", "qwen3_moe", "qwen2", "qwen2_moe"]) { t, _ in
                    let also = t == "qwen3_moe" ? "; ambiguous: Qwen3-Coder shares qwen3_moe and writes xml_function" : ""
                    return "→ json, the family's default (no template or tokens to confirm it)\(also)"
                },
            ]),
        layout: jsonLayout,
        renderer: FormatRenderer(render: renderJSON),
        familyNames: (["qwen", "qwen2", "qwen2.5", "qwen3", "hermes", "hermes2", "hermes3", "nous"], "Qwen and Hermes models write"))

    /// `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`, one block per call, blocks
    /// and the text before them separated by a newline. No id: the template writes none. Every
    /// name and value is expressible (JSON escapes).
    private static func renderJSON(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        for (i, call) in calls.enumerated() {
            if i > 0 || !text.isEmpty { out.append(0x0A) }
            out += Array("<tool_call>\n{\"name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"arguments\": ".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out += Array("}\n</tool_call>".utf8)
        }
        return out
    }
}

extension ToolCallFormat {
    /// Hermes / Qwen JSON in tags. Example: `<tool_call>{"name": "f", "arguments": {}}</tool_call>`
    public static let json: ToolCallFormat = ToolCallFormat(.json)
}
