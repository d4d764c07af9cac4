// ToolCallKit — the `k2_horizon` format (IFM K2-Horizon):
// `<ifm|tool_calls>\n<ifm|tool_call>f\n<ifm|arg_key>a</ifm|arg_key>\n<ifm|arg_value>v</ifm|arg_value>\n</ifm|tool_call>\n</ifm|tool_calls>`.
//
// The key/value-tags family (``KeyValueTagsGrammar``, its doc comment has the rules; glm4's shape) with K2-Horizon's
// `<ifm|…>` tags. The chat template writes a call in one of three ways (its
// `tool_call_format`), and the decoder, which knows no request, tells them apart by what the
// call holds:
//
// - `xml` (the default): `NAME\n` then `<ifm|arg_key>K</ifm|arg_key>\n<ifm|arg_value>V</ifm|arg_value>\n`
//   pairs. Strings are raw text (spaces kept), arrays and objects JSON, scalars typed by the
//   tool's schema.
// - `xml_typed`: `<ifm|arg_type>T</ifm|arg_type>\n` between key and value. The wire type picks
//   the member of a declared union (the template writes the value's own type there) and types
//   an argument the tool does not declare; a declared single type wins over it.
// - `json`: `{"name": .., "arguments": {..}}` inside `<ifm|tool_call>`. String arguments whose
//   declared type admits no string are typed from their text (`"2"` for an integer is 2), as
//   a text value is; undeclared strings stay strings.
//
// The `<ifm|tool_calls>` section holds the calls; a bare `<ifm|tool_call>` is a call too, and a
// section whose close never came is fine after a complete call. The end of turn
// `<|ifm|im_end|>` is markup.
//
// Reasoning: `<ifm|think>`, `<ifm|think_fast>` and `<ifm|think_faster>` (high, medium and low
// effort), each closed by its own close tag, and `<think>`. The generation prompt opens the
// chosen one (`--reasoning-open`). The model opens a call section without closing its
// reasoning, so `<ifm|tool_calls>` ends an unclosed block; any other tool markup inside a block
// (a bare `<ifm|tool_call>` quoted while thinking) is reasoning.

extension FormatDefinition {
    /// `<ifm|tool_calls>\n`, per call `<ifm|tool_call>NAME\n` + `<ifm|arg_key>KEY</ifm|arg_key>\n<ifm|arg_value>VALUE</ifm|arg_value>\n`
    /// per argument + `</ifm|tool_call>\n`, then `</ifm|tool_calls>` (``renderK2Horizon``, the
    /// template's default `xml` call format). The newline after each call is the call's, so that
    /// no separator begins like the block's close (a grammar's lexer would take the close).
    static let k2Layout = CallLayout(
        trigger: "<ifm|tool_calls>", open: [.markup("\n")],
        call: [
            .markup("<ifm|tool_call>"), .name(.bare), .markup("\n"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<ifm|arg_key>"), .key(.bare), .markup("</ifm|arg_key>\n<ifm|arg_value>")], close: "</ifm|arg_value>\n",
                valueExcludes: k2RenderTags.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false))),
            .markup("</ifm|tool_call>\n"),
        ],
        close: [.markup("</ifm|tool_calls>")])

    static let k2Horizon: FormatDefinition = FormatDefinition(
        name: "k2_horizon",
        summary: "K2-Horizon. Example: <ifm|tool_calls><ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>v</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
        grammar: { _ in KeyValueTagsGrammar(tags: k2Tags) },
        reasoning: ReasoningSyntax.think.adding("<ifm|think>", "</ifm|think>").adding("<ifm|think_fast>", "</ifm|think_fast>")
            .adding("<ifm|think_faster>", "</ifm|think_faster>").endedBy(["<ifm|tool_calls>"]),
        inference: InferenceDeclaration(
            parserNames: ["k2_horizon", "k2horizon", "k2_v3", "k2v3"],
            templates: [TemplateSignature(rank: 36, "<ifm|tool_call> (K2-Horizon calls)", .literal(["<ifm|tool_call>"]))],
            tokens: [("<ifm|tool_call>", 36)]),
        layout: k2Layout,
        renderer: FormatRenderer(render: renderK2Horizon),
        fuzzWords: ["<ifm|arg_key>", "</ifm|arg_key>", "<ifm|arg_type>", "</ifm|arg_type>", "<ifm|arg_value>",
                    "</ifm|arg_value>", "<ifm|think_fast>", "integer", "string"],
        familyNames: (["k2", "k2-horizon", "k2v3", "ifm"], "K2-Horizon writes"))

    static let k2Tags = KeyValueTags(
        [KeyValueTags.Dialect(
            section: ("<ifm|tool_calls>", "</ifm|tool_calls>"), call: ("<ifm|tool_call>", "</ifm|tool_call>"), nameSeparator: nil,
            key: ("<ifm|arg_key>", "</ifm|arg_key>"), type: ("<ifm|arg_type>", "</ifm|arg_type>"),
            value: ("<ifm|arg_value>", "</ifm|arg_value>"))],
        jsonCalls: true, markup: ["<|ifm|im_end|>"])

    private static let k2RenderTags = CallRenderer.TextTags(
        tags: ["</ifm|arg_value>", "<ifm|arg_key>", "<ifm|arg_value>", "</ifm|arg_key>", "<ifm|arg_type>",
               "<ifm|tool_call>", "</ifm|tool_call>", "</ifm|tool_calls>"].map { Array($0.utf8) },
        quotedNames: false, glm: true)

    /// As the template's default `xml` call format writes them after the text and a newline:
    /// `<ifm|tool_calls>`, per call `\n<ifm|tool_call>NAME\n`, per argument
    /// `<ifm|arg_key>KEY</ifm|arg_key>\n<ifm|arg_value>VALUE</ifm|arg_value>\n`, then
    /// `</ifm|tool_call>`; `\n</ifm|tool_calls>` last. A string is written as it is, anything
    /// else as JSON.
    private static func renderK2Horizon(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        try CallRenderer.taggedCalls(
            format, calls, text: text, separator: "\n", between: "\n", tags: k2RenderTags,
            open: "<ifm|tool_calls>\n", close: "\n</ifm|tool_calls>"
        ) { call in
            var out = Array("<ifm|tool_call>".utf8) + Array(call.name.utf8) + [0x0A]
            for member in call.arguments.objectValue ?? [] {
                out += Array("<ifm|arg_key>".utf8) + Array(member.key.utf8) + Array("</ifm|arg_key>\n<ifm|arg_value>".utf8)
                out += CallRenderer.textValue(member.value, tags: k2RenderTags)
                out += Array("</ifm|arg_value>\n".utf8)
            }
            return out + Array("</ifm|tool_call>".utf8)
        }
    }
}

extension ToolCallFormat {
    /// K2-Horizon. Example: `<ifm|tool_calls><ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>v</ifm|arg_value></ifm|tool_call></ifm|tool_calls>`
    public static let k2Horizon: ToolCallFormat = ToolCallFormat(.k2Horizon)
}
