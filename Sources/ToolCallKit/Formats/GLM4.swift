// ToolCallKit — the `glm4` format (GLM-4.5 / 4.6 / 4.7 / 5):
// `<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`.
//
// Parsed by ``GLM4Grammar`` (its doc comment has the rules), the key/value-tags family.
// Reasoning: `<think>…</think>`; a call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<tool_call>NAME\n` + `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n` per argument +
    /// `</tool_call>` per call (``renderGLM4``).
    static let glmLayout = CallLayout.perCall("<tool_call>", [
        .name(.bare), .markup("\n"),
        .arguments(.tagged(CallLayout.TaggedArguments(
            open: [.markup("<arg_key>"), .key(.bare), .markup("</arg_key>\n<arg_value>")], close: "</arg_value>\n",
            valueExcludes: glmTags.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false))),
        .markup("</tool_call>"),
    ])

    static let glm4: FormatDefinition = FormatDefinition(
        name: "glm4",
        summary: "GLM-4.5 and later. Example: <tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>",
        grammar: { _ in GLM4Grammar() },
        inference: InferenceDeclaration(
            parserNames: ["glm4", "glm45", "glm47", "glm4_moe", "glm4.5"],
            templates: [TemplateSignature(rank: 40, "<arg_key>", .literal(["<arg_key>"]))],
            tokens: [("<arg_key>", 40)],
            modelTypes: [ModelTypeRule(rank: 20, prefix: "glm4", format: "glm4")]),
        layout: glmLayout,
        renderer: FormatRenderer(render: renderGLM4),
        fuzzWords: ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
        familyNames: (["glm", "glm45", "glm4.5", "glm4.6", "glm4_moe", "glm47"], "GLM 4.5 and later write"))

    private static let glmTags = CallRenderer.TextTags(
        tags: ["</arg_value>", "<arg_key>", "<arg_value>", "</arg_key>", "<tool_call>", "</tool_call>"].map { Array($0.utf8) },
        quotedNames: false, glm: true)

    /// After the text and a newline, per call `<tool_call>NAME\n`, per argument
    /// `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n`, then `</tool_call>`, calls
    /// separated by a newline. Values are kept exactly as written (no newline stripping).
    private static func renderGLM4(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        try CallRenderer.taggedCalls(format, calls, text: text, separator: "\n", between: "\n", tags: glmTags) { call in
            var out = Array("<tool_call>".utf8) + Array(call.name.utf8) + [0x0A]
            for member in call.arguments.objectValue ?? [] {
                out += Array("<arg_key>".utf8) + Array(member.key.utf8) + Array("</arg_key>\n<arg_value>".utf8)
                out += CallRenderer.textValue(member.value, tags: glmTags)
                out += Array("</arg_value>\n".utf8)
            }
            return out + Array("</tool_call>".utf8)
        }
    }
}

extension ToolCallFormat {
    /// GLM-4.5 and later. Example: `<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`
    public static let glm4: ToolCallFormat = ToolCallFormat(.glm4)
}
