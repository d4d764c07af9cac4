// ToolCallKit — the `minimax_m3` format (MiniMax M3): every tag behind the namespace token
// `]<]minimax[>[`, `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>v]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>`.
//
// Parsed by ``MiniMaxM3Grammar`` (its doc comment has the rules; docs/formats.md too). In short:
//
// - Every `<invoke>` of a block is a call, in order; a bare `<invoke name=` block is a call too.
// - A parameter is a tag named after its key. Text values are raw (white space at the edges
//   kept, nothing entity-decoded) and typed by the schema; child tags make an object, `<item>`
//   children an array, repeated child tags an array; such a tree is held to its close and
//   typed by the argument's schema. A top-level key whose schema takes an array is held while
//   its tag repeats, so consecutive repeats fold into one array.
// - Drifts: a missing parameter close (the next namespace token ends the value), a missing
//   `</invoke>` before `</tool_call>`, a missing `</tool_call>` at end of stream, newlines or
//   nothing between the tags.
// - End of stream: only closing tags missing is a call (unless a required parameter is
//   missing); cut inside a value, tree, name or key is `incomplete`.
// - Reasoning: `<mm:think>…</mm:think>`, with or without the namespace token before each tag
//   (and `<think>…</think>`); a bare `</mm:think>` at the
//   start of the output (a turn without reasoning) is markup. A call inside an unclosed block
//   stays reasoning, as for MiniMax M2.

extension FormatDefinition {
    /// One `⟨ns⟩<tool_call>\n` block of `⟨ns⟩<invoke name="NAME">` + `⟨ns⟩<KEY>VALUE⟨ns⟩</KEY>` per
    /// argument + `⟨ns⟩</invoke>\n`, then `⟨ns⟩</tool_call>` (``renderMiniMaxM3``).
    static let minimaxM3Layout = CallLayout(
        trigger: MiniMaxM3Grammar.ns + "<tool_call>", open: [.markup("\n")],
        call: [
            .markup(MiniMaxM3Grammar.ns + "<invoke name=\""), .name(.bare), .markup("\">"),
            .arguments(.tagged(CallLayout.TaggedArguments(
                open: [.markup(MiniMaxM3Grammar.ns + "<"), .key(.bare), .markup(">")],
                closing: [.markup(MiniMaxM3Grammar.ns + "</"), .key(.bare), .markup(">")],
                valueExcludes: [MiniMaxM3Grammar.ns], stripsNewlines: false))),
            .markup(MiniMaxM3Grammar.ns + "</invoke>\n"),
        ],
        close: [.markup(MiniMaxM3Grammar.ns + "</tool_call>")])

    static let minimaxM3: FormatDefinition = FormatDefinition(
        name: "minimax_m3",
        summary: #"MiniMax M3. Example: ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>v]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>"#,
        grammar: { _ in MiniMaxM3Grammar() },
        reasoning: ReasoningSyntax.think.adding("<mm:think>", "</mm:think>")
            .adding(MiniMaxM3Grammar.ns + "<mm:think>", MiniMaxM3Grammar.ns + "</mm:think>"),
        inference: InferenceDeclaration(
            parserNames: ["minimax_m3", "minimaxm3"],
            templates: [TemplateSignature(rank: 5, "]<]minimax[>[ namespace token", .literal(["]<]minimax[>["]))],
            tokens: [("]<]minimax[>[", 5)],
            modelTypes: [ModelTypeRule(rank: 35, prefix: "minimax_m3", format: "minimax_m3")]),
        layout: minimaxM3Layout,
        renderer: FormatRenderer(render: renderMiniMaxM3),
        fuzzWords: ["]<]minimax[>[", "<tool_call>", "</tool_call>", "<invoke name=\"", "</invoke>", "<item>", "</item>",
                    "<mm:think>", "</mm:think>"],
        familyNames: (["minimax-m3", "minimaxm3"], "MiniMax M3 writes"))

    /// After the text and a newline, `⟨ns⟩<tool_call>\n`, per call `⟨ns⟩<invoke name="NAME">`,
    /// per argument `⟨ns⟩<KEY>VALUE⟨ns⟩</KEY>` (a string as it is; anything else as the
    /// template's JSON, which the decoder types back by the schema), `⟨ns⟩</invoke>\n`, then
    /// `⟨ns⟩</tool_call>`. A string holding the namespace token (it ends a value; there is no
    /// escape) is refused, and so is a key the tag cannot hold.
    private static func renderMiniMaxM3(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        let ns = MiniMaxM3Grammar.ns
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        if !text.isEmpty { out.append(0x0A) }
        out += Array((ns + "<tool_call>\n").utf8)
        let nameTags = CallRenderer.TextTags(tags: [MiniMaxM3Grammar.nsBytes], quotedNames: true, glm: false)
        for (i, call) in calls.enumerated() {
            if let p = CallRenderer.tagNameProblem(call.name, key: false, nameTags) {
                throw RenderError(index: i, name: call.name, reason: p)
            }
            out += Array((ns + "<invoke name=\"").utf8) + Array(call.name.utf8) + Array("\">".utf8)
            for m in call.arguments.objectValue ?? [] {
                let key = Array(m.key.utf8)
                if key.isEmpty || key.count > 500 || key.first == UInt8(ascii: "/")
                    || key.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == 0x0A || $0 == 0x0D })
                {
                    throw RenderError(index: i, name: call.name, reason: "the key \(JSONValue.string(m.key).jsonText) cannot be a minimax_m3 tag name (empty, '<', '>', a newline, or a leading '/')")
                }
                // JSON that would hold the token writes its `<` as `\u003c` (the same value).
                let value = CallRenderer.textValue(m.value, tags: nameTags)
                if CallRenderer.firstIndex(of: MiniMaxM3Grammar.nsBytes, in: value) != nil {
                    throw RenderError(index: i, name: call.name, reason: "the value of \(JSONValue.string(m.key).jsonText) holds the namespace token \(ns), which ends a minimax_m3 value, and the format has no escape")
                }
                out += Array((ns + "<").utf8) + key + [UInt8(ascii: ">")] + value + Array((ns + "</").utf8) + key + [UInt8(ascii: ">")]
            }
            out += Array((ns + "</invoke>\n").utf8)
        }
        out += Array((ns + "</tool_call>").utf8)
        return out
    }
}

extension ToolCallFormat {
    /// MiniMax M3. Example: `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>v]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>`
    public static let minimaxM3: ToolCallFormat = ToolCallFormat(.minimaxM3)
}
