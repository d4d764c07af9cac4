// ToolCallKit — the `xml_function` format (Qwen3-Coder, Qwen3.5, Nemotron, Step-3.5):
// `<tool_call><function=f><parameter=a>v</parameter></function></tool_call>`.

/// Grammar for the `xml_function` format.
///
/// The frame machinery is ``TaggedFunctionParser`` (shared with minimaxM2) and values go through
/// ``TextValueScanner`` and ``TextArgumentEmitter``. Rules (docs/formats.md):
///
/// - Values are raw text (no XML entity decoding); exactly one leading and one trailing `\n`
///   are stripped; other white space is data.
/// - Several `<function=…>` blocks may share one `<tool_call>` frame.
/// - A bare `<function=…>` block without the wrapper is a call (`<function=` is a start
///   marker); a `</tool_call>` after it with no opener is `markup`, never text.
/// - A missing `</parameter>` is closed by the next `<parameter=` or by `</function>`; a missing
///   `</function>` by `</tool_call>`.
/// - `</parameter>` ends a value only when, after at most 256 bytes of white space, it is
///   followed by `<parameter=`, `</function>`, `</tool_call>` or the end of the stream;
///   otherwise it is part of the value (linear time, bounded holdback).
/// - A value may quote this format's markup (an agent writing a file that holds a call): a
///   `<parameter=KEY>` ends a value only for a key that may come next (not the current one,
///   not one already set; standing for a missing `</parameter>`, also declared when the tool
///   declares its parameters); a `</function>` standing for a missing `</parameter>` only before
///   `</tool_call>`, another function or the end; and a quoted `<tool_call>` or `<function=`
///   opens a level that its own closer ends, inside which every tag is data.
/// - Inside `<tool_call>`, a Hermes call object `{"name": .., "arguments": {..}}` is a call too
///   (Qwen 3.5 falls back to it), streamed like the `json` format.
/// - Names may contain spaces (trimmed); `<function=name` with no `>` before a newline or `<`
///   is text outside a wrapper and `malformed` inside one, never a call.
struct XMLFunctionGrammar: CallGrammar {
    static let tags = TaggedFunctionTags(
        wrapper: ("<tool_call>", "</tool_call>"), function: ("<function=", "</function>"),
        parameter: ("<parameter=", "</parameter>"), quotedNames: false, jsonCalls: true)

    let markers: [Marker] = XMLFunctionGrammar.tags.markers
    private var parser = TaggedFunctionParser(tags: XMLFunctionGrammar.tags)

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
