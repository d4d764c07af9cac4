// ToolCallKit — the `xml_function` format (Qwen3-Coder, Qwen3.5, Step-3.5):
// `<tool_call><function=f><parameter=a>v</parameter></function></tool_call>`.
//
// The tagged-functions family (``TaggedFunctionParser``) with Qwen3-Coder's tags. Rules
// (docs/formats.md):
//
// - Values are raw text (no XML entity decoding); exactly one leading and one trailing `\n`
//   are stripped (the templates write `<parameter=k>\nV\n</parameter>`); other white space is
//   data.
// - Several `<function=…>` blocks may share one `<tool_call>` frame.
// - A bare `<function=…>` block without the wrapper is a call (`<function=` is a start
//   marker); a `</tool_call>` after it with no opener is `markup`, never text.
// - A missing `</parameter>` is closed by the next `<parameter=` or by `</function>`; a missing
//   `</function>` by `</tool_call>`.
// - `</parameter>` ends a value only when, after at most 256 bytes of white space, it is
//   followed by `<parameter=`, `</function>`, `</tool_call>` or the end of the stream;
//   otherwise it is part of the value (linear time, bounded holdback).
// - A value may quote this format's markup (an agent writing a file that holds a call): a
//   `<parameter=KEY>` ends a value only for a key that may come next (not the current one,
//   not one already set; standing for a missing `</parameter>`, also declared when the tool
//   declares its parameters); a `</function>` standing for a missing `</parameter>` only before
//   `</tool_call>`, another function or the end; and a quoted `<tool_call>` or `<function=`
//   opens a level that its own closer ends, inside which every tag is data.
// - Inside `<tool_call>`, a Hermes call object `{"name": .., "arguments": {..}}` is a call too
//   (Qwen 3.5 falls back to it), streamed like the `json` format.
// - Names may contain spaces (trimmed); `<function=name` with no `>` before a newline or `<`
//   is text outside a wrapper and `malformed` inside one, never a call.
// - Reasoning: `<think>…</think>`. Qwen 3.5 and Step 3.5 prompts open the block (`<think>\n`),
//   and the models often open a call without closing it: a `<tool_call>` inside an unclosed
//   block ends the block and is read as a call (as in `json`). A bare `<function=` there stays
//   reasoning: only the wrapper the templates write ends the block, so markup quoted in
//   reasoning is not a call.

extension FormatDefinition {
    /// `<tool_call>\n<function=NAME>\n` + `<parameter=KEY>\nVALUE\n</parameter>\n` per argument +
    /// `</function>\n</tool_call>` per call (``renderXMLFunction``).
    static let xmlLayout = CallLayout.tagged(
        xmlTags, wrapperPerCall: true, afterWrapperOpen: "\n", afterName: ">\n", afterKey: ">\n", beforeClose: "\n",
        afterValue: "\n", afterFunction: "\n", quoted: false, stripsNewlines: false, values: .pythonScalars)

    static let xmlFunction: FormatDefinition = FormatDefinition(
        name: "xml_function",
        summary: "Qwen3-Coder XML-ish functions. Example: <tool_call><function=f><parameter=a>v</parameter></function></tool_call>",
        grammar: { _ in TaggedFunctionParser(tags: xmlTags) },
        reasoning: ReasoningSyntax.think.endedBy(["<tool_call>"]),
        inference: InferenceDeclaration(
            parserNames: ["qwen3_coder", "qwen3_xml", "xml_function", "qwen35", "qwen3_5"],
            templates: [
                TemplateSignature(rank: 60, "<tool_call> then <function= (a real or escaped newline between)",
                                  .adjacent("<tool_call>", "<function=")),
                TemplateSignature(rank: 61, "<function=NAME> with <parameter=", .tagThen("<function=", "<parameter=")),
            ],
            modelTypes: [
                ModelTypeRule(rank: 70, prefix: "nemotron", explain: { _, _ in
                    "→ xml_function, the Nemotron 3 default (ambiguous: Nemotron Nano v2 shares the type and writes nemotron's <TOOLCALL>)"
                }, format: "xml_function"),
                ModelTypeRule(rank: 71, prefix: "qwen3_5", format: "xml_function"),
                ModelTypeRule(rank: 72, prefix: "qwen3_next", format: "xml_function"),
            ]),
        layout: xmlLayout,
        renderer: FormatRenderer(render: renderXMLFunction),
        fuzzWords: ["<parameter=", "</parameter>"],
        familyNames: (["qwen3-coder", "qwen3_coder", "qwen3coder", "qwen_coder"], "Qwen3-Coder writes"))

    /// After the text and a blank line, per call `<tool_call>\n<function=NAME>\n`, per argument
    /// `<parameter=KEY>\nVALUE\n</parameter>\n`, then `</function>\n</tool_call>`, calls
    /// separated by a newline. The decoder strips exactly one newline at each end of a value, so
    /// every value comes back whole. A string is written as it is; a boolean or null as Python's
    /// `True`, `False`, `None` and a number as its text (the templates' `| string`); an object or
    /// array as JSON (with `<` written `\u003c` when the JSON would hold a tag).
    private static func renderXMLFunction(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        let tags = xmlTags.rendering
        return try CallRenderer.taggedCalls(format, calls, text: text, separator: "\n\n", between: "\n", tags: tags) { call in
            var out = Array("<tool_call>\n<function=".utf8) + Array(call.name.utf8) + Array(">\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<parameter=".utf8) + Array(member.key.utf8) + Array(">\n".utf8)
                out += CallRenderer.pythonScalarTextValue(member.value, tags: tags)
                out += Array("\n</parameter>\n".utf8)
            }
            return out + Array("</function>\n</tool_call>".utf8)
        }
    }

    private static let xmlTags = TaggedFunctionTags(
        wrapper: ("<tool_call>", "</tool_call>"), function: ("<function=", "</function>"),
        parameter: ("<parameter=", "</parameter>"), quotedNames: false, stripNewlines: true, jsonCalls: true)
}

extension ToolCallFormat {
    /// Qwen3-Coder XML-ish functions. Example: `<tool_call><function=f><parameter=a>v</parameter></function></tool_call>`
    public static let xmlFunction: ToolCallFormat = ToolCallFormat(.xmlFunction)
}
