// ToolCallKit — the `mistral` format (Mistral, Mixtral, Magistral, Devstral):
// `[TOOL_CALLS]f[ARGS]{"a": 1}` or the older `[TOOL_CALLS][{"name": "f", "arguments": {}}]`.
//
// Parsed by ``MistralGrammar`` (its doc comment has the rules). Ids are 9 letters and digits,
// the only ids Mistral's templates accept (`[CALL_ID]` carries the model's). Reasoning:
// `<think>…</think>` and Magistral's `[THINK]…[/THINK]`; a call inside an unclosed block stays
// reasoning.

extension FormatDefinition {
    /// `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}` per call, the id optional (``renderMistral``).
    static let mistralLayout = CallLayout.perCall("[TOOL_CALLS]", [
        .name(.bare), .optionalID(prefix: "[CALL_ID]", length: 9), .markup("[ARGS]"), .arguments(.json),
    ])

    static let mistral: FormatDefinition = FormatDefinition(
        name: "mistral",
        summary: #"Mistral. Example: [TOOL_CALLS]f[ARGS]{"a": 1} or [TOOL_CALLS][{"name": "f", "arguments": {}}]"#,
        grammar: { _ in MistralGrammar() },
        reasoning: ReasoningSyntax.think.adding("[THINK]", "[/THINK]"),
        ids: .nineCharacters,
        inference: InferenceDeclaration(
            parserNames: ["mistral"],
            templates: [
                TemplateSignature(rank: 80, "[TOOL_CALLS] with [ARGS] (name[ARGS]{json} syntax)", .literal(["[TOOL_CALLS]"]), .literal(["[ARGS]"])),
                TemplateSignature(rank: 81, "[TOOL_CALLS] without [ARGS] (JSON-list syntax)", .literal(["[TOOL_CALLS]"])),
            ],
            tokens: [("[TOOL_CALLS]", 80)],
            modelTypes: [ModelTypeRule(rank: 60, prefix: "mistral3", format: "mistral")]),
        layout: mistralLayout,
        renderer: FormatRenderer(carriedID: { id, _, _ in id.flatMap { isMistralID($0) ? $0 : nil } }, render: renderMistral),
        fuzzWords: ["[ARGS]", "[CALL_ID]"],
        familyNames: (["mixtral", "magistral", "devstral"], "Mistral models write"))

    /// Mistral v11 and later: `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}` per call, run together.
    /// `[CALL_ID]` is written for an id of exactly 9 ASCII letters and digits (what Mistral's
    /// templates demand) and left out otherwise, so the decoder makes a fresh one. The name ends
    /// at white space, `[` or `{`, so it may hold none of them.
    private static func renderMistral(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        var used: Set<String> = []
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            if name.contains(where: { JSONReader.isSpace($0) || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }) {
                throw RenderError(index: i, name: call.name, reason: "a mistral name ends at white space, '[' or '{', so it cannot hold one")
            }
            out += Array("[TOOL_CALLS]".utf8)
            out += name
            if let id = call.id, isMistralID(id) {
                guard used.insert(id).inserted else {
                    throw RenderError(index: i, name: call.name, reason: "the id \(JSONValue.string(id).jsonText) is an earlier call's; the decoder would replace it")
                }
                out += Array("[CALL_ID]".utf8)
                out += Array(id.utf8)
            }
            out += Array("[ARGS]".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
        }
        return out
    }

    /// Whether `id` is what Mistral's `[CALL_ID]` holds: 9 ASCII letters and digits.
    private static func isMistralID(_ id: String) -> Bool {
        let b = Array(id.utf8)
        return b.count == 9 && b.allSatisfy(CallRenderer.isASCIIAlphanumeric)
    }
}

extension ToolCallFormat {
    /// Mistral. Example: `[TOOL_CALLS]f[ARGS]{"a": 1}` or `[TOOL_CALLS][{"name": "f", "arguments": {}}]`
    public static let mistral: ToolCallFormat = ToolCallFormat(.mistral)
}
