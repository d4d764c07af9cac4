// ToolCallKit — the `seed_oss` format (ByteDance Seed-OSS):
// `<seed:tool_call><function=f><parameter=a>v</parameter></function></seed:tool_call>`.
//
// The tagged-functions family (``TaggedFunctionParser``) with Seed's wrapper around Qwen3-Coder's
// function and parameter tags. Rules (docs/formats.md):
//
// - Every `<function=…>` block of a `<seed:tool_call>` block is a call, in order; several blocks
//   may follow each other.
// - Values are raw text (never entity-decoded), every byte between the tags: the template writes
//   `<parameter=k>V</parameter>`, so a newline at an edge is the value's (unlike xml_function).
//   `</parameter>` ends a value only when `<parameter=`, `</function>`, `</seed:tool_call>` or
//   the end of the stream follows it (after at most 256 bytes of white space); a missing
//   `</parameter>` is closed by the next parameter or `</function>`, a missing `</function>`
//   by `</seed:tool_call>`. Quoted markup inside a value is data by xml_function's rules.
// - A bare `<function=…>` block is a call too (the wrapper token stripped); an orphan
//   `</seed:tool_call>` is markup.
// - Typing by the tool's schema, as for xml_function; without one a value that is exactly a
//   JSON number, literal, object or array is that value.
// - End of stream: a call whose last value was closed (only closing tags missing) is accepted
//   when no required parameter is missing; cut inside a name, key or value it is `incomplete`.
// - Reasoning: `<seed:think>…</seed:think>` (and `<think>…</think>`). The budget tags Seed
//   writes inside its reasoning (`<seed:cot_budget_reflect>`, and a stray closing one) are
//   reasoning text. A call inside an unclosed block stays reasoning. `<seed:bos>assistant`
//   between the reasoning and a call is text.

extension FormatDefinition {
    /// `<seed:tool_call>\n<function=NAME>\n` + `<parameter=KEY>VALUE</parameter>\n` per argument +
    /// `</function>\n</seed:tool_call>` per call (``renderSeedOSS``).
    static let seedLayout = CallLayout.tagged(
        seedTags, wrapperPerCall: true, afterWrapperOpen: "\n", afterName: ">\n", afterKey: ">",
        afterValue: "\n", afterFunction: "\n", quoted: false, stripsNewlines: false, values: .pythonStr)

    static let seedOss: FormatDefinition = FormatDefinition(
        name: "seed_oss",
        summary: "ByteDance Seed-OSS. Example: <seed:tool_call><function=f><parameter=a>v</parameter></function></seed:tool_call>",
        grammar: { _ in TaggedFunctionParser(tags: seedTags) },
        reasoning: ReasoningSyntax.think.adding("<seed:think>", "</seed:think>"),
        inference: InferenceDeclaration(
            parserNames: ["seed_oss", "seedoss", "seed"],
            templates: [TemplateSignature(rank: 12, "<seed:tool_call>", .literal(["<seed:tool_call>"]))],
            tokens: [("<seed:tool_call>", 12)],
            modelTypes: [ModelTypeRule(rank: 35, prefix: "seed_oss", format: "seed_oss")]),
        layout: seedLayout,
        renderer: FormatRenderer(render: renderSeedOSS),
        fuzzWords: ["<parameter=", "</parameter>", "<seed:think>", "</seed:think>", "<seed:cot_budget_reflect>"],
        familyNames: (["seed", "seed-oss", "seedoss", "bytedance"], "Seed-OSS writes"))

    /// After the text and a blank line, per call `<seed:tool_call>\n<function=NAME>\n`, per argument
    /// `<parameter=KEY>VALUE</parameter>\n`, then `</function>\n</seed:tool_call>`, calls
    /// separated by a newline (Seed-OSS's template writes values with no newline around them,
    /// and the decoder strips none). A string is written as it is; any other value as Python's
    /// `str()` writes it (`True`, `None`, `{'k': [1, 'a']}`), as the template's `| string`
    /// does; the decoder reads those spellings for a schema's boolean, null, object and array.
    private static func renderSeedOSS(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        let tags = seedTags.rendering
        return try CallRenderer.taggedCalls(format, calls, text: text, separator: "\n\n", between: "\n", tags: tags) { call in
            var out = Array("<seed:tool_call>\n<function=".utf8) + Array(call.name.utf8) + Array(">\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<parameter=".utf8) + Array(member.key.utf8) + Array(">".utf8)
                out += CallRenderer.pythonTextValue(member.value, tags: tags)
                out += Array("</parameter>\n".utf8)
            }
            return out + Array("</function>\n</seed:tool_call>".utf8)
        }
    }

    private static let seedTags = TaggedFunctionTags(
        wrapper: ("<seed:tool_call>", "</seed:tool_call>"), function: ("<function=", "</function>"),
        parameter: ("<parameter=", "</parameter>"), quotedNames: false, stripNewlines: false)
}

extension ToolCallFormat {
    /// ByteDance Seed-OSS. Example: `<seed:tool_call><function=f><parameter=a>v</parameter></function></seed:tool_call>`
    public static let seedOss: ToolCallFormat = ToolCallFormat(.seedOss)
}
