// ToolCallKit — rendering: the checks every format needs, then the format's own renderer.
//
// Each format's renderer lives in its file under `Formats/` and writes the layout of its model's
// chat template, checking what the format cannot express; the family writers shared by several
// formats (Python calls, Gemma values here; template-style JSON and the text-valued frame with
// its read-back check in `CallRenderer+Values.swift`) are here.

/// Writes calls in a format's wire text (``ToolCallFormat/render(_:text:)``).
///
/// Every function here writes only text the format's decoder reads back as the same calls, or
/// throws ``RenderError``. It does not validate arguments against schemas and does not decide
/// which calls a model may make.
enum CallRenderer {
    /// Checks what every format needs (a name, an object of arguments, text without markers),
    /// then hands over to the format's own renderer.
    static func render(_ format: ToolCallFormat, _ calls: [RenderedCall], text: String?) throws(RenderError) -> [UInt8] {
        let text = text ?? ""
        try checkText(format, text)
        for (i, call) in calls.enumerated() {
            guard !call.name.isEmpty else { throw RenderError(index: i, name: call.name, reason: "the call has no name") }
            guard call.arguments.isObject else {
                throw RenderError(index: i, name: call.name, reason: "the arguments are not a JSON object")
            }
            if let problem = valueProblem(call.arguments, depth: 0) { throw RenderError(index: i, name: call.name, reason: problem) }
        }
        return try format.definition.renderer.render(format, calls, text)
    }

    /// The deepest argument nesting rendered: the decoder's default cap (512 levels) less what
    /// a format's wrapper adds.
    static let maxNesting = 500

    /// What no format can write as given: a number whose text is not a JSON number, an object
    /// that holds a key twice (decoding keeps one of them), nesting past the decoder's cap.
    static func valueProblem(_ value: JSONValue, depth: Int) -> String? {
        switch value {
        case .number(let n):
            return JSONReader.isValidNumber(Array(n.utf8)) ? nil : "\(JSONValue.string(n).jsonText) is not a JSON number"
        case .array(let elements):
            if depth >= maxNesting { return "the arguments nest deeper than \(maxNesting) levels (the decoder's default cap is \(Limit.defaultDepth.count), and a format may wrap them in up to two more)" }
            for e in elements { if let p = valueProblem(e, depth: depth + 1) { return p } }
            return nil
        case .object(let members):
            if depth >= maxNesting { return "the arguments nest deeper than \(maxNesting) levels (the decoder's default cap is \(Limit.defaultDepth.count), and a format may wrap them in up to two more)" }
            var keys: Set<[UInt8]> = []
            for m in members {
                guard keys.insert(Array(m.key.utf8)).inserted else { return "an object holds the key \(JSONValue.string(m.key).jsonText) twice" }
                if let p = valueProblem(m.value, depth: depth + 1) { return p }
            }
            return nil
        default:
            return nil
        }
    }

    // MARK: - Python calls

    /// Calls as a Python list's elements, `f(a='v', b=1), g()`: a string is a single-quoted
    /// Python literal (escaped); an object is JSON, as the templates write it; lists, numbers,
    /// `True`/`False`/`None` are Python literals. Names and keys must be what the Python call
    /// reader takes for a name: a letter, `_` or a non-ASCII byte, then letters, digits, `_`,
    /// `.`, `-` or non-ASCII bytes.
    static func writePythonCalls(_ calls: [RenderedCall], format: String, to out: inout [UInt8]) throws(RenderError) {
        for (i, call) in calls.enumerated() {
            guard isPythonName(call.name) else {
                throw RenderError(index: i, name: call.name, reason: "\(format) writes a Python call, and this name is not one (letters, digits, '_', '.', '-')")
            }
            if i > 0 { out += Array(", ".utf8) }
            out += Array(call.name.utf8)
            out.append(UInt8(ascii: "("))
            for (k, member) in (call.arguments.objectValue ?? []).enumerated() {
                guard isPythonName(member.key) else {
                    throw RenderError(index: i, name: call.name, reason: "\(format) writes keyword arguments, and the key \(JSONValue.string(member.key).jsonText) is not a Python name")
                }
                if k > 0 { out += Array(", ".utf8) }
                out += Array(member.key.utf8)
                out.append(UInt8(ascii: "="))
                if member.value.isObject {
                    writeTemplateJSON(member.value, to: &out)
                } else {
                    writePython(member.value, to: &out)
                }
            }
            out.append(UInt8(ascii: ")"))
        }
    }

    // MARK: - Gemma values

    /// FunctionGemma and Gemma 4: `START call:NAME{key:value,...}END` per call, run together,
    /// before the text (or after it, with `textAfter`: Gemma 4's template writes the content
    /// after the calls); strings between delimiters, keys bare. A string that holds the
    /// delimiter (the format has no escape inside delimiters) is written as a JSON string
    /// literal, which both readers take; a key that is not a plain word is delimited, or a JSON
    /// string when it holds the delimiter. The name runs to `{`, so it may hold no white space,
    /// quotes, `<`, `>`, `{`, `(`, `}` or `,`.
    static func gemma(_ calls: [RenderedCall], text: String, start: String, end: String, style: GemmaStyle, textAfter: Bool = false) throws(RenderError) -> [UInt8] {
        var out = textAfter ? [] : Array(text.utf8)
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            let forbidden: [UInt8] = Array("\"'<>{(},".utf8)
            if name.count > 1000 || name.contains(where: { JSONReader.isSpace($0) || forbidden.contains($0) }) {
                throw RenderError(index: i, name: call.name, reason: "the name runs from call: to '{', so it cannot hold white space, quotes, '<', '>', '{', '(', '}' or ','")
            }
            out += Array(start.utf8)
            out += Array("call:".utf8)
            out += name
            writeGemma(call.arguments, style, to: &out)
            out += Array(end.utf8)
        }
        if textAfter { out += Array(text.utf8) }
        return out
    }
}
