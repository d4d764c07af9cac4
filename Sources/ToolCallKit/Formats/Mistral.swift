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

    /// Mistral Small 3.1 (and the other templates that write the older list): decoded as
    /// `mistral`; rendered as `[TOOL_CALLS] [{"name": "f", "arguments": {...}, "id": "ID"}, ...]`.
    static let mistral31: FormatDefinition = mistral.variant(
        "mistral31",
        summary: #"Mistral Small 3.1 (mistral, written as the older JSON list). Example: [TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}, "id": "a1B2c3D4e"}]"#,
        inference: InferenceDeclaration(
            parserNames: ["mistral_small_3_1", "mistral3.1"],
            templates: [TemplateSignature(rank: 79, "[TOOL_CALLS] [ (a JSON list after a space)", .literal(["[TOOL_CALLS] ["]))]),
        layout: CallLayout(
            trigger: "[TOOL_CALLS]", open: [.markup(" [")],
            call: [.markup("{\"name\": "), .name(.jsonString), .markup(", \"arguments\": "), .arguments(.json),
                   .optionalQuotedID(prefix: ", \"id\": "), .markup("}")],
            separator: ", ", close: [.markup("]")]),
        renderer: FormatRenderer(carriedID: { id, _, _ in id.flatMap { $0.isEmpty ? nil : $0 } }, render: renderMistralList))

    /// `[TOOL_CALLS] [` after the text, per call `{"name": NAME, "arguments": {...}, "id": ID}`
    /// (the id member only when the call has one), `, ` between calls, then `]`: Mistral Small
    /// 3.1's template. That template writes the last 9 characters of the id and refuses a shorter
    /// one; rendering writes the id whole, which the decoder passes through, so it comes back
    /// as given. Two calls with one id are refused (the decoder would replace the second).
    private static func renderMistralList(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        var used: Set<String> = []
        out += Array("[TOOL_CALLS] [".utf8)
        for (i, call) in calls.enumerated() {
            if i > 0 { out += Array(", ".utf8) }
            out += Array("{\"name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"arguments\": ".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            if let id = call.id, !id.isEmpty {
                guard used.insert(id).inserted else {
                    throw RenderError(index: i, name: call.name, reason: "the id \(JSONValue.string(id).jsonText) is an earlier call's; the decoder would replace it")
                }
                out += Array(", \"id\": ".utf8)
                JSONValue.writeString(id, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
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

    /// Mistral Small 3.1: `mistral`, rendered as the older `[TOOL_CALLS] [{...}]` list.
    public static let mistral31: ToolCallFormat = ToolCallFormat(.mistral31)
}
