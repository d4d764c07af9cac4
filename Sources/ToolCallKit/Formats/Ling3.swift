// ToolCallKit — the `ling3` format (inclusionAI Ling 3.0, "Bailing V3"):
// `<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`.
//
// The key/value-tags family (``GLM4Grammar``, GLM's rules: its doc comment has them) with Ling's
// turn framing. Rules:
//
// - The template writes `<tool_call>NAME\n`, per argument `<arg_key>KEY</arg_key>\n<arg_value>VALUE
//   </arg_value>` (no newline between pairs), then `\n</tool_call>`; calls separated by a newline.
//   Every newline between tags is optional. Strings are raw; other values JSON, typed by the
//   schema (`[string, null]` takes null only for a bare `null`).
// - Inside `<arg_value>` only `</arg_value>` is structure: `</think>` or `<tool_call>` in a value
//   are data.
// - Turns are `<role>ROLE</role>…<|role_end|>`; the model may spell `<|role_end|>` out as text at
//   the end of its turn: it is markup, never content.
// - Reasoning: the generation prompt ends `<role>ASSISTANT</role>\n<think>` (thinking on), so the
//   output starts inside reasoning (`--reasoning-open`), or `<think></think>` (off). A
//   `<tool_call>` ends an unclosed reasoning block: Ling opens its calls without closing its
//   thinking, and what follows is read as a call.
// - End of stream as GLM: a call missing only `</tool_call>` is accepted when every required
//   parameter is present.

extension FormatDefinition {
    /// The calls of a turn in one block, as the renderer writes them: `<tool_call>NAME\n`, per
    /// argument `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>`, `\n</tool_call>`, calls
    /// separated by a newline, and the turn's end `<|role_end|>` (nothing follows it).
    static let ling3Layout = CallLayout(
        trigger: "<tool_call>",
        call: [
            .name(.bare), .markup("\n"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<arg_key>"), .key(.bare), .markup("</arg_key>\n<arg_value>")], close: "</arg_value>",
                valueExcludes: lingTags.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false))),
            .markup("\n</tool_call>"),
        ],
        separator: "\n<tool_call>", close: [.markup("<|role_end|>")], endsMessage: true)

    static let ling3: FormatDefinition = FormatDefinition(
        name: "ling3",
        summary: "Ling 3.0 (Bailing V3). Example: <tool_call>f\\n<arg_key>a</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>",
        grammar: { _ in GLM4Grammar(dialect: lingDialect) },
        reasoning: ReasoningSyntax.think.endedBy(["<tool_call>"]),
        inference: InferenceDeclaration(
            parserNames: ["ling3", "ling", "bailing", "bailing_v3", "ling_3"],
            templates: [
                TemplateSignature(rank: 38, "<arg_key> with <role>ASSISTANT</role> turns",
                                  .literal(["<arg_key>"]), .literal(["<role>ASSISTANT</role>"])),
            ]),
        layout: ling3Layout,
        renderer: FormatRenderer(render: renderLing3),
        fuzzWords: ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<|role_end|>", "<role>ASSISTANT</role>"],
        familyNames: (["ling", "ling-3", "ling3.0", "bailing", "bailing_v3"], "Ling 3.0 (Bailing V3) writes"))

    private static let lingDialect = GLM4Dialect(strays: ["<|role_end|>"], turnEnds: ["<|role_end|>"])

    private static let lingTags = CallRenderer.TextTags(
        tags: ["</arg_value>", "<arg_key>", "<arg_value>", "</arg_key>", "<tool_call>", "</tool_call>", "<|role_end|>"].map { Array($0.utf8) },
        quotedNames: false, glm: true)

    /// As the Ling 3.0 template writes: after the text and a newline, per call
    /// `<tool_call>NAME\n`, per argument `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>`,
    /// then `\n</tool_call>`, calls separated by a newline, and the turn's end `<|role_end|>`
    /// after the last call. Values are written as they are (strings raw, other values as JSON).
    private static func renderLing3(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        try CallRenderer.taggedCalls(
            format, calls, text: text, separator: "\n", between: "\n", tags: lingTags, close: "<|role_end|>"
        ) { call in
            var out = Array("<tool_call>".utf8) + Array(call.name.utf8) + [0x0A]
            for member in call.arguments.objectValue ?? [] {
                out += Array("<arg_key>".utf8) + Array(member.key.utf8) + Array("</arg_key>\n<arg_value>".utf8)
                out += CallRenderer.textValue(member.value, tags: lingTags)
                out += Array("</arg_value>".utf8)
            }
            return out + Array("\n</tool_call>".utf8)
        }
    }
}

extension ToolCallFormat {
    /// Ling 3.0 (Bailing V3). Example: `<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`
    public static let ling3: ToolCallFormat = ToolCallFormat(.ling3)
}
