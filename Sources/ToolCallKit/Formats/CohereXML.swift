// ToolCallKit — the `cohere_xml` format (Cohere Command "cmd5"):
// `<cofl:tool_calls><cofl:tool_call id="0" name="f"><cofl:tool_param name="a" string="true">v</cofl:tool_param></cofl:tool_call></cofl:tool_calls>`.
//
// Parsed by ``CoflGrammar`` (its doc comment has the rules), a grammar of its own: the cofl
// elements carry attributes in any order, entity-escaped text, and values that nest (`dict`
// and `list` values hold further values), which neither the tagged-functions family (one text
// value per parameter, no entities) nor the JSON readers express. Both spellings of the
// arguments are read: the flat `<cofl:tool_param name="K" string="true|false">` and the
// nested `<cofl:value name="K" type="raw|json|dict|list">`. The model's `id` passes through
// (a repeated one, such as every call's "0", is replaced by a fresh id). Command 4 and earlier
// write `cohere` (`<|START_ACTION|>` JSON lists) instead.
//
// The answer's framing — `<|START_TEXT|>`, `<|END_TEXT|>`, `<|START_RESPONSE|>`,
// `<|END_RESPONSE|>` and the `<|END_OF_TURN_TOKEN|>` terminator — is markup wherever it stands.
// Reasoning: `<|START_THINKING|>…<|END_THINKING|>` (and `<think>`); the cmd5 prompt ends with
// `<|START_THINKING|>` when reasoning is on, so the output starts inside a block
// (`--reasoning-open`). The template closes the block before the calls; a call inside an
// unclosed block stays reasoning.
//
// Rendering and the call layout use the flat spelling (Cohere's own cmd5 filter reads it; a
// nested value is JSON there): `<cofl:tool_param name="K" string="true">` and the escaped text
// for a string, `string="false"` and the escaped JSON for anything else. Text in a grammar's
// string value holds no `<` (the renderer writes `&lt;`).
extension FormatDefinition {
    static let coflLayout = CallLayout(
        trigger: "<cofl:tool_calls>",
        call: [
            .markup("<cofl:tool_call id="), .quotedID, .markup(" name=\""), .name(.attribute), .markup("\">"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<cofl:tool_param name=\""), .key(.attribute), .markup("\" string=\""), .stringFlag, .markup("\">")],
                close: [.markup("</cofl:tool_param>")], valueExcludes: ["<"], stripsNewlines: false, escapesXML: true))),
            .markup("</cofl:tool_call>"),
        ],
        close: [.markup("</cofl:tool_calls>")])

    static let cohereXml: FormatDefinition = FormatDefinition(
        name: "cohere_xml",
        summary: #"Cohere Command cmd5 cofl calls. Example: <cofl:tool_calls><cofl:tool_call id="0" name="f"><cofl:tool_param name="a" string="true">v</cofl:tool_param></cofl:tool_call></cofl:tool_calls>"#,
        grammar: { _ in CoflGrammar() },
        reasoning: ReasoningSyntax.think.adding("<|START_THINKING|>", "<|END_THINKING|>"),
        inference: InferenceDeclaration(
            parserNames: ["cohere_xml", "cohere_cmd5", "cmd5", "cohere_command5", "cohere_cofl"],
            templates: [TemplateSignature(rank: 45, "<cofl:tool_call (Cohere cmd5 calls)", .literal(["<cofl:tool_call"]))],
            tokens: [("<cofl:tool_calls>", 45)]),
        layout: coflLayout,
        renderer: FormatRenderer(carriedID: { id, _, index in id ?? String(index) }, render: renderCohereXML),
        fuzzWords: ["<cofl:tool_call id=\"0\" name=\"", "<cofl:value name=\"", "\" type=\"raw\">", "\" type=\"json\">",
                    "\" type=\"dict\">", "\" type=\"list\">", "<cofl:value type=\"raw\">", "</cofl:value>",
                    "<cofl:tool_param name=\"", "\" string=\"true\">", "\" string=\"false\">", "</cofl:tool_param>",
                    "&lt;", "&amp;", "&quot;"],
        familyNames: (["command-a-plus", "cmd5", "command5", "cohere-cmd5"], "Cohere Command cmd5 writes"))

    /// As the cmd5 template writes a turn: the text (the template frames an answer without calls
    /// in `<|START_TEXT|>…<|END_TEXT|>`, markup the decoder drops, and writes no text with calls;
    /// the text is written as it is, first, as in every format), then `<cofl:tool_calls>`, per
    /// call `<cofl:tool_call id="ID" name="NAME">` with one `<cofl:tool_param name="K"
    /// string="true|false">` per argument (a string's text, or any other value's JSON) and
    /// `</cofl:tool_call>`, then `</cofl:tool_calls>`. Bodies and attributes are XML-escaped
    /// (`&`, `<`, `>`, and `"` in attributes), which the decoder reads back. The id is the call's
    /// own, or its index (the template numbers calls); an id given twice is refused (decoding
    /// would replace it).
    private static func renderCohereXML(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        var used: Set<String> = []
        out += Array("<cofl:tool_calls>".utf8)
        for (i, call) in calls.enumerated() {
            let id = call.id ?? String(i)
            guard used.insert(id).inserted else {
                throw RenderError(index: i, name: call.name, reason: "the id \(JSONValue.string(id).jsonText) is an earlier call's; the decoder would replace it")
            }
            out += Array("<cofl:tool_call id=\"".utf8) + xmlEscaped(id, attribute: true)
            out += Array("\" name=\"".utf8) + xmlEscaped(call.name, attribute: true) + Array("\">".utf8)
            for m in call.arguments.objectValue ?? [] {
                out += Array("<cofl:tool_param name=\"".utf8) + xmlEscaped(m.key, attribute: true)
                if case .string(let s) = m.value {
                    out += Array("\" string=\"true\">".utf8) + xmlEscaped(s, attribute: false)
                } else {
                    var json: [UInt8] = []
                    CallRenderer.writeTemplateJSON(m.value, to: &json)
                    out += Array("\" string=\"false\">".utf8) + xmlEscaped(String(decoding: json, as: UTF8.self), attribute: false)
                }
                out += Array("</cofl:tool_param>".utf8)
            }
            out += Array("</cofl:tool_call>".utf8)
        }
        out += Array("</cofl:tool_calls>".utf8)
        return out
    }

    /// `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`, and in attributes `"` → `&quot;`.
    private static func xmlEscaped(_ s: String, attribute: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\"") where attribute: out += Array("&quot;".utf8)
            default: out.append(b)
            }
        }
        return out
    }
}

extension ToolCallFormat {
    /// Cohere Command cmd5 cofl calls. Example: `<cofl:tool_calls><cofl:tool_call id="0" name="f"><cofl:tool_param name="a" string="true">v</cofl:tool_param></cofl:tool_call></cofl:tool_calls>`
    public static let cohereXml: ToolCallFormat = ToolCallFormat(.cohereXml)
}
