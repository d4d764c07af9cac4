// ToolCallKit — the `cohere` format (Command A, Command R7B):
// `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}, …]<|END_ACTION|>`.
//
// The JSON-call-list family (``JSONCallListGrammar``, its doc comment has the rules) between
// `<|START_ACTION|>` and `<|END_ACTION|>`, with Cohere's keys: `tool_name`, `parameters`, and
// `tool_call_id`, the model's id, passed through (a repeated one, such as every call's "0",
// is replaced by a fresh id). Drifts tolerated: a missing comma between two call objects. A
// complete list whose `<|END_ACTION|>` never came is fine at the end of the stream; a list
// cut off inside is `incomplete`. The answer's framing — `<|START_RESPONSE|>`,
// `<|END_RESPONSE|>`, `<|START_TEXT|>`, `<|END_TEXT|>` and the `<|END_OF_TURN_TOKEN|>`
// terminator — is markup wherever it stands. Reasoning: `<|START_THINKING|>…<|END_THINKING|>`
// (and `<think>`); Command A's reasoning prompt ends with `<|START_THINKING|>`, so its output
// starts inside a block (`--reasoning-open`); a call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<|START_ACTION|>[` then call objects one per indented line, `\n]<|END_ACTION|>`
    /// (``renderCohere``).
    static let cohereLayout = CallLayout(
        trigger: "<|START_ACTION|>", open: [.markup("[\n    ")],
        call: [.markup("{\"tool_call_id\": "), .quotedID, .markup(", \"tool_name\": "), .name(.jsonString),
               .markup(", \"parameters\": "), .arguments(.json), .markup("}")],
        separator: ",\n    ", close: [.markup("\n]<|END_ACTION|>")])

    static let cohere: FormatDefinition = FormatDefinition(
        name: "cohere",
        summary: #"Cohere Command A / R7B actions. Example: <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}]<|END_ACTION|>"#,
        grammar: { _ in JSONCallListGrammar(cohereSyntax) },
        reasoning: ReasoningSyntax.think.adding("<|START_THINKING|>", "<|END_THINKING|>"),
        inference: InferenceDeclaration(
            parserNames: ["cohere", "command_a", "command_r7b", "cohere2", "command_r_plus"],
            templates: [TemplateSignature(rank: 87, "<|START_ACTION|> with \"tool_name\" (Cohere actions)",
                                          .literal(["<|START_ACTION|>"]), .literal(["tool_name"]))],
            tokens: [("<|START_ACTION|>", 87)],
            modelTypes: [
                ModelTypeRule(rank: 76, exactly: ["cohere2"]) { _, _ in
                    "→ cohere, the Command A / R7B default (no template or tokens to confirm it)"
                },
            ]),
        layout: cohereLayout,
        renderer: FormatRenderer(carriedID: { id, _, index in id ?? String(index) }, render: renderCohere),
        fuzzWords: ["tool_call_id", "tool_name", "parameters", "<|START_RESPONSE|>", "<|END_OF_TURN_TOKEN|>"],
        familyNames: (["command-a", "command-r7b", "command_r", "command", "c4ai"], "Cohere Command A and R7B write"))

    static let cohereSyntax = JSONCallListSyntax(
        opens: ["<|START_ACTION|>"], close: "<|END_ACTION|>",
        keys: CallObjectKeys(name: ["tool_name"], arguments: ["parameters"], id: ["tool_call_id"]),
        closeOptionalAtEnd: true,
        markup: ["<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>", "<|END_OF_TURN_TOKEN|>"])

    /// `<|START_ACTION|>[\n    {"tool_call_id": ID, "tool_name": F, "parameters": {...}}, ...\n]<|END_ACTION|>`
    /// right after the text, as the template writes it. The id is the call's own, or its index
    /// when it has none (the template numbers calls); an id given twice, or an index that is an
    /// earlier call's id, is refused (decoding would replace it).
    private static func renderCohere(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        var used: Set<String> = []
        out += Array("<|START_ACTION|>[".utf8)
        for (i, call) in calls.enumerated() {
            let id = call.id ?? String(i)
            guard used.insert(id).inserted else {
                throw RenderError(index: i, name: call.name, reason: "the id \(JSONValue.string(id).jsonText) is an earlier call's; the decoder would replace it")
            }
            out += Array((i > 0 ? ",\n    " : "\n    ").utf8)
            out += Array("{\"tool_call_id\": ".utf8)
            JSONValue.writeString(id, to: &out)
            out += Array(", \"tool_name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"parameters\": ".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out += Array("\n]<|END_ACTION|>".utf8)
        return out
    }
}

extension ToolCallFormat {
    /// Cohere Command A / R7B actions. Example: `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}]<|END_ACTION|>`
    public static let cohere: ToolCallFormat = ToolCallFormat(.cohere)
}
