// ToolCallKit — typing text-valued arguments by the tool's compiled JSON schema (docs/formats.md, Typing).

/// Turns an argument written as text into a typed JSON value.
///
/// Formats whose values arrive as text (the tagged-functions and key/value-tags families), and escaped Gemma values
/// narrowed by a schema, share this one policy:
///
/// - With a schema: `string` keeps the text exactly (never JSON-decoded); `integer`, `number`
///   (and the non-standard `float`), `boolean`, `null`, `object` and `array` are decoded (an
///   integer may have leading zeros; an object or array may be written as a Python literal), with
///   the Python spellings `True`, `False` and `None` accepted; unions (`type: [..]`, `anyOf`,
///   `oneOf`, `nullable`) try their members in order, except that a value that is exactly
///   `null` or `None` takes a `null` member first. A value that fits no member is an error.
/// - Without a schema (or one that names no type): a value that is exactly a JSON number,
///   `true`, `false`, `null`, object or array becomes that value; anything else stays a string.
///
/// The schema it is given is the one the validator checks: ``ToolDefinition`` hands it
/// `{"type": [...]}` worked out from the compiled schema (`$ref`s followed, `allOf` members
/// intersected), so a value is never typed by one reading of the schema and judged by another.
///
/// It does not validate constraints such as `minimum` or `pattern`; ``SchemaValidator`` does.
enum SchemaTyping {
    /// A value that does not fit its declared type.
    struct Mismatch: Error, Equatable, Sendable {
        /// What the schema expects, for messages (`integer`, `one of integer, null`).
        var expected: String
    }

    /// The JSON types a schema admits, in the order to try them; empty when it names none.
    static func types(of schema: JSONValue?) -> [String] {
        guard let schema, schema.isObject else { return [] }
        var out: [String] = []
        func add(_ t: String) {
            // Python's type names, which some tool definitions use.
            let name = ["float": "number", "str": "string", "int": "integer", "bool": "boolean",
                        "dict": "object", "list": "array"][t] ?? t
            if !out.contains(name) { out.append(name) }
        }
        switch schema["type"] {
        case .string(let t)?: add(t)
        case .array(let ts)?: for case .string(let t) in ts { add(t) }
        default: break
        }
        for key in ["anyOf", "oneOf"] {
            if case .array(let members)? = schema[key] {
                for m in members { for t in types(of: m) { add(t) } }
            }
        }
        if out.isEmpty, case .array(let values)? = schema["enum"], !values.isEmpty {
            // An enum without a type: its values' types.
            for v in values {
                switch v {
                case .string: add("string")
                case .number: add("number")
                case .bool: add("boolean")
                case .null: add("null")
                case .array: add("array")
                case .object: add("object")
                }
            }
        }
        if schema["nullable"] == .bool(true) && !out.isEmpty { add("null") }
        return out
    }

    /// True when the schema admits only strings: such a value may be streamed as it arrives.
    static func isStringOnly(_ schema: JSONValue?) -> Bool {
        types(of: schema) == ["string"]
    }

    /// Types `text` by `schema` (nil: the no-schema rule).
    static func type(_ text: String, schema: JSONValue?) -> Result<JSONValue, Mismatch> {
        let ts = types(of: schema)
        guard !ts.isEmpty else { return .success(untyped(Array(text.utf8)).value) }
        let trimmed = trimSpace(text)
        var order = ts
        if (trimmed == "null" || trimmed == "None"), let i = order.firstIndex(of: "null") {
            order.remove(at: i)
            order.insert("null", at: 0)
        }
        for t in order {
            if let v = convert(text, trimmed: trimmed, to: t) { return .success(v) }
        }
        return .failure(Mismatch(expected: ts.count == 1 ? ts[0] : "one of " + ts.joined(separator: ", ")))
    }

    /// The no-schema rule: JSON scalars, objects and arrays are decoded; the rest is a string.
    /// Read straight into canonical text (no tree: a value of many small items costs about its
    /// own size).
    static func untyped(_ text: [UInt8]) -> CanonicalJSON {
        var w = CanonicalWriter()
        untyped(ByteWindow(holding: text), 0..<text.count, into: &w)
        return w.take()
    }

    /// The no-schema rule for the bytes `range` of `w`, the value written into `writer` (after
    /// its key): read in place, no copy of the value is made on the way.
    static func untyped(_ w: ByteWindow, _ range: Range<Int>, into writer: inout CanonicalWriter) {
        var s = range.lowerBound
        while s < range.upperBound && JSONReader.isSpace(w[s]) { s += 1 }
        if s < range.upperBound {
            switch w[s] {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                // JSON allows the white space the trimmed text lacks: the whole text reads the same.
                let mark = writer.checkpoint()
                let start = writer.count
                var reader = JSONTextReader(into: writer, maxDepth: 512)
                writer = CanonicalWriter()
                let ok = (try? JSONValue.read(&reader, w, range, maxDepth: 512)) != nil
                writer = reader.takeSink()
                if ok && writer.text(from: start).first != UInt8(ascii: "\"") { return }
                writer.restore(mark)
            default: break
            }
        }
        writer.string(utf8: w.slice(range))
    }

    private static func convert(_ text: String, trimmed: String, to type: String) -> JSONValue? {
        switch type {
        case "string":
            return .string(text)
        case "integer":
            var b = Array(trimmed.utf8)
            // Leading zeros (`007`), which JSON forbids and models write: the integer they spell.
            let sign = b.first == UInt8(ascii: "-") ? 1 : 0
            while b.count > sign + 1 && b[sign] == UInt8(ascii: "0") && b[sign + 1] >= 0x30 && b[sign + 1] <= 0x39 {
                b.remove(at: sign)
            }
            let trimmed = String(decoding: b, as: UTF8.self)
            guard JSONReader.isValidNumber(b), !b.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
            else {
                // `2.0` is an integer too.
                if JSONReader.isValidNumber(b), let d = Double(trimmed), abs(d) < 9e15, d == Double(Int64(d)) {
                    return .number(String(Int64(d)))
                }
                return nil
            }
            return .number(trimmed)
        case "number":
            return JSONReader.isValidNumber(Array(trimmed.utf8)) ? .number(trimmed) : nil
        case "boolean":
            switch trimmed {
            case "true", "True": return .bool(true)
            case "false", "False": return .bool(false)
            default: return nil
            }
        case "null":
            return trimmed == "null" || trimmed == "None" ? .null : nil
        case "object":
            if let v = try? JSONValue.parse(Array(trimmed.utf8)), v.isObject { return v }
            // Python's spelling (`{'key': 'value'}`), as for `True`/`False`/`None`.
            if trimmed.hasPrefix("{"), let v = PythonCallReader.literal(trimmed), v.isObject { return v }
            return nil
        case "array":
            if let v = try? JSONValue.parse(Array(trimmed.utf8)), case .array = v { return v }
            if trimmed.hasPrefix("["), let v = PythonCallReader.literal(trimmed), case .array = v { return v }
            return nil
        default:
            return nil
        }
    }

    /// `text` without leading and trailing ASCII white space.
    static func trimSpace(_ text: String) -> String {
        let b = Array(text.utf8)
        var s = 0
        var e = b.count
        while s < e && JSONReader.isSpace(b[s]) { s += 1 }
        while e > s && JSONReader.isSpace(b[e - 1]) { e -= 1 }
        return s == 0 && e == b.count ? text : String(decoding: b[s..<e], as: UTF8.self)
    }

    /// The `invalid_arguments` detail line for a mismatch: `/key: expected integer, found "abc"`.
    static func detail(pointer: String, _ m: Mismatch, found text: String) -> String {
        "\(pointer): expected \(m.expected), found \(JSONValue.string(text).jsonText)"
    }

    /// A JSON Pointer for a top-level argument key (`~` and `/` escaped).
    static func pointer(_ key: String) -> String { "/" + SchemaCompiler.escape(key) }
}
