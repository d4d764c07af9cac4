// ToolCallKit — the `nemotron` format (NVIDIA Nemotron Nano v2):
// `<TOOLCALL>[{"name": "f", "arguments": {"a": 1}}, …]</TOOLCALL>`.
//
// The JSON-call-list family (``JSONCallListGrammar``, its doc comment has the rules) between
// `<TOOLCALL>` and `</TOOLCALL>`. Drifts tolerated: a lone call object instead of the list,
// arguments written as a JSON string that encodes an object. A complete list whose
// `</TOOLCALL>` never came is fine at the end of the stream; a list cut off inside is
// `incomplete`. (Nemotron 3 Nano, which shares the `nemotron_h` model type, writes
// `xml_function` instead: a template or token decides.) Reasoning: `<think>…</think>`; a call
// inside an unclosed block stays reasoning.

extension FormatDefinition {
    /// `<TOOLCALL>[{"name": NAME, "arguments": {...}}, ...]</TOOLCALL>` (``renderNemotron``).
    static let nemotronLayout = CallLayout(
        trigger: "<TOOLCALL>", open: [.markup("[")],
        call: [.markup("{\"name\": "), .name(.jsonString), .markup(", \"arguments\": "), .arguments(.json), .markup("}")],
        separator: ", ", close: [.markup("]</TOOLCALL>")])

    static let nemotron: FormatDefinition = FormatDefinition(
        name: "nemotron",
        summary: #"NVIDIA Nemotron Nano v2 JSON call lists. Example: <TOOLCALL>[{"name": "f", "arguments": {}}]</TOOLCALL>"#,
        grammar: { _ in JSONCallListGrammar(nemotronSyntax) },
        inference: InferenceDeclaration(
            parserNames: ["nemotron", "nemotron_json", "nemotron_nano_v2"],
            templates: [TemplateSignature(rank: 91, "<TOOLCALL> (Nemotron JSON call list)", .literal(["<TOOLCALL>"]))],
            tokens: [("<TOOLCALL>", 91)]),
        layout: nemotronLayout,
        renderer: FormatRenderer(render: renderNemotron),
        familyNames: (["nemotron-nano-v2", "nemotron_nano", "nemotron-nano"], "Nemotron Nano v2 writes"))

    static let nemotronSyntax = JSONCallListSyntax(
        opens: ["<TOOLCALL>"], close: "</TOOLCALL>", singleObject: true, closeOptionalAtEnd: true)

    /// `<TOOLCALL>[{"name": "f", "arguments": {...}}, ...]</TOOLCALL>` right after the text. No
    /// id: the format carries none. Every name and value is expressible (JSON escapes; the end
    /// marker inside a string is data).
    private static func renderNemotron(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<TOOLCALL>".utf8)
        CallRenderer.writeJSONCallList(calls, nameKey: "name", argumentsKey: "arguments", to: &out)
        out += Array("</TOOLCALL>".utf8)
        return out
    }
}

extension ToolCallFormat {
    /// NVIDIA Nemotron Nano v2 JSON call lists. Example: `<TOOLCALL>[{"name": "f", "arguments": {}}]</TOOLCALL>`
    public static let nemotron: ToolCallFormat = ToolCallFormat(.nemotron)
}
