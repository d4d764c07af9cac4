// ToolCallKit — the `deepseek_v32` format (DeepSeek V3.2 and V4, "DSML"):
// `<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="true">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`.
//
// The tagged-functions family (``TaggedFunctionParser``) with DeepSeek's DSML tags. Rules
// (docs/formats.md):
//
// - The wrapper is `<｜DSML｜function_calls>` (V3.2) or `<｜DSML｜tool_calls>` (V4); either closer
//   ends a block. Every `<｜DSML｜invoke name="F">` of a block is a call, in order; several blocks
//   may follow each other.
// - A parameter's `string="true"` makes its value a raw string (unless the tool's schema
//   admits no string); `string="false"` marks a JSON value, typed by the schema as every text
//   value is: without a schema a value that is exactly JSON is that value, anything else stays
//   a string; with one, a value that does not fit is `invalid_arguments`.
// - Values are raw text, every byte between the tags (the template writes them flush against
//   the tags, so a newline at an edge is the value's). `</｜DSML｜parameter>`
//   ends a value only when the next parameter, `</｜DSML｜invoke>`, a wrapper closer or the end
//   of the stream follows it; only the exact closer counts (`</｜DSML｜parameter |` is data).
//   A missing closer is closed by the next parameter or `</｜DSML｜invoke>`; a missing
//   `</｜DSML｜invoke>` by the wrapper's closer.
// - An invoke whose body is one JSON object (no parameter tags) takes it as its arguments,
//   streamed as they arrive.
// - Every tag is also read with ASCII bars (`<|DSML|invoke name=`), one spelling per frame.
// - Drifts: a bare `<｜DSML｜invoke` with no wrapper is a call (an orphan wrapper closer after it is
//   markup); a damaged opener (`<｜DSML｜tool_calls` with no `>`) followed by the block's content
//   opens the block, and an opener repeated inside it is markup. Any other tag that opens with
//   `<｜DSML｜` (`<｜DSML｜toolcalls>`, `<｜DSML｜tool_calls-ok Let's…`, `<｜DSML｜ SugarPanel>`), and a
//   damaged opener followed by anything else, is rejected (`malformed`) with what follows it up to
//   the next `<｜DSML｜` tag, so the block after it is read on its own; any other `</｜DSML｜` tag is
//   markup through its `>`. DSML markup never reaches the text.
// - One parameter `arguments` or `input` holding a JSON object, the call's only one, is the
//   arguments when the tool declares no such parameter and the object's keys fit its schema
//   (V3.2 writes it); without tools it is read literally.
// - End of stream: accepted when only closing tags are missing after a closed value (and no
//   required parameter is missing); cut inside a name, key or value it is `incomplete`.
// - Reasoning: `<think>…</think>`. V4 may open a call block while its reasoning is unclosed, so
//   a wrapper opener ends an open block and is parsed as a call.

extension FormatDefinition {
    /// One `<｜DSML｜function_calls>\n` block of invokes, each parameter with its `string` flag
    /// (``renderDSML(_:_:_:wrapper:)``).
    static let dsmlLayout = CallLayout.tagged(
        dsmlTags, wrapperPerCall: false, afterWrapperOpen: "\n", afterName: ">\n", afterKey: ">",
        afterValue: "\n", afterFunction: "\n", stringFlag: true, quoted: true, stripsNewlines: false)

    static let deepseekV32: FormatDefinition = FormatDefinition(
        name: "deepseek_v32",
        summary: #"DeepSeek V3.2 and V4 (DSML). Example: <｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="true">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>"#,
        grammar: { _ in DSMLGrammar(full: dsmlTags, ascii: asciiTags) },
        reasoning: ReasoningSyntax.think.endedBy(["<｜DSML｜function_calls>", "<｜DSML｜tool_calls>", "<|DSML|function_calls>", "<|DSML|tool_calls>"]),
        inference: InferenceDeclaration(
            parserNames: ["deepseek_v32", "deepseekv32", "deepseek_v3_2", "dsml"],
            templates: [TemplateSignature(rank: 15, "DSML markup (｜DSML｜)", .literal(["｜DSML｜"]))],
            modelTypes: [ModelTypeRule(rank: 45, prefix: "deepseek_v32", format: "deepseek_v32")]),
        layout: dsmlLayout,
        renderer: FormatRenderer { format, calls, text throws(RenderError) in
            try renderDSML(format, calls, text, wrapper: "function_calls")
        },
        fuzzWords: ["<｜DSML｜parameter name=", "</｜DSML｜parameter>", " string=\"true\"", " string=\"false\"", "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"],
        familyNames: (["deepseek-v3.2", "deepseek_v3.2", "deepseek-v4", "dsml"], "DeepSeek V3.2 and V4 write"))

    /// DeepSeek V4: decoded as `deepseek_v32`; rendered with V4's `<｜DSML｜tool_calls>` wrapper
    /// (its template's), in the same layout. A template that writes DSML's `tool_calls>` names it.
    /// V4's layout: V3.2's with the `tool_calls` wrapper.
    static let dsmlV4Layout = CallLayout.tagged(
        dsmlTags, wrapperPerCall: false, afterWrapperOpen: "\n", afterName: ">\n", afterKey: ">",
        afterValue: "\n", afterFunction: "\n", stringFlag: true, quoted: true, stripsNewlines: false, wrapper: 1)

    static let deepseekV4: FormatDefinition = deepseekV32.variant(
        "deepseek_v4",
        summary: #"DeepSeek V4 (DSML, as deepseek_v32, written with the tool_calls wrapper). Example: <｜DSML｜tool_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="true">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>"#,
        inference: InferenceDeclaration(
            parserNames: ["deepseekv4", "deepseek_v4_flash", "deepseek_v4_pro"],
            templates: [TemplateSignature(rank: 14, "DSML markup (｜DSML｜) with the tool_calls wrapper", .literal(["｜DSML｜"]), .literal(["tool_calls>"]))]),
        layout: dsmlV4Layout,
        renderer: FormatRenderer { format, calls, text throws(RenderError) in
            try renderDSML(format, calls, text, wrapper: "tool_calls")
        })

    /// After the text and a blank line, one `<｜DSML｜WRAPPER>\n` block (`function_calls` for
    /// V3.2, `tool_calls` for V4) holding per call
    /// `<｜DSML｜invoke name="NAME">\n`, per argument `<｜DSML｜parameter name="KEY" string="true">`
    /// + the string + `</｜DSML｜parameter>\n` (`string="false"` and compact JSON for any other
    /// value), then `</｜DSML｜invoke>\n`, as the templates write them (the value flush against
    /// its tags).
    private static func renderDSML(_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String, wrapper: String) throws(RenderError) -> [UInt8] {
        let tags = dsmlTags.rendering
        return try CallRenderer.taggedCalls(
            format, calls, text: text, separator: "\n\n", between: "", tags: tags,
            open: "<｜DSML｜\(wrapper)>\n", close: "</｜DSML｜\(wrapper)>"
        ) { call in
            var out = Array("<｜DSML｜invoke name=\"".utf8) + Array(call.name.utf8) + Array("\">\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<｜DSML｜parameter name=\"".utf8) + Array(member.key.utf8)
                if case .string(let s) = member.value {
                    out += Array("\" string=\"true\">".utf8)
                    out += Array(s.utf8)
                } else {
                    out += Array("\" string=\"false\">".utf8)
                    out += CallRenderer.textValue(member.value, tags: tags)
                }
                out += Array("</｜DSML｜parameter>\n".utf8)
            }
            return out + Array("</｜DSML｜invoke>\n".utf8)
        }
    }

    private static let dsmlTags = tags(bar: "｜")
    private static let asciiTags = tags(bar: "|")

    /// DSML's tags with the given bar around `DSML`.
    private static func tags(bar: String) -> TaggedFunctionTags {
        let d = "<\(bar)DSML\(bar)"
        let c = "</\(bar)DSML\(bar)"
        return TaggedFunctionTags(
            wrappers: [("\(d)function_calls>", "\(c)function_calls>"), ("\(d)tool_calls>", "\(c)tool_calls>")],
            damagedOpeners: ["\(d)function_calls", "\(d)tool_calls"],
            function: ("\(d)invoke name=", "\(c)invoke>"),
            parameter: ("\(d)parameter name=", "\(c)parameter>"),
            quotedNames: true, stripNewlines: false, jsonBody: true, stringAttribute: true,
            objectWrapperKeys: ["arguments", "input"], tagTokens: (d, c))
    }
}

/// DSML in either spelling: the tagged-functions grammar with full-width bars (the tokens'
/// text), or with ASCII bars when the frame's marker is spelt so. A frame is read in the
/// spelling of its marker.
struct DSMLGrammar: CallGrammar {
    private var full: TaggedFunctionParser
    private var ascii: TaggedFunctionParser
    private var inASCII = false
    let markers: [Marker]
    private let fullCount: Int

    init(full: TaggedFunctionTags, ascii: TaggedFunctionTags) {
        self.full = TaggedFunctionParser(tags: full)
        self.ascii = TaggedFunctionParser(tags: ascii)
        fullCount = self.full.markers.count
        markers = self.full.markers + self.ascii.markers
    }

    var skipRule: SkipRule { inASCII ? ascii.skipRule : full.skipRule }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        inASCII = marker >= fullCount
        if inASCII {
            ascii.begin(marker: marker - fullCount, at: at, bodyStart: bodyStart, atStart: atStart, context: context)
        } else {
            full.begin(marker: marker, at: at, bodyStart: bodyStart, atStart: atStart, context: context)
        }
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        inASCII ? ascii.advance(w, context: context, actions: &actions) : full.advance(w, context: context, actions: &actions)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        if inASCII { ascii.finish(w, context: context, actions: &actions) } else { full.finish(w, context: context, actions: &actions) }
    }

    func passThrough(at end: Int) -> PassThrough? {
        inASCII ? ascii.passThrough(at: end) : full.passThrough(at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        if inASCII { ascii.takePassThrough(count, w) } else { full.takePassThrough(count, w) }
    }
}

extension ToolCallFormat {
    /// DeepSeek V3.2 and V4 (DSML). Example: `<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="true">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`
    public static let deepseekV32: ToolCallFormat = ToolCallFormat(.deepseekV32)

    /// DeepSeek V4: `deepseek_v32`'s wire format, rendered with the `<｜DSML｜tool_calls>` wrapper.
    public static let deepseekV4: ToolCallFormat = ToolCallFormat(.deepseekV4)
}
