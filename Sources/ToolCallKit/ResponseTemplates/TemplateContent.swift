// ToolCallKit — response templates: content parsers, transforms and schema coercion.

/// Why a region's bytes could not become a value (the reason of its `rejected` event).
struct TemplateValueError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A field's content parser with its arguments, checked when the template loads.
///
/// `text` (stripped unless `strip: false`), `int`, `float`, `bool` (true for `true`/`1`, any
/// case), `json` (with `unquoted_keys`, `string_delims` and `allow_non_json`), `xml-inline`
/// (`tag_pattern` with groups `key` and `value`, `value_parser`, `merge_duplicates`) and
/// `kv-lines` (`line_sep`, `kv_sep`, `value_parser`).
indirect enum TemplateContentParser: Sendable {
    case text(strip: Bool)
    case int(strip: Bool)
    case float(strip: Bool)
    case bool(strip: Bool)
    case json(unquotedKeys: Bool, delims: [(open: [UInt8], close: [UInt8])], allowNonJSON: Bool, strip: Bool)
    case xmlInline(tag: LinearRegex, key: Int, value: Int?, valueParser: TemplateContentParser?, merge: Bool)
    case kvLines(lineSep: String, kvSep: String, valueParser: TemplateContentParser?, strip: Bool)

    static let names = ["bool", "float", "int", "json", "kv-lines", "text", "xml-inline"]

    /// xml-inline's budget: matcher steps per byte of the region and instruction of the pattern.
    static let stepsPerByte = 16

    /// Whether the parser's value is the region's text itself (it can stream).
    var isText: Bool {
        if case .text = self { return true }
        return false
    }

    init(name: String, args: JSONValue, scope: String) throws(ResponseTemplateError) {
        func bool(_ key: String, _ d: Bool) throws(ResponseTemplateError) -> Bool {
            switch args[key] {
            case nil: return d
            case .bool(let b)?: return b
            default: throw ResponseTemplateError("\(scope): content_args.\(key) must be true or false")
            }
        }
        func string(_ key: String, _ d: String) throws(ResponseTemplateError) -> String {
            switch args[key] {
            case nil: return d
            case .string(let s)? where !s.isEmpty: return s
            default: throw ResponseTemplateError("\(scope): content_args.\(key) must be a non-empty string")
            }
        }
        func valueParser() throws(ResponseTemplateError) -> TemplateContentParser? {
            guard let vp = args["value_parser"] else { return nil }
            guard vp.isObject else { throw ResponseTemplateError("\(scope): content_args.value_parser must be an object") }
            var inner = "text"
            if let n = vp["name"] {
                guard case .string(let s) = n else { throw ResponseTemplateError("\(scope): value_parser.name must be a string") }
                inner = s
            }
            return try TemplateContentParser(name: inner, args: vp["args"] ?? .object([]), scope: scope + " value_parser")
        }
        let strip = try bool("strip", true)
        switch name {
        case "text": self = .text(strip: strip)
        case "int": self = .int(strip: strip)
        case "float": self = .float(strip: strip)
        case "bool": self = .bool(strip: strip)
        case "json":
            var delims: [(open: [UInt8], close: [UInt8])] = []
            if let d = args["string_delims"] {
                guard let pairs = d.arrayValue else { throw ResponseTemplateError("\(scope): content_args.string_delims must be a list of [open, close] pairs") }
                for p in pairs {
                    guard let two = p.arrayValue, two.count == 2, case .string(let o) = two[0], case .string(let c) = two[1],
                        !o.isEmpty, !c.isEmpty
                    else { throw ResponseTemplateError("\(scope): content_args.string_delims must be a list of [open, close] pairs of non-empty strings") }
                    delims.append((Array(o.utf8), Array(c.utf8)))
                }
            }
            self = .json(
                unquotedKeys: try bool("unquoted_keys", false), delims: delims, allowNonJSON: try bool("allow_non_json", false),
                strip: strip)
        case "xml-inline":
            guard case .string(let source)? = args["tag_pattern"] else {
                throw ResponseTemplateError("\(scope): xml-inline needs content_args.tag_pattern (a regular expression with groups 'key' and 'value')")
            }
            let translated = ResponseTemplate.translate(source)
            // PCRE2 checks the syntax (its messages name the offset); the tag pattern then runs
            // in the linear-time matcher, which must read it the same way.
            let re = try ResponseTemplate.compile(translated, scope: scope, key: "tag_pattern")
            let groups = re.namedGroups
            guard let key = groups["key"] else { throw ResponseTemplateError("\(scope): tag_pattern must have a named group 'key'") }
            let linear: LinearRegex
            do {
                linear = try LinearRegex(translated)
            } catch {
                throw ResponseTemplateError(
                    "\(scope): tag_pattern uses \(error.construct), which xml-inline does not support (a tag pattern runs over the whole region in linear time: no lookarounds, back references, atomic groups, possessive quantifiers, recursion, conditionals, verbs, Unicode properties, POSIX classes, (?i) or (?x))"
                )
            }
            guard linear.names == groups, linear.groupCount == re.captureCount + 1 else {
                throw ResponseTemplateError("\(scope): tag_pattern: its groups could not be numbered as PCRE2 numbers them")
            }
            self = .xmlInline(tag: linear, key: key, value: groups["value"], valueParser: try valueParser(), merge: try bool("merge_duplicates", false))
        case "kv-lines":
            self = .kvLines(lineSep: try string("line_sep", "\n"), kvSep: try string("kv_sep", ":"), valueParser: try valueParser(), strip: strip)
        default:
            throw ResponseTemplateError("\(scope): unknown content parser '\(name)' (known: \(Self.names.joined(separator: ", ")))")
        }
    }

    /// Parses a region's text.
    func parse(_ text: String) throws(TemplateValueError) -> JSONValue {
        switch self {
        case .text(let strip): return .string(strip ? PythonText.strip(text) : text)
        case .int(let strip):
            let s = strip ? PythonText.strip(text) : text
            guard let n = PythonText.int(s) else { throw TemplateValueError("int: \(JSONValue.string(s).jsonText) is not an integer") }
            return .number(n)
        case .float(let strip):
            let s = strip ? PythonText.strip(text) : text
            guard let d = PythonText.float(s), d.isFinite else { throw TemplateValueError("float: \(JSONValue.string(s).jsonText) is not a number") }
            return .number(PythonText.numberText(d))
        case .bool(let strip):
            let s = (strip ? PythonText.strip(text) : text).lowercased()
            return .bool(s == "true" || s == "1")
        case .json(let unquotedKeys, let delims, let allowNonJSON, let strip):
            return try Self.json(text, unquotedKeys: unquotedKeys, delims: delims, allowNonJSON: allowNonJSON, strip: strip)
        case .xmlInline(let tag, let key, let valueGroup, let valueParser, let merge):
            var out: [(key: String, value: JSONValue)] = []
            let bytes = Array(text.utf8)
            var from = 0
            // Linear: each byte costs at most this many of the matcher's steps per instruction
            // (a pattern whose matches each look far past their end could need more).
            var budget = Self.stepsPerByte * (bytes.count + 1) * tag.program.count
            while from <= bytes.count {
                let found: [Range<Int>?]?
                do {
                    found = try tag.firstMatch(in: bytes, from: from, budget: &budget)
                } catch {
                    throw TemplateValueError("xml-inline: tag_pattern took more than \(Self.stepsPerByte) steps per byte and instruction over this region")
                }
                guard let groups = found, let whole = groups[0] else { break }
                from = whole.isEmpty ? whole.upperBound + max(1, LinearRegex.scalar(at: whole.upperBound, in: bytes).1) : whole.upperBound
                guard let kr = groups[key] else { throw TemplateValueError("xml-inline: the 'key' group did not take part in a match") }
                let k = String(decoding: bytes[kr], as: UTF8.self)
                let raw = valueGroup.flatMap { groups[$0] }.map { String(decoding: bytes[$0], as: UTF8.self) } ?? ""
                let value = try valueParser?.parse(raw) ?? .string(raw)
                if let i = out.firstIndex(where: { $0.key == k }) {
                    if merge {
                        if case .array(var items) = out[i].value {
                            items.append(value)
                            out[i].value = .array(items)
                        } else {
                            out[i].value = .array([out[i].value, value])
                        }
                    } else {
                        out[i].value = value
                    }
                } else {
                    out.append((k, value))
                }
            }
            return .object(out)
        case .kvLines(let lineSep, let kvSep, let valueParser, let strip):
            var out: [(key: String, value: JSONValue)] = []
            for piece in text.split(separator: lineSep, omittingEmptySubsequences: false) {
                let line = strip ? PythonText.strip(String(piece)) : String(piece)
                guard !line.isEmpty, let r = line.firstRange(of: kvSep) else { continue }
                var k = String(line[..<r.lowerBound])
                var v = String(line[r.upperBound...])
                if strip {
                    k = PythonText.strip(k)
                    v = PythonText.strip(v)
                }
                let value = try valueParser?.parse(v) ?? .string(v)
                if let i = out.firstIndex(where: { $0.key == k }) { out[i].value = value } else { out.append((k, value)) }
            }
            return .object(out)
        }
    }

    /// The JSON parser with its dialect: custom string delimiters are read first (their text
    /// becomes a JSON string), then bare keys after `{` or `,` are quoted, then the result is
    /// read as JSON.
    static func json(
        _ text: String, unquotedKeys: Bool, delims: [(open: [UInt8], close: [UInt8])], allowNonJSON: Bool, strip: Bool
    ) throws(TemplateValueError) -> JSONValue {
        if !delims.isEmpty && (text.contains("\u{01}") || text.contains("\u{02}")) {
            throw TemplateValueError("json: the text holds the bytes 0x01 or 0x02, which the string delimiters need")
        }
        var working = Array(text.utf8)
        var captured: [[UInt8]] = []
        for (open, close) in delims {
            working = replaceDelimited(open, close, in: working) { inner in
                captured.append(inner)
                return [0x01] + Array(String(captured.count - 1).utf8) + [0x02]
            }
        }
        if unquotedKeys {
            working = try replaceAll(Self.bareKey, in: working) { bytes, groups in
                [0x22] + Array(bytes[groups[1]!]) + [0x22, 0x3A]
            }
        }
        if !captured.isEmpty {
            // Each placeholder (0x01 index 0x02) becomes the JSON string of its captured text.
            var out: [UInt8] = []
            var i = 0
            while i < working.count {
                if working[i] == 0x01, let close = working[i...].firstIndex(of: 0x02),
                    let n = Int(String(decoding: working[(i + 1)..<close], as: UTF8.self)), n < captured.count
                {
                    JSONValue.writeString(String(decoding: captured[n], as: UTF8.self), to: &out)
                    i = close + 1
                } else {
                    out.append(working[i])
                    i += 1
                }
            }
            working = out
        }
        do {
            return try PythonJSON.parse(working)
        } catch {
            if allowNonJSON { return .string(strip ? PythonText.strip(text) : text) }
            throw TemplateValueError("json: the region is not JSON (\(error.message))")
        }
    }

    /// Every `open … close` run of `bytes` (the first `close` after each `open`, left to right),
    /// replaced: what the pattern `open(.*?)close` finds, by two literal searches. When an
    /// `open` has no `close` after it, no later one has either: the search stops there, so it
    /// is linear however many unclosed openers the text holds.
    static func replaceDelimited(_ open: [UInt8], _ close: [UInt8], in bytes: [UInt8], _ replace: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var copied = 0
        var from = 0
        while let o = firstIndex(of: open, in: bytes, from: from), let c = firstIndex(of: close, in: bytes, from: o + open.count) {
            out += bytes[copied..<o]
            out += replace(Array(bytes[(o + open.count)..<c]))
            copied = c + close.count
            from = copied
        }
        out += bytes[copied...]
        return out
    }

    /// Where `needle` first occurs in `bytes` at or after `from`.
    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var i = from
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == first && bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// `(?<=[{,])(\w+):`, as the bare-key dialect finds keys.
    static let bareKey: PCRE2Regex = try! PCRE2Regex(
        "(?<=[{,])(\\w+):", options: [.dotAll, .utf, .ucp], matchLimit: ResponseTemplate.matchLimit,
        depthLimit: ResponseTemplate.depthLimit)

    /// Every non-overlapping match of `re` in `bytes`, left to right, replaced.
    static func replaceAll(_ re: PCRE2Regex, in bytes: [UInt8], _ replace: ([UInt8], [Range<Int>?]) -> [UInt8])
        throws(TemplateValueError) -> [UInt8]
    {
        let m = re.makeMatcher()
        var out: [UInt8] = []
        var from = 0
        var copied = 0
        while from <= bytes.count {
            let r: PCRE2Matcher.Result
            do { r = try m.match(bytes, from: from) } catch { throw TemplateValueError("json: a dialect pattern \(error.description)") }
            guard case .match(let groups) = r, let whole = groups[0] else { break }
            out += bytes[copied..<whole.lowerBound]
            out += replace(bytes, groups)
            copied = whole.upperBound
            from = whole.isEmpty ? whole.upperBound + 1 : whole.upperBound
        }
        out += bytes[copied...]
        return out
    }
}

/// Whole-string placeholders (`"{content}"`, `"{content.args}"`) in a transform template.
enum TemplateTransform {
    /// The dotted path of a string that is one whole placeholder.
    static func placeholder(_ s: String) -> String? {
        guard s.hasPrefix("{"), s.hasSuffix("}"), s.count >= 3 else { return nil }
        let inner = s.dropFirst().dropLast()
        let parts = inner.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isWord) }) else { return nil }
        return String(inner)
    }

    static func isWord(_ c: Character) -> Bool { c == "_" || c.isLetter || c.isNumber }

    /// A string of the template that holds a placeholder among other text, if any.
    static func mixedString(in t: JSONValue) -> String? {
        switch t {
        case .object(let members):
            for (_, v) in members { if let s = mixedString(in: v) { return s } }
            return nil
        case .array(let items):
            for v in items { if let s = mixedString(in: v) { return s } }
            return nil
        case .string(let s):
            guard placeholder(s) == nil else { return nil }
            // Any `{word(.word)*}` inside the string?
            var rest = s[...]
            while let open = rest.firstIndex(of: "{") {
                let after = rest[rest.index(after: open)...]
                if let close = after.firstIndex(of: "}"), placeholder("{" + after[..<close] + "}") != nil { return s }
                rest = after
            }
            return nil
        default:
            return nil
        }
    }

    /// Fills the template from `scope`.
    static func apply(_ t: JSONValue, _ scope: [(key: String, value: JSONValue)]) throws(TemplateValueError) -> JSONValue {
        switch t {
        case .object(let members):
            var out: [(key: String, value: JSONValue)] = []
            for (k, v) in members { out.append((k, try apply(v, scope))) }
            return .object(out)
        case .array(let items):
            var out: [JSONValue] = []
            for v in items { out.append(try apply(v, scope)) }
            return .array(out)
        case .string(let s):
            guard let path = placeholder(s) else { return t }
            let parts = path.split(separator: ".").map(String.init)
            guard var value = scope.last(where: { $0.key == parts[0] })?.value else {
                throw TemplateValueError(
                    "transform placeholder '{\(path)}' is not defined (defined: \(scope.map(\.key).sorted().joined(separator: ", ")))")
            }
            for key in parts.dropFirst() {
                guard case .object = value else {
                    throw TemplateValueError("transform placeholder '{\(path)}' cannot look up '\(key)' in \(ResponseTemplate.kind(value))")
                }
                guard let next = value[key] else { throw TemplateValueError("transform placeholder '{\(path)}' has no key '\(key)'") }
                value = next
            }
            return value
        default:
            return t
        }
    }
}

/// Text operations as Python defines them, where the template's results depend on them.
enum PythonText {
    /// `str.strip()`: white space (Unicode) removed at both ends.
    static func strip(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }

    static func isSpace(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0: return true
        default: return u.value > 0x7F && u.properties.isWhitespace
        }
    }

    /// `int(s)`: optional sign, digits (underscores between them), white space around;
    /// canonical number text.
    static func int(_ s: String) -> String? {
        var t = Substring(strip(s))
        var negative = false
        if let c = t.first, c == "+" || c == "-" {
            negative = c == "-"
            t = t.dropFirst()
        }
        guard let f = t.first, f.isASCII, f.isNumber, let l = t.last, l.isASCII, l.isNumber, !t.contains("__") else { return nil }
        var digits = ""
        for c in t {
            if c == "_" { continue }
            guard c.isASCII, c.isNumber else { return nil }
            digits.append(c)
        }
        while digits.count > 1 && digits.first == "0" { digits.removeFirst() }
        return (negative && digits != "0" ? "-" : "") + digits
    }

    /// `float(s)`: decimal or exponent notation, `inf`, `nan`; nil otherwise.
    static func float(_ s: String) -> Double? {
        let t = strip(s).replacingOccurrences(of: "_", with: "")
        guard !t.isEmpty, !t.contains("x"), !t.contains("X"), !t.contains("p"), !t.contains("P") else { return nil }
        return Double(t)
    }

    /// A finite double as JSON number text.
    static func numberText(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return "\(d)"
    }
}

extension String {
    fileprivate func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}

/// Python's `json.loads`, where it differs from strict JSON: `NaN`, `Infinity` and
/// `-Infinity` are read (as numbers that JSON cannot write, they fail here), duplicate keys
/// keep the last value.
enum PythonJSON {
    static func parse(_ bytes: [UInt8]) throws(JSONValue.ParseError) -> JSONValue {
        // A raw control character inside a string is an error, as in Python's strict mode.
        var inString = false
        var escaped = false
        for (i, b) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                } else if b < 0x20 {
                    throw JSONValue.ParseError(message: "a raw control character in a string", offset: i)
                }
            } else if b == 0x22 {
                inString = true
            }
        }
        return try JSONValue.parse(bytes, maxDepth: 512)
    }
}

/// Arguments typed by the calling tool's schema, as the template's schema coercion does: a
/// string argument whose property declares `integer`, `number`, `boolean`, `null`, `object` or
/// `array` (tried in the declared order, through `anyOf`/`oneOf` and `nullable`) becomes that
/// type when its text reads as one; otherwise it stays a string.
enum TemplateCoercion {
    static func types(_ schema: JSONValue?) -> [String] {
        guard let schema, schema.isObject else { return [] }
        var out: [String] = []
        switch schema["type"] {
        case .string(let t)?: out.append(t)
        case .array(let items)?: for case .string(let t) in items { out.append(t) }
        default: break
        }
        for union in ["anyOf", "oneOf"] {
            for choice in schema[union]?.arrayValue ?? [] { out += types(choice) }
        }
        if case .bool(true)? = schema["nullable"], !out.contains("null") { out.append("null") }
        return out
    }

    static func coerce(_ raw: String, _ types: [String]) -> JSONValue {
        for t in types {
            switch t {
            case "integer":
                if let n = PythonText.int(raw) { return .number(n) }
                if let d = PythonText.float(raw), d.isFinite, d == d.rounded(), abs(d) < 9.2e18 { return .number(String(Int64(d))) }
            case "number":
                if let d = PythonText.float(raw), d.isFinite {
                    if d == d.rounded(), !raw.contains("."), abs(d) < 9.2e18 { return .number(String(Int64(d))) }
                    return .number("\(d)")
                }
            case "boolean":
                let s = PythonText.strip(raw).lowercased()
                if s == "true" || s == "1" { return .bool(true) }
                if s == "false" || s == "0" { return .bool(false) }
            case "null":
                let s = PythonText.strip(raw)
                if s == "null" || s == "None" { return .null }
            case "object", "array":
                if let v = try? PythonJSON.parse(Array(raw.utf8)) {
                    if t == "object", case .object = v { return v }
                    if t == "array", case .array = v { return v }
                }
            default: break
            }
        }
        return .string(raw)
    }

    /// The arguments with string values typed by `properties`.
    static func arguments(_ args: [(key: String, value: JSONValue)], properties: JSONValue) -> [(key: String, value: JSONValue)] {
        args.map { (key, value) in
            let ts = types(properties[key])
            guard !ts.isEmpty else { return (key, value) }
            switch value {
            case .string(let s): return (key, coerce(s, ts))
            case .array(let items) where !ts.contains("array"):
                return (key, .array(items.map { if case .string(let s) = $0 { return coerce(s, ts) } else { return $0 } }))
            default: return (key, value)
            }
        }
    }
}
