// ToolCallKit — writing a grammar document in each target's language: llama.cpp GBNF,
// xgrammar's EBNF and structural tags, llguidance's Lark.

/// Prints a ``GrammarDocument``.
struct GrammarPrinter {
    let doc: GrammarDocument
    /// Marker texts that are special tokens, with their ids.
    let tokens: [String: Int]

    // MARK: - Markers and tokens

    /// A marker's text cut into special tokens (by id) and literal text between them.
    func split(_ s: String) -> [(token: Int?, text: String)] {
        guard !tokens.isEmpty else { return [(nil, s)] }
        let texts = tokens.keys.sorted { $0.utf8.count > $1.utf8.count }
        var out: [(Int?, String)] = []
        var rest = Substring(s)
        var lit = ""
        while !rest.isEmpty {
            if let t = texts.first(where: { rest.hasPrefix($0) }) {
                if !lit.isEmpty { out.append((nil, lit)); lit = "" }
                out.append((tokens[t]!, t))
                rest = rest.dropFirst(t.count)
            } else {
                lit.append(rest.removeFirst())
            }
        }
        if !lit.isEmpty { out.append((nil, lit)) }
        return out
    }

    // MARK: - GBNF and xgrammar EBNF

    /// The document in llama.cpp's GBNF.
    func gbnf() -> String {
        var p = BNFWriter(doc: doc, printer: self, dialect: .gbnf)
        return p.write(root: "root")
    }

    /// The part of the document under `node` in xgrammar's EBNF (its own `root`).
    func ebnf(_ node: GrammarNode) -> String {
        var p = BNFWriter(doc: doc, printer: self, dialect: .xgrammar)
        return p.write(rootNode: node)
    }

    // MARK: - Lark

    /// The document in llguidance's Lark.
    func lark() -> String {
        var w = LarkWriter(doc: doc, printer: self)
        return w.write()
    }
}

/// Writes GBNF (llama.cpp) or xgrammar's EBNF: the same shape, different rule-name and
/// empty-string spellings.
struct BNFWriter {
    enum Dialect { case gbnf, xgrammar }
    let doc: GrammarDocument
    let printer: GrammarPrinter
    let dialect: Dialect
    private var lines: [String] = []
    private var written: Set<String> = []
    private var pending: [String] = []
    private var extra = 0
    private var textRules: [TextRegion: String] = [:]

    init(doc: GrammarDocument, printer: GrammarPrinter, dialect: Dialect) {
        self.doc = doc
        self.printer = printer
        self.dialect = dialect
    }

    func name(_ n: String) -> String { dialect == .gbnf ? String(n.map { $0 == "_" ? "-" : $0 }) : n }

    mutating func write(root: String) -> String {
        pending = [root]
        drain()
        return lines.joined(separator: "\n") + "\n"
    }

    mutating func write(rootNode: GrammarNode) -> String {
        let body = expr(rootNode)
        lines.insert("root ::= " + body, at: 0)
        drain()
        return lines.joined(separator: "\n") + "\n"
    }

    private mutating func drain() {
        while let r = pending.popLast() {
            guard let node = doc.node(r) else { continue }
            let body = expr(node)
            lines.append("\(name(r)) ::= \(body)")
        }
    }

    private mutating func ref(_ r: String) -> String {
        if written.insert(r).inserted { pending.append(r) }
        return name(r)
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    out += "\\x" + hex2(u.value)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    static func hex2(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return h.count < 2 ? "0" + h : h
    }

    static func classChar(_ v: UInt32) -> String {
        switch v {
        case 0x5D: return "\\]"
        case 0x5B: return "\\["
        case 0x5C: return "\\\\"
        case 0x5E: return "\\^"
        case 0x2D: return "\\-"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        default:
            if v < 0x20 || v == 0x7F { return "\\x" + hex2(v) }
            if v > 0xFFFF { return "\\U" + String(format8(v)) }
            if v >= 0x80 { return "\\u" + String(format4(v)) }
            return String(UnicodeScalar(v)!)
        }
    }

    static func format4(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    static func format8(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 8 - h.count)) + h
    }

    /// A class. A negated one also leaves out the surrogates: xgrammar and llama.cpp decode
    /// UTF-8 leniently and would take an encoded surrogate (`ED A0 80`, invalid UTF-8) as one
    /// character, which the decoder reads as three U+FFFD (a `maxLength` would then be passed).
    static func charClass(_ c: CharacterClass) -> String {
        var s = c.negated ? "[^" : "["
        for r in c.ranges {
            s += classChar(r.lowerBound)
            if r.upperBound != r.lowerBound { s += "-" + classChar(r.upperBound) }
        }
        if c.negated { s += "\\uD800-\\uDFFF" }
        return s + "]"
    }

    private func emptyString() -> String { "\"\"" }

    private mutating func expr(_ node: GrammarNode) -> String {
        switch node {
        case .literal(let s):
            return s.isEmpty ? emptyString() : Self.quote(s)
        case .marker(let s):
            if s.isEmpty { return emptyString() }
            let parts = printer.split(s)
            return parts.map { p in p.token.map { "<[\($0)]>" } ?? Self.quote(p.text) }.joined(separator: " ")
        case .rule(let r):
            return ref(r)
        case .sequence(let xs):
            if xs.isEmpty { return emptyString() }
            return xs.map { group($0) }.joined(separator: " ")
        case .choice(let xs):
            if xs.isEmpty { return "[^\\x00-\\U0010FFFF]" }
            return "(" + xs.map { expr($0) }.joined(separator: " | ") + ")"
        case .optional(let x):
            return atom(x) + "?"
        case .star(let x):
            return atom(x) + "*"
        case .plus(let x):
            return atom(x) + "+"
        case .repeatCount(let x, let lo, let hi):
            if let hi, hi == lo { return atom(x) + "{\(lo)}" }
            if let hi { return atom(x) + "{\(lo),\(hi)}" }
            return atom(x) + "{\(lo),}"
        case .characters(let c):
            return Self.charClass(c)
        case .json:
            preconditionFailure("JSON nodes are expanded before a BNF is printed")
        case .text(let region):
            return textRule(region)
        }
    }

    /// `node` where a sequence element stands.
    private mutating func group(_ node: GrammarNode) -> String {
        if case .choice(let xs) = node, xs.count > 1 { return expr(node) }
        return expr(node)
    }

    /// `node` where a postfix operator follows.
    private mutating func atom(_ node: GrammarNode) -> String {
        switch node {
        case .literal, .rule, .characters, .choice: return expr(node)
        case .marker(let s) where printer.split(s).count == 1: return expr(node)
        default: return "(" + expr(node) + ")"
        }
    }

    /// The rules of a text region's automaton; returns the name of its start rule.
    private mutating func textRule(_ region: TextRegion) -> String {
        if let n = textRules[region] { return name(n) }
        extra += 1
        let base = "text\(extra)"
        textRules[region] = base + "_0"
        let automaton = TextAutomaton(region)
        let states = automaton.states(limit: 20_000) ?? [automaton.start]
        var ids: [TextAutomaton.State: Int] = [:]
        for (i, s) in states.enumerated() { ids[s] = i }
        let end = region.end.isEmpty ? emptyString() : expr(.marker(region.end))
        for s in states {
            var alts: [String] = []
            for e in automaton.edges(s) {
                guard let t = ids[e.target] else { continue }
                let cls: String
                if e.negated {
                    // Every scalar outside the alphabet (all but NUL, which no text holds, when
                    // the alphabet is empty).
                    cls = Self.charClass(CharacterClass(e.scalars.isEmpty ? [0...0] : e.scalars.map { $0...$0 }, negated: true))
                } else {
                    cls = Self.charClass(CharacterClass(e.scalars.map { $0...$0 }))
                }
                alts.append("\(cls) \(name(base + "_\(t)"))")
            }
            if automaton.accepts(s) { alts.append(end) }
            if alts.isEmpty { alts.append("[^\\x00-\\U0010FFFF]") }
            lines.append("\(name(base + "_\(ids[s]!)")) ::= " + alts.joined(separator: " | "))
        }
        return name(base + "_0")
    }
}

extension TextRegion: Hashable {
    func hash(into hasher: inout Hasher) {
        hasher.combine(excluded)
        hasher.combine(end)
        hasher.combine(minCharacters)
        hasher.combine(maxCharacters)
        hasher.combine(noEdge?.ranges.map { [$0.lowerBound, $0.upperBound] })
    }
}

/// Writes llguidance's Lark.
struct LarkWriter {
    let doc: GrammarDocument
    let printer: GrammarPrinter
    private var lines: [String] = []
    private var written: Set<String> = []
    private var pending: [String] = []
    private var extra = 0
    private var textRules: [TextRegion: String] = [:]

    init(doc: GrammarDocument, printer: GrammarPrinter) {
        self.doc = doc
        self.printer = printer
    }

    mutating func write() -> String {
        pending = ["root"]
        written = ["root"]
        var out = ["%llguidance {}", "start: root"]
        while let r = pending.popLast() {
            guard let node = doc.node(r) else { continue }
            lines.append("\(r): \(expr(node))")
        }
        out += lines
        return out.joined(separator: "\n") + "\n"
    }

    private mutating func ref(_ r: String) -> String {
        if written.insert(r).inserted { pending.append(r) }
        return r
    }

    static func quote(_ s: String) -> String { JSONValue.string(s).jsonText }

    /// A regular expression (Rust `regex` syntax) for one character of the class.
    static func regexClass(_ c: CharacterClass) -> String {
        var s = c.negated ? "[^" : "["
        for r in c.ranges {
            s += regexChar(r.lowerBound)
            if r.upperBound != r.lowerBound { s += "-" + regexChar(r.upperBound) }
        }
        return s + "]"
    }

    static func regexChar(_ v: UInt32) -> String {
        if (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x20 || v == 0x5F {
            return String(UnicodeScalar(v)!)
        }
        return "\\x{" + String(v, radix: 16) + "}"
    }

    /// A literal string as a regular expression.
    static func regexLiteral(_ s: String) -> String {
        s.unicodeScalars.map { regexChar($0.value) }.joined()
    }

    private mutating func expr(_ node: GrammarNode) -> String {
        switch node {
        case .literal(let s):
            return Self.quote(s)
        case .marker(let s):
            let parts = printer.split(s)
            let joined = parts.map { p in p.token.map { "<[\($0)]>" } ?? Self.quote(p.text) }.joined(separator: " ")
            return parts.count > 1 ? "(" + joined + ")" : joined
        case .rule(let r):
            return ref(r)
        case .sequence(let xs):
            return xs.map { expr($0) }.joined(separator: " ")
        case .choice(let xs):
            if xs.isEmpty { return "/[^\\x{0}-\\x{10ffff}]/" }
            return "(" + xs.map { expr($0) }.joined(separator: " | ") + ")"
        case .optional(let x):
            return "(" + expr(x) + ")?"
        case .star(let x):
            return "(" + expr(x) + ")*"
        case .plus(let x):
            return "(" + expr(x) + ")+"
        case .repeatCount(let x, let lo, let hi):
            let e = "(" + expr(x) + ")"
            if let hi, hi == lo { return e + "{\(lo)}" }
            if let hi { return e + "{\(lo),\(hi)}" }
            return e + "{\(lo),}"
        case .characters(let c):
            return "/" + Self.regexClass(c) + "/"
        case .json(let schema):
            return "%json " + schema.jsonText
        case .text(let region):
            return textRule(region)
        }
    }

    /// A text region: a lexeme (the text's regular expression, intersected with the
    /// complement of "holds an excluded string"), lazy and joined with its end when it has one.
    private mutating func textRule(_ region: TextRegion) -> String {
        if let n = textRules[region] { return n }
        extra += 1
        let lexeme = "TEXT\(extra)"
        var parts = ["/(?s:.*)/"]
        let ex = region.excluded.filter { !$0.isEmpty }
        if !ex.isEmpty {
            parts.append("~/(?s:.*)(?:" + ex.map(Self.regexLiteral).joined(separator: "|") + ")(?s:.*)/")
        }
        if region.minCharacters > 0 || region.maxCharacters != nil {
            parts.append("/(?s:.{\(region.minCharacters),\(region.maxCharacters.map(String.init) ?? "")})/")
        }
        if let edge = region.noEdge {
            let c = Self.regexClass(edge)
            parts.append("~/(?s:\(c).*)/")
            parts.append("~/(?s:.*\(c))/")
        }
        lines.append("\(lexeme): " + parts.joined(separator: " & "))
        if region.end.isEmpty {
            textRules[region] = lexeme
            return lexeme
        }
        let rule = "text\(extra)"
        let end = printer.split(region.end)
        if end.count == 1 && end[0].token == nil {
            lines.append("\(rule)[lazy]: \(lexeme) \(Self.quote(region.end))")
        } else {
            // A special token cannot be part of a lexeme: the text is a lazy lexeme of its own
            // that stops before the token.
            let endExpr = end.map { p in p.token.map { "<[\($0)]>" } ?? Self.quote(p.text) }.joined(separator: " ")
            lines.append("\(rule): \(lexeme) \(endExpr)")
        }
        textRules[region] = rule
        return rule
    }
}
