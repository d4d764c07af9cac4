// ToolCallKit — the `harmony` format (gpt-oss):
// `<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>`.
//
// Parsed by ``HarmonyGrammar`` (its doc comment has the rules). Harmony carries no call ids:
// the decoder makes them.
//
// Harmony is framed by messages, not by call markers: every message has a header and a
// channel, and the grammar reports the regions itself (content bodies as text, `analysis`
// bodies as reasoning, headers and end markers as markup).
//
// Reasoning. The `analysis` channel is gpt-oss's reasoning. With reasoning separation on, an
// analysis body is a `reasoning` event. With it off, reasoning is plain text as in every format,
// so the analysis body is text; its header stays markup, because headers are the message
// framing every channel has (a final answer's header is markup too), not reasoning markers
// written around the text. `<think>…</think>` is accepted as in every format. A call that opens
// inside an analysis message whose end marker is missing ends that message (a header always
// begins a new message) and is read as usual. With `--reasoning-open` the stream starts inside
// reasoning, which the first Harmony special token (`<|start|>`, `<|channel|>`, `<|message|>`,
// an end marker or `<|constrain|>`) ends; the same tokens end a `<think>` block.
//
// End of stream: a call whose arguments object is complete is accepted without its end marker
// (servers strip `<|call|>`, the stop token); a content body cut off is text, a reasoning body
// reasoning; a stream cut inside a call's header or arguments rejects the call `incomplete`.

extension FormatDefinition {
    /// One commentary message per call (``renderHarmony``).
    static let harmonyLayout = CallLayout.perCall(HarmonyGrammar.start, [
        .markup("assistant to=functions."), .name(.bare), .markup(HarmonyGrammar.channel + "commentary json" + HarmonyGrammar.message),
        .arguments(.json), .markup(HarmonyGrammar.call),
    ])

    static let harmony: FormatDefinition = FormatDefinition(
        name: "harmony",
        summary: #"gpt-oss Harmony messages. Example: <|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>"#,
        grammar: { _ in HarmonyGrammar() },
        reasoning: ReasoningSyntax.think.endedBy([
            HarmonyGrammar.start, HarmonyGrammar.channel, HarmonyGrammar.message,
            HarmonyGrammar.end, HarmonyGrammar.call, HarmonyGrammar.returnToken, HarmonyGrammar.constrain,
        ]),
        inference: InferenceDeclaration(
            parserNames: ["harmony", "gpt_oss", "gptoss", "openai", "openai_harmony"],
            templates: [
                TemplateSignature(rank: 92, "Harmony messages (<|channel|>, <|message|> and <|call|>)",
                                  .literal(["<|channel|>"]), .literal(["<|message|>"]), .literal(["<|call|>"])),
            ],
            tokens: [("<|call|>", 92), ("<|constrain|>", 93)],
            modelTypes: [ModelTypeRule(rank: 45, prefix: "gpt_oss", format: "harmony")]),
        layout: harmonyLayout,
        renderer: FormatRenderer(render: renderHarmony),
        fuzzWords: ["to=functions.", "commentary", "analysis", "final", " json", "assistant"],
        familyNames: (["gpt-oss", "gpt_oss", "gptoss", "openai"], "gpt-oss writes"))

    /// The text first, as plain text (the output may begin with it; text never holds a Harmony
    /// token, and a bare ` to=` or `assistant` at its start is given back as text because no
    /// header token follows), then one message per call as the gpt-oss chat template writes it,
    /// `<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>ARGS<|call|>`.
    /// The recipient ends at white space or `<`, so a name may hold neither.
    private static func renderHarmony(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            if name.contains(where: { JSONReader.isSpace($0) || $0 == UInt8(ascii: "<") }) {
                throw RenderError(index: i, name: call.name, reason: "a harmony recipient ends at white space or '<', so the name cannot hold one")
            }
            out += Array("<|start|>assistant to=functions.".utf8)
            out += name
            out += Array("<|channel|>commentary json<|message|>".utf8)
            CallRenderer.writeTemplateJSON(call.arguments, to: &out)
            out += Array("<|call|>".utf8)
        }
        return out
    }
}

extension ToolCallFormat {
    /// gpt-oss Harmony messages. Example: `<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>`
    public static let harmony: ToolCallFormat = ToolCallFormat(.harmony)
}
