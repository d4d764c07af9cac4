// ToolCallKit — a tool's JSON schema as grammar rules, in each value syntax a format writes:
// JSON, Python literals, Gemma values, and the raw text of tagged formats.

/// Compiles schemas into ``GrammarNode``s for one document.
///
/// What the schema constrains and the syntax cannot say (a `pattern` where no regular
/// expression is available, `uniqueItems`, `not`) is never dropped silently: each such keyword
/// adds a line to ``report``, and the grammar is then looser than the validator there.
struct ValueGrammar {
    /// How values are spelt.
    enum Syntax: Equatable, Sendable {
        /// JSON text.
        case json
        /// Python literals: `'...'` strings, `True`/`False`/`None`, `[...]`, `{'k': v}`.
        case python
        /// Gemma values: strings between delimiters (raw), bare keys, `{k:v}`, `[a,b]`, in a
        /// Gemma style (Gemma 4's sorts keys and writes null as `None`).
        case gemma(CallRenderer.GemmaStyle)

        /// Characters a pattern's string leaves out: a Gemma string's delimiter begins with
        /// one (JSON and Python escape what they must).
        var forbidden: ScalarSet {
            if case .gemma(let style) = self, let u = String(decoding: style.delimiter, as: UTF8.self).unicodeScalars.first {
                return ScalarSet([u.value...u.value])
            }
            return ScalarSet([])
        }
    }

    var doc: GrammarDocument
    var report: [String] = []
    /// The tool being compiled (for report lines and rule names).
    var tool: String = ""
    /// The tool's parameters schema: the document `$ref`s point into.
    var root: JSONValue = .null
    /// Characters a JSON or Python string may not hold unescaped (a tagged value's `<`, so that
    /// no string inside a value can spell the format's tags).
    var stringExcludes: String = ""
    /// The target's name, for report lines.
    let target: String
    private var refRules: [String: String] = [:]
    /// Whether a bounded region's automaton fits in ``boundedTextStates``, by region.
    private var regionFits: [TextRegion: Bool] = [:]
    private var shared: [String: GrammarNode] = [:]
    private var depth = 0

    init(doc: GrammarDocument, target: String) {
        self.doc = doc
        self.target = target
    }

    mutating func note(_ path: String, _ keyword: String, _ why: String) {
        let line = "tool \(JSONValue.string(tool).jsonText): \(path): \"\(keyword)\" \(why) (\(target))"
        if !report.contains(line) { report.append(line) }
    }

    // MARK: - Shared lexical rules

    private mutating func sharedRule(_ key: String, _ make: (inout ValueGrammar) -> GrammarNode) -> GrammarNode {
        if let r = shared[key] { return r }
        let name = doc.reserve(key)
        shared[key] = .rule(name)
        let node = make(&self)
        doc.set(name, node)
        return .rule(name)
    }

    /// Optional white space between JSON tokens: none or one space, as models write JSON.
    mutating func ws() -> GrammarNode {
        sharedRule("ws") { _ in .optional(.literal(" ")) }
    }

    private static let hex = CharacterClass([0x30...0x39, 0x41...0x46, 0x61...0x66])

    /// One character of a JSON string: unescaped, or an escape (surrogate escapes left out, so
    /// that every escape is one character of the decoded string).
    private mutating func jsonChar() -> GrammarNode {
        let key = "json_char" + (stringExcludes.isEmpty ? "" : "_x")
        return sharedRule(key) { g in
            var excluded: [ClosedRange<UInt32>] = [0...0x1F, 0x22...0x22, 0x5C...0x5C]
            for s in g.stringExcludes.unicodeScalars { excluded.append(s.value...s.value) }
            let nonSurrogateFirst = CharacterClass([0x30...0x39, 0x41...0x43, 0x45...0x46, 0x61...0x63, 0x65...0x66])
            return .choice([
                .characters(CharacterClass(excluded, negated: true)),
                .seq([.literal("\\"), .choice([
                    .characters(CharacterClass("\"\\/bfnrt")),
                    .seq([.literal("u"), .choice([
                        .seq([.characters(nonSurrogateFirst), .characters(Self.hex), .characters(Self.hex), .characters(Self.hex)]),
                        .seq([.characters(CharacterClass("dD")), .characters(CharacterClass([0x30...0x37])),
                              .characters(Self.hex), .characters(Self.hex)]),
                    ])]),
                ])]),
            ])
        }
    }

    /// One character of a single-quoted Python string.
    private mutating func pythonChar() -> GrammarNode {
        let key = "py_char" + (stringExcludes.isEmpty ? "" : "_x")
        return sharedRule(key) { g in
            var excluded: [ClosedRange<UInt32>] = [0...0x1F, 0x27...0x27, 0x5C...0x5C, 0x7F...0x7F]
            for s in g.stringExcludes.unicodeScalars { excluded.append(s.value...s.value) }
            return .choice([
                .characters(CharacterClass(excluded, negated: true)),
                .seq([.literal("\\"), .characters(CharacterClass("\\'\"nrt"))]),
            ])
        }
    }

    func boundedRepeat(_ node: GrammarNode, min: Int, max: Int?) -> GrammarNode {
        switch (min, max) {
        case (0, nil): return .star(node)
        case (1, nil): return .plus(node)
        case (0, 1?): return .optional(node)
        case (let a, let b?) where a == b && a == 1: return node
        default: return .repeatCount(node, min: min, max: max)
        }
    }

    // MARK: - Bounded text

    /// The most states a bounded text region's automaton may have: the automaton is the
    /// exclusion automaton times the character count, which grows with `maxLength` and the
    /// format's tags. GBNF and xgrammar's EBNF write it out state by state; llguidance, which
    /// intersects a lexeme's expressions itself, gives up on such a lexeme as "too complex"
    /// while matching (`minimax_m2` with `maxLength` 40 did).
    static let boundedTextStates = 256

    /// A text region, then its end. When its automaton is larger than
    /// ``boundedTextStates`` the region is written with no character that begins an excluded
    /// string (so no excluded string can occur, and the bounds are a plain repetition): stricter
    /// than the parser, and reported.
    mutating func text(_ region: TextRegion, at path: String) -> GrammarNode {
        let bounded = region.minCharacters > 0 || region.maxCharacters != nil
        guard bounded else { return .text(region) }
        // Every tool's parameters bring the same few regions: the automaton is counted once.
        let fits = regionFits[region] ?? (TextAutomaton(region).states(limit: Self.boundedTextStates) != nil)
        regionFits[region] = fits
        guard !fits else { return .text(region) }
        var starts = Set<UInt32>()
        for e in region.excluded { if let u = e.unicodeScalars.first { starts.insert(u.value) } }
        let inner = CharacterClass(starts.sorted().map { $0...$0 }, negated: true)
        var edgeClass = inner
        if let edge = region.noEdge { edgeClass.ranges = (edgeClass.ranges + edge.ranges).sorted { $0.lowerBound < $1.lowerBound } }
        let lo = region.minCharacters, hi = region.maxCharacters
        let shown = starts.sorted().compactMap { Unicode.Scalar($0).map { String($0) } }.joined()
        note(path.isEmpty ? "#" : path, hi != nil ? "maxLength" : "minLength",
             "with this format's tags needs more than \(Self.boundedTextStates) grammar states; the value is written without \(JSONValue.string(shown).jsonText)")
        var alts: [GrammarNode] = []
        if region.noEdge == nil {
            alts.append(boundedRepeat(.characters(inner), min: lo, max: hi))
        } else {
            if lo == 0 { alts.append(.empty) }
            if lo <= 1 && (hi ?? 1) >= 1 { alts.append(.characters(edgeClass)) }
            if (hi ?? 2) >= 2 {
                let middle = boundedRepeat(.characters(inner), min: max(0, lo - 2), max: hi.map { $0 - 2 })
                alts.append(.seq([.characters(edgeClass), middle, .characters(edgeClass)]))
            }
        }
        let end: GrammarNode = region.end.isEmpty ? .empty : .marker(region.end)
        return .seq([.oneOf(alts), end])
    }

    // MARK: - Strings, numbers and literals per syntax

    /// A string value of `syntax` with `min`…`max` characters.
    mutating func string(_ syntax: Syntax, min: Int, max: Int?) -> GrammarNode {
        switch syntax {
        case .json:
            let body = boundedRepeat(jsonChar(), min: min, max: max)
            if min == 0 && max == nil { return sharedRule("json_string" + (stringExcludes.isEmpty ? "" : "_x")) { _ in .seq([.literal("\""), body, .literal("\"")]) } }
            return .seq([.literal("\""), body, .literal("\"")])
        case .python:
            let body = boundedRepeat(pythonChar(), min: min, max: max)
            if min == 0 && max == nil { return sharedRule("py_string" + (stringExcludes.isEmpty ? "" : "_x")) { _ in .seq([.literal("'"), body, .literal("'")]) } }
            return .seq([.literal("'"), body, .literal("'")])
        case .gemma(let style):
            let d = String(decoding: style.delimiter, as: UTF8.self)
            return .seq([.literal(d), text(TextRegion(excluded: [d], end: d, minCharacters: min, maxCharacters: max), at: "")])
        }
    }

    // MARK: - Patterns

    /// A string of `schema`'s `pattern` in `syntax` (nil when it has none, or one outside the
    /// subset ``PatternNode`` reads: then reported, and the caller writes any string).
    mutating func patternString(_ schema: JSONValue, _ syntax: Syntax, at path: String) -> GrammarNode? {
        let excludes = stringExcludes
        guard let body = patternBody(schema, removing: syntax.forbidden, at: path, spell: { set in Self.spell(set, syntax, excludes: excludes) }) else { return nil }
        switch syntax {
        case .json: return .seq([.literal("\""), body, .literal("\"")])
        case .python: return .seq([.literal("'"), body, .literal("'")])
        case .gemma(let style):
            let d = String(decoding: style.delimiter, as: UTF8.self)
            return .seq([.literal(d), body, .literal(d)])
        }
    }

    /// The characters of a pattern's language as `spell` writes them, without the characters of
    /// `removed` (the first characters of strings the value may not hold: stricter than the
    /// pattern, and reported when the pattern could write one). Reports a pattern outside the
    /// subset (nil), bounds it leaves unenforced, and a pattern nothing can be written for.
    mutating func patternBody(
        _ schema: JSONValue, removing removed: ScalarSet, at path: String, spell: (ScalarSet) -> GrammarNode
    ) -> GrammarNode? {
        guard case .string(let p)? = schema["pattern"] else { return nil }
        guard var parsed = PatternNode.parse(p) else {
            note(path, "pattern", "is outside the regular-expression subset a grammar can say (docs/grammar.md)")
            return nil
        }
        let lost = parsed.alphabet.intersection(removed)
        if !lost.isEmpty {
            parsed = parsed.removing(removed)
            let shown = lost.ranges.prefix(4).map { r in
                (r.lowerBound...min(r.upperBound, r.lowerBound + 2)).compactMap { Unicode.Scalar($0).map { String($0) } }.joined()
            }.joined()
            note(path, "pattern", "is written without the characters \(JSONValue.string(shown).jsonText)\(lost.ranges.count > 4 || lost.ranges.contains { $0.count > 3 } ? " ..." : "") (they could begin the format's markup here)")
        }
        if parsed.isEmptyLanguage {
            note(path, "pattern", "admits no value this format can write here; the grammar writes none")
        }
        if schema["minLength"] != nil || schema["maxLength"] != nil {
            note(path, "minLength/maxLength", "is not enforced together with \"pattern\" by this target's grammar")
        }
        return parsed.grammar(spell)
    }

    /// One character of `set` as `syntax` writes it in a string: unescaped where it may be, or
    /// escaped (JSON's and Python's escapes; a character JSON text here must not show, such as
    /// a tagged value's `<`, as its `\u` escape).
    static func spell(_ set: ScalarSet, _ syntax: Syntax, excludes stringExcludes: String) -> GrammarNode {
        var plain = set
        var alts: [GrammarNode] = []
        let hex = Array("0123456789abcdef")
        func addEscape(_ v: UInt32, _ text: String) {
            if set.contains(v) { alts.append(.literal(text)) }
        }
        switch syntax {
        case .json:
            plain = plain.subtracting(ScalarSet([0...0x1F, 0x22...0x22, 0x5C...0x5C])).subtracting(ScalarSet(stringExcludes))
            addEscape(0x22, "\\\"")
            addEscape(0x5C, "\\\\")
            let named: [UInt32: String] = [0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"]
            for v in named.keys.sorted() { addEscape(v, named[v]!) }
            if ScalarSet([0...0x1F]).subtracting(set).isEmpty {
                // Every control character: one `\u00XX` class rather than 27 literals.
                alts.append(.seq([.literal("\\u00"), .characters(CharacterClass("01")), .characters(CharacterClass([0x30...0x39, 0x61...0x66]))]))
            } else {
                for v in UInt32(0)...0x1F where named[v] == nil {
                    addEscape(v, "\\u00" + String(hex[Int(v >> 4)]) + String(hex[Int(v & 15)]))
                }
            }
            for u in stringExcludes.unicodeScalars where u.value < 0x80 {
                addEscape(u.value, "\\u00" + String(hex[Int(u.value >> 4)]) + String(hex[Int(u.value & 15)]))
            }
        case .python:
            plain = plain.subtracting(ScalarSet([0...0x1F, 0x27...0x27, 0x5C...0x5C, 0x7F...0x7F])).subtracting(ScalarSet(stringExcludes))
            addEscape(0x5C, "\\\\")
            addEscape(0x27, "\\'")
            addEscape(0x0A, "\\n")
            addEscape(0x0D, "\\r")
            addEscape(0x09, "\\t")
        case .gemma:
            break
        }
        if !plain.isEmpty { alts.insert(plain.node, at: 0) }
        return alts.isEmpty ? .choice([]) : .oneOf(alts)
    }

    /// The spelling of a constant value (`enum`, `const`) in `syntax`.
    func constant(_ value: JSONValue, _ syntax: Syntax) -> GrammarNode {
        var out: [UInt8] = []
        switch syntax {
        case .json:
            if stringExcludes.isEmpty {
                value.write(to: &out)
            } else {
                CallRenderer.writeTemplateJSON(value, to: &out)
                out = Self.escapeExcluded(out, stringExcludes)
            }
        case .python:
            CallRenderer.writePython(value, to: &out)
        case .gemma(let style):
            CallRenderer.writeGemma(value, style, to: &out)
        }
        return .literal(String(decoding: out, as: UTF8.self))
    }

    /// JSON text with each excluded character written as a `\u` escape (inside strings: the
    /// excluded characters are punctuation that JSON outside strings never uses but `<`).
    static func escapeExcluded(_ bytes: [UInt8], _ excludes: String) -> [UInt8] {
        let ex = Set(excludes.utf8)
        var out: [UInt8] = []
        let hex = Array("0123456789abcdef".utf8)
        for b in bytes {
            if ex.contains(b) {
                out += Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]]
            } else {
                out.append(b)
            }
        }
        return out
    }

    /// Python text with each excluded character written as a `\x` escape (it can stand only
    /// inside a string literal there, where the escape is the same character).
    static func escapeExcludedPython(_ bytes: [UInt8], _ excludes: String) -> [UInt8] {
        let ex = Set(excludes.utf8)
        var out: [UInt8] = []
        let hex = Array("0123456789abcdef".utf8)
        for b in bytes {
            if ex.contains(b) {
                out += Array("\\x".utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]]
            } else {
                out.append(b)
            }
        }
        return out
    }

    func keyword(_ syntax: Syntax, _ value: Bool?) -> GrammarNode {
        switch syntax {
        case .python:
            return .literal(value.map { $0 ? "True" : "False" } ?? "None")
        case .gemma(let style) where value == nil:
            return .literal(String(decoding: style.null, as: UTF8.self))
        default:
            return .literal(value.map { $0 ? "true" : "false" } ?? "null")
        }
    }

    /// Any JSON number (`integer`: no fraction, no exponent).
    mutating func number(integer: Bool) -> GrammarNode {
        if integer {
            return sharedRule("integer") { _ in
                .seq([.optional(.literal("-")), .choice([.literal("0"), .seq([.characters(.nonZeroDigit), .star(.characters(.digit))])])])
            }
        }
        return sharedRule("number") { g in
            .seq([
                g.number(integer: true),
                .optional(.seq([.literal("."), .plus(.characters(.digit))])),
                .optional(.seq([.characters(CharacterClass("eE")), .optional(.characters(CharacterClass("+-"))), .plus(.characters(.digit))])),
            ])
        }
    }

    // MARK: - Integer ranges

    /// The integers from `lo` to `hi` (either may be open), written without leading zeros.
    func integerRange(_ lo: Int?, _ hi: Int?) -> GrammarNode {
        var parts: [GrammarNode] = []
        // Negative part: -n for n in [max(1, -hi) ... -lo].
        if lo == nil || lo! < 0 {
            let nLo = max(1, hi.map { -$0 } ?? 1)
            let nHi = lo.map { -$0 }
            if nHi == nil || nLo <= nHi! {
                parts.append(.seq([.literal("-"), Self.naturals(nLo, nHi)]))
            }
        }
        // Non-negative part.
        if hi == nil || hi! >= 0 {
            let pLo = max(0, lo ?? 0)
            if hi == nil || pLo <= hi! { parts.append(Self.naturals(pLo, hi)) }
        }
        if parts.isEmpty { return .choice([]) }
        return .oneOf(parts)
    }

    /// The whole numbers `lo`…`hi` (`hi` nil: no bound), `lo` ≥ 0.
    static func naturals(_ lo: Int, _ hi: Int?) -> GrammarNode {
        guard let hi else {
            // lo…(10^d − 1), then every longer number.
            let d = String(lo).count
            let top = Int(pow10(d)) - 1
            let longer = GrammarNode.seq([.characters(.nonZeroDigit), .repeatCount(.characters(.digit), min: d, max: nil)])
            return .oneOf([sameLength(String(lo), String(top)), longer])
        }
        var alts: [GrammarNode] = []
        var a = lo
        while a <= hi {
            let d = String(a).count
            let top = min(hi, Int(pow10(d)) - 1)
            alts.append(sameLength(String(a), String(top)))
            a = top + 1
        }
        return .oneOf(alts)
    }

    private static func pow10(_ n: Int) -> Double {
        var x = 1.0
        for _ in 0..<n { x *= 10 }
        return x
    }

    /// Numbers of the same length from `a` to `b` (digit strings, a ≤ b).
    private static func sameLength(_ a: String, _ b: String) -> GrammarNode {
        let x = Array(a.utf8), y = Array(b.utf8)
        return digitsRange(x[...], y[...])
    }

    private static func digitsRange(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> GrammarNode {
        guard let fa = a.first, let fb = b.first else { return .empty }
        let restA = a.dropFirst(), restB = b.dropFirst()
        let n = restA.count
        func cls(_ lo: UInt8, _ hi: UInt8) -> GrammarNode {
            lo == hi ? .literal(String(UnicodeScalar(lo))) : .characters(CharacterClass([UInt32(lo)...UInt32(hi)]))
        }
        func any(_ k: Int) -> GrammarNode { k == 0 ? .empty : .repeatCount(.characters(.digit), min: k, max: k) }
        if fa == fb { return .seq([cls(fa, fa), digitsRange(restA, restB)]) }
        let allZero = restA.allSatisfy { $0 == 0x30 }
        let allNine = restB.allSatisfy { $0 == 0x39 }
        var alts: [GrammarNode] = []
        var from = fa
        var to = fb
        if !allZero {
            alts.append(.seq([cls(fa, fa), digitsRange(restA, ArraySlice(Array(repeating: 0x39, count: n)))]))
            from = fa + 1
        }
        var tail: GrammarNode? = nil
        if !allNine {
            tail = .seq([cls(fb, fb), digitsRange(ArraySlice(Array(repeating: 0x30, count: n)), restB)])
            to = fb - 1
        }
        if from <= to { alts.append(.seq([cls(from, to), any(n)])) }
        if let tail { alts.append(tail) }
        return .oneOf(alts)
    }

    // MARK: - Schemas

    /// `schema` resolved through a local `$ref` (nil when it points nowhere).
    func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#") else { return nil }
        var node = root
        for raw in ref.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let part = JSONPointer.unescape(String(raw))
            if case .array(let a) = node, let i = Int(part), i < a.count {
                node = a[i]
            } else if let next = node[part] {
                node = next
            } else {
                return nil
            }
        }
        return node
    }

    /// The keywords that constrain and that this compiler reads; others that the validator
    /// checks are reported where they appear.
    static let unsupported: [String: String] = [
        "not": "cannot be expressed in a grammar here",
        "uniqueItems": "cannot be expressed in a grammar (items are not compared)",
        "multipleOf": "is not expressed by this target's grammar",
    ]

    /// Keywords that constrain values but that the validator does not check either.
    static let uncheckedByValidator: Set<String> = [
        "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired",
        "dependentSchemas", "dependencies", "if", "then", "else", "contains", "minContains", "maxContains",
        "unevaluatedProperties", "unevaluatedItems",
    ]

    /// A value of `schema` in `syntax`.
    mutating func value(_ schema: JSONValue, _ syntax: Syntax, at path: String) -> GrammarNode {
        depth += 1
        defer { depth -= 1 }
        if depth > 64 {
            note(path, "$ref", "nests deeper than 64 levels; the rest admits any value")
            return anyValue(syntax)
        }
        switch schema {
        case .bool(let b):
            return b ? anyValue(syntax) : .choice([])
        case .object:
            break
        default:
            return anyValue(syntax)
        }
        if case .string(let ref)? = schema["$ref"] {
            let key = "\(syntaxKey(syntax))|\(stringExcludes)|\(ref)"
            if let name = refRules[key] { return .rule(name) }
            guard let target = resolve(ref) else {
                note(path, "$ref", "points nowhere; the value is unconstrained")
                return anyValue(syntax)
            }
            let name = doc.reserve("ref_" + (ref.split(separator: "/").last.map(String.init) ?? "x"))
            refRules[key] = name
            var merged = target
            if case .object(let members) = schema, members.count > 1 {
                merged = Self.merge(target, .object(members.filter { $0.key != "$ref" }))
            }
            let node = value(merged, syntax, at: ref)
            doc.set(name, node)
            return .rule(name)
        }
        for (k, _) in schema.objectValue ?? [] {
            if let why = Self.unsupported[k] { note(path, k, why) }
            if Self.uncheckedByValidator.contains(k) { note(path, k, "is checked by neither the validator nor the grammar") }
        }
        if case .array(let members)? = schema["allOf"] {
            var merged: JSONValue = .object((schema.objectValue ?? []).filter { $0.key != "allOf" })
            for m in members {
                var member = m
                if case .string(let ref)? = m["$ref"], let t = resolve(ref) { member = t }
                merged = Self.merge(merged, member)
            }
            return value(merged, syntax, at: path)
        }
        for key in ["anyOf", "oneOf"] {
            if case .array(let members)? = schema[key] {
                if key == "oneOf" && members.count > 1 {
                    note(path, "oneOf", "is read as anyOf (a value matching two members is not refused)")
                }
                let base = JSONValue.object((schema.objectValue ?? []).filter { $0.key != key })
                return .oneOf(members.enumerated().map { i, m in
                    value(Self.merge(base, m), syntax, at: "\(path)/\(key)/\(i)")
                })
            }
        }
        if case .array(let values)? = schema["enum"] {
            return .oneOf(values.map { constant($0, syntax) })
        }
        if let c = schema["const"] { return constant(c, syntax) }
        var types: [String] = []
        switch schema["type"] {
        case .string(let t)?: types = [t]
        case .array(let ts)?: types = ts.compactMap(\.stringValue)
        default:
            if schema["properties"] != nil || schema["additionalProperties"] != nil || schema["required"] != nil {
                types = ["object"]
            } else if schema["items"] != nil || schema["prefixItems"] != nil {
                types = ["array"]
            }
        }
        if schema["nullable"] == .bool(true) && !types.isEmpty && !types.contains("null") { types.append("null") }
        if types.isEmpty { return anyValue(syntax) }
        return .oneOf(types.map { typed($0, schema, syntax, at: path) })
    }

    /// `a` with `b`'s keywords added (properties and required joined; for others `b` wins).
    static func merge(_ a: JSONValue, _ b: JSONValue) -> JSONValue {
        guard case .object(var out) = a, case .object(let more) = b else { return b }
        for (k, v) in more {
            if let i = out.firstIndex(where: { $0.key == k }) {
                switch (k, out[i].value, v) {
                case ("properties", .object(let x), .object(let y)):
                    out[i].value = .object(x + y.filter { m in !x.contains { $0.key == m.key } })
                case ("required", .array(let x), .array(let y)):
                    out[i].value = .array(x + y.filter { !x.contains($0) })
                default:
                    out[i].value = v
                }
            } else {
                out.append((k, v))
            }
        }
        return .object(out)
    }

    private func syntaxKey(_ s: Syntax) -> String {
        switch s {
        case .json: return "json"
        case .python: return "python"
        case .gemma(let style):
            return "gemma" + String(decoding: style.delimiter, as: UTF8.self) + (style.sortKeys ? "sorted" : "") + String(decoding: style.null, as: UTF8.self)
        }
    }

    private mutating func typed(_ type: String, _ schema: JSONValue, _ syntax: Syntax, at path: String) -> GrammarNode {
        switch type {
        case "string":
            if let node = patternString(schema, syntax, at: path) { return node }
            return string(syntax, min: schema["minLength"]?.intValue ?? 0, max: schema["maxLength"]?.intValue)
        case "integer":
            let (lo, hi) = Self.integerBounds(schema)
            if lo == nil && hi == nil { return number(integer: true) }
            return integerRange(lo, hi)
        case "number", "float":
            if schema["minimum"] != nil || schema["maximum"] != nil || schema["exclusiveMinimum"] != nil || schema["exclusiveMaximum"] != nil {
                note(path, "minimum/maximum", "on a non-integer number is not expressed by this target's grammar")
            }
            return number(integer: false)
        case "boolean":
            return .choice([keyword(syntax, true), keyword(syntax, false)])
        case "null":
            return keyword(syntax, nil)
        case "array":
            return array(schema, syntax, at: path)
        case "object":
            return object(schema, syntax, at: path)
        default:
            note(path, "type", "names an unknown type \(JSONValue.string(type).jsonText)")
            return anyValue(syntax)
        }
    }

    /// The integer bounds of a schema (exclusive ones made inclusive).
    static func integerBounds(_ schema: JSONValue) -> (Int?, Int?) {
        func ceilInt(_ v: JSONValue?) -> Int? {
            guard let d = v?.doubleValue, d.isFinite, abs(d) < 1e15 else { return nil }
            return Int(d.rounded(.up))
        }
        func floorInt(_ v: JSONValue?) -> Int? {
            guard let d = v?.doubleValue, d.isFinite, abs(d) < 1e15 else { return nil }
            return Int(d.rounded(.down))
        }
        var lo = ceilInt(schema["minimum"])
        var hi = floorInt(schema["maximum"])
        if case .bool(true)? = schema["exclusiveMinimum"], let d = schema["minimum"]?.doubleValue, d == d.rounded() { lo = lo.map { $0 + 1 } }
        if case .bool(true)? = schema["exclusiveMaximum"], let d = schema["maximum"]?.doubleValue, d == d.rounded() { hi = hi.map { $0 - 1 } }
        if let v = schema["exclusiveMinimum"], v.doubleValue != nil, let d = v.doubleValue {
            let e = d == d.rounded() ? Int(d) + 1 : Int(d.rounded(.up))
            lo = max(lo ?? e, e)
        }
        if let v = schema["exclusiveMaximum"], v.doubleValue != nil, let d = v.doubleValue {
            let e = d == d.rounded() ? Int(d) - 1 : Int(d.rounded(.down))
            hi = min(hi ?? e, e)
        }
        return (lo, hi)
    }

    private mutating func array(_ schema: JSONValue, _ syntax: Syntax, at path: String) -> GrammarNode {
        let (open, close, sep) = separators(syntax, array: true)
        var prefix: [GrammarNode] = []
        if case .array(let items)? = schema["prefixItems"] {
            prefix = items.enumerated().map { i, s in value(s, syntax, at: "\(path)/prefixItems/\(i)") }
        }
        let itemSchema: JSONValue? = {
            if let i = schema["items"] {
                if case .array = i { return schema["additionalItems"] ?? .bool(true) }
                return i
            }
            return nil
        }()
        if case .array(let tuple)? = schema["items"] {
            prefix = tuple.enumerated().map { i, s in value(s, syntax, at: "\(path)/items/\(i)") }
        }
        let item = itemSchema.map { value($0, syntax, at: "\(path)/items") } ?? anyValue(syntax)
        let minItems = schema["minItems"]?.intValue ?? 0
        let maxItems = schema["maxItems"]?.intValue
        // Prefix items in order (the first `minItems` of them required), then further items.
        var seq: [GrammarNode] = []
        var elems: [GrammarNode] = []
        let extraMin = max(0, minItems - prefix.count)
        let extraMax = maxItems.map { max(0, $0 - prefix.count) }
        for (i, p) in prefix.enumerated() where maxItems == nil || i < maxItems! { elems.append(p) }
        if elems.isEmpty {
            if extraMax == 0 { return .seq([.literal(open), .literal(close)]) }
            let rest = boundedRepeat(.seq([sep, item]), min: max(0, extraMin - 1), max: extraMax.map { $0 - 1 })
            let body = GrammarNode.seq([item, rest])
            seq = [.literal(open), extraMin > 0 ? body : .optional(body), .literal(close)]
            return .seq(seq)
        }
        // A tuple: the required prefix, then optional further ones, each after a separator.
        var body: [GrammarNode] = []
        var optionalTail: GrammarNode = extraMax == 0 ? .empty : boundedRepeat(.seq([sep, item]), min: extraMin, max: extraMax)
        for (i, e) in elems.enumerated().reversed() {
            let lead = i == 0 ? e : GrammarNode.seq([sep, e])
            if i < minItems {
                body.insert(lead, at: 0)
            } else {
                optionalTail = .optional(.seq([lead, optionalTail]))
            }
        }
        if body.isEmpty {
            // Every item optional: an empty array or the first item and the rest.
            if case .optional(let inner) = optionalTail { return .seq([.literal(open), .optional(inner), .literal(close)]) }
        }
        return .seq([.literal(open)] + body + [optionalTail, .literal(close)])
    }

    private mutating func separators(_ syntax: Syntax, array: Bool) -> (String, String, GrammarNode) {
        switch syntax {
        case .gemma:
            return (array ? "[" : "{", array ? "]" : "}", .literal(","))
        default:
            return (array ? "[" : "{", array ? "]" : "}", .seq([.literal(","), ws()]))
        }
    }

    /// The spelling of an object key.
    private func key(_ k: String, _ syntax: Syntax) -> GrammarNode {
        var out: [UInt8] = []
        switch syntax {
        case .json:
            JSONValue.writeString(k, to: &out)
            if !stringExcludes.isEmpty { out = Self.escapeExcluded(out, stringExcludes) }
            out += Array(": ".utf8)
        case .python:
            CallRenderer.writePythonString(k, to: &out)
            out += Array(": ".utf8)
        case .gemma(let style):
            var bare = style
            bare.null = Array("null".utf8)
            CallRenderer.writeGemma(.object([(k, .null)]), bare, to: &out)
            // `{KEY:null}` → `KEY:`
            out = Array(out.dropFirst().dropLast(5))
        }
        return .literal(String(decoding: out, as: UTF8.self))
    }

    private mutating func object(_ schema: JSONValue, _ syntax: Syntax, at path: String) -> GrammarNode {
        var props = schema["properties"]?.objectValue ?? []
        // Gemma 4's template writes keys in `dictsort` order, whatever the schema's.
        if case .gemma(let style) = syntax, style.sortKeys { props = CallRenderer.templateSorted(props) }
        let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        let additional = schema["additionalProperties"]
        let (open, close, sep) = separators(syntax, array: false)
        if props.isEmpty {
            if additional == .bool(false) { return .literal(open + close) }
            // Any object: keys are strings, values by `additionalProperties` (any when absent).
            let valueSchema = additional.flatMap { $0.isObject ? $0 : nil }
            let v = valueSchema.map { value($0, syntax, at: "\(path)/additionalProperties") } ?? anyValue(syntax)
            let k = anyKey(syntax)
            let member = GrammarNode.seq([k, v])
            return .seq([.literal(open), .optional(.seq([member, .star(.seq([sep, member]))])), .literal(close)])
        }
        for r in required where !props.contains(where: { $0.key == r }) {
            note(path, "required", "names \(JSONValue.string(r).jsonText), which properties does not declare; it cannot be written")
        }
        // f(i): members i... with no separator before the first one written; g(i): each after one.
        let members = props.map { p in GrammarNode.seq([key(p.key, syntax), value(p.value, syntax, at: "\(path)/properties/\(p.key)")]) }
        let n = members.count
        var after: [GrammarNode] = Array(repeating: .empty, count: n + 1)   // g
        var first: [GrammarNode] = Array(repeating: .empty, count: n + 1)   // f
        for i in stride(from: n - 1, through: 0, by: -1) {
            let isRequired = required.contains(props[i].key)
            let withSep = GrammarNode.seq([sep, members[i]])
            after[i] = .seq([isRequired ? withSep : .optional(withSep), after[i + 1]])
            if n - i > 2, case .sequence = after[i] { after[i] = doc.add("\(tool)_rest", after[i]) }
            let own = GrammarNode.seq([members[i], after[i + 1]])
            first[i] = isRequired ? own : (i == n - 1 ? .optional(own) : .oneOf([own, first[i + 1]]))
            if i < n - 1, !isRequired, n - i > 2 { first[i] = doc.add("\(tool)_from", first[i]) }
        }
        return .seq([.literal(open), first[0], .literal(close)])
    }

    private mutating func anyKey(_ syntax: Syntax) -> GrammarNode {
        switch syntax {
        case .json: return .seq([string(.json, min: 0, max: nil), .literal(": ")])
        case .python: return .seq([string(.python, min: 0, max: nil), .literal(": ")])
        case .gemma:
            return sharedRule("gemma_key") { _ in
                .seq([.plus(.characters(CharacterClass([0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F...0x5F]))), .literal(":")])
            }
        }
    }

    /// Any value of the syntax.
    mutating func anyValue(_ syntax: Syntax) -> GrammarNode {
        let key = "any_" + syntaxKey(syntax).filter { $0.isLetter } + (stringExcludes.isEmpty ? "" : "_x")
        if let r = shared[key] { return r }
        let name = doc.reserve(key)
        shared[key] = .rule(name)
        let self_ = GrammarNode.rule(name)
        let (_, _, sep) = separators(syntax, array: true)
        let str = string(syntax, min: 0, max: nil)
        let k = anyKey(syntax)
        let arr = GrammarNode.seq([.literal("["), .optional(.seq([self_, .star(.seq([sep, self_]))])), .literal("]")])
        let member = GrammarNode.seq([k, self_])
        let obj = GrammarNode.seq([.literal("{"), .optional(.seq([member, .star(.seq([sep, member]))])), .literal("}")])
        doc.set(name, .choice([str, number(integer: false), keyword(syntax, true), keyword(syntax, false), keyword(syntax, nil), arr, obj]))
        return self_
    }
}

extension JSONValue {
    /// A whole number value as an `Int` (nil for other values).
    var intValue: Int? {
        guard let d = doubleValue, d.isFinite, d == d.rounded(), abs(d) < 1e15 else { return nil }
        return Int(d)
    }
}
