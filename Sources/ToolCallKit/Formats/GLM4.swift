// ToolCallKit — the `glm4` format (GLM-4.5 / 4.6 / 4.7 / 5):
// `<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`.
//
// Parsed by ``GLM4Grammar`` (its doc comment has the rules), the key/value-tags family.
// Reasoning: `<think>…</think>`; a call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<tool_call>NAME\n` + `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n` per argument +
    /// `</tool_call>` per call (``renderGLM(_:_:_:_:)`` with ``GLMLayout/glm45``).
    static let glmLayout = callLayout(.glm45)

    /// The call layout of a GLM layout (the text and the separation of calls stand outside it).
    static func callLayout(_ l: GLMLayout) -> CallLayout {
        CallLayout.perCall("<tool_call>", [
            .name(.bare), .markup(l.afterName),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<arg_key>"), .key(.bare), .markup("</arg_key>" + l.betweenKeyAndValue + "<arg_value>")],
                close: "</arg_value>" + l.afterValue,
                valueExcludes: glmTags.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false))),
            .markup("</tool_call>"),
        ])
    }

    static let glm4: FormatDefinition = FormatDefinition(
        name: "glm4",
        summary: "GLM-4.5 and later. Example: <tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>",
        grammar: { _ in GLM4Grammar() },
        inference: InferenceDeclaration(
            parserNames: ["glm4", "glm45", "glm4_moe", "glm4.5"],
            templates: [TemplateSignature(rank: 40, "<arg_key>", .literal(["<arg_key>"]))],
            tokens: [("<arg_key>", 40)],
            modelTypes: [ModelTypeRule(rank: 20, prefix: "glm4", format: "glm4")]),
        layout: glmLayout,
        renderer: FormatRenderer { format, calls, text throws(RenderError) in try renderGLM(format, calls, text, .glm45) },
        fuzzWords: ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
        familyNames: (["glm", "glm45", "glm4.5", "glm4.6", "glm4_moe", "glm4.7"], "GLM 4.5 and later write"))

    /// GLM-4.7 and GLM-5: decoded as `glm4`; rendered as their templates write calls, with no
    /// white space between the tags and the calls run together right after the text
    /// (`<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`).
    static let glm47: FormatDefinition = glm4.variant(
        "glm47",
        summary: "GLM-4.7 and GLM-5 (glm4, written without newlines). Example: <tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>",
        inference: InferenceDeclaration(
            parserNames: ["glm4_7", "glm5", "glm4.7"],
            templates: [TemplateSignature(rank: 38, "</arg_key><arg_value> with nothing between", .literal(["</arg_key><arg_value>"]))]),
        layout: callLayout(.glm47),
        renderer: FormatRenderer { format, calls, text throws(RenderError) in try renderGLM(format, calls, text, .glm47) })

    /// GLM-4.5 as llama.cpp's copy of its template writes it: no newline after the name or a
    /// value, one between a key and its value
    /// (`<tool_call>f<arg_key>a</arg_key>\n<arg_value>v</arg_value></tool_call>`). That copy trims
    /// the newlines GLM-4.5's own template writes; a server that renders its prompts with it
    /// shows the model this layout, so rendering earlier calls follows it.
    static let glm45LlamaCpp: FormatDefinition = glm4.variant(
        "glm45_llamacpp",
        summary: "GLM-4.5 as llama.cpp's template writes it (glm4, no newline after the name or a value). Example: <tool_call>f<arg_key>a</arg_key>\n<arg_value>v</arg_value></tool_call>",
        inference: InferenceDeclaration(
            templates: [TemplateSignature(rank: 39, "<arg_key> with the name's newline trimmed ({{ ... tc_obj.name }} then {%-)",
                                          .literal(["<arg_key>"]), .adjacent("tc_obj.name }}", "{%-"))]),
        layout: callLayout(.glm45LlamaCpp),
        renderer: FormatRenderer { format, calls, text throws(RenderError) in try renderGLM(format, calls, text, .glm45LlamaCpp) })

    private static let glmTags = CallRenderer.TextTags(
        tags: ["</arg_value>", "<arg_key>", "<arg_value>", "</arg_key>", "<tool_call>", "</tool_call>"].map { Array($0.utf8) },
        quotedNames: false, glm: true)

    /// Where a GLM template writes newlines around its tags.
    struct GLMLayout: Sendable {
        var afterText: String
        var afterName: String
        var betweenKeyAndValue: String
        var afterValue: String
        var betweenCalls: String

        /// GLM-4.5's and GLM-4.6's own templates.
        static let glm45 = GLMLayout(afterText: "\n", afterName: "\n", betweenKeyAndValue: "\n", afterValue: "\n", betweenCalls: "\n")
        /// GLM-4.7's and GLM-5's: nothing between the tags, calls right after the text.
        static let glm47 = GLMLayout(afterText: "", afterName: "", betweenKeyAndValue: "", afterValue: "", betweenCalls: "")
        /// llama.cpp's copy of GLM-4.5's.
        static let glm45LlamaCpp = GLMLayout(afterText: "\n", afterName: "", betweenKeyAndValue: "\n", afterValue: "", betweenCalls: "\n")
    }

    /// After the text and `afterText`, per call `<tool_call>NAME` and `afterName`, per argument
    /// `<arg_key>KEY</arg_key>`, `betweenKeyAndValue`, `<arg_value>VALUE</arg_value>` and
    /// `afterValue`, then `</tool_call>`, calls separated by `betweenCalls`. GLM-4.5's and 4.6's
    /// templates (the `glm4` layout) write a newline at each of these places. Values are kept
    /// exactly as written (no newline stripping).
    private static func renderGLM(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String, _ layout: GLMLayout) throws(RenderError) -> [UInt8] {
        try CallRenderer.taggedCalls(format, calls, text: text, separator: layout.afterText, between: layout.betweenCalls, tags: glmTags) { call in
            var out = Array("<tool_call>".utf8) + Array(call.name.utf8) + Array(layout.afterName.utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<arg_key>".utf8) + Array(member.key.utf8) + Array("</arg_key>".utf8)
                out += Array(layout.betweenKeyAndValue.utf8) + Array("<arg_value>".utf8)
                out += CallRenderer.textValue(member.value, tags: glmTags)
                out += Array("</arg_value>".utf8) + Array(layout.afterValue.utf8)
            }
            return out + Array("</tool_call>".utf8)
        }
    }
}

extension ToolCallFormat {
    /// GLM-4.5 and later. Example: `<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`
    public static let glm4: ToolCallFormat = ToolCallFormat(.glm4)

    /// GLM-4.7 and GLM-5: `glm4`, rendered without newlines between the tags.
    public static let glm47: ToolCallFormat = ToolCallFormat(.glm47)

    /// GLM-4.5 under llama.cpp's copy of its template: `glm4`, rendered as that copy writes it.
    public static let glm45LlamaCpp: ToolCallFormat = ToolCallFormat(.glm45LlamaCpp)
}
