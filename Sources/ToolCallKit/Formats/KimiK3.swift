// ToolCallKit — the `kimi_k3` format (Kimi K3): blocks of special tokens,
// `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="string"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`.
//
// Parsed by ``KimiK3Grammar`` (its doc comment has the rules; docs/formats.md too). In short:
//
// - A message is `think`, `response` and `tools` blocks; the prompt opens the first one, so
//   the output begins inside `think` (`--reasoning-open`) or inside `response`. The response
//   framing and the message's close are markup; the content between them is text.
// - Each `call` block of the `tools` section is a call, in order; its `index` attribute is a
//   position, not an id (K3 carries no ids: the decoder makes them). Attributes are unescaped
//   (`&amp;`, `&quot;`).
// - `type="string"` values are raw text; other types are JSON, typed by the tool's schema
//   when it declares the argument, by the attribute otherwise (text that is not of the
//   attribute's type stays a string: the call stands). A `json` block may hold all
//   the arguments as one JSON object: streamed as written when it is the call's first block,
//   merged whole when it follows arguments.
// - Drifts: a missing `<|close|>argument<|sep|>` (closed by the next argument or the call's
//   close), a missing call or section close (the section's close, the message's close or the
//   end of the stream ends them), a bare `call` block without its section.
// - End of stream: see ``KimiK3Grammar``; a truncated argument is never a call.
// - Reasoning: `<|open|>think<|sep|>…<|close|>think<|sep|>` (and `<think>…</think>`). K3 closes
//   its think block before the response, so a `response` or `tools` opener inside an unclosed
//   block ends it: those tokens stand only at a message's top level.

extension FormatDefinition {
    /// After the response's close, one `tools` block of calls and the message's close; values of
    /// any type between the argument tags, the attributes escaped (``renderKimiK3``). The
    /// block ends the message.
    static let kimiK3Layout = CallLayout(
        trigger: "<|close|>", open: [.markup("response<|sep|><|open|>tools<|sep|>")],
        call: [
            .markup("<|open|>call tool=\""), .name(.attribute), .markup("\" index=\""), .index(from: 1), .markup("\"<|sep|>"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<|open|>argument key=\""), .key(.attribute), .markup("\" type=\""), .typeName, .markup("\"<|sep|>")],
                close: String(decoding: KimiK3Grammar.valueTags.close, as: UTF8.self),
                valueExcludes: ["<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>"], stripsNewlines: false))),
            .markup("<|close|>call<|sep|>"),
        ],
        close: [.markup("<|close|>tools<|sep|><|close|>message<|sep|>")], endsMessage: true)

    static let kimiK3: FormatDefinition = FormatDefinition(
        name: "kimi_k3",
        summary: #"Kimi K3. Example: <|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="string"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
        grammar: { _ in KimiK3Grammar() },
        reasoning: ReasoningSyntax.think.adding("<|open|>think<|sep|>", "<|close|>think<|sep|>")
            .endedBy(["<|open|>response<|sep|>", "<|open|>tools<|sep|>"]),
        inference: InferenceDeclaration(
            parserNames: ["kimi_k3", "kimik3"],
            templates: [
                TemplateSignature(rank: 65, "Kimi K3 blocks <|open|> / <|close|> / <|sep|>",
                                  .literal(["<|open|>"]), .literal(["<|close|>"]), .literal(["<|sep|>"])),
            ],
            tokens: [("<|open|>", 65)],
            modelTypes: [ModelTypeRule(rank: 45, prefix: "kimi_k3", format: "kimi_k3")]),
        layout: kimiK3Layout,
        renderer: FormatRenderer(render: renderKimiK3),
        fuzzWords: ["<|open|>tools<|sep|>", "<|open|>call tool=\"", "\" index=\"1\"<|sep|>",
                    "<|open|>argument key=\"", "\" type=\"string\"<|sep|>", "<|close|>argument<|sep|>",
                    "<|close|>call<|sep|>", "<|close|>tools<|sep|>", "<|open|>response<|sep|>",
                    "<|close|>response<|sep|>", "<|close|>message<|sep|>", "<|open|>json type=\"object\"<|sep|>",
                    "<|close|>json<|sep|>", "&quot;", "&amp;"],
        familyNames: (["kimi-k3", "kimik3"], "Kimi K3 writes"))

    /// As the template's assistant turn after the generation prompt (which opens the response
    /// block): the text, `<|close|>response<|sep|>`, then one `tools` block with per call
    /// `<|open|>call tool="NAME" index="N"<|sep|>` (N from 1), per argument
    /// `<|open|>argument key="KEY" type="TYPE"<|sep|>VALUE<|close|>argument<|sep|>` (a string
    /// as it is, anything else as the template's JSON), `<|close|>call<|sep|>`, and the message's
    /// close. Attributes escape `&` and `"`. A value that holds the argument's close or the
    /// tags that end a value (the format has no escape) is refused.
    private static func renderKimiK3(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<|close|>response<|sep|><|open|>tools<|sep|>".utf8)
        let tags = CallRenderer.TextTags(
            tags: [KimiK3Grammar.valueTags.close] + KimiK3Grammar.valueTags.breaks, quotedNames: true, glm: false)
        for (i, call) in calls.enumerated() {
            out += Array("<|open|>call tool=\"".utf8) + escapeAttribute(call.name) + Array("\" index=\"\(i + 1)\"<|sep|>".utf8)
            for m in call.arguments.objectValue ?? [] {
                let value = CallRenderer.textValue(m.value, tags: tags)
                if let tag = CallRenderer.firstTag(in: value, tags) {
                    throw RenderError(
                        index: i, name: call.name,
                        reason: "the value of \(JSONValue.string(m.key).jsonText) holds \(String(decoding: tag, as: UTF8.self)), which ends a kimi_k3 value, and the format has no escape")
                }
                out += Array("<|open|>argument key=\"".utf8) + escapeAttribute(m.key)
                out += Array("\" type=\"\(CallRenderer.schemaType(of: m.value))\"<|sep|>".utf8)
                out += value
                out += Array("<|close|>argument<|sep|>".utf8)
            }
            out += Array("<|close|>call<|sep|>".utf8)
        }
        out += Array("<|close|>tools<|sep|><|close|>message<|sep|>".utf8)
        return out
    }

    /// `&` → `&amp;`, `"` → `&quot;`: the template's attribute escaping.
    private static func escapeAttribute(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            default: out.append(b)
            }
        }
        return out
    }
}

extension ToolCallFormat {
    /// Kimi K3. Example: `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="string"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`
    public static let kimiK3: ToolCallFormat = ToolCallFormat(.kimiK3)
}
