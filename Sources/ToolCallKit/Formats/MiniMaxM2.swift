// ToolCallKit — the `minimax_m2` format (MiniMax M2 / M2.1 / M2.5 / M2.7):
// `<minimax:tool_call><invoke name="f"><parameter name="a">v</parameter></invoke></minimax:tool_call>`.
//
// The tagged-functions family (``TaggedFunctionParser``) with MiniMax's tags. Rules
// (docs/formats.md):
//
// - Every `<invoke>` of a block is a call, in order.
// - Names and keys are unquoted (`"f"`, `'f'` or bare `f`) and trimmed.
// - Values are raw text, HTML included, never entity-decoded, every byte between the tags (the
//   template writes `<parameter name="k">V</parameter>`: a newline at an edge is the value's).
//   `</parameter>` is data unless `<parameter name=`,
//   `</invoke>`, `</minimax:tool_call>` or the end of the stream follows it (after at most 256
//   bytes of white space); a missing `</parameter>` is closed by the next parameter or
//   `</invoke>`. Quoted markup inside a value is data, by the rules of xml_function: a
//   parameter opener must name a key that may come next, and a quoted `<invoke name=` or
//   wrapper opens a level that its own closer ends.
// - A bare `<invoke name=` block is a call too (servers may strip the wrapper tokens); a
//   missing `</minimax:tool_call>` at end of stream leaks no markup.
// - Typing as in docs/formats.md: with `anyOf[string, null]` only a literal `null`/`None` is null.
// - Reasoning: `<think>…</think>`; a call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// One `<minimax:tool_call>\n` block of `<invoke name="NAME">\n` + `<parameter name="KEY">VALUE</parameter>\n`
    /// per argument + `</invoke>\n` (``renderMiniMaxM2``).
    static let minimaxLayout = CallLayout.tagged(
        minimaxTags, wrapperPerCall: false, afterWrapperOpen: "\n", afterName: ">\n", afterKey: ">",
        afterValue: "\n", afterFunction: "\n", quoted: true, stripsNewlines: false)

    static let minimaxM2: FormatDefinition = FormatDefinition(
        name: "minimax_m2",
        summary: #"MiniMax M2. Example: <minimax:tool_call><invoke name="f"><parameter name="a">v</parameter></invoke></minimax:tool_call>"#,
        grammar: { _ in TaggedFunctionParser(tags: minimaxTags) },
        inference: InferenceDeclaration(
            parserNames: ["minimax", "minimax_m2"],
            templates: [TemplateSignature(rank: 10, "<minimax:tool_call>", .literal(["<minimax:tool_call>"]))],
            tokens: [("<minimax:tool_call>", 10)],
            modelTypes: [ModelTypeRule(rank: 40, prefix: "minimax", format: "minimax_m2")]),
        layout: minimaxLayout,
        renderer: FormatRenderer(render: renderMiniMaxM2),
        fuzzWords: ["<parameter name=", "</parameter>"],
        familyNames: (["minimax", "minimax-m2", "minimaxm2"], "MiniMax M2 writes"))

    /// After the text and a newline, one `<minimax:tool_call>\n` block holding per call
    /// `<invoke name="NAME">\n`, per argument `<parameter name="KEY">VALUE</parameter>\n`, then
    /// `</invoke>\n`, as MiniMax M2's template writes them: the value flush against its tags.
    private static func renderMiniMaxM2(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        let tags = minimaxTags.rendering
        return try CallRenderer.taggedCalls(
            format, calls, text: text, separator: "\n", between: "", tags: tags,
            open: "<minimax:tool_call>\n", close: "</minimax:tool_call>"
        ) { call in
            var out = Array("<invoke name=\"".utf8) + Array(call.name.utf8) + Array("\">\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<parameter name=\"".utf8) + Array(member.key.utf8) + Array("\">".utf8)
                out += CallRenderer.textValue(member.value, tags: tags)
                out += Array("</parameter>\n".utf8)
            }
            return out + Array("</invoke>\n".utf8)
        }
    }

    private static let minimaxTags = TaggedFunctionTags(
        wrapper: ("<minimax:tool_call>", "</minimax:tool_call>"), function: ("<invoke name=", "</invoke>"),
        parameter: ("<parameter name=", "</parameter>"), quotedNames: true, stripNewlines: false)
}

extension ToolCallFormat {
    /// MiniMax M2. Example: `<minimax:tool_call><invoke name="f"><parameter name="a">v</parameter></invoke></minimax:tool_call>`
    public static let minimaxM2: ToolCallFormat = ToolCallFormat(.minimaxM2)
}
