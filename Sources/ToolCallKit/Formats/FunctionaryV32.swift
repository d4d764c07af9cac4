// ToolCallKit — the `functionary_v32` format (MeetKai Functionary medium/small v3.2):
// `>>>all\ntext>>>f\n{"a": 1}`.
//
// Parsed by ``FunctionaryGrammar`` (its doc comment has the rules), a grammar of its own: no
// family reads messages that open with a bare recipient line. The template writes an assistant
// turn as messages, `>>>all\n` + content and `>>>NAME\n` + the arguments' JSON per call, and
// its generation prompt ends with `>>>`: the output begins with the first recipient (`all` or
// a tool's name), and the decoder reads its first line as a header. The code interpreter
// `python` may receive raw code, read as `{"code": ...}`. Functionary carries no ids.
//
// Reasoning: `<think>…</think>` (Functionary v3.2 does not reason); a call inside an unclosed
// block stays reasoning.
//
// Call layout: `NAME\n{json}` per call after `>>>`, the first call bare at the very start (the
// prompt's `>>>`); text at the start begins with `all\n` or holds, in its first line after name
// characters, one that no recipient holds (``FunctionaryGrammar/textNeedsHeader(_:)``).
extension FormatDefinition {
    static let functionaryLayout = CallLayout(
        trigger: ">>>", call: [.name(.bare), .markup("\n"), .arguments(.json)], oneCallPerBlock: true, bareAtStart: true,
        startText: CallLayout.StartText(
            header: "all\n",
            // Name characters: letters, digits, `_`, `-`, `.`, `:` and every non-ASCII one.
            name: CharacterClass([0x00...0x2C, 0x2F...0x2F, 0x3B...0x40, 0x5B...0x5E, 0x60...0x60, 0x7B...0x7F], negated: true),
            // ASCII that is neither a name character, `>`, a line break nor a control character.
            plain: CharacterClass([0x09...0x09, 0x20...0x2C, 0x2F...0x2F, 0x3B...0x3D, 0x3F...0x40, 0x5B...0x5E, 0x60...0x60, 0x7B...0x7E])))

    static let functionaryV32: FormatDefinition = FormatDefinition(
        name: "functionary_v32",
        summary: #"Functionary v3.2 messages. Example: >>>all\ntext>>>f\n{"a": 1}"#,
        grammar: { _ in FunctionaryGrammar() },
        inference: InferenceDeclaration(
            parserNames: ["functionary_v32", "functionary_v3_2", "functionary", "functionary_v3"],
            templates: [TemplateSignature(rank: 50, ">>>all (Functionary v3.2 recipients)", .literal([">>>all"]))]),
        layout: functionaryLayout,
        renderer: FormatRenderer(render: renderFunctionary),
        fuzzWords: ["all\n", "python\n", ">>>all\n"],
        familyNames: (["functionary", "functionary-v3.2", "functionary-medium", "meetkai"], "Functionary v3.2 writes"))

    /// As the template writes an assistant turn after the generation prompt's `>>>`: the text,
    /// then per call `>>>NAME\n` and the arguments as the template's JSON (the first message's
    /// `>>>` is the prompt's). The template heads the text with `all\n`; it is written only when
    /// the text's first line could read as a recipient (``FunctionaryGrammar/textNeedsHeader(_:)``:
    /// the decoder reads any other first line as text), so that the text comes first, as in
    /// every format. A name must be a recipient
    /// (letters, digits, `_`, `-`, `.`, `:`, non-ASCII characters; not `all`).
    private static func renderFunctionary(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out: [UInt8] = []
        if !text.isEmpty {
            if FunctionaryGrammar.textNeedsHeader(Array(text.utf8)) { out += Array("all\n".utf8) }
            out += Array(text.utf8)
        }
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            guard name.count <= FunctionaryGrammar.maxRecipientBytes, call.name != "all",
                name.allSatisfy(FunctionaryGrammar.isNameByte)
            else {
                throw RenderError(index: i, name: call.name, reason: "a functionary recipient is a name of letters, digits, '_', '-', '.', ':' or non-ASCII characters (at most \(FunctionaryGrammar.maxRecipientBytes) bytes, not 'all')")
            }
            if !out.isEmpty { out += FunctionaryGrammar.separator }
            out += name
            out.append(0x0A)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
        }
        return out
    }
}

extension ToolCallFormat {
    /// Functionary v3.2 messages. Example: `>>>all\ntext>>>f\n{"a": 1}`
    public static let functionaryV32: ToolCallFormat = ToolCallFormat(.functionaryV32)
}
