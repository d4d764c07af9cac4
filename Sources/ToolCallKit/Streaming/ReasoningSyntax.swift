// ToolCallKit — how a format's models mark their reasoning.

/// The markers that open and close a reasoning block in one format, and the call markers that
/// end a block the model forgot to close. Each format declares its own (its file under
/// `Formats/` says why).
///
/// Every format accepts `<think>…</think>` (``think``); a family adds its own pairs (Magistral's
/// `[THINK]…[/THINK]`). A block closes only with the close marker of its own pair (any close
/// marker when the stream started inside a block, `--reasoning-open`).
///
/// Tool-call markup inside a block is reasoning, not a call, except for the markers in
/// ``endedBy``: a family whose models are known to open calls without closing their reasoning
/// (docs/events.md) names the call markers that end an open block.
struct ReasoningSyntax: Sendable {
    /// Open and close markers, pairwise.
    var pairs: [(open: String, close: String)]
    /// Markers that end an open block: call markers, or a framed format's message tokens
    /// (harmony); what they begin is then parsed as usual.
    var endedBy: [String]

    /// `<think>…</think>`, ended by nothing else.
    static let think = ReasoningSyntax(pairs: [("<think>", "</think>")], endedBy: [])

    /// This syntax with one more pair.
    func adding(_ open: String, _ close: String) -> ReasoningSyntax {
        var s = self
        s.pairs.append((open, close))
        return s
    }

    /// This syntax, with an open block also ended by these call markers.
    func endedBy(_ markers: [String]) -> ReasoningSyntax {
        var s = self
        s.endedBy += markers
        return s
    }
}
