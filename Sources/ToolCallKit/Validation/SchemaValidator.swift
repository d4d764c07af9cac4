// ToolCallKit — checking a call's arguments against its tool's JSON schema.

/// Checks a JSON value against the JSON Schema subset that tool definitions use.
///
/// A call that has the right shape is not yet a correct call: a model may write an enum value
/// the tool does not know, a number out of range or a string the tool cannot parse, and
/// constrained generation does not reliably prevent it. A validator compiled once per tool
/// lets a decoder (``ToolCallDecoder/Options/validate``) or a server that parsed the call
/// elsewhere stop such a call, with a message precise enough to send back to the model.
///
/// Supported keywords: `type` (a name or a list; `float` is read as `number`), `properties`,
/// `required`, `additionalProperties` (boolean or schema), `items` (a schema, or a list read as
/// `prefixItems` with `additionalItems` for the rest), `prefixItems`, `enum`, `const`,
/// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or the draft-04
/// booleans), `multipleOf`, `minLength`, `maxLength` (counted in Unicode scalars), `pattern`
/// (PCRE2 in UTF mode, searched anywhere in the string as JSON Schema's ECMA-262 patterns are,
/// `$` only at the very end as in ECMA-262, with a match limit), `minItems`, `maxItems`, `uniqueItems`, `anyOf`, `oneOf`, `allOf`,
/// `not`, `nullable` (OpenAPI: `null` is also accepted), and local `$ref` (`#/$defs/…`,
/// `#/definitions/…`, or any JSON Pointer into the same schema). Annotations (`description`,
/// `title`, `default`, `examples`, `format`, `$schema`, `x-…`, …) are ignored by design. Any
/// other keyword is listed once in ``warnings`` when the schema is compiled, and not checked.
///
/// Numbers are compared exactly from their JSON text (integers beyond `Double` precision
/// included); values compare as JSON Schema says (`1` equals `1.0`, key order does not
/// matter). A value of the wrong `type` gets one violation and its other keywords are not
/// checked (they would only repeat the same fault).
///
/// It does not fetch remote `$ref`s, does not check `format`, and does not coerce types
/// (``SchemaTyping`` types text-valued arguments before they get here).
///
/// A validator is a `Sendable` value: the compiled patterns are shared read-only, and every
/// ``validate(_:)`` call makes its own PCRE2 match data, so one validator may serve many
/// decoders and threads at once.
public struct SchemaValidator: Sendable {
    /// One way a value breaks its schema.
    ///
    /// Its ``description`` is the `invalid_arguments` detail line (docs/events.md):
    /// `<JSON Pointer>: expected <what>, found <value>`. The pointer of the value itself (the
    /// arguments object) is the empty string, as RFC 6901 spells the root.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        /// Where the offending value is (RFC 6901; `""` is the root, `/a/0` the first item of `a`).
        public var pointer: String
        /// What the schema expects there (`one of ["celsius", "fahrenheit"]`, `at most 9`).
        public var expected: String
        /// The value found, as compact JSON, cut at 120 bytes with `…`; `nothing` for a missing
        /// required property.
        public var found: String

        /// Creates a violation (for tests and for servers that add their own checks).
        public init(pointer: String, expected: String, found: String) {
            self.pointer = pointer
            self.expected = expected
            self.found = found
        }

        /// The detail line: `<pointer>: expected <what>, found <value>`.
        public var description: String { "\(pointer): expected \(expected), found \(found)" }
    }

    /// Why a schema cannot be compiled.
    public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Where in the schema, as a URI fragment (`#/properties/origin/pattern`; `#` is the root).
        public var location: String
        /// What is wrong.
        public var reason: String

        /// Creates a schema error.
        public init(location: String, reason: String) {
            self.location = location
            self.reason = reason
        }

        /// `<location>: <reason>`.
        public var description: String { "\(location): \(reason)" }
    }

    /// The schema this validator was compiled from.
    public let schema: JSONValue
    /// Keywords that are present but not checked, one line each (`#/properties/a: keyword
    /// "minProperties" is not checked`), in the order they appear.
    public let warnings: [String]

    /// Compiled nodes, boxed so that reading one during validation copies no arrays.
    let nodes: [CompiledNode]
    let patterns: [PCRE2Regex]
    let root: Int

    /// The longest rendering of a found value in a violation, in bytes.
    static let maxFoundBytes = 120

    /// Compiles a schema: resolves `$ref`s, compiles each distinct `pattern` once, and lists
    /// the keywords it will not check.
    ///
    /// - Parameters:
    ///   - schema: the JSON schema (an object or a boolean).
    ///   - matchLimit: the most backtracking steps one `pattern` match may take; a match that
    ///     hits it is a violation, never a hang.
    ///   - depthLimit: the deepest backtracking one `pattern` match may reach.
    /// - Throws: ``SchemaError`` for a schema that cannot be applied: a `pattern` PCRE2 cannot
    ///   compile, a `$ref` that points nowhere or outside the schema, a `$ref` cycle that never
    ///   reaches a value, a keyword whose value has the wrong JSON type, an unknown `type`
    ///   name, or `required` naming an undeclared property when `additionalProperties` is false.
    public init(schema: JSONValue, matchLimit: UInt32 = 100_000, depthLimit: UInt32 = 1_000) throws(SchemaError) {
        var c = SchemaCompiler(root: schema, matchLimit: matchLimit, depthLimit: depthLimit)
        let root = try c.compile(schema, at: "#")
        try c.checkCycles()
        self.schema = schema
        self.nodes = c.nodes.map(CompiledNode.init)
        self.patterns = c.patterns
        self.warnings = c.warnings
        self.root = root
    }

    /// Checks a value.
    ///
    /// - Parameter value: the value (for a tool call, its arguments object).
    /// - Returns: every violation, one per fault, in a stable order: a value's own keywords
    ///   (`$ref`, `type`, `enum`, `const`, bounds, length, `pattern`, item counts, `uniqueItems`),
    ///   then its items or members in the order written, then missing required properties in
    ///   the order `required` lists them, then `anyOf`, `oneOf`, `allOf` and `not`. Empty when
    ///   the value is valid.
    public func validate(_ value: JSONValue) -> [Violation] {
        var run = ValidationRun()
        check(root, value, &run)
        return run.out.map(\.violation)
    }

    /// Whether `value` is valid (``validate(_:)`` is empty).
    public func isValid(_ value: JSONValue) -> Bool { validate(value).isEmpty }
}

// MARK: - Compiled form

extension SchemaValidator {
    /// JSON types as bits.
    struct TypeMask: OptionSet, Sendable {
        let rawValue: UInt8
        static let null = TypeMask(rawValue: 1)
        static let boolean = TypeMask(rawValue: 2)
        static let object = TypeMask(rawValue: 4)
        static let array = TypeMask(rawValue: 8)
        static let number = TypeMask(rawValue: 16)
        static let integer = TypeMask(rawValue: 32)
        static let string = TypeMask(rawValue: 64)

        static func named(_ name: String) -> TypeMask? {
            switch name {
            case "null": return .null
            case "boolean": return .boolean
            case "object": return .object
            case "array": return .array
            case "number", "float": return .number
            case "integer": return .integer
            case "string": return .string
            default: return nil
            }
        }

        func admits(_ v: JSONValue) -> Bool {
            switch v {
            case .null: return contains(.null)
            case .bool: return contains(.boolean)
            case .object: return contains(.object)
            case .array: return contains(.array)
            case .string: return contains(.string)
            case .number(let t):
                if contains(.number) { return true }
                return contains(.integer) && (Int64(t) != nil || ExactNumber(t)?.isInteger ?? false)
            }
        }
    }

    /// A numeric bound.
    struct Bound: Sendable {
        var value: ExactNumber
        var exclusive: Bool
        /// The bound as an `Int64`, when it is one (the common case, compared without parsing).
        var int: Int64?

        init(value: ExactNumber, exclusive: Bool) {
            self.value = value
            self.exclusive = exclusive
            self.int = Int64(value.text)
        }

        /// -1, 0 or 1 as `x` (an `Int64` when `xi` is set) is below, at or above the bound.
        func compare(_ xi: Int64?, _ text: String, _ exact: inout ExactNumber?) -> Int {
            if let xi, let int { return xi < int ? -1 : (xi == int ? 0 : 1) }
            if exact == nil { exact = ExactNumber(text) }
            guard let x = exact else { return 0 }
            return ExactNumber.compare(x, value)
        }
    }

    /// An immutable, shared ``Node``.
    final class CompiledNode: Sendable {
        let n: Node
        init(_ n: Node) { self.n = n }
    }

    /// One compiled schema; children are indexes into ``nodes``.
    struct Node: Sendable {
        /// The schema's location, for messages (`#/properties/a`).
        var location: String
        /// The `false` schema: nothing is valid.
        var isFalse = false
        var types: TypeMask?
        /// The `type` names as written, `null` added for `nullable`, for messages.
        var typeNames: [String] = []
        var nullable = false
        var enumValues: [JSONValue]?
        var enumKeys: Set<String> = []
        /// A short enum of strings only: compared directly, without canonical keys.
        var enumStrings: [String]?
        var constValue: JSONValue?
        var lower: [Bound] = []
        var upper: [Bound] = []
        var multipleOf: ExactNumber?
        var minLength: Int?
        var maxLength: Int?
        var pattern: Int?
        var minItems: Int?
        var maxItems: Int?
        var uniqueItems = false
        var prefixItems: [Int] = []
        var items: Int?
        /// Property name → its position in ``propertyOrder``.
        var properties: [String: Int] = [:]
        var propertyOrder: [String] = []
        /// The schema of each property, by position.
        var propertyNodes: [Int] = []
        var required: [String] = []
        /// For each property position, its position in ``required`` (or -1).
        var requiredSlot: [Int] = []
        /// Whether `required` names a property that `properties` does not declare.
        var requiredUndeclared = false
        /// `additionalProperties`: nil allows anything; a node index checks it.
        var additional: Int?
        var additionalForbidden = false
        var anyOf: [Int] = []
        var oneOf: [Int] = []
        var allOf: [Int] = []
        var not: Int?
        var ref: Int?

        init(location: String) { self.location = location }

        /// Children checked against the same value (no descent): `$ref` and the combinators.
        var inPlace: [Int] {
            var out = anyOf + oneOf + allOf
            if let not { out.append(not) }
            if let ref { out.append(ref) }
            return out
        }
    }
}

// MARK: - Validation

/// One step of a JSON Pointer.
private enum PathItem {
    case key(String)
    case index(Int)
}

/// The state of one ``SchemaValidator/validate(_:)`` call.
private struct ValidationRun {
    /// A violation and whether it is a bare type mismatch (for merging `anyOf` messages).
    struct Entry {
        var violation: SchemaValidator.Violation
        var isType = false
    }

    var path: [PathItem] = []
    var out: [Entry] = []

    var pointer: String {
        var s = ""
        for p in path {
            s += "/"
            switch p {
            case .index(let i): s += String(i)
            case .key(let k):
                for c in k.unicodeScalars {
                    switch c {
                    case "~": s += "~0"
                    case "/": s += "~1"
                    default: s.unicodeScalars.append(c)
                    }
                }
            }
        }
        return s
    }

    mutating func add(_ expected: String, _ value: JSONValue?, isType: Bool = false) {
        let found = value.map { SchemaValidator.render($0, limit: SchemaValidator.maxFoundBytes) } ?? "nothing"
        out.append(Entry(violation: .init(pointer: pointer, expected: expected, found: found), isType: isType))
    }
}

extension SchemaValidator {
    private func check(_ n: Int, _ v: JSONValue, _ run: inout ValidationRun) {
        let node = nodes[n]
        if node.n.isFalse {
            run.add("no value (the schema is false)", v)
            return
        }
        if node.n.nullable, case .null = v { return }
        if let ref = node.n.ref { check(ref, v, &run) }
        if let types = node.n.types, !types.admits(v) {
            let names = node.n.typeNames
            run.add(names.count == 1 ? names[0] : "one of " + names.joined(separator: ", "), v, isType: true)
            return
        }
        if let values = node.n.enumValues, !enumContains(node, v) {
            run.add("one of [" + values.map { Self.render($0, limit: .max) }.joined(separator: ", ") + "]", v)
        }
        if let c = node.n.constValue, Self.canonical(c) != Self.canonical(v) {
            run.add(Self.render(c, limit: .max), v)
        }
        switch v {
        case .number(let t):
            checkNumber(node, t, v, &run)
        case .string(let s):
            checkString(node, s, v, &run)
        case .array(let items):
            checkArray(node, items, v, &run)
        case .object(let members):
            checkObject(node, members, &run)
        case .null, .bool:
            break
        }
        if !node.n.anyOf.isEmpty { checkAlternatives(node.n.anyOf, keyword: "anyOf", exactlyOne: false, v, &run) }
        if !node.n.oneOf.isEmpty { checkAlternatives(node.n.oneOf, keyword: "oneOf", exactlyOne: true, v, &run) }
        for k in node.n.allOf { check(k, v, &run) }
        if let not = node.n.not {
            var sub = ValidationRun(path: run.path)
            check(not, v, &sub)
            if sub.out.isEmpty {
                run.add("a value not valid against \(Self.render(schemaAt(not), limit: 80)) (\"not\")", v)
            }
        }
    }

    private func checkNumber(_ node: CompiledNode, _ t: String, _ v: JSONValue, _ run: inout ValidationRun) {
        guard !node.n.lower.isEmpty || !node.n.upper.isEmpty || node.n.multipleOf != nil else { return }
        // Integers that fit 64 bits are compared as such; anything else exactly from its digits.
        let xi = Int64(t)
        var exact: ExactNumber? = nil
        for b in node.n.lower {
            let c = b.compare(xi, t, &exact)
            if c < 0 || (b.exclusive && c == 0) {
                run.add((b.exclusive ? "more than " : "at least ") + b.value.text, v)
            }
        }
        for b in node.n.upper {
            let c = b.compare(xi, t, &exact)
            if c > 0 || (b.exclusive && c == 0) {
                run.add((b.exclusive ? "less than " : "at most ") + b.value.text, v)
            }
        }
        if let m = node.n.multipleOf {
            let ok: Bool
            if let xi, let mi = Int64(m.text) {
                ok = xi % mi == 0
            } else {
                if exact == nil { exact = ExactNumber(t) }
                ok = exact?.isMultiple(of: m) ?? true
            }
            if !ok { run.add("a multiple of \(m.text)", v) }
        }
    }

    private func checkString(_ node: CompiledNode, _ s: String, _ v: JSONValue, _ run: inout ValidationRun) {
        let lo = node.n.minLength ?? 0
        let hi = node.n.maxLength ?? .max
        let bytes = s.utf8.count
        // A string has between ⌈bytes / 4⌉ and `bytes` scalars: count them only when a bound
        // falls inside that range.
        if lo > (bytes + 3) / 4 || hi < bytes {
            let n = s.unicodeScalars.count
            if n < lo { run.add("at least \(Self.plural(lo, "character"))", v) }
            if n > hi { run.add("at most \(Self.plural(hi, "character"))", v) }
        }
        if let p = node.n.pattern {
            let regex = patterns[p]
            // Match data belongs to this call alone.
            let matcher = regex.makeMatcher()
            do {
                if case .noMatch = try matcher.match(Array(s.utf8)) {
                    run.add("a string matching /\(regex.pattern)/", v)
                }
            } catch {
                let why = error.isLimit ? "the match gave up at its limit" : "PCRE2: \(error.message)"
                run.add("a string matching /\(regex.pattern)/ (\(why))", v)
            }
        }
    }

    private func checkArray(_ node: CompiledNode, _ items: [JSONValue], _ v: JSONValue, _ run: inout ValidationRun) {
        if let m = node.n.minItems, items.count < m { run.add("at least \(Self.plural(m, "item"))", v) }
        if let m = node.n.maxItems, items.count > m { run.add("at most \(Self.plural(m, "item"))", v) }
        if node.n.uniqueItems && items.count > 1 {
            var seen: [String: Int] = [:]
            for (i, item) in items.enumerated() {
                let key = Self.canonical(item)
                if let first = seen[key] {
                    run.path.append(.index(i))
                    run.add("a unique item (item \(first) is the same)", item)
                    run.path.removeLast()
                } else {
                    seen[key] = i
                }
            }
        }
        guard !node.n.prefixItems.isEmpty || node.n.items != nil else { return }
        for (i, item) in items.enumerated() {
            let schema = i < node.n.prefixItems.count ? node.n.prefixItems[i] : node.n.items
            guard let schema else { continue }
            run.path.append(.index(i))
            check(schema, item, &run)
            run.path.removeLast()
        }
    }

    private func enumContains(_ node: CompiledNode, _ v: JSONValue) -> Bool {
        if let strings = node.n.enumStrings {
            guard case .string(let s) = v else { return false }
            return strings.contains(s)
        }
        return node.n.enumKeys.contains(Self.canonical(v))
    }

    private func checkObject(_ node: CompiledNode, _ members: [(key: String, value: JSONValue)], _ run: inout ValidationRun) {
        let open = node.n.additional == nil && !node.n.additionalForbidden
        let requiredCount = node.n.required.count
        // Required properties seen, by position in `required` (a bit each while they fit).
        var seenBits: UInt64 = 0
        var seen: [Bool] = requiredCount > 64 ? Array(repeating: false, count: requiredCount) : []
        if !node.n.properties.isEmpty || !open {
            let order = node.n.propertyOrder
            for (i, (key, value)) in members.enumerated() {
                // Models mostly write keys in schema order: try the same position before hashing.
                let position = i < order.count && order[i] == key ? i : node.n.properties[key]
                if let position {
                    let slot = node.n.requiredSlot[position]
                    if slot >= 0 {
                        if slot < 64 { seenBits |= 1 << UInt64(slot) } else { seen[slot] = true }
                    }
                    run.path.append(.key(key))
                    check(node.n.propertyNodes[position], value, &run)
                    run.path.removeLast()
                } else if let a = node.n.additional {
                    run.path.append(.key(key))
                    check(a, value, &run)
                    run.path.removeLast()
                } else if node.n.additionalForbidden {
                    run.path.append(.key(key))
                    let declared = order.isEmpty ? "none" : order.joined(separator: ", ")
                    run.add("no such property (declared: \(declared))", value)
                    run.path.removeLast()
                }
            }
        }
        guard requiredCount > 0 else { return }
        for (slot, name) in node.n.required.enumerated() {
            var has = slot < 64 ? seenBits & (1 << UInt64(slot)) != 0 : seen[slot]
            if !has && node.n.requiredUndeclared && node.n.properties[name] == nil {
                // Not a declared property, so not marked above: look for it.
                has = members.contains { $0.key == name }
            }
            if !has {
                run.path.append(.key(name))
                run.add("a value (the property is required)", nil)
                run.path.removeLast()
            }
        }
    }

    private func checkAlternatives(
        _ branches: [Int], keyword: String, exactlyOne: Bool, _ v: JSONValue, _ run: inout ValidationRun
    ) {
        var failures: [[ValidationRun.Entry]] = []
        var valid: [Int] = []
        for (i, b) in branches.enumerated() {
            var sub = ValidationRun(path: run.path)
            check(b, v, &sub)
            if sub.out.isEmpty {
                valid.append(i)
                if !exactlyOne { return }
            } else {
                failures.append(sub.out)
            }
        }
        if valid.count == 1 { return }
        if valid.count > 1 {
            let list = valid.map { "\(keyword)[\($0)]" }.joined(separator: ", ")
            run.add("exactly one \(keyword) alternative to match (\(list) all match)", v)
            return
        }
        // Every branch failed. Bare type mismatches merge into one list of types.
        let here = run.pointer
        if failures.allSatisfy({ $0.count == 1 && $0[0].isType && $0[0].violation.pointer == here }) {
            var names: [String] = []
            for f in failures {
                var e = f[0].violation.expected
                if e.hasPrefix("one of ") { e.removeFirst(7) }
                for n in e.split(separator: ",").map({ $0.trimmingSpaces }) where !names.contains(n) { names.append(n) }
            }
            run.add(names.count == 1 ? names[0] : "one of " + names.joined(separator: ", "), v, isType: true)
            return
        }
        // Each branch's own faults; those about this very value leave out pointer and value.
        let reasons = failures.enumerated().map { i, f in
            "\(keyword)[\(i)]: "
                + f.map { $0.violation.pointer == here ? "expected \($0.violation.expected)" : $0.violation.description }
                .joined(separator: "; ")
        }
        run.add("a value valid against one of the \(keyword) alternatives (\(reasons.joined(separator: " | ")))", v)
    }

    /// The schema JSON a node was compiled from (for `not` messages).
    private func schemaAt(_ n: Int) -> JSONValue {
        SchemaCompiler.resolve(nodes[n].n.location, in: schema) ?? .object([])
    }

    static func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

// MARK: - Rendering and comparing values

extension SchemaValidator {
    /// JSON text with `", "` and `": "` separators, cut at `limit` bytes (on a character
    /// boundary) with `…`.
    static func render(_ v: JSONValue, limit: Int) -> String {
        var out: [UInt8] = []
        write(v, to: &out, limit: limit)
        if out.count > limit {
            var end = limit
            while end > 0 && out[end] & 0xC0 == 0x80 { end -= 1 }
            return String(decoding: out[0..<end], as: UTF8.self) + "…"
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ v: JSONValue, to out: inout [UInt8], limit: Int) {
        if out.count > limit { return }
        switch v {
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, x) in a.enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                write(x, to: &out, limit: limit)
                if out.count > limit { return }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                JSONValue.writeString(m.key, to: &out)
                out.append(contentsOf: ": ".utf8)
                write(m.value, to: &out, limit: limit)
                if out.count > limit { return }
            }
            out.append(UInt8(ascii: "}"))
        case .string(let s) where s.utf8.count > limit:
            // Escape only the part that can show.
            var cut = s.unicodeScalars.startIndex
            var bytes = 0
            while cut < s.unicodeScalars.endIndex && bytes <= limit {
                bytes += UTF8.width(s.unicodeScalars[cut])
                cut = s.unicodeScalars.index(after: cut)
            }
            out.append(UInt8(ascii: "\""))
            JSONValue.writeEscaped(String(s.unicodeScalars[..<cut]).utf8.span, to: &out)
        default:
            v.write(to: &out)
        }
    }

    /// A key equal for values JSON Schema calls equal: numbers by value, objects by members
    /// whatever their order.
    static func canonical(_ v: JSONValue) -> String {
        var out = ""
        canonical(v, into: &out)
        return out
    }

    private static func canonical(_ v: JSONValue, into out: inout String) {
        switch v {
        case .null: out += "n"
        case .bool(let b): out += b ? "t" : "f"
        case .number(let t): out += "#" + (ExactNumber(t)?.canonical ?? t) + ";"
        case .string(let s): out += "s" + String(s.utf8.count) + ":" + s
        case .array(let a):
            out += "[" + String(a.count) + ":"
            for x in a { canonical(x, into: &out) }
            out += "]"
        case .object(let o):
            out += "{" + String(o.count) + ":"
            for m in o.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                out += String(m.key.utf8.count) + ":" + m.key
                canonical(m.value, into: &out)
            }
            out += "}"
        }
    }
}
