// ToolCallKit — the `deepseek_v3` format (DeepSeek V3, R1 and the R1 distills):
// `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>`.
//
// Parsed by ``DeepSeekGrammar`` (its doc comment has the rules): per call the type word
// (`function`), the separator, the name on its own line, then the JSON arguments in a
// ```` ```json ```` fence. Tolerated: the markers spelt with ASCII bars, a missing section opener
// or call-begin marker, a missing fence or call-end marker, and V3.1's `NAME<｜tool▁sep｜>{…}`
// shape. End of stream: a call whose JSON object is complete is accepted without its closing
// markers; cut before that it is `incomplete`, never a call.
//
// Reasoning: `<think>…</think>` (R1 and the distills; their templates often open the block in
// the prompt, `--reasoning-open`). Call markup inside an unclosed block stays reasoning: R1
// closes its reasoning before it calls, and quotes markers while it thinks.

extension FormatDefinition {
    /// One section of fenced calls, separated by a newline (``renderDeepSeekV3``).
    static let deepseekV3Layout = CallLayout(
        trigger: "<｜tool▁calls▁begin｜>",
        call: [.markup("<｜tool▁call▁begin｜>function<｜tool▁sep｜>"), .name(.bare), .markup("\n```json\n"), .arguments(.json),
               .markup("\n```<｜tool▁call▁end｜>")],
        separator: "\n", close: [.markup("<｜tool▁calls▁end｜>")])

    static let deepseekV3: FormatDefinition = FormatDefinition(
        name: "deepseek_v3",
        summary: "DeepSeek V3, R1 and R1 distills. Example: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        grammar: { _ in DeepSeekGrammar() },
        inference: InferenceDeclaration(
            parserNames: ["deepseek_v3", "deepseekv3", "deepseek_r1", "deepseekr1", "deepseek"],
            templates: [
                TemplateSignature(rank: 88, "<｜tool▁call▁begin｜> with a ```json fence (DeepSeek V3 / R1)",
                                  .literal(["<｜tool▁call▁begin｜>", "<｜tool▁calls▁begin｜>"]), .literal(["```json"])),
            ],
            tokens: [("<｜tool▁calls▁begin｜>", 90)]),
        layout: deepseekV3Layout,
        renderer: FormatRenderer(render: renderDeepSeekV3),
        fuzzWords: ["function", "```json\n", "\n```", "<|tool▁call▁begin|>", "<|tool▁sep|>", "<|tool▁call▁end|>"],
        familyNames: (["deepseek-r1", "deepseek_r1", "r1", "deepseek-v3", "deepseekv3"], "DeepSeek V3 and R1 write"))

    /// After the text, one section: per call `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n`,
    /// the arguments as JSON, `\n```<｜tool▁call▁end｜>`, calls separated by a newline, as R1's
    /// template writes them. The name stands on its own line, so it may hold no line break,
    /// backtick, `{` or `<`, and no white space at its ends.
    private static func renderDeepSeekV3(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            let bad: Set<UInt8> = [0x0A, 0x0D, UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "<")]
            guard !name.isEmpty, name.count <= DeepSeekGrammar.maxHeaderBytes, !name.contains(where: bad.contains),
                SchemaTyping.trimSpace(call.name) == call.name
            else {
                throw RenderError(index: i, name: call.name, reason: "deepseek_v3 writes the name on its own line, which cannot hold this name (a line break, `, {, < or white space at an end, or more than \(DeepSeekGrammar.maxHeaderBytes) bytes)")
            }
        }
        out += Array("<｜tool▁calls▁begin｜>".utf8)
        for (i, call) in calls.enumerated() {
            if i > 0 { out.append(0x0A) }
            out += Array("<｜tool▁call▁begin｜>function<｜tool▁sep｜>".utf8)
            out += Array(call.name.utf8)
            out += Array("\n```json\n".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out += Array("\n```<｜tool▁call▁end｜>".utf8)
        }
        out += Array("<｜tool▁calls▁end｜>".utf8)
        return out
    }
}

extension ToolCallFormat {
    /// DeepSeek V3, R1 and R1 distills. Example: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>`
    public static let deepseekV3: ToolCallFormat = ToolCallFormat(.deepseekV3)
}
