// ToolCallKit — how each format's models mark their reasoning.

/// The markers that open and close a reasoning block in one format, and the call markers that
/// end a block the model forgot to close.
///
/// Every format accepts `<think>…</think>`. Family markers: Mistral (Magistral)
/// `[THINK]…[/THINK]`; Gemma 4 `<|channel>…<channel|>` (the label `thought` after the opener,
/// when present, is part of the marker). A block closes only with the close marker of its own
/// pair (any close marker when the stream started inside a block, `--reasoning-open`).
///
/// Tool-call markup inside a block is reasoning, not a call, except where a family's models
/// are known to open calls without closing their reasoning (docs/events.md): for `json` (Qwen3)
/// `<tool_call>` ends the block, and for `kimiK2` `<|tool_calls_section_begin|>` (and a lone
/// `<|tool_call_begin|>`) ends it. No other format has such a rule.
struct ReasoningSyntax: Sendable {
    /// Open and close markers, pairwise.
    var pairs: [(open: String, close: String)]
    /// Call markers that end an open block (the call itself is then parsed as usual).
    var endedBy: [String]

    static func of(_ format: ToolCallFormat) -> ReasoningSyntax {
        var s = ReasoningSyntax(pairs: [("<think>", "</think>")], endedBy: [])
        switch format {
        case .mistral: s.pairs.append(("[THINK]", "[/THINK]"))
        case .gemma4:
            // The thought channel, named or not: the label is not reasoning text.
            s.pairs.append(("<|channel>thought", "<channel|>"))
            s.pairs.append(("<|channel>", "<channel|>"))
        case .json: s.endedBy = ["<tool_call>"]
        case .kimiK2: s.endedBy = ["<|tool_calls_section_begin|>", "<|tool_call_begin|>"]
        case .lfm2, .xmlFunction, .glm4, .gemma, .minimaxM2, .llama3: break
        }
        return s
    }
}
