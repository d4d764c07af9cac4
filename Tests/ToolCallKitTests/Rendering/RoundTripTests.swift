import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// A row of the round-trip table: calls (and text) that every format must give back, except
/// where the row says the format cannot express them.
struct RoundTripCase: Sendable {
    var name: String
    var calls: [RenderedCall]
    var text: String? = nil
    /// Formats that must refuse the row with a ``RenderError`` whose reason holds the fragment.
    var cannot: [ToolCallFormat: String] = [:]
    /// Formats that may refuse it (a value quoting the format's own tags, which its decoder
    /// reads as data or structure by what follows); if they render it, it must come back.
    var mayRefuse: Set<ToolCallFormat> = []
    /// Long inputs are decoded whole and byte by byte only (every split would be quadratic).
    var everySplit = true
    /// The marker the row quotes in a value (the "marker X in a value" rows).
    var marker: String? = nil
    var sourceLocation: SourceLocation

    /// Whether the row is split at a sample of offsets in `format` (``Chunkings/splitSample``),
    /// or only decoded whole, byte by byte and in two token-sized chunkings. A row that quotes
    /// a marker is split only in the formats whose own syntax it touches: it shares three bytes
    /// in a row with one of the format's markers, reasoning markers or syntax words. Elsewhere
    /// the marker is a string like any other, and splitting it again re-runs the work of the
    /// plain rows.
    func splits(in format: ToolCallFormat) -> Bool {
        guard everySplit else { return false }
        guard let marker else { return true }
        let d = format.definition
        let m = Array(marker.utf8)
        return (d.markerTexts + d.reasoningMarkerTexts + d.fuzzWords).contains { word in
            let w = Array(word.utf8)
            guard w.count >= 3, m.count >= 3 else { return false }
            for i in 0...(m.count - 3) {
                let piece = m[i..<(i + 3)]
                for j in 0...(w.count - 3) where w[j..<(j + 3)].elementsEqual(piece) { return true }
            }
            return false
        }
    }
}

private func call(_ name: String, _ arguments: [(String, JSONValue)], id: String? = nil) -> RenderedCall {
    RenderedCall(name: name, arguments: .object(arguments.map { (key: $0.0, value: $0.1) }), id: id)
}

private func row(
    _ name: String, _ calls: [RenderedCall], text: String? = nil, cannot: [ToolCallFormat: String] = [:],
    mayRefuse: Set<ToolCallFormat> = [], everySplit: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) -> RoundTripCase {
    RoundTripCase(name: name, calls: calls, text: text, cannot: cannot, mayRefuse: mayRefuse, everySplit: everySplit,
                  sourceLocation: sourceLocation)
}

private func everyFormat(_ fragment: String) -> [ToolCallFormat: String] {
    Dictionary(uniqueKeysWithValues: ToolCallFormat.allCases.map { ($0, fragment) })
}

private func s(_ v: String) -> JSONValue { .string(v) }
private func n(_ v: String) -> JSONValue { .number(v) }

/// Every format's markers, each quoted alone inside a string with text around it: the call and
/// reasoning markers every format and variant declares, then a few spellings with a name or key
/// filled in, and pieces of the syntax.
let allMarkers: [String] = {
    var seen = Set<String>()
    var out: [String] = []
    let declared = everyFormatAndVariant.flatMap { f in
        f.definition.markerTexts + f.definition.reasoningMarkerTexts + f.definition.reasoning.endedBy
    }
    for m in declared + spelledMarkers where m.utf8.count >= 2 && seen.insert(m).inserted { out.append(m) }
    return out
}()

private let spelledMarkers = [
    "<tool_call>", "</tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "<escape>",
    "<|\"|>", "<|tool_call>", "<tool_call|>", "<start_function_call>", "<end_function_call>", "<|tool_call_start|>",
    "<|tool_call_end|>", "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>",
    "<|tool_calls_section_end|>", "</parameter>", "<parameter=x>", "<parameter=", "</function>", "<function=f>",
    "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<minimax:tool_call>", "</minimax:tool_call>",
    "<invoke name=\"f\">", "</invoke>", "<parameter name=\"x\">", "<think>", "</think>", "<|eom_id|>",
    "<|start|>", "<|channel|>", "<|message|>", "<|call|>", "<|end|>", "<|return|>", "<|constrain|>", " to=functions.f",
    "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>",
    "<|tool▁call▁begin|>", "<｜DSML｜function_calls>", "</｜DSML｜function_calls>", "<｜DSML｜tool_calls",
    "<｜DSML｜invoke name=\"f\">", "</｜DSML｜invoke>", "<｜DSML｜parameter name=\"x\" string=\"true\">", "</｜DSML｜parameter>",
    "<seed:tool_call>", "</seed:tool_call>", "<seed:think>", "</seed:think>",
    "<|open|>", "<|close|>", "<|sep|>", "<|close|>argument<|sep|>", "<|open|>argument ", "<|close|>call<|sep|>",
    "]<]minimax[>[", "<mm:think>", "</mm:think>",
]

let textValued: Set<ToolCallFormat> = [.xmlFunction, .glm4, .minimaxM2, .deepseekV32, .seedOss, .kimiK3, .minimaxM3,
                                       .glm47, .glm45LlamaCpp, .deepseekV4,
                                       .ling3, .poolsideV1, .minicpm5, .museGlimmer, .k2Horizon, .hyV3]

/// Every built-in format and model variant.
let everyFormatAndVariant = ToolCallFormat.allCases + ToolCallFormat.variants

/// Whether a string holds both quotes: `lfm2` writes string arguments verbatim between one of
/// them, so such a string may have no spelling that reads back.
func holdsBothQuotes(_ calls: [RenderedCall]) -> Bool {
    calls.contains { c in
        (c.arguments.objectValue ?? []).contains { m in
            guard case .string(let v) = m.value else { return false }
            return v.contains("'") && v.contains("\"")
        }
    }
}

func deepArray(_ depth: Int) -> JSONValue {
    var v = JSONValue.string("bottom")
    for _ in 0..<depth { v = .array([v]) }
    return v
}

func deepObject(_ depth: Int) -> JSONValue {
    var v = JSONValue.number("1")
    for i in 0..<depth { v = .object([(key: "k\(i)", value: v)]) }
    return v
}

let roundTripTable: [RoundTripCase] = {
    var rows: [RoundTripCase] = [
        row("two calls with an id", [
            call("get_weather", [("city", s("Paris")), ("days", n("3"))], id: "a1B2c3D4e"),
            call("write_file", [("path", s("a.txt")), ("content", s("line 1\nline \"2\""))]),
        ]),
        row("leading text", [call("get_weather", [("city", s("Tokyo"))])], text: "Let me check the weather."),
        row("leading text over lines", [call("f", [("a", n("1"))]), call("g", [])], text: "First line.\n\nSecond: {not json} [x]"),
        row("text alone", [], text: "Nothing to call."),
        row("empty arguments", [call("get_time", [])]),
        row("several calls, names repeated", [
            call("f", [("a", n("1"))]), call("g", [("b", s("two"))]), call("f", [("a", n("3"))]),
        ]),
        row("every JSON type", [call("types", [
            ("null", .null), ("t", .bool(true)), ("f", .bool(false)), ("int", n("42")), ("neg", n("-0.5")),
            ("exp", n("1e+30")), ("big", n("12345678901234567890")), ("zero", n("0")),
            ("list", .array([n("1"), s("two"), .bool(false), .null, .array([]), .object([])])),
            ("object", .object([(key: "x", value: n("1")), (key: "y", value: .array([s("a"), s("b")]))])),
            ("emptyList", .array([])), ("emptyObject", .object([])), ("emptyString", s("")),
        ])]),
        row("strings that read as other types", [call("f", [
            ("n", s("3")), ("t", s("true")), ("nul", s("null")), ("obj", s("{}")), ("arr", s("[1, 2]")),
            ("py", s("None")), ("neg", s("-1.5e3")), ("spaced", s(" 7 ")),
        ])]),
        row("quotes of both styles", [call("f", [
            ("a", s("it's \"quoted\" and 'single'")), ("b", s("\"")), ("c", s("'")), ("d", s("'''")), ("e", s("\"\"\"")),
            ("f", s("a', b='x")), ("g", s("x\"), g(y=\"")),
        ])]),
        row("backslashes", [call("f", [
            ("path", s("C:\\path\\to\\new")), ("esc", s("\\n is not a newline \\\" \\' \\\\")), ("end", s("trailing\\")),
            ("u", s("\\u0041 \\x41")),
        ])]),
        row("newlines and tabs", [call("f", [
            ("a", s("a\nb\tc\r\nd")), ("lead", s("\nx")), ("trail", s("x\n")), ("both", s("\n\nx\n\n")), ("nl", s("\n")),
            ("nls", s("\n\n\n")), ("pad", s("  padded  ")), ("tab", s("\t")), ("cr", s("\r")),
        ])]),
        row("control bytes", [call("f", [("c", s("\u{0}\u{1}\u{8}\u{c}\u{1b}\u{1f}\u{7f}"))])]),
        row("unicode", [call("f", [
            ("cjk", s("東京の天気")), ("emoji", s("👍🏽 🧑‍💻 🇫🇷")), ("combining", s("e\u{301} vs \u{e9}")),
            ("rtl", s("مرحبا")), ("keyless", s("\u{2028}\u{2029}\u{feff}")),
        ])]),
        row("unicode names and keys", [call("天気", [("都市", s("東京")), ("ключ", s("значение"))])],
            cannot: [:]),
        row("dotted and dashed names", [call("ns.tool-name_1", [("a_b", n("1")), ("c-d", s("x"))])]),
        row("deep nesting", [call("f", [("arr", deepArray(100)), ("obj", deepObject(100))])]),
        row("nesting at the renderer's cap", [call("f", [("arr", deepArray(498)), ("obj", deepObject(498))])], everySplit: false),
        row("nesting past the cap", [call("f", [("arr", deepArray(600))])], cannot: everyFormat("nest deeper than 500")),
        row("a number that is not JSON", [call("f", [("x", n("NaN"))])], cannot: everyFormat("is not a JSON number")),
        row("a key given twice", [call("f", [("k", n("1")), ("k", n("2"))])], cannot: everyFormat("holds the key \"k\" twice")),
        row("long string", [call("write_file", [("content", s(String(repeating: "0123456789abcdef\n", count: 6200)))])], everySplit: false),
        row("long escape-heavy string", [call("write_file", [("content", s(String(repeating: "\"\\'\n\t<>{}", count: 10000)))])], everySplit: false),
        row("values ending in closers", [call("f", [
            ("a", s("}")), ("b", s("x})")), ("c", s("]")), ("d", s(")")), ("e", s(",")), ("g", s(":")), ("h", s("=")),
        ])]),
        row("partial markers", [call("f", [("a", s("<tool_")), ("b", s("<|\"")), ("c", s("<esc")), ("d", s("</param")), ("e", s("<arg_")), ("f", s("[TOOL_"))])]),
        row("kimi ids passed through", [
            call("search", [("q", s("a"))], id: "functions.search:7"), call("search", [("q", s("b"))], id: "search:8"),
        ]),
        row("mistral ids", [
            call("f", [], id: "abcDEF123"), call("g", [], id: "call_not_nine"), call("h", [], id: "ZZZZZZZZZ"),
        ]),
        row("lfm2 wrapper key, typed", [call("get_weather", [("properties", .object([(key: "city", value: s("Oslo"))]))])]),
        row("odd keys", [call("f", [("a b", s("1")), ("$ref", s("2")), ("x:y", s("3"))])],
            cannot: [.lfm2: "not a Python name", .pythonic: "not a Python name"]),
        row("name with a space", [call("get weather", [("a", s("x"))])],
            cannot: [.lfm2: "not one", .pythonic: "not one", .mistral: "white space", .kimiK2: "white space", .gemma: "white space", .gemma4: "white space",
                     .harmony: "white space", .museGlimmer: "white space", .inkling: "white space", .functionaryV32: "recipient"]),
        // Found by `make fuzz` (rendering mode): a deepseek_v31 name with a carriage return was
        // written, and its decoder rejects a name with a line break.
        row("name with a line break", [call("a\rb", [("a", s("x"))])],
            mayRefuse: [.lfm2, .pythonic, .xmlFunction, .glm4, .gemma, .gemma4, .kimiK2, .minimaxM2, .mistral, .harmony,
                        .deepseekV3, .deepseekV31, .deepseekV32, .seedOss, .minimaxM3, .ling3, .poolsideV1, .minicpm5, .museGlimmer, .inkling,
                        .k2Horizon, .hyV3, .functionaryV32]),
        // A bare pythonic list is recognized only when its first name ends within the look-ahead.
        row("a 700-byte name", [call(String(repeating: "n", count: 700), [("a", s("x"))])],
            mayRefuse: [.pythonic, .xmlFunction, .glm4, .minimaxM2, .deepseekV3, .deepseekV31, .deepseekV32, .seedOss, .minimaxM3,
                        .ling3, .poolsideV1, .minicpm5, .museGlimmer, .inkling,
                        .k2Horizon, .hyV3, .functionaryV32]),
        row("key with surrounding space", [call("f", [(" k ", s("x"))])],
            cannot: [.xmlFunction: "trims", .minimaxM2: "trims", .glm4: "trims", .lfm2: "not a Python name", .pythonic: "not a Python name",
                     .deepseekV32: "trims", .seedOss: "trims", .ling3: "trims", .poolsideV1: "trims", .minicpm5: "trims", .museGlimmer: "trims",
                     .k2Horizon: "trims", .hyV3: "trims"]),
        row("a close tag and the next parameter (xml_function)", [call("write_file", [("content", s("x\n</parameter>\n<parameter=mode>\nz"))])],
            cannot: [.xmlFunction: "(</parameter>, <parameter=)", .seedOss: "(</parameter>, <parameter=)"], mayRefuse: [.minimaxM2, .glm4]),
        row("a close tag and the next parameter (minimax_m2)", [call("write_file", [("content", s("x</parameter>\n<parameter name=\"mode\">z"))])],
            cannot: [.minimaxM2: "(</parameter>, <parameter name=)"], mayRefuse: [.xmlFunction, .glm4]),
        row("a close tag and the next key (glm4)", [call("write_file", [("content", s("x</arg_value>\n<arg_key>mode</arg_key>"))])],
            cannot: [.glm4: "(</arg_value>, <arg_key>, </arg_key>)", .ling3: "(</arg_value>, <arg_key>, </arg_key>)",
                     .poolsideV1: "(</arg_value>, <arg_key>, </arg_key>)"], mayRefuse: [.xmlFunction, .minimaxM2]),
        // Inside <arg_value> only </arg_value> is structure: a key tag that no key and
        // </arg_key> follow is data, in every format.
        row("a key tag inside a value (glm4)", [call("f", [("a", s("see <arg_key> here"))])]),
        row("a close tag then far white space", [call("f", [("a", s("x</parameter>" + String(repeating: " ", count: 300) + "y")),
                                                          ("b", s("x</arg_value>" + String(repeating: " ", count: 300) + "y"))])],
            mayRefuse: textValued),
        row("a quoted call in a file", [call("write_file", [
            ("content", s("<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>")),
            ("other", s("<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>")),
        ])], mayRefuse: textValued),
        row("a quoted opener left open", [call("write_file", [("content", s("<function=f>\n<parameter=a>\n1"))])], mayRefuse: textValued),
        row("markers as keys' values in nested JSON", [call("f", [
            ("obj", .object([(key: "x", value: s("</parameter>\n<parameter=y>\n</arg_value><arg_key>z</arg_key></invoke>"))])),
        ])]),
    ]
    for (k, marker) in allMarkers.enumerated() {
        var r = row("marker \(marker) in a value", [call("f", [("a", s("before \(marker) after")), ("b", s(marker)), ("c", n("\(k)"))])],
                    mayRefuse: textValued)
        r.marker = marker
        rows.append(r)
    }
    rows.append(row("every marker in one value", [call("f", [("a", s(allMarkers.joined(separator: "\n")))])], mayRefuse: textValued))
    return rows
}()

/// Counts per format, printed by the summary test for the report.
@Suite("Rendering round trip")
struct RoundTripTests {
    @Test("decode(render(calls)) gives back the calls, at every chunking", arguments: everyFormatAndVariant)
    func table(_ format: ToolCallFormat) {
        var rendered = 0
        var refused = 0
        var decodes = 0
        // A model variant is held to its base format's expectations, except that it may write
        // what its base cannot (mistral31 writes names as JSON strings): then the round trip
        // must hold.
        let base = format.variantOf ?? format
        // The rows share the format's frame: each distinct cut is made once per format.
        let contexts = SplitContexts()
        for row in roundTripTable {
            let label = row.name
            // A variant decodes with its base's grammar, which the base's rows split at
            // offsets already: its own are decoded whole and byte by byte (lfm2_python has a
            // grammar of its own).
            let everySplit = row.splits(in: format) && (base == format || format == .lfm2Python)
            switch RoundTrip.check(format, row.calls, text: row.text, everySplit: everySplit, contexts: contexts, label: label, sourceLocation: row.sourceLocation) {
            case .success(let outcome):
                #expect(row.cannot[base] == nil || base != format, "[\(label)] \(format.rawValue) rendered what it cannot express", sourceLocation: row.sourceLocation)
                rendered += 1
                decodes += outcome.decodes
            case .failure(let error):
                refused += 1
                TestLog.note("round trip \(format.rawValue): refused [\(label)]: \(error)")
                if let fragment = row.cannot[base] {
                    #expect(error.reason.contains(fragment), "[\(label)] \(format.rawValue): \(error)", sourceLocation: row.sourceLocation)
                } else if format == .lfm2 && holdsBothQuotes(row.calls) {
                    #expect(error.reason.contains("verbatim"), "[\(label)] lfm2: \(error)", sourceLocation: row.sourceLocation)
                } else if !row.mayRefuse.contains(base) {
                    Issue.record("[\(label)] \(format.rawValue) refused: \(error)", sourceLocation: row.sourceLocation)
                }
                #expect(error.index != nil || row.text != nil, "[\(label)] the error names no call: \(error)", sourceLocation: row.sourceLocation)
            }
        }
        TestLog.note("round trip \(format.rawValue): \(roundTripTable.count) rows, \(rendered) rendered x chunkings = \(decodes) decodes, \(refused) refused; splits \(contexts.kept) of \(contexts.offered)")
    }

    @Test("text holding the format's marker is refused", arguments: everyFormatAndVariant)
    func textWithMarker(_ format: ToolCallFormat) throws {
        let grammar = format.definition.makeGrammar(GrammarContext(format: format, tools: nil, maxDepth: 1))
        let marker = try #require(grammar.markers.first { if case .always = $0.condition { return true } else { return false } })
        let text = "See " + String(decoding: marker.bytes, as: UTF8.self) + " here"
        #expect(throws: RenderError.self) { try format.render([RenderedCall(name: "f", arguments: .object([]))], text: text) }
    }

    /// Issue 27 item 10: `render --format minimax_m3 --text '</mm:think>'` wrote the text as
    /// it was, and decoding read it as markup. Every marker the format declares (call markers of
    /// every condition, reasoning markers, the call markers that end a block), in texts around
    /// it, with and without calls: the text is refused, or it comes back as that text whether
    /// the decoder separates reasoning or not.
    @Test("text holding the format's call or reasoning markers is refused or comes back as text", arguments: everyFormatAndVariant)
    func textHoldingMarkers(_ format: ToolCallFormat) {
        let d = format.definition
        let markers = Array(Set(d.markerTexts + d.reasoningMarkerTexts + d.reasoning.endedBy)).sorted()
        let one = [RenderedCall(name: "f", arguments: .object([(key: "a", value: .number("1"))]))]
        var refused = 0
        var rendered = 0
        for marker in markers {
            for text in [marker, "before \(marker) after", "\(marker) after", "before \(marker)", marker + marker] {
                for calls in [[], one] {
                    for reasoning in [false, true] {
                        let label = "text \(text.debugDescription), \(calls.count) call(s), reasoning \(reasoning ? "on" : "off")"
                        switch RoundTrip.check(format, calls, text: text, everySplit: false, reasoning: reasoning, label: label) {
                        case .success: rendered += 1
                        case .failure(let error):
                            refused += 1
                            #expect(error.index == nil, "[\(label)] \(format.rawValue): the error names a call: \(error)")
                        }
                    }
                }
            }
        }
        #expect(refused + rendered == markers.count * 20 && !markers.isEmpty)
    }

    @Test("minimax_m3: a text holding </mm:think> is refused, naming what the decoder reads")
    func minimaxThinkClose() {
        #expect(throws: RenderError.self) { try ToolCallFormat.minimaxM3.render([], text: "</mm:think>") }
        do {
            _ = try ToolCallFormat.minimaxM3.render([], text: "</mm:think>")
        } catch {
            #expect(error.index == nil && error.reason.contains("</mm:think>") && error.reason.contains("markup"), "\(error)")
        }
    }

    /// Gemma 4's template writes the content after the calls: the read-back check looks at the
    /// text where it is written (it read the first bytes, the calls, and refused every text
    /// with a '<' in it).
    @Test("gemma4: the text after the calls is checked where it is written")
    func textAfterCalls() throws {
        let one = [RenderedCall(name: "f", arguments: .object([(key: "a", value: .number("1"))]))]
        let out = try ToolCallFormat.gemma4.render(one, text: "so a < b and c > d")
        #expect(String(decoding: out, as: UTF8.self).hasSuffix("<tool_call|>so a < b and c > d"))
        #expect(throws: RenderError.self) { try ToolCallFormat.gemma4.render(one, text: "then <|tool_call>call:g{}<tool_call|>") }
        if case .failure(let error) = RoundTrip.check(.gemma4, one, text: "x <|channel>thought y", everySplit: false, reasoning: true, label: "channel") {
            #expect(error.reason.contains("reasoning") || error.reason.contains("marker"), "\(error)")
        }
    }

    @Test("a text holding <think> is refused in every format (reasoning separation would read a block)", arguments: everyFormatAndVariant)
    func thinkInText(_ format: ToolCallFormat) {
        guard format.isImplemented, format.definition.reasoningMarkerTexts.contains("<think>") else { return }
        #expect(throws: RenderError.self) { try format.render([], text: "Thinking: <think>x</think> done") }
    }

    @Test("a json text holding a bare call object is refused (it is a call to a reader that declares the tool)")
    func jsonBareObjectText() {
        #expect(throws: RenderError.self) { try ToolCallFormat.json.render([], text: "as {\"name\": \"g\", \"arguments\": {}} says") }
        #expect(throws: Never.self) { try ToolCallFormat.json.render([], text: "plain {\"a\": 1} JSON") }
    }

    @Test("a llama3 text that begins like JSON is refused")
    func llamaBareStart() {
        #expect(throws: RenderError.self) { try ToolCallFormat.llama3.render([], text: " {\"a\": 1}") }
        #expect(throws: RenderError.self) { try ToolCallFormat.llama3.render([], text: "[1]") }
    }

    @Test("arguments that are not an object, and empty names, are refused", arguments: everyFormatAndVariant)
    func badCalls(_ format: ToolCallFormat) {
        #expect(throws: RenderError(index: 0, name: "f", reason: "the arguments are not a JSON object")) {
            try format.render([RenderedCall(name: "f", arguments: .array([]))])
        }
        #expect(throws: RenderError(index: 1, name: "", reason: "the call has no name")) {
            try format.render([RenderedCall(name: "f", arguments: .object([])), RenderedCall(name: "", arguments: .object([]))])
        }
    }

    @Test("duplicate ids are refused where the format carries them")
    func duplicateIDs() {
        let kimi = [RenderedCall(name: "f", arguments: .object([]), id: "functions.f:0"),
                    RenderedCall(name: "f", arguments: .object([]), id: "functions.f:0")]
        #expect(throws: RenderError.self) { try ToolCallFormat.kimiK2.render(kimi) }
        let mistral = [RenderedCall(name: "f", arguments: .object([]), id: "abcdefghi"),
                       RenderedCall(name: "g", arguments: .object([]), id: "abcdefghi")]
        #expect(throws: RenderError.self) { try ToolCallFormat.mistral.render(mistral) }
        let cohere = [RenderedCall(name: "f", arguments: .object([]), id: "0"),
                      RenderedCall(name: "g", arguments: .object([]), id: "0")]
        #expect(throws: RenderError.self) { try ToolCallFormat.cohere.render(cohere) }
        // A call without an id is written with its index, which may be an earlier call's id.
        let numbered = [RenderedCall(name: "f", arguments: .object([]), id: "1"),
                        RenderedCall(name: "g", arguments: .object([]))]
        #expect(throws: RenderError.self) { try ToolCallFormat.cohere.render(numbered) }
    }

    @Test("a pythonic text holding a bare call list is refused; other brackets are fine")
    func pythonicText() throws {
        #expect(throws: RenderError.self) { try ToolCallFormat.pythonic.render([], text: "see [ f(x=1)] here") }
        let out = try ToolCallFormat.pythonic.render([RenderedCall(name: "f", arguments: .object([]))], text: "[1] and [x] (y)")
        #expect(String(decoding: out, as: UTF8.self) == "[1] and [x] (y)[f()]")
    }

    @Test("the layouts of the chat templates", arguments: [
        (ToolCallFormat.json, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [\"x\", true]}}\n</tool_call>"),
        (.lfm2, "<|tool_call_start|>[f(a=1, b=['x', True])]<|tool_call_end|>"),
        (.lfm2Python, "<|tool_call_start|>[f(a=1, b=['x', True])]<|tool_call_end|>"),
        (.xmlFunction, "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n[\"x\", true]\n</parameter>\n</function>\n</tool_call>"),
        (.glm4, "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>b</arg_key>\n<arg_value>[\"x\", true]</arg_value>\n</tool_call>"),
        (.glm47, "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key><arg_value>[\"x\", true]</arg_value></tool_call>"),
        (.glm45LlamaCpp, "<tool_call>f<arg_key>a</arg_key>\n<arg_value>1</arg_value><arg_key>b</arg_key>\n<arg_value>[\"x\", true]</arg_value></tool_call>"),
        (.gemma, "<start_function_call>call:f{a:1,b:[<escape>x<escape>,true]}<end_function_call>"),
        (.gemma4, "<|tool_call>call:f{a:1,b:[<|\"|>x<|\"|>,true]}<tool_call|>"),
        (.kimiK2, "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1, \"b\": [\"x\", true]}<|tool_call_end|><|tool_calls_section_end|>"),
        (.minimaxM2, "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n<parameter name=\"b\">[\"x\", true]</parameter>\n</invoke>\n</minimax:tool_call>"),
        (.mistral, "[TOOL_CALLS]f[ARGS]{\"a\": 1, \"b\": [\"x\", true]}"),
        (.mistral31, "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [\"x\", true]}}]"),
        (.llama3, "{\"name\": \"f\", \"parameters\": {\"a\": 1, \"b\": [\"x\", true]}}"),
        (.pythonic, "[f(a=1, b=['x', True])]"),
        (.granite, "<|tool_call|>[{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [\"x\", true]}}]"),
        (.nemotron, "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [\"x\", true]}}]</TOOLCALL>"),
        (.phi4Mini, "functools[{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [\"x\", true]}}]"),
        (.cohere, "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {\"a\": 1, \"b\": [\"x\", true]}}\n]<|END_ACTION|>"),
        (.harmony, "<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{\"a\": 1, \"b\": [\"x\", true]}<|call|>"),
        (.deepseekV3, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1, \"b\": [\"x\", true]}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        (.deepseekV31, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1, \"b\": [\"x\", true]}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        (.deepseekV32, "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1</｜DSML｜parameter>\n<｜DSML｜parameter name=\"b\" string=\"false\">[\"x\", true]</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"),
        (.deepseekV4, "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1</｜DSML｜parameter>\n<｜DSML｜parameter name=\"b\" string=\"false\">[\"x\", true]</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>"),
        (.seedOss, "<seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n<parameter=b>['x', True]</parameter>\n</function>\n</seed:tool_call>"),
        (.kimiK3, "<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|open|>argument key=\"b\" type=\"array\"<|sep|>[\"x\", true]<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>"),
        (.minimaxM3, "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[<b>[\"x\", true]]<]minimax[>[</b>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"),
        (.ling3, "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value><arg_key>b</arg_key>\n<arg_value>[\"x\", true]</arg_value>\n</tool_call><|role_end|>"),
        (.poolsideV1, "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>b</arg_key>\n<arg_value>[\"x\", true]</arg_value>\n</tool_call>\n</assistant>"),
        (.minicpm5, "<function name=\"f\"><param name=\"a\">1</param><param name=\"b\">['x', True]</param></function>"),
        (.museGlimmer, "to=f<|message|><atem:function_calls>\n<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">1</atem:parameter>\n<atem:parameter name=\"b\">[\"x\", true]</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eot|>"),
        (.inkling, "f<|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {\"a\": 1, \"b\": [\"x\", true]}}<|end_message|>"),
    ])
    func layout(_ format: ToolCallFormat, _ expected: String) throws {
        let c = RenderedCall(name: "f", arguments: .object([(key: "a", value: .number("1")), (key: "b", value: .array([.string("x"), .bool(true)]))]))
        let out = try format.render([c])
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }
}
