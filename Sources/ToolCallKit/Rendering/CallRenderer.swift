// ToolCallKit — one renderer per format, chosen in one place (``CallRenderer/render(_:_:text:)``).
//
// Each format's function writes the layout of its model's chat template and checks what the
// format cannot express; the shared writers (template-style JSON, Python literals, Gemma values,
// text-value verification) follow in `CallRenderer+Values.swift`.

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
        switch format {
        case .json: return try json(calls, text: text)
        case .lfm2: return try lfm2(calls, text: text)
        case .xmlFunction: return try xmlFunction(calls, text: text)
        case .glm4: return try glm4(calls, text: text)
        case .gemma: return try gemma(calls, text: text, start: "<start_function_call>", end: "<end_function_call>", delimiter: "<escape>")
        case .gemma4: return try gemma(calls, text: text, start: "<|tool_call>", end: "<tool_call|>", delimiter: "<|\"|>")
        case .kimiK2: return try kimiK2(calls, text: text)
        case .minimaxM2: return try minimaxM2(calls, text: text)
        case .mistral: return try mistral(calls, text: text)
        case .llama3: return try llama3(calls, text: text)
        }
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

    // MARK: - JSON payloads

    /// Qwen3 / Hermes: `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`, one block per
    /// call, blocks and the text before them separated by a newline. No id: the template writes
    /// none. Every name and value is expressible (JSON escapes).
    static func json(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        for (i, call) in calls.enumerated() {
            if i > 0 || !text.isEmpty { out.append(0x0A) }
            out += Array("<tool_call>\n{\"name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"arguments\": ".utf8)
            writeTemplateJSON(call.arguments, to: &out)
            out += Array("}\n</tool_call>".utf8)
        }
        return out
    }

    /// Llama 3.x: the bare call object `{"name": "f", "parameters": {...}}` the template writes,
    /// several joined by `; `. A bare object counts only at the start of the output, so after
    /// text the calls follow `<|python_tag|>`, and a text that itself begins with `{` or `[` is
    /// refused (it would be read as a call). No id.
    static func llama3(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        if let first = out.first(where: { !JSONReader.isSpace($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            throw RenderError(index: nil, name: nil, reason: "a llama3 output that begins with '{' or '[' is read as a call")
        }
        if !text.isEmpty && !calls.isEmpty { out += Array("<|python_tag|>".utf8) }
        for (i, call) in calls.enumerated() {
            if i > 0 { out += Array("; ".utf8) }
            out += Array("{\"name\": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", \"parameters\": ".utf8)
            writeTemplateJSON(call.arguments, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        return out
    }

    /// Kimi K2: one section, each call `<|tool_call_begin|>ID<|tool_call_argument_begin|>{...}
    /// <|tool_call_end|>`, nothing between the markers. The id is `functions.NAME:N`; the name
    /// is read back from it, so it may hold no white space and no `<|`.
    static func kimiK2(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        var used: Set<[UInt8]> = []
        var ids: [String] = []
        // Ids the calls bring, so that one made from a position never takes a later call's.
        let brought = Set(calls.compactMap { $0.id.map { Array($0.utf8) } })
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            guard !name.contains(where: JSONReader.isSpace), firstIndex(of: Array("<|".utf8), in: name) == nil,
                KimiK2Grammar.readID("functions.\(call.name):0") == .named(call.name)
            else {
                throw RenderError(index: i, name: call.name, reason: "kimi_k2 reads the name from the id functions.NAME:N, which cannot hold this name (white space or <|)")
            }
            var id: String
            if let given = call.id, KimiK2Grammar.readID(given) == .named(call.name) {
                id = given
                guard !used.contains(Array(id.utf8)) else {
                    throw RenderError(index: i, name: call.name, reason: "the id \(JSONValue.string(id).jsonText) is an earlier call's; the decoder would replace it")
                }
            } else {
                // Not an id this format carries: the position, as Kimi numbers its calls.
                var n = i
                repeat {
                    id = "functions.\(call.name):\(n)"
                    n += 1
                } while used.contains(Array(id.utf8)) || brought.contains(Array(id.utf8))
            }
            used.insert(Array(id.utf8))
            ids.append(id)
        }
        out += Array("<|tool_calls_section_begin|>".utf8)
        for (call, id) in zip(calls, ids) {
            out += Array("<|tool_call_begin|>".utf8)
            out += Array(id.utf8)
            out += Array("<|tool_call_argument_begin|>".utf8)
            writeTemplateJSON(call.arguments, to: &out)
            out += Array("<|tool_call_end|>".utf8)
        }
        out += Array("<|tool_calls_section_end|>".utf8)
        return out
    }

    /// Mistral (v11 and later): `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}` per call, run together.
    /// `[CALL_ID]` is written for an id of exactly 9 ASCII letters and digits (what Mistral's
    /// templates demand) and left out otherwise, so the decoder makes a fresh one. The name ends
    /// at white space, `[` or `{`, so it may hold none of them.
    static func mistral(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        var used: Set<String> = []
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            if name.contains(where: { JSONReader.isSpace($0) || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }) {
                throw RenderError(index: i, name: call.name, reason: "a mistral name ends at white space, '[' or '{', so it cannot hold one")
            }
            out += Array("[TOOL_CALLS]".utf8)
            out += name
            if let id = call.id, isMistralID(id) {
                guard used.insert(id).inserted else {
                    throw RenderError(index: i, name: call.name, reason: "the id \(JSONValue.string(id).jsonText) is an earlier call's; the decoder would replace it")
                }
                out += Array("[CALL_ID]".utf8)
                out += Array(id.utf8)
            }
            out += Array("[ARGS]".utf8)
            writeTemplateJSON(call.arguments, to: &out)
        }
        return out
    }

    /// Whether `id` is what Mistral's `[CALL_ID]` holds: 9 ASCII letters and digits.
    static func isMistralID(_ id: String) -> Bool {
        let b = Array(id.utf8)
        return b.count == 9 && b.allSatisfy(isASCIIAlphanumeric)
    }

    // MARK: - Python calls

    /// LFM2: `<|tool_call_start|>[f(a='v', b=1), g()]<|tool_call_end|>` right after the text. A
    /// string is a single-quoted Python literal (escaped); an object is JSON, as the template
    /// writes it; lists, numbers, `True`/`False`/`None` are Python literals. Names and keys
    /// must be what the Python call reader takes for a name: a letter, `_` or a non-ASCII byte,
    /// then letters, digits, `_`, `.`, `-` or non-ASCII bytes.
    ///
    /// A call whose one argument is `properties`, `parameters`, `arguments`, `args` or
    /// `kwargs` holding an object reads back unwrapped unless the tool's schema declares that
    /// key (LFM2 models write `f(properties={...})`).
    static func lfm2(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        out += Array("<|tool_call_start|>[".utf8)
        for (i, call) in calls.enumerated() {
            guard isPythonName(call.name) else {
                throw RenderError(index: i, name: call.name, reason: "lfm2 writes a Python call, and this name is not one (letters, digits, '_', '.', '-')")
            }
            if i > 0 { out += Array(", ".utf8) }
            out += Array(call.name.utf8)
            out.append(UInt8(ascii: "("))
            for (k, member) in (call.arguments.objectValue ?? []).enumerated() {
                guard isPythonName(member.key) else {
                    throw RenderError(index: i, name: call.name, reason: "lfm2 writes keyword arguments, and the key \(JSONValue.string(member.key).jsonText) is not a Python name")
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
        out += Array("]<|tool_call_end|>".utf8)
        return out
    }

    // MARK: - Gemma values

    /// FunctionGemma and Gemma 4: `START call:NAME{key:value,...}END` per call, run together after
    /// the text; strings between delimiters, keys bare. A string that holds the delimiter (the
    /// format has no escape inside delimiters) is written as a JSON string literal, which both
    /// readers take; a key that is not a plain word is delimited, or a JSON string when it holds
    /// the delimiter. The name runs to `{`, so it may hold no white space, quotes, `<`, `>`,
    /// `{`, `(`, `}` or `,`.
    static func gemma(_ calls: [RenderedCall], text: String, start: String, end: String, delimiter: String) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        let d = Array(delimiter.utf8)
        for (i, call) in calls.enumerated() {
            let name = Array(call.name.utf8)
            let forbidden: [UInt8] = Array("\"'<>{(},".utf8)
            if name.count > 1000 || name.contains(where: { JSONReader.isSpace($0) || forbidden.contains($0) }) {
                throw RenderError(index: i, name: call.name, reason: "the name runs from call: to '{', so it cannot hold white space, quotes, '<', '>', '{', '(', '}' or ','")
            }
            out += Array(start.utf8)
            out += Array("call:".utf8)
            out += name
            writeGemma(call.arguments, delimiter: d, to: &out)
            out += Array(end.utf8)
        }
        return out
    }

    // MARK: - Text values

    /// Qwen3-Coder: after the text and a blank line, per call `<tool_call>\n<function=NAME>\n`,
    /// per argument `<parameter=KEY>\nVALUE\n</parameter>\n`, then `</function>\n</tool_call>`,
    /// calls separated by a newline. The decoder strips exactly one newline at each end of a
    /// value, so every value comes back whole. A string is written as it is; any other value as
    /// JSON (with `<` written `\u003c` when the JSON would hold a tag).
    static func xmlFunction(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        try taggedCalls(.xmlFunction, calls, text: text, separator: "\n\n", between: "\n", tags: xmlTags) { call in
            var out = Array("<tool_call>\n<function=".utf8) + Array(call.name.utf8) + Array(">\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<parameter=".utf8) + Array(member.key.utf8) + Array(">\n".utf8)
                out += textValue(member.value, tags: xmlTags)
                out += Array("\n</parameter>\n".utf8)
            }
            return out + Array("</function>\n</tool_call>".utf8)
        }
    }

    /// MiniMax M2: after the text and a newline, one `<minimax:tool_call>\n` block holding per call
    /// `<invoke name="NAME">\n`, per argument `<parameter name="KEY">VALUE</parameter>\n`, then
    /// `</invoke>\n`. The decoder strips one newline at each end of a value, so a value that
    /// begins (or ends) with a newline gets one more there.
    static func minimaxM2(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        try taggedCalls(.minimaxM2, calls, text: text, separator: "\n", between: "", tags: minimaxTags,
                        open: "<minimax:tool_call>\n", close: "</minimax:tool_call>") { call in
            var out = Array("<invoke name=\"".utf8) + Array(call.name.utf8) + Array("\">\n".utf8)
            for member in call.arguments.objectValue ?? [] {
                out += Array("<parameter name=\"".utf8) + Array(member.key.utf8) + Array("\">".utf8)
                var value = textValue(member.value, tags: minimaxTags)
                if value.first == 0x0A { value.insert(0x0A, at: 0) }
                if value.last == 0x0A { value.append(0x0A) }
                out += value
                out += Array("</parameter>\n".utf8)
            }
            return out + Array("</invoke>\n".utf8)
        }
    }

    /// GLM-4.5: after the text and a newline, per call `<tool_call>NAME\n`, per argument
    /// `<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n`, then `</tool_call>`, calls
    /// separated by a newline. Values are kept exactly as written (no newline stripping).
    static func glm4(_ calls: [RenderedCall], text: String) throws(RenderError) -> [UInt8] {
        try taggedCalls(.glm4, calls, text: text, separator: "\n", between: "\n", tags: glmTags) { call in
            var out = Array("<tool_call>".utf8) + Array(call.name.utf8) + [0x0A]
            for member in call.arguments.objectValue ?? [] {
                out += Array("<arg_key>".utf8) + Array(member.key.utf8) + Array("</arg_key>\n<arg_value>".utf8)
                out += textValue(member.value, tags: glmTags)
                out += Array("</arg_value>\n".utf8)
            }
            return out + Array("</tool_call>".utf8)
        }
    }
}
