// ToolCallKit — the `gemma4` format: `<|tool_call>call:f{a:<|"|>v<|"|>}<tool_call|>`.

/// Grammar for Gemma 4 calls.
///
/// The FunctionGemma shape (``GemmaFrameParser``, ``GemmaValueReader``) with `<|tool_call>` and
/// `<tool_call|>` as markers and `<|"|>` as the string delimiter, inside which nothing is
/// escaped (`say \"hello\"` keeps its backslashes) and `<tool_call|>` does not end the call.
/// Drifts the model is known for are read too: `call:name(key=value, ...)`, `<|"|>`-quoted keys,
/// plain JSON strings mixed in, missing commas, and names with colons, hyphens and dots
/// (`google:mcp:x:create-pdf-file`; the name runs to the `{` or `(`).
///
/// Repairs for known slips: a bare word that runs into `<|"|>` is a string ended by it (the
/// opening delimiter was dropped); a stray `<|"|>` after a finished value is noise; and at the
/// end of the stream, a string whose closing `<|"|>` is missing before `}<tool_call|>`
/// (ollama#15315) ends before the `}` (those bytes are held back from its deltas until more
/// follows, so the deltas never need taking back).
///
/// A duplicate `<tool_call|>` after a call and a stray `<|tool_response>` are markup. Reasoning
/// channels (`<|channel>…<channel|>`) are not handled here.
struct Gemma4Grammar: CallGrammar {
    let markers: [Marker] = [
        Marker("<|tool_call>"),
        Marker("<tool_call|>", kind: .stray),
        Marker("<|tool_response>", kind: .stray),
    ]
    let skipRule = SkipRule.through([Array("<tool_call|>".utf8)])
    private var frame = GemmaFrameParser(startMarker: "<|tool_call>", endMarker: "<tool_call|>", delimiter: "<|\"|>")

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        frame.begin(bodyStart: bodyStart)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        frame.advance(w, context: context, actions: &actions)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        frame.finish(w, context: context, actions: &actions)
    }

    func passThrough(at end: Int) -> PassThrough? { frame.passThrough(at: end) }
    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) { frame.takePassThrough(count) }
}
