// ToolCallKit — the `llama3` format (Llama 3.1 / 3.2 / 3.3 JSON tool calling):
// `<|python_tag|>{"name": "f", "parameters": {}}` or a bare call object at the start.
//
// Parsed by ``Llama3Grammar`` (its doc comment has the rules). Reasoning: `<think>…</think>`;
// a call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<|python_tag|>` then call objects joined by `; `; at the very start the tag may be left
    /// out (``renderLlama3``).
    static let llama3Layout = CallLayout(
        trigger: "<|python_tag|>",
        call: [.markup("{\"name\": "), .name(.jsonString), .markup(", \"parameters\": "), .arguments(.json), .markup("}")],
        separator: "; ", bareAtStart: true)

    static let llama3: FormatDefinition = FormatDefinition(
        name: "llama3",
        summary: #"Llama 3.x. Example: <|python_tag|>{"name": "f", "parameters": {}}"#,
        grammar: { _ in Llama3Grammar() },
        inference: InferenceDeclaration(
            parserNames: ["llama3_json", "llama3", "llama", "llama32", "llama3.2"],
            templates: [
                TemplateSignature(rank: 120, "<|python_tag|> or the ipython environment", .literal(["<|python_tag|>", "Environment: ipython"])),
                TemplateSignature(rank: 121, "Llama 3 turns with a bare {\"name\", \"parameters\"} call",
                                  .literal(["<|start_header_id|>"]), .literal(["\"parameters\""])),
            ],
            tokens: [("<|python_tag|>", 95)],
            modelTypes: [
                ModelTypeRule(rank: 90, exactly: ["llama"]) { _, c in
                    let vocab = c["vocab_size"]?.doubleValue ?? 0
                    let rope = c["rope_scaling"]?["rope_type"]?.stringValue
                    guard vocab >= 128_000 || rope == "llama3" else { return nil }
                    let why = vocab >= 128_000 ? "vocab_size \(Int(vocab))" : "rope_type llama3"
                    return "with \(why) → llama3, the Llama 3 default (ambiguous: a fine-tune may use another template)"
                },
            ]),
        layout: llama3Layout,
        renderer: FormatRenderer(render: renderLlama3),
        fuzzWords: ["<|eom_id|>"],
        familyNames: (["llama", "llama3.1", "llama3.2", "llama3.3", "llama3_json", "llama-3"], "Llama 3 models write"))

    /// The bare call object `{"name": "f", "parameters": {...}}` the template writes, several
    /// joined by `; `. A bare object counts only at the start of the output, so after text the
    /// calls follow `<|python_tag|>`, and a text that itself begins with `{` or `[` is refused (it
    /// would be read as a call). No id.
    private static func renderLlama3(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        if let first = out.first(where: { !JSONReader.isSpace($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            throw RenderError(index: nil, name: nil, reason: "a llama3 output that begins with '{' or '[' is read as a call")
        }
        if !text.isEmpty && !calls.isEmpty { out += Array("<|python_tag|>".utf8) }
        for (i, call) in calls.enumerated() {
            if i > 0 { out += Array("; ".utf8) }
            out += Array("{\"name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"parameters\": ".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        return out
    }
}

extension ToolCallFormat {
    /// Llama 3.x. Example: `<|python_tag|>{"name": "f", "parameters": {}}`
    public static let llama3: ToolCallFormat = ToolCallFormat(.llama3)
}
