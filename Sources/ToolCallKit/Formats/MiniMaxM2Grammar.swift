// ToolCallKit — the `minimax_m2` format (MiniMax M2 / M2.1 / M2.5 / M2.7):
// `<minimax:tool_call><invoke name="f"><parameter name="a">v</parameter></invoke></minimax:tool_call>`.

/// Grammar for the `minimax_m2` format.
///
/// The frame machinery is ``TaggedFunctionParser`` (shared with xmlFunction) and values go
/// through ``TextValueScanner`` and ``TextArgumentEmitter``. Rules (docs/formats.md):
///
/// - Every `<invoke>` of a block is a call, in order.
/// - Names and keys are unquoted (`"f"`, `'f'` or bare `f`) and trimmed.
/// - Values are raw text, HTML included, never entity-decoded; one leading and one trailing
///   `\n` are stripped, like xmlFunction. `</parameter>` is data unless `<parameter name=`,
///   `</invoke>`, `</minimax:tool_call>` or the end of the stream follows it (after at most 256
///   bytes of white space); a missing `</parameter>` is closed by the next parameter or
///   `</invoke>`. Quoted markup inside a value is data, by the rules of xmlFunction
///   (``XMLFunctionGrammar``): a parameter opener must name a key that may come next, and a
///   quoted `<invoke name=` or wrapper opens a level that its own closer ends.
/// - A bare `<invoke name=` block is a call too (servers may strip the wrapper tokens); a
///   missing `</minimax:tool_call>` at end of stream leaks no markup.
/// - Typing as in docs/formats.md: with `anyOf[string, null]` only a literal `null`/`None` is null.
struct MiniMaxM2Grammar: CallGrammar {
    static let tags = TaggedFunctionTags(
        wrapper: ("<minimax:tool_call>", "</minimax:tool_call>"), function: ("<invoke name=", "</invoke>"),
        parameter: ("<parameter name=", "</parameter>"), quotedNames: true)

    let markers: [Marker] = MiniMaxM2Grammar.tags.markers
    private var parser = TaggedFunctionParser(tags: MiniMaxM2Grammar.tags)

    var skipRule: SkipRule { parser.skipRule }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        parser.begin(marker: marker, at: at, bodyStart: bodyStart)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        parser.advance(w, context: context, actions: &actions)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        parser.finish(w, context: context, actions: &actions)
    }

    func passThrough(at end: Int) -> PassThrough? { parser.passThrough(at: end) }
    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) { parser.takePassThrough(count, w) }
}
