// ToolCallKit — the `minicpm5` format (openbmb MiniCPM5):
// `<function name="f"><param name="a">v</param></function>`.
//
// The tagged-functions family (``TaggedFunctionParser``) with MiniCPM5's tags, written bare (no
// wrapper). Rules (docs/formats.md):
//
// - Each `<function name="…">…</function>` block is a call; blocks come back to back, on their
//   own lines, or between prose.
// - `<function` and `<param` are single tokens, and the attribute follows them: white space, the
//   byte-level space `Ġ` a tokenizer left undecoded, or nothing at all (`<functionname="f">`) is
//   read the same. Names and keys are quoted with `"` or `'` (or bare) and trimmed. A `<function`
//   that is not followed by `name=` and a name (`<functions>`, `<function_call>`) is text.
// - Values are taken exactly as written (no newline stripping, no entity decoding: a bare `&`
//   is an ampersand). A value that holds `<`, `&` or a newline is written as a
//   `<![CDATA[…]]>` section, whose bytes are the value: inside it only `]]>` before `</param>`
//   (or before a tag that stands for a missing one) ends it, so it may hold `</param>`.
// - Typing by the schema: strings raw; other values JSON, or their Python spelling (the template
//   writes a dict as `{'a': 1}`, booleans `True`/`False`, null `None`).
// - A first parameter `arguments` or `properties` that the tool does not declare, holding an
//   object (JSON or Python) of declared parameters, is the arguments: MiniCPM5 sometimes wraps
//   them all in one. Without tools it stays a parameter.
// - A missing `</param>` is closed by the next `<param` or by `</function>`; `</param>` inside a
//   value is data unless the next parameter, `</function>` or the end of the stream follows.
// - Reasoning: `<think>…</think>`; the generation prompt opens it when thinking is on
//   (`--reasoning-open`). A call inside an unclosed block stays reasoning.
// - End of stream: a call missing only its closing tags is accepted when every required
//   parameter is present.

extension FormatDefinition {
    /// Each call a block of its own, as the renderer writes it: `<function name="NAME">`, per
    /// argument `<param name="KEY">VALUE</param>`, `</function>`; strings raw or (holding `<`, `&`
    /// or a newline) in CDATA, other values in Python's `str()`.
    static let miniCPMLayout = CallLayout.perCall("<function", [
        .markup(" name=\""), .name(.bare), .markup("\">"),
        .arguments(.tagged(CallLayout.TaggedArguments(
            open: [.markup("<param name=\""), .key(.bare), .markup("\">")], close: "</param>",
            valueExcludes: miniCPMTags.rendering.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false,
            values: .pythonStr, cdata: true))),
        .markup("</function>"),
    ])

    static let minicpm5: FormatDefinition = FormatDefinition(
        name: "minicpm5",
        summary: #"MiniCPM5. Example: <function name="f"><param name="a">v</param></function>"#,
        grammar: { _ in TaggedFunctionParser(tags: miniCPMTags) },
        inference: InferenceDeclaration(
            parserNames: ["minicpm5", "minicpm5xml", "minicpm5_xml", "minicpm"],
            templates: [
                TemplateSignature(rank: 50, #"<function name=" calls with <param name=" values in <![CDATA["#,
                                  .literal([#"<function name=""#]), .literal([#"<param name=""#]), .literal(["<![CDATA["])),
            ]),
        layout: miniCPMLayout,
        renderer: FormatRenderer(render: renderMiniCPM5),
        fuzzWords: [" name=\"", "<![CDATA[", "]]>", "</param>"],
        familyNames: (["minicpm", "minicpm-5", "minicpm_5", "openbmb"], "MiniCPM5 writes"))

    /// As the MiniCPM5 template writes: after the text and a newline, per call
    /// `<function name="NAME">`, per argument `<param name="KEY">VALUE</param>`, then
    /// `</function>`, calls separated by a newline. A string is written as it is, inside
    /// `<![CDATA[…]]>` when it holds `<`, `&` or a newline; other values as Python's `str()`, as
    /// the template's Jinja prints them (`True`, `None`, `{'a': 1}`), with `<` written `\x3c`
    /// when the text would hold one of the format's tags.
    private static func renderMiniCPM5(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        let tags = miniCPMTags.rendering
        return try CallRenderer.taggedCalls(format, calls, text: text, separator: "\n", between: "\n", tags: tags) { call in
            var out = Array("<function name=\"".utf8) + Array(call.name.utf8) + Array("\">".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<param name=\"".utf8) + Array(member.key.utf8) + Array("\">".utf8)
                if case .string(let s) = member.value {
                    let b = Array(s.utf8)
                    if b.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") || $0 == 0x0A }) {
                        out += TextValueScanner.cdataOpen + b + TextValueScanner.cdataClose
                    } else {
                        out += b
                    }
                } else {
                    out += CallRenderer.pythonTextValue(member.value, tags: tags)
                }
                out += Array("</param>".utf8)
            }
            return out + Array("</function>".utf8)
        }
    }

    private static let miniCPMTags = TaggedFunctionTags(
        wrappers: [], function: ("<function", "</function>"), parameter: ("<param", "</param>"),
        quotedNames: true, nameAttribute: "name=", stripNewlines: false, cdata: true,
        wrapperKeys: ["arguments", "properties"])
}

extension ToolCallFormat {
    /// MiniCPM5. Example: `<function name="f"><param name="a">v</param></function>`
    public static let minicpm5: ToolCallFormat = ToolCallFormat(.minicpm5)
}
