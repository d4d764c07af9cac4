// ToolCallKit — the `deepseek_v31` format (DeepSeek V3.1):
// `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`.
//
// Parsed by ``DeepSeekGrammar`` (its doc comment has the rules): per call the name, the
// separator and the JSON arguments, streamed as they arrive. Tolerated: the markers spelt with
// ASCII bars, a missing section opener (lone calls) or call-begin marker, a missing call-end
// marker, calls whose begin and end arrive in one chunk, and V3's fenced shape. A call with no
// separator or no JSON object after it (`NAME<｜tool▁sep｜><｜tool▁call▁end｜>`) is `malformed`:
// V3.1 writes `{}` for a call without arguments. End of stream: a call whose JSON object is
// complete is accepted without its closing markers; cut before that it is `incomplete`.
//
// Reasoning: `<think>…</think>`; V3.1's template opens the block in the prompt when thinking is
// on (`--reasoning-open`). Call markup inside an unclosed block stays reasoning: V3.1 closes its
// reasoning before it calls.

extension FormatDefinition {
    /// One section of `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>` calls
    /// (``renderDeepSeekV31``).
    static let deepseekV31Layout = CallLayout(
        trigger: "<｜tool▁calls▁begin｜>",
        call: [.markup("<｜tool▁call▁begin｜>"), .name(.bare), .markup("<｜tool▁sep｜>"), .arguments(.json), .markup("<｜tool▁call▁end｜>")],
        close: [.markup("<｜tool▁calls▁end｜>")])

    static let deepseekV31: FormatDefinition = FormatDefinition(
        name: "deepseek_v31",
        summary: "DeepSeek V3.1. Example: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        grammar: { _ in DeepSeekGrammar() },
        inference: InferenceDeclaration(
            parserNames: ["deepseek_v31", "deepseekv31", "deepseek_v3_1"],
            templates: [
                TemplateSignature(rank: 89, "<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json} (DeepSeek V3.1, no ```json fence)",
                                  .literal(["<｜tool▁call▁begin｜>", "<｜tool▁calls▁begin｜>"]), .literal(["<｜tool▁sep｜>"])),
            ]),
        layout: deepseekV31Layout,
        renderer: FormatRenderer(render: renderDeepSeekV31),
        fuzzWords: ["<|tool▁calls▁begin|>", "<|tool▁call▁begin|>", "<|tool▁sep|>", "<|tool▁call▁end|>"],
        familyNames: (["deepseek-v3.1", "deepseek_v3.1", "deepseekv3.1", "deepseek-v31"], "DeepSeek V3.1 writes"))

    /// After the text, one section: per call `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>` + the
    /// arguments as JSON + `<｜tool▁call▁end｜>`, nothing between calls, as V3.1's template
    /// writes them. The name is read up to the separator, so it may hold none of the markers
    /// and no white space at its ends.
    private static func renderDeepSeekV31(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        let markers = (DeepSeekGrammar.separator + DeepSeekGrammar.callBegin + DeepSeekGrammar.callEnd
            + DeepSeekGrammar.sectionBegin + DeepSeekGrammar.sectionEnd).map { Array($0.utf8) }
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            guard !name.isEmpty, name.count <= DeepSeekGrammar.maxHeaderBytes, SchemaTyping.trimSpace(call.name) == call.name,
                !name.contains(0x0A), !name.contains(0x0D),
                !markers.contains(where: { CallRenderer.firstIndex(of: $0, in: name) != nil })
            else {
                throw RenderError(index: i, name: call.name, reason: "deepseek_v31 reads the name up to <｜tool▁sep｜>, which cannot hold this name (a marker, a line break, white space at an end, or more than \(DeepSeekGrammar.maxHeaderBytes) bytes)")
            }
        }
        out += Array("<｜tool▁calls▁begin｜>".utf8)
        for call in calls {
            out += Array("<｜tool▁call▁begin｜>".utf8)
            out += Array(call.name.utf8)
            out += Array("<｜tool▁sep｜>".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out += Array("<｜tool▁call▁end｜>".utf8)
        }
        out += Array("<｜tool▁calls▁end｜>".utf8)
        return out
    }
}

extension ToolCallFormat {
    /// DeepSeek V3.1. Example: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`
    public static let deepseekV31: ToolCallFormat = ToolCallFormat(.deepseekV31)
}
