// ToolCallKit — the `poolside_v1` format (Poolside Laguna):
// `<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`.
//
// The key/value-tags family (``GLM4Grammar``: GLM's rules) with what Laguna adds
// (``GLM4Dialect``):
//
// - The template writes `<tool_call>NAME\n`, per argument `<arg_key>KEY</arg_key>\n<arg_value>VALUE
//   </arg_value>\n`, then `</tool_call>\n`; every newline between tags is optional. A string
//   value is kept exactly as written (indentation and a final newline are data); other values
//   are JSON, typed by the schema (a value that does not fit its declared type is
//   `invalid_arguments`).
// - Inside `<tool_call>`, the model may fall back to JSON: a call object
//   `{"name": .., "arguments": {..}}`, or the name line followed by the arguments as one JSON
//   object. A bare JSON object in the answer, without `<tool_call>`, is content: Laguna's
//   answers hold JSON and code, and reading them as calls turned ordinary replies into calls.
// - A key followed by another key (or by `</tool_call>`) before its value is dropped: the newer
//   key takes the value.
// - The turn closes with `</assistant>` (a plain-text stop the model writes) and the
//   end-of-sequence `〈|EOS|〉`: markup, never content (after a call, with the white space
//   before them). A `</think>` with no block open (the prompt closed it, thinking off) is
//   markup too.
// - Reasoning: the generation prompt ends `<assistant><think>` (thinking on: `--reasoning-open`)
//   or `<assistant></think>` (off). A `<tool_call>` ends an unclosed reasoning block, as Laguna
//   writes its call right after its thinking.
// - End of stream as GLM: a call missing only `</tool_call>` is accepted when every required
//   parameter is present; a complete JSON body likewise.

extension FormatDefinition {
    /// The calls of a turn in one block, as the renderer writes them: `<tool_call>NAME\n`, per
    /// argument `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n`, `</tool_call>`, calls
    /// separated by a newline, and the turn's close `\n</assistant>` (nothing follows it).
    static let lagunaLayout = CallLayout(
        trigger: "<tool_call>",
        call: [
            .name(.bare), .markup("\n"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<arg_key>"), .key(.bare), .markup("</arg_key>\n<arg_value>")], close: "</arg_value>\n",
                valueExcludes: lagunaTags.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false))),
            .markup("</tool_call>"),
        ],
        separator: "\n<tool_call>", close: [.markup("\n</assistant>")], endsMessage: true)

    static let poolsideV1: FormatDefinition = FormatDefinition(
        name: "poolside_v1",
        summary: "Poolside Laguna. Example: <tool_call>f\\n<arg_key>a</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>",
        grammar: { _ in GLM4Grammar(dialect: lagunaDialect) },
        reasoning: ReasoningSyntax.think.endedBy(["<tool_call>"]),
        inference: InferenceDeclaration(
            parserNames: ["poolside_v1", "poolside", "laguna", "poolside_v1_laguna"],
            templates: [
                TemplateSignature(rank: 37, "<arg_key> with Laguna's <assistant> turns or 〈|EOS|〉",
                                  .literal(["<arg_key>"]), .literal(["〈|EOS|〉", "laguna_glm"])),
            ],
            modelTypes: [ModelTypeRule(rank: 19, prefix: "laguna", format: "poolside_v1")]),
        layout: lagunaLayout,
        renderer: FormatRenderer(render: renderPoolside),
        fuzzWords: ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "</assistant>", "{\"name\": \""],
        familyNames: (["laguna", "poolside", "laguna-xs", "laguna_xs"], "Poolside Laguna writes"))

    private static let lagunaDialect = GLM4Dialect(
        strays: ["</assistant>", "〈|EOS|〉", "</think>"], turnEnds: ["</assistant>", "〈|EOS|〉"], orphanKeysDropped: true, jsonBodies: true)

    private static let lagunaTags = CallRenderer.TextTags(
        tags: ["</arg_value>", "<arg_key>", "<arg_value>", "</arg_key>", "<tool_call>", "</tool_call>", "</assistant>", "〈|EOS|〉", "</think>"]
            .map { Array($0.utf8) },
        quotedNames: false, glm: true)

    /// As the Laguna template writes: after the text and a newline, per call `<tool_call>NAME\n`,
    /// per argument `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n`, then `</tool_call>`,
    /// calls separated by a newline, and the turn's close `\n</assistant>` after the last call.
    /// Strings are written as they are, other values as JSON.
    private static func renderPoolside(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        try CallRenderer.taggedCalls(
            format, calls, text: text, separator: "\n", between: "\n", tags: lagunaTags, close: "\n</assistant>"
        ) { call in
            var out = Array("<tool_call>".utf8) + Array(call.name.utf8) + [0x0A]
            for member in call.arguments.objectValue ?? [] {
                out += Array("<arg_key>".utf8) + Array(member.key.utf8) + Array("</arg_key>\n<arg_value>".utf8)
                out += CallRenderer.textValue(member.value, tags: lagunaTags)
                out += Array("</arg_value>\n".utf8)
            }
            return out + Array("</tool_call>".utf8)
        }
    }
}

extension ToolCallFormat {
    /// Poolside Laguna. Example: `<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`
    public static let poolsideV1: ToolCallFormat = ToolCallFormat(.poolsideV1)
}
