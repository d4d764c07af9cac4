// ToolCallKit — the `muse_glimmer` format (Meta Muse Glimmer, "ATEM"):
// ` to=f<|message|><atem:function_calls><atem:invoke name="f"><atem:parameter name="a">v</atem:parameter></atem:invoke></atem:function_calls><|eom|>`.
//
// The channel-style message family (``HarmonyGrammar``, with ``MessageDialect/museGlimmer``): the
// output is a run of messages `<|start|>assistant to=RECIPIENT<|message|>BODY` ended by `<|eom|>`
// (more follows), `<|eot|>` (the turn is over) or `<|end_of_text|>`. Rules (docs/formats.md):
//
// - The generation prompt ends with `<|start|>assistant`, so the output begins inside the first
//   header: ` to=RECIPIENT<|message|>` (with or without its leading space).
// - The recipient says what the body is: `self` is reasoning, `user` is the answer (content), a
//   tool's name is a call. A header without a recipient (`<|message|>` alone) is the answer,
//   unless its body opens with an ATEM block: then that block is the call (the model lost the
//   recipient). Another author than the assistant (`<|start|>tool …`) is markup.
// - A call's body is one `<atem:function_calls>` block (``TaggedFunctionParser``): each
//   `<atem:invoke name="…">` in it is a call, its `<atem:parameter name="…">` values raw text taken
//   exactly as written (no newline stripping, no entity decoding), typed by the schema (the
//   template writes `true`/`false`, `null`, and lists and objects as JSON). Inside the block, the
//   message tokens are data. A body that is no ATEM block (JSON instead) is `malformed`.
// - Names: `ns.fn` is the declared `fn` when `ns` is `fn`'s own namespace (the template
//   advertises recipients `ns.*`, so `get_weather` is called as `get_weather.get_weather`); a
//   declared dotted name stays as it is; another namespace is not rewritten. The invoked name
//   must agree with the recipient (`malformed` otherwise), except that a recipient that names no
//   declared tool (`to=atem:function_calls`, `to=muse`) yields to the invoked, declared one.
//   Special tokens slipped into a name (`read<|message|>`) are dropped.
// - A header `<|start|>assistant[ to=R]<|message|>` ends the message before it even without its
//   end token; a `<|start|>` that begins no such header is data.
// - An ATEM block in an answer (after its text, or in a `to=user` message) is content; so is one
//   with no header at all.
// - End of stream: a tool message whose block is complete is a call without its end token; one
//   cut inside a value is `incomplete`; a cut-off token after an answer is text.

extension FormatDefinition {
    /// The calls of a turn, one tool message each, as the renderer writes them: the first
    /// message's header bare at the start of the output (the prompt wrote `<|start|>assistant`),
    /// after text `<|start|>assistant to=NAME<|message|>`, the ATEM block (per argument
    /// `<atem:parameter name="KEY">VALUE</atem:parameter>\n`, strings raw, other values JSON),
    /// messages ended by `<|eom|>`, the last by `<|eot|>` (nothing follows it).
    static let museLayout = CallLayout(
        trigger: "<|start|>assistant ",
        call: [
            .markup("to="), .name(.bare), .markup("<|message|><atem:function_calls>\n<atem:invoke name=\""), .name(.bare), .markup("\">\n"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup("<atem:parameter name=\""), .key(.bare), .markup("\">")], close: "</atem:parameter>\n",
                valueExcludes: atemTags.rendering.tags.map { String(decoding: $0, as: UTF8.self) }, stripsNewlines: false))),
            .markup("</atem:invoke>\n</atem:function_calls>"),
        ],
        separator: "<|eom|><|start|>assistant ", close: [.markup("<|eot|>")], endsMessage: true, bareAtStart: true)

    static let museGlimmer: FormatDefinition = FormatDefinition(
        name: "muse_glimmer",
        summary: #"Meta Muse Glimmer ATEM messages. Example: to=f<|message|><atem:function_calls><atem:invoke name="f"><atem:parameter name="a">v</atem:parameter></atem:invoke></atem:function_calls><|eom|>"#,
        grammar: { _ in HarmonyGrammar(dialect: .museGlimmer) },
        reasoning: ReasoningSyntax.think.endedBy(["<|start|>", "<|message|>", "<|eom|>", "<|eot|>", "<|end_of_text|>"]),
        inference: InferenceDeclaration(
            parserNames: ["muse_glimmer", "muse", "glimmer", "atem", "muse_glimmer_atem"],
            templates: [
                TemplateSignature(rank: 9, "ATEM calls (<atem:function_calls>) in <|eom|> messages",
                                  .literal(["<atem:function_calls>"]), .literal(["<|eom|>"])),
            ],
            modelTypes: [ModelTypeRule(rank: 18, prefix: "muse_glimmer", format: "muse_glimmer")]),
        layout: museLayout,
        renderer: FormatRenderer(render: renderMuseGlimmer),
        fuzzWords: [" to=self", " to=user", "to=", "<atem:invoke name=\"", "<atem:parameter name=\"", "</atem:parameter>", "</atem:invoke>", "</atem:function_calls>"],
        familyNames: (["muse", "glimmer", "muse-glimmer", "atem", "meta"], "Meta Muse Glimmer writes"))

    /// As the Muse Glimmer template writes, after the prompt's `<|start|>assistant`: per call a
    /// tool message `to=NAME<|message|>` (the first one bare, the others after `<|start|>assistant `)
    /// holding `<atem:function_calls>\n<atem:invoke name="NAME">\n`, per argument
    /// `<atem:parameter name="KEY">VALUE</atem:parameter>\n`, then
    /// `</atem:invoke>\n</atem:function_calls>`; messages ended by `<|eom|>`, the last by `<|eot|>`.
    /// The template writes no text with calls: text comes first as plain text (which decodes as
    /// text: no header precedes it), and the first call then after `<|start|>assistant `.
    /// Strings are written as they are, other values as JSON. The recipient ends at white space
    /// or `<`, so a name may hold neither. The model's first header begins with a space (its
    /// ` to` token); it is left out, as the decoder reads both and a call's raw span starts at
    /// `to=`.
    private static func renderMuseGlimmer(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        guard !calls.isEmpty else { return Array(text.utf8) }
        for (i, call) in calls.enumerated() where call.name.utf8.contains(where: { JSONReader.isSpace($0) || $0 == UInt8(ascii: "<") }) {
            throw RenderError(index: i, name: call.name, reason: "a muse_glimmer recipient ends at white space or '<', so the name cannot hold one")
        }
        let tags = atemTags.rendering
        let head = Array("<|start|>assistant".utf8)
        var out = try CallRenderer.taggedCalls(format, calls, text: "", separator: "", between: "<|eom|>", tags: tags, close: "<|eot|>") { call in
            var out = head + Array(" to=".utf8) + Array(call.name.utf8) + Array("<|message|><atem:function_calls>\n<atem:invoke name=\"".utf8)
            out += Array(call.name.utf8) + Array("\">\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<atem:parameter name=\"".utf8) + Array(member.key.utf8) + Array("\">".utf8)
                out += CallRenderer.textValue(member.value, tags: tags)
                out += Array("</atem:parameter>\n".utf8)
            }
            return out + Array("</atem:invoke>\n</atem:function_calls>".utf8)
        }
        // The first message's `<|start|>assistant ` is the prompt's.
        if text.isEmpty { out.removeFirst(head.count + 1) } else { out = Array(text.utf8) + out }
        return out
    }

    static let atemTags = TaggedFunctionTags(
        wrappers: [("<atem:function_calls>", "</atem:function_calls>")],
        function: ("<atem:invoke name=", "</atem:invoke>"), parameter: ("<atem:parameter name=", "</atem:parameter>"),
        quotedNames: true, stripNewlines: false)
}

extension MessageDialect {
    /// Muse Glimmer's messages: no channels, the recipient decides, calls written as ATEM blocks.
    static let museGlimmer = MessageDialect(
        start: "<|start|>", channel: nil, message: "<|message|>", ends: ["<|eom|>", "<|eot|>", "<|end_of_text|>"],
        constrain: nil, bodyEndedBy: [.start, .end], startNeedsHeader: true,
        skipThrough: ["</atem:function_calls>"],
        callBody: .tagged(FormatDefinition.atemTags, open: Array("<atem:function_calls>".utf8)),
        meaning: { role, _, recipient in
            if let role, role != Array("assistant".utf8) { return .markup }
            guard let recipient else { return .textOrCall }
            if recipient == Array("self".utf8) { return .reasoning }
            if recipient == Array("user".utf8) { return .text }
            return .call(recipient: recipient)
        },
        callName: { bytes, tools in
            let name = String(decoding: bytes, as: UTF8.self)
            guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return name }
            // `ns.fn` → `fn` when `ns` is `fn`'s own namespace (its first dotted part).
            let ns = bytes[..<dot]
            let rest = bytes[(dot + 1)...]
            let restNamespace = rest.firstIndex(of: UInt8(ascii: ".")).map { rest[..<$0] } ?? rest
            guard ns.elementsEqual(restNamespace) else { return name }
            let short = String(decoding: rest, as: UTF8.self)
            if let tools, tools.declares(name) || !tools.declares(short) { return name }
            return short
        })
}

extension ToolCallFormat {
    /// Meta Muse Glimmer ATEM messages. Example: ` to=f<|message|><atem:function_calls><atem:invoke name="f"><atem:parameter name="a">v</atem:parameter></atem:invoke></atem:function_calls><|eom|>`
    public static let museGlimmer: ToolCallFormat = ToolCallFormat(.museGlimmer)
}
