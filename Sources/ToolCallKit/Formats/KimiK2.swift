// ToolCallKit — the `kimi_k2` format (Kimi K2):
// `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>`.
//
// Parsed by ``KimiK2Grammar`` (its doc comment has the rules). Ids are the model's
// `functions.NAME:N`. Reasoning: `<think>…</think>`; Kimi models open a call section without
// closing their reasoning, so `<|tool_calls_section_begin|>` (and a lone `<|tool_call_begin|>`)
// ends an open block and is parsed as a call.

extension FormatDefinition {
    /// One section of `<|tool_call_begin|>functions.NAME:N<|tool_call_argument_begin|>{...}<|tool_call_end|>`
    /// calls (``renderKimiK2``).
    static let kimiK2Layout = CallLayout(
        trigger: KimiK2Grammar.sectionBegin,
        call: [.markup(KimiK2Grammar.callBegin + "functions."), .name(.bare), .markup(":"), .index(from: 0),
               .markup("<|tool_call_argument_begin|>"), .arguments(.json), .markup(KimiK2Grammar.callEnd)],
        close: [.markup(KimiK2Grammar.sectionEnd)])

    static let kimiK2: FormatDefinition = FormatDefinition(
        name: "kimi_k2",
        summary: "Kimi K2. Example: <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
        grammar: { _ in KimiK2Grammar() },
        reasoning: ReasoningSyntax.think.endedBy(["<|tool_calls_section_begin|>", "<|tool_call_begin|>"]),
        inference: InferenceDeclaration(
            parserNames: ["kimi_k2", "kimik2"],
            templates: [
                TemplateSignature(rank: 70, "<|tool_calls_section_begin|>",
                                  .literal(["<|tool_calls_section_begin|>", "<|tool_call_argument_begin|>"])),
                TemplateSignature(rank: 110, "Kimi chat tokens <|im_middle|> (the original K2 template renders no call markers)",
                                  .literal(["<|im_middle|>"])),
            ],
            tokens: [("<|tool_calls_section_begin|>", 70)],
            modelTypes: [ModelTypeRule(rank: 50, prefix: "kimi_k2", format: "kimi_k2")]),
        layout: kimiK2Layout,
        renderer: FormatRenderer(
            carriedID: { id, name, index in
                if let id, KimiK2Grammar.readID(id) == .named(name) { return id }
                return "functions.\(name):\(index)"
            },
            render: renderKimiK2),
        fuzzWords: ["functions."],
        familyNames: (["kimi", "kimi-k2", "kimik2"], "Kimi K2 writes"))

    /// One section, each call `<|tool_call_begin|>ID<|tool_call_argument_begin|>{...}
    /// <|tool_call_end|>`, nothing between the markers. The id is `functions.NAME:N`; the name is
    /// read back from it, so it may hold no white space and no `<|`.
    private static func renderKimiK2(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        var used: Set<[UInt8]> = []
        var ids: [String] = []
        // Ids the calls bring, so that one made from a position never takes a later call's.
        let brought = Set(calls.compactMap { $0.id.map { Array($0.utf8) } })
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            guard !name.contains(where: JSONReader.isSpace), CallRenderer.firstIndex(of: Array("<|".utf8), in: name) == nil,
                KimiK2Grammar.readID("functions.\(call.name):0") == .named(call.name)
            else {
                throw RenderError(index: i, name: call.name, reason: "kimi_k2 reads the name from the id functions.NAME:N, which cannot hold this name (white space or <|)")
            }
            var id: String
            if let given = call.id, KimiK2Grammar.readID(given) == .named(call.name) {
                id = given
                guard !used.contains(Array(id.utf8)) else {
                    throw RenderError(index: i, name: call.name, reason: "the id \(JSONValue.string(id).jsonText) is an earlier call's; the decoder would replace it")
                }
            } else {
                // Not an id this format carries: the position, as Kimi numbers its calls.
                var n = i
                repeat {
                    id = "functions.\(call.name):\(n)"
                    n += 1
                } while used.contains(Array(id.utf8)) || brought.contains(Array(id.utf8))
            }
            used.insert(Array(id.utf8))
            ids.append(id)
        }
        out += Array("<|tool_calls_section_begin|>".utf8)
        for (call, id) in zip(calls, ids) {
            out += Array("<|tool_call_begin|>".utf8)
            out += Array(id.utf8)
            out += Array("<|tool_call_argument_begin|>".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out += Array("<|tool_call_end|>".utf8)
        }
        out += Array("<|tool_calls_section_end|>".utf8)
        return out
    }
}

extension ToolCallFormat {
    /// Kimi K2. Example: `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>`
    public static let kimiK2: ToolCallFormat = ToolCallFormat(.kimiK2)
}
