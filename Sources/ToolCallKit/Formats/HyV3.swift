// ToolCallKit — the `hy_v3` format (Tencent Hy3):
// `<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>v</arg_value></tool_call></tool_calls>`.
//
// The key/value-tags family (``KeyValueTagsGrammar``, its doc comment has the rules; glm4's shape) with Hy3's tags:
// a `<tool_calls>` section of `<tool_call>NAME<tool_sep>` blocks, each holding
// `<arg_key>K</arg_key><arg_value>V</arg_value>` pairs; newlines between the tags are optional.
// The released chat template suffixes every special token with `:opensource`
// (`<tool_call:opensource>`, `<think:opensource>`, the end of turn `<｜hy_eos:opensource｜>`),
// while the peers' tests write them bare: both spellings are read, each frame in the spelling of
// the marker that opened it. Values are raw text for strings and JSON otherwise (the template
// writes `tojson`), typed by the tool's schema. A `<tool_call>` block without the section is a
// call too. The end-of-turn token is markup.
//
// Reasoning: `<think:opensource>…</think:opensource>` and `<think>…</think>`. The template
// always writes the block (empty without reasoning) and closes it before the calls; its
// generation prompt opens it (`--reasoning-open`) for the `low` and `high` efforts and writes it
// empty for `no_think`. A call inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<tool_calls:opensource>\n`, per call `<tool_call:opensource>NAME<tool_sep:opensource>\n` +
    /// `<arg_key:opensource>KEY</arg_key:opensource>\n<arg_value:opensource>VALUE</arg_value:opensource>\n`
    /// per argument + `</tool_call:opensource>\n`, then `</tool_calls:opensource>` (``renderHyV3``).
    static let hyLayout = CallLayout(
        trigger: "<tool_calls:opensource>", open: [.markup("\n")],
        call: [
            .markup("<tool_call:opensource>"), .name(.bare), .markup("<tool_sep:opensource>\n"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<arg_key:opensource>"), .key(.bare), .markup("</arg_key:opensource>\n<arg_value:opensource>")],
                close: "</arg_value:opensource>\n",
                valueExcludes: hyRenderTags.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false))),
            .markup("</tool_call:opensource>\n"),
        ],
        close: [.markup("</tool_calls:opensource>")])

    static let hyV3: FormatDefinition = FormatDefinition(
        name: "hy_v3",
        summary: "Tencent Hy3. Example: <tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>v</arg_value></tool_call></tool_calls>",
        grammar: { _ in KeyValueTagsGrammar(tags: hyTags) },
        reasoning: ReasoningSyntax.think.adding("<think:opensource>", "</think:opensource>"),
        inference: InferenceDeclaration(
            parserNames: ["hy_v3", "hy3", "hunyuan_v3"],
            templates: [
                // The released template builds its tokens with `'<tool_sep{}>'.format(HYTK)`.
                TemplateSignature(rank: 38, "<tool_sep with <arg_key (Hy3 calls)", .literal(["<tool_sep"]), .literal(["<arg_key"])),
            ],
            tokens: [("<tool_sep:opensource>", 38), ("<tool_sep>", 38)],
            modelTypes: [ModelTypeRule(rank: 38, prefix: "hy_v3", format: "hy_v3")]),
        layout: hyLayout,
        renderer: FormatRenderer(render: renderHyV3),
        fuzzWords: ["<tool_sep>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", ":opensource"],
        familyNames: (["hy3", "hunyuan3", "hunyuan-3", "hy-3"], "Hy3 writes"))

    private static func dialect(_ suffix: String) -> KeyValueTags.Dialect {
        KeyValueTags.Dialect(
            section: ("<tool_calls\(suffix)>", "</tool_calls\(suffix)>"), call: ("<tool_call\(suffix)>", "</tool_call\(suffix)>"),
            nameSeparator: "<tool_sep\(suffix)>", key: ("<arg_key\(suffix)>", "</arg_key\(suffix)>"), type: nil,
            value: ("<arg_value\(suffix)>", "</arg_value\(suffix)>"))
    }

    static let hyTags = KeyValueTags([dialect(":opensource"), dialect("")], markup: ["<｜hy_eos:opensource｜>", "<｜hy_eos｜>"])

    private static let hyRenderTags = CallRenderer.TextTags(
        tags: ["</arg_value:opensource>", "<arg_key:opensource>", "<arg_value:opensource>", "</arg_key:opensource>",
               "<tool_call:opensource>", "</tool_call:opensource>", "</tool_calls:opensource>"].map { Array($0.utf8) },
        quotedNames: false, glm: true)

    /// As the released template writes the calls after the text: `<tool_calls:opensource>\n`,
    /// per call `<tool_call:opensource>NAME<tool_sep:opensource>\n`, per argument
    /// `<arg_key:opensource>KEY</arg_key:opensource>\n<arg_value:opensource>VALUE</arg_value:opensource>\n`,
    /// then `</tool_call:opensource>\n`; `</tool_calls:opensource>` last. A string is written as
    /// it is, anything else as JSON.
    private static func renderHyV3(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        try CallRenderer.taggedCalls(
            format, calls, text: text, separator: "", between: "", tags: hyRenderTags,
            open: "<tool_calls:opensource>\n", close: "</tool_calls:opensource>"
        ) { call in
            var out = Array("<tool_call:opensource>".utf8) + Array(call.name.utf8) + Array("<tool_sep:opensource>\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<arg_key:opensource>".utf8) + Array(member.key.utf8) + Array("</arg_key:opensource>\n<arg_value:opensource>".utf8)
                out += CallRenderer.textValue(member.value, tags: hyRenderTags)
                out += Array("</arg_value:opensource>\n".utf8)
            }
            return out + Array("</tool_call:opensource>\n".utf8)
        }
    }
}

extension ToolCallFormat {
    /// Tencent Hy3. Example: `<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>v</arg_value></tool_call></tool_calls>`
    public static let hyV3: ToolCallFormat = ToolCallFormat(.hyV3)
}
