// ToolCallKit — the writers the renderers share: template-style JSON, Python literals, Gemma
// values, and the text-valued formats' frame with its read-back check.

extension CallRenderer {
    // MARK: - Leading text

    /// Text before the calls must stay text: it may not hold one of the format's markers (it
    /// would be read as markup). (Rules of one format, such as `llama3`'s bare call at the start
    /// of the output, are checked by its renderer.)
    ///
    /// With tools declared, `json` and `llama3` also read a bare call object naming a declared
    /// tool anywhere in the text as a call; that depends on the tools, which rendering does not
    /// know, so it is not checked.
    static func checkText(_ format: ToolCallFormat, _ text: String) throws(RenderError) {
        guard !text.isEmpty else { return }
        let bytes = Array(text.utf8)
        let grammar = format.definition.makeGrammar(GrammarContext(format: format, tools: nil, maxDepth: 1))
        for marker in grammar.markers {
            guard case .always = marker.condition, !marker.candidate else { continue }
            if firstIndex(of: marker.bytes, in: bytes) != nil {
                let m = String(decoding: marker.bytes, as: UTF8.self)
                throw RenderError(index: nil, name: nil, reason: "it holds \(format.rawValue)'s marker \(m), which would be read as markup")
            }
        }
    }

    // MARK: - JSON as chat templates write it

    /// JSON with `", "` and `": "` between members and elements, non-ASCII characters as they
    /// are: what a template's `tojson` filter writes.
    static func writeTemplateJSON(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                writeTemplateJSON(e, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, m) in members.enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                JSONValue.writeString(m.key, to: &out)
                out += [UInt8(ascii: ":"), 0x20]
                writeTemplateJSON(m.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        default:
            value.write(to: &out)
        }
    }

    /// The JSON Schema type name of a value (for ``ToolSet/typing(_:)``).
    static func schemaType(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    // MARK: - Python literals

    /// A Python literal: `None`, `True`/`False`, the number's text, a single-quoted string,
    /// `[...]`, `{'key': value}`.
    static func writePython(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out += Array("None".utf8)
        case .bool(let b): out += Array((b ? "True" : "False").utf8)
        case .number(let n): out += Array(n.utf8)
        case .string(let s): writePythonString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                writePython(e, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, m) in members.enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                writePythonString(m.key, to: &out)
                out += [UInt8(ascii: ":"), 0x20]
                writePython(m.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `'...'` with `\\`, `\'`, `\n`, `\r`, `\t` and `\xHH` for the other control bytes;
    /// everything else (non-ASCII included) as it is.
    static func writePythonString(_ s: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "'"))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case UInt8(ascii: "'"): out += [0x5C, UInt8(ascii: "'")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20, 0x7F: out += [0x5C, UInt8(ascii: "x"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "'"))
    }

    // MARK: - Python's str() and repr()

    /// A value as Python's `str()` writes it, which is what a template's `| string` filter
    /// gives: `None`, `True`/`False`, the number's text, a string as it is, and a list or dict as
    /// its `repr` (``writePythonRepr(_:to:)``).
    static func writePythonStr(_ value: JSONValue, to out: inout [UInt8]) {
        if case .string(let s) = value {
            out += Array(s.utf8)
        } else {
            writePythonRepr(value, to: &out)
        }
    }

    /// A value as Python's `repr()` writes it: `None`, `True`/`False`, the number's text,
    /// `[a, b]`, `{'key': value}`, and strings as ``writePythonReprString(_:to:)`` writes them.
    /// (A number keeps its JSON text, which is Python's spelling for the numbers JSON
    /// encoders write.)
    static func writePythonRepr(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out += Array("None".utf8)
        case .bool(let b): out += Array((b ? "True" : "False").utf8)
        case .number(let n): out += Array(n.utf8)
        case .string(let s): writePythonReprString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                writePythonRepr(e, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, m) in members.enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                writePythonReprString(m.key, to: &out)
                out += [UInt8(ascii: ":"), 0x20]
                writePythonRepr(m.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string as Python 3's `repr()` writes it: between `'`, or between `"` when the string
    /// holds a `'` and no `"`; the quote used and `\\` escaped; `\t`, `\n`, `\r`; `\xHH` for
    /// the other ASCII control characters and DEL; a character Python does not print (a
    /// control, format, surrogate, private-use, unassigned or separator character other than
    /// the space) as `\xHH`, `\uHHHH` or `\UHHHHHHHH`; every other character as it is.
    static func writePythonReprString(_ s: String, to out: inout [UInt8]) {
        let hasSingle = s.utf8.contains(UInt8(ascii: "'"))
        let hasDouble = s.utf8.contains(UInt8(ascii: "\""))
        let quote = hasSingle && !hasDouble ? UInt8(ascii: "\"") : UInt8(ascii: "'")
        out.append(quote)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case UInt32(quote), 0x5C: out += [0x5C, UInt8(v)]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0..<0x20, 0x7F: appendHexEscape(v, letter: "x", digits: 2, to: &out)
            case 0x20..<0x7F: out.append(UInt8(v))
            default:
                if isPythonPrintable(scalar) {
                    out += Array(String(scalar).utf8)
                } else if v <= 0xFF {
                    appendHexEscape(v, letter: "x", digits: 2, to: &out)
                } else if v <= 0xFFFF {
                    appendHexEscape(v, letter: "u", digits: 4, to: &out)
                } else {
                    appendHexEscape(v, letter: "U", digits: 8, to: &out)
                }
            }
        }
        out.append(quote)
    }

    private static func appendHexEscape(_ v: UInt32, letter: Unicode.Scalar, digits: Int, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out += [0x5C, UInt8(letter.value)]
        for k in stride(from: digits - 1, through: 0, by: -1) { out.append(hex[Int((v >> (4 * UInt32(k))) & 15)]) }
    }

    /// Python's `str.isprintable()` for one non-ASCII character.
    private static func isPythonPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return false
        default:
            return true
        }
    }

    /// Equality that tells strings apart by their bytes and objects by their keys' order
    /// (`JSONValue`'s `==` uses Swift string equality, under which "é" and "e\u{301}" are equal).
    static func sameBytes(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(sameBytes)
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && sameBytes($0.value, $1.value) }
        default: return a == b
        }
    }

    /// Whether the Python call reader takes `s` as a call or keyword name.
    static func isPythonName(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard let first = b.first, PythonCallReader.isNameStart(first) else { return false }
        return b.allSatisfy(PythonCallReader.isNameByte)
    }

    // MARK: - Gemma values

    /// How a Gemma template writes values.
    struct GemmaStyle: Sendable, Equatable {
        var delimiter: [UInt8]
        /// Keys sorted as Jinja's `dictsort` sorts them (``templateSorted(_:)``), at every level.
        var sortKeys = false
        /// How null is written (`null`, or Gemma 4's `None`).
        var null: [UInt8] = Array("null".utf8)
    }

    /// A Gemma value: a delimited string (a JSON string literal when it holds the delimiter),
    /// the number's text, `true`/`false`, null as the style says, `[a,b]`, `{key:value,...}`.
    static func writeGemma(_ value: JSONValue, _ style: GemmaStyle, to out: inout [UInt8]) {
        let d = style.delimiter
        switch value {
        case .string(let s): writeGemmaString(s, delimiter: d, to: &out)
        case .null: out += style.null
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeGemma(e, style, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, m) in (style.sortKeys ? templateSorted(members) : members).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                let key = Array(m.key.utf8)
                if !key.isEmpty && key.allSatisfy(isGemmaBareKeyByte) {
                    out += key
                } else {
                    writeGemmaString(m.key, delimiter: d, to: &out)
                }
                out.append(UInt8(ascii: ":"))
                writeGemma(m.value, style, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        default:
            value.write(to: &out)
        }
    }

    /// Members in the order Jinja's `dictsort` filter gives them: by key, compared
    /// case-insensitively (lowercased, then code point by code point); equal keys keep their
    /// order.
    static func templateSorted(_ members: [(key: String, value: JSONValue)]) -> [(key: String, value: JSONValue)] {
        let keys = members.map { Array($0.key.lowercased().unicodeScalars.map(\.value)) }
        return members.indices.sorted { a, b in
            keys[a] == keys[b] ? a < b : keys[a].lexicographicallyPrecedes(keys[b])
        }.map { members[$0] }
    }

    /// `value` with every object's keys in ``templateSorted(_:)`` order.
    static func templateSorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): return .array(elements.map(templateSorted))
        case .object(let members): return .object(templateSorted(members).map { (key: $0.key, value: templateSorted($0.value)) })
        default: return value
        }
    }

    private static func writeGemmaString(_ s: String, delimiter d: [UInt8], to out: inout [UInt8]) {
        let bytes = Array(s.utf8)
        if firstIndex(of: d, in: bytes) != nil {
            JSONValue.writeString(s, to: &out)
        } else {
            out += d
            out += bytes
            out += d
        }
    }

    /// Bytes a bare Gemma key may hold (the template writes keys bare).
    private static func isGemmaBareKeyByte(_ b: UInt8) -> Bool {
        isASCIIAlphanumeric(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b >= 0x80
    }

    // MARK: - Text-valued formats

    /// The tags of a text-valued format that the decoder looks for inside a value.
    struct TextTags: Sendable {
        var tags: [[UInt8]]
        /// Names and keys are written between double quotes.
        var quotedNames: Bool
        /// glm4: the name ends at a newline and may not begin with `{`; keys end at `</arg_key>`.
        var glm: Bool
    }

    /// The first of `tags` that `bytes` holds.
    static func firstTag(in bytes: [UInt8], _ tags: TextTags) -> [UInt8]? {
        guard bytes.contains(UInt8(ascii: "<")) else { return nil }
        return tags.tags.first { firstIndex(of: $0, in: bytes) != nil }
    }

    /// A value's text: a string as it is; anything else as JSON, with `<` written `\u003c` when
    /// the JSON would hold one of the format's tags (a JSON spelling of the same value).
    static func textValue(_ value: JSONValue, tags: TextTags) -> [UInt8] {
        if case .string(let s) = value { return Array(s.utf8) }
        var out: [UInt8] = []
        writeTemplateJSON(value, to: &out)
        guard firstTag(in: out, tags) != nil else { return out }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(out.count + 16)
        for b in out {
            if b == UInt8(ascii: "<") { escaped += Array("\\u003c".utf8) } else { escaped.append(b) }
        }
        return escaped
    }

    /// A value's text as a template's `| string` filter writes it (Seed-OSS): a string as it is,
    /// anything else as Python's `str()` (``writePythonStr(_:to:)``), with `<` written `\x3c`
    /// when the text would hold one of the format's tags (it can only stand inside a Python
    /// string literal there, where `\x3c` is the same character).
    static func pythonTextValue(_ value: JSONValue, tags: TextTags) -> [UInt8] {
        if case .string(let s) = value { return Array(s.utf8) }
        var out: [UInt8] = []
        writePythonRepr(value, to: &out)
        guard firstTag(in: out, tags) != nil else { return out }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(out.count + 16)
        for b in out {
            if b == UInt8(ascii: "<") { escaped += Array("\\x3c".utf8) } else { escaped.append(b) }
        }
        return escaped
    }

    /// A value's text as Qwen3-Coder's and Qwen3.5's templates write it: a string as it is, an
    /// object or array as JSON (``textValue(_:tags:)``), anything else as Python's `str()`
    /// (`True`, `False`, `None`, the number's text).
    static func pythonScalarTextValue(_ value: JSONValue, tags: TextTags) -> [UInt8] {
        switch value {
        case .bool, .null:
            var out: [UInt8] = []
            writePythonRepr(value, to: &out)
            return out
        default:
            return textValue(value, tags: tags)
        }
    }

    /// Why a name or key cannot be written in a text-valued format (nil when it can): the
    /// decoder trims them, ends them at `>` (or the closing quote), a newline or a tag.
    static func tagNameProblem(_ s: String, key: Bool, _ tags: TextTags) -> String? {
        let b = Array(s.utf8)
        let what = key ? "key" : "name"
        if b.isEmpty { return "the \(what) is empty" }
        if b.count > 500 { return "the \(what) is longer than 500 bytes" }
        if JSONReader.isSpace(b[0]) || JSONReader.isSpace(b[b.count - 1]) {
            return "the decoder trims white space around a \(what)"
        }
        let stops: [UInt8]
        if tags.glm {
            stops = key ? Array("<".utf8) : Array("<\n\r".utf8)
            if !key && b[0] == UInt8(ascii: "{") { return "a glm4 name may not begin with '{'" }
        } else {
            stops = tags.quotedNames ? Array("\"\n\r".utf8) : Array("<>\n\r".utf8)
        }
        if let c = b.first(where: { stops.contains($0) }) {
            return "a \(what) here cannot hold \(JSONValue.string(String(decoding: [c], as: UTF8.self)).jsonText)"
        }
        return nil
    }

    /// The frame of a text-valued format: text, `separator`, `open`, the calls (each from
    /// `body`) joined by `between`, `close`.
    ///
    /// These formats have no escape inside a value, and the decoder reads a tag inside a value
    /// as data or as structure by what follows it. So a call with a value that holds one of the
    /// format's tags is decoded once, alone, with tools typed from its own values
    /// (``ToolSet/typing(_:)``), and is written only when that gives it back exactly;
    /// otherwise it is a ``RenderError`` naming the argument. Values without tags need no
    /// check.
    static func taggedCalls(
        _ format: ToolCallFormat, _ calls: [RenderedCall], text: String, separator: String, between: String,
        tags: TextTags, open: String = "", close: String = "", body: (RenderedCall) -> [UInt8]
    ) throws(RenderError) -> [UInt8] {
        var out = Array(text.utf8)
        guard !calls.isEmpty else { return out }
        if !text.isEmpty { out += Array(separator.utf8) }
        out += Array(open.utf8)
        for (i, call) in calls.enumerated() {
            if let p = tagNameProblem(call.name, key: false, tags) { throw RenderError(index: i, name: call.name, reason: p) }
            let members = call.arguments.objectValue ?? []
            for m in members {
                if let p = tagNameProblem(m.key, key: true, tags) {
                    throw RenderError(index: i, name: call.name, reason: "\(p) (\(JSONValue.string(m.key).jsonText))")
                }
            }
            let bytes = body(call)
            let quoting = members.filter { m in
                if case .string(let v) = m.value { return firstTag(in: Array(v.utf8), tags) != nil }
                return false
            }
            let framed = Array(open.utf8) + bytes + Array(close.utf8)
            if !quoting.isEmpty, case let back = readBack(format, call, framed, tools: ToolSet.typing([call])),
                !(back.name.utf8.elementsEqual(call.name.utf8) && back.arguments == call.arguments)
                    || !sameKeys(readBack(format, call, framed, tools: nil).arguments, call.arguments)
            {
                // Name the argument that did not come back (the first quoting one by default).
                let got = back.arguments.objectValue ?? []
                let culprit = quoting.first { m in
                    !got.contains { $0.key.utf8.elementsEqual(m.key.utf8) && $0.value == m.value }
                } ?? quoting[0]
                let held = tagsHeld(by: Array((culprit.value.stringValue ?? "").utf8), tags)
                    .map { String(decoding: $0, as: UTF8.self) }.joined(separator: ", ")
                throw RenderError(
                    index: i, name: call.name,
                    reason: "the value of \(JSONValue.string(culprit.key).jsonText) quotes \(format.rawValue) markup (\(held)) that its decoder reads as structure here, and the format has no escape")
            }
            if i > 0 { out += Array(between.utf8) }
            out += bytes
        }
        out += Array(close.utf8)
        return out
    }

    /// The one call that decoding `bytes` gives; an empty name (no call has one) when it gives
    /// none, several, or a rejection.
    ///
    /// The check reads the call back twice: with tools typed from its own values (the values
    /// must come back exactly), and with no tools at all, where any key not yet given may begin
    /// the next parameter (the keys must come back the same). A server's tools may declare more
    /// keys than this one call uses, and a declared key's opener inside a value ends it; the
    /// second reading is the widest such reading, so what passes both reads back under any
    /// tools whose schemas agree with the values' types.
    static func readBack(_ format: ToolCallFormat, _ call: RenderedCall, _ bytes: [UInt8], tools: ToolSet?) -> (name: String, arguments: JSONValue) {
        var decoder = ToolCallDecoder(format: format, tools: tools)
        let events = decoder.feed(bytes) + decoder.finish()
        var found: [ToolCall] = []
        for e in events {
            switch e {
            case .toolCall(let c): found.append(c)
            case .rejected: return ("", .null)
            default: continue
            }
        }
        guard found.count == 1 else { return ("", .null) }
        return (found[0].name, found[0].arguments)
    }

    /// Whether two argument objects have the same keys, in the same order.
    static func sameKeys(_ a: JSONValue, _ b: JSONValue) -> Bool {
        guard let x = a.objectValue, let y = b.objectValue else { return false }
        return x.map(\.key) == y.map(\.key)
    }

    /// The format's tags that `bytes` holds, in the order they first occur.
    static func tagsHeld(by bytes: [UInt8], _ tags: TextTags) -> [[UInt8]] {
        tags.tags.compactMap { t in firstIndex(of: t, in: bytes).map { (t, $0) } }.sorted { $0.1 < $1.1 }.map(\.0)
    }

    // MARK: - Bytes

    static func isASCIIAlphanumeric(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z"))
    }

    /// Where `needle` first occurs in `hay` (needles are short tags: linear in `hay`).
    static func firstIndex(of needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        let first = needle[0]
        var i = 0
        let last = hay.count - needle.count
        while i <= last {
            if hay[i] == first {
                var j = 1
                while j < needle.count && hay[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
