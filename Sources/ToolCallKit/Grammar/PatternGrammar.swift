// ToolCallKit — a schema's `pattern` as grammar rules: the regular-expression subset that a
// grammar without regular expressions (GBNF, xgrammar's EBNF) can say, over the characters of
// a value, spelt in each value syntax.

/// A parsed `pattern`: what JSON Schema's ECMA-262 expressions and the validator's PCRE2 agree
/// on, in the subset a grammar can say.
///
/// Supported: literals and escapes (`\n`, `\t`, `\r`, `\f`, `\v`, `\0`, `\xHH`, `\uHHHH`,
/// `\u{…}`, an escaped punctuation character), `.`, classes `[...]` / `[^...]` with ranges,
/// `\d \D \w \W \s \S` (ASCII, as the validator's PCRE2 reads them without Unicode
/// properties), groups `(...)`, `(?:...)` and `(?<name>...)`, alternation, the quantifiers
/// `? * + {n} {n,} {n,m}` (lazy or not: the same language), and `^` / `$` at the start and end
/// of a top-level alternative. Anything else (back references, look-around, `\b`, `\p{…}`,
/// anchors inside, flags) makes ``parse(_:)`` return nil: the caller reports the keyword.
///
/// The grammar is never looser than the validator: `.` is every character but the line
/// terminators (PCRE2's `.` excludes only `\n`), and an unanchored side is any text (JSON
/// Schema patterns are searched, not matched whole).
indirect enum PatternNode: Equatable {
    case empty
    case set(ScalarSet)
    case sequence([PatternNode])
    case alternatives([PatternNode])
    case repeated(PatternNode, min: Int, max: Int?)

    /// The most repetitions a bounded quantifier may ask for (a grammar writes them out).
    static let maxRepeat = 1000
    /// The most nodes a pattern may have.
    static let maxNodes = 2000

    /// The pattern's language as searched in a string: each top-level alternative with its
    /// anchors, any text on an unanchored side. Nil when the pattern leaves the subset.
    static func parse(_ pattern: String) -> PatternNode? {
        var p = PatternParser(Array(pattern.unicodeScalars))
        guard let alts = p.topLevel(), p.nodes <= maxNodes else { return nil }
        let anyText = PatternNode.repeated(.set(.all), min: 0, max: nil)
        return .alternatives(alts.map { a in
            .sequence((a.anchoredStart ? [] : [anyText]) + [a.node] + (a.anchoredEnd ? [] : [anyText]))
        })
    }

    /// Every character the language may hold.
    var alphabet: ScalarSet {
        switch self {
        case .empty: return ScalarSet([])
        case .set(let s): return s
        case .sequence(let xs), .alternatives(let xs): return xs.reduce(ScalarSet([])) { $0.union($1.alphabet) }
        case .repeated(let x, _, let max): return max == 0 ? ScalarSet([]) : x.alphabet
        }
    }

    /// Whether the empty string is in the language.
    var admitsEmpty: Bool {
        switch self {
        case .empty: return true
        case .set: return false
        case .sequence(let xs): return xs.allSatisfy { $0.admitsEmpty }
        case .alternatives(let xs): return xs.contains { $0.admitsEmpty }
        case .repeated(let x, let lo, _): return lo == 0 || x.admitsEmpty
        }
    }

    /// Whether no string is in the language.
    var isEmptyLanguage: Bool {
        switch self {
        case .empty: return false
        case .set(let s): return s.isEmpty
        case .sequence(let xs): return xs.contains { $0.isEmptyLanguage }
        case .alternatives(let xs): return xs.allSatisfy { $0.isEmptyLanguage }
        case .repeated(let x, let lo, _): return lo > 0 && x.isEmptyLanguage
        }
    }

    /// The same language with every character of `removed` taken out (stricter).
    func removing(_ removed: ScalarSet) -> PatternNode {
        switch self {
        case .empty: return self
        case .set(let s): return .set(s.subtracting(removed))
        case .sequence(let xs): return .sequence(xs.map { $0.removing(removed) })
        case .alternatives(let xs): return .alternatives(xs.map { $0.removing(removed) })
        case .repeated(let x, let lo, let hi): return .repeated(x.removing(removed), min: lo, max: hi)
        }
    }

    /// The language as a grammar node; `spell` writes one character of a set as the syntax
    /// spells it (escapes included).
    func grammar(_ spell: (ScalarSet) -> GrammarNode) -> GrammarNode {
        if isEmptyLanguage { return .choice([]) }
        switch self {
        case .empty: return .empty
        case .set(let s): return spell(s)
        case .alternatives(let xs): return .oneOf(xs.filter { !$0.isEmptyLanguage }.map { $0.grammar(spell) })
        case .repeated(let x, _, _) where x.isEmptyLanguage: return .empty
        case .sequence(let xs): return .seq(xs.map { $0.grammar(spell) })
        case .repeated(let x, let lo, let hi):
            let inner = x.grammar(spell)
            switch (lo, hi) {
            case (0, nil): return .star(inner)
            case (1, nil): return .plus(inner)
            case (0, 1?): return .optional(inner)
            case (1, 1?): return inner
            case (_, 0?): return .empty
            default: return .repeatCount(inner, min: lo, max: hi)
            }
        }
    }
}

/// A set of Unicode scalars as sorted, disjoint, non-adjacent ranges (surrogates never in).
struct ScalarSet: Equatable {
    private(set) var ranges: [ClosedRange<UInt32>]

    static let maxScalar: UInt32 = 0x10FFFF
    static let all = ScalarSet([0...0xD7FF, 0xE000...0x10FFFF])

    init(_ ranges: [ClosedRange<UInt32>]) {
        var out: [ClosedRange<UInt32>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            // Surrogates are not scalars.
            for piece in Self.split(r) {
                if let last = out.last, piece.lowerBound <= last.upperBound &+ 1 {
                    out[out.count - 1] = last.lowerBound...max(last.upperBound, piece.upperBound)
                } else {
                    out.append(piece)
                }
            }
        }
        self.ranges = out
    }

    private static func split(_ r: ClosedRange<UInt32>) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        if r.lowerBound < 0xD800 { out.append(r.lowerBound...min(r.upperBound, 0xD7FF)) }
        if r.upperBound > 0xDFFF { out.append(max(r.lowerBound, 0xE000)...r.upperBound) }
        return out
    }

    init(_ chars: String) {
        self.init(chars.unicodeScalars.map { $0.value...$0.value })
    }

    var isEmpty: Bool { ranges.isEmpty }

    func contains(_ v: UInt32) -> Bool { ranges.contains { $0.contains(v) } }

    var complement: ScalarSet {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = r.upperBound &+ 1
            if r.upperBound == Self.maxScalar { return ScalarSet(out) }
        }
        out.append(next...Self.maxScalar)
        return ScalarSet(out)
    }

    func union(_ other: ScalarSet) -> ScalarSet { ScalarSet(ranges + other.ranges) }
    func intersection(_ other: ScalarSet) -> ScalarSet { complement.union(other.complement).complement }
    func subtracting(_ other: ScalarSet) -> ScalarSet { intersection(other.complement) }

    /// One character of the set as a grammar node: a literal for a single character (so that
    /// a pattern's fixed text prints as text), else a class; no character: an empty choice.
    var node: GrammarNode {
        if ranges.isEmpty { return .choice([]) }
        if ranges.count == 1, ranges[0].lowerBound == ranges[0].upperBound, let u = Unicode.Scalar(ranges[0].lowerBound) {
            return .literal(String(u))
        }
        return .characters(characterClass)
    }

    /// The set as a grammar class: its ranges, or the negation of its complement when that is
    /// shorter.
    var characterClass: CharacterClass {
        let c = complement
        if c.ranges.count < ranges.count, !c.ranges.isEmpty {
            return CharacterClass(c.ranges, negated: true)
        }
        return CharacterClass(ranges)
    }
}

/// A recursive-descent reader of the subset ``PatternNode`` describes.
struct PatternParser {
    let s: [Unicode.Scalar]
    var i = 0
    var nodes = 0
    var depth = 0

    init(_ s: [Unicode.Scalar]) { self.s = s }

    struct Alternative {
        var node: PatternNode
        var anchoredStart: Bool
        var anchoredEnd: Bool
    }

    mutating func topLevel() -> [Alternative]? {
        var out: [Alternative] = []
        while true {
            var start = false
            if peek == "^" { i += 1; start = true }
            guard var seq = sequence(topLevel: true) else { return nil }
            var end = false
            if peek == "$" {
                i += 1
                end = true
                guard peek == nil || peek == "|" else { return nil }
            }
            if case .sequence(let xs) = seq, xs.isEmpty { seq = .empty }
            out.append(Alternative(node: seq, anchoredStart: start, anchoredEnd: end))
            if peek == "|" { i += 1; continue }
            return peek == nil ? out : nil
        }
    }

    var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }

    mutating func alternatives() -> PatternNode? {
        var alts: [PatternNode] = []
        while true {
            guard let seq = sequence(topLevel: false) else { return nil }
            alts.append(seq)
            if peek == "|" { i += 1; continue }
            return alts.count == 1 ? alts[0] : .alternatives(alts)
        }
    }

    mutating func sequence(topLevel: Bool) -> PatternNode? {
        var items: [PatternNode] = []
        while let c = peek, c != "|", c != ")" {
            if c == "$" {
                // Only at the end of a top-level alternative (the caller reads it there).
                if topLevel { break }
                return nil
            }
            guard var atom = atom() else { return nil }
            guard let q = quantifier() else { return nil }
            if let (lo, hi) = q { atom = .repeated(atom, min: lo, max: hi) }
            nodes += 1
            items.append(atom)
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    /// `nil` when malformed; `.some(nil)` for no quantifier.
    mutating func quantifier() -> (Int, Int?)?? {
        guard let c = peek else { return .some(nil) }
        var q: (Int, Int?)
        switch c {
        case "*": q = (0, nil); i += 1
        case "+": q = (1, nil); i += 1
        case "?": q = (0, 1); i += 1
        case "{":
            let save = i
            i += 1
            guard let lo = number() else { i = save; return .some(nil) }
            var hi: Int? = lo
            if peek == "," {
                i += 1
                hi = number()
            }
            guard peek == "}" else { i = save; return .some(nil) }
            i += 1
            if let h = hi, h < lo { return nil }
            guard lo <= PatternNode.maxRepeat, (hi ?? 0) <= PatternNode.maxRepeat else { return nil }
            q = (lo, hi)
        default:
            return .some(nil)
        }
        if peek == "?" { i += 1 }  // lazy: the same language
        if let c = peek, c == "*" || c == "+" || c == "?" || c == "{" {
            if c != "{" { return nil }  // a quantified quantifier
        }
        return .some(q)
    }

    mutating func number() -> Int? {
        var n = 0
        var any = false
        while let c = peek, c.value >= 0x30 && c.value <= 0x39 {
            n = n * 10 + Int(c.value - 0x30)
            if n > 1_000_000 { return nil }
            any = true
            i += 1
        }
        return any ? n : nil
    }

    mutating func atom() -> PatternNode? {
        guard let c = peek else { return nil }
        switch c {
        case "(":
            i += 1
            if peek == "?" {
                i += 1
                if peek == ":" {
                    i += 1
                } else if peek == "<", i + 1 < s.count, s[i + 1] != "=", s[i + 1] != "!" {
                    // A named group.
                    while let d = peek, d != ">" { i += 1 }
                    guard peek == ">" else { return nil }
                    i += 1
                } else {
                    return nil  // look-around, flags
                }
            }
            depth += 1
            guard depth <= 64, let inner = alternatives(), peek == ")" else { return nil }
            depth -= 1
            i += 1
            return inner
        case "[":
            i += 1
            return characterSet().map { .set($0) }
        case ".":
            i += 1
            return .set(ScalarSet.all.subtracting(ScalarSet("\n\r\u{2028}\u{2029}")))
        case "\\":
            i += 1
            return escape(inClass: false).map { .set($0) }
        case "^", "$", "*", "+", "?", "{", "}", "]", "|", ")":
            if c == "}" || c == "]" {
                i += 1
                return .set(ScalarSet([c.value...c.value]))
            }
            return nil
        default:
            i += 1
            return .set(ScalarSet([c.value...c.value]))
        }
    }

    static let digits = ScalarSet([0x30...0x39])
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    static let space = ScalarSet([0x09...0x0D, 0x20...0x20])

    /// After a backslash: a class escape or one character.
    mutating func escape(inClass: Bool) -> ScalarSet? {
        guard let c = peek else { return nil }
        i += 1
        switch c {
        case "d": return Self.digits
        case "D": return Self.digits.complement
        case "w": return Self.word
        case "W": return Self.word.complement
        case "s": return Self.space
        case "S": return Self.space.complement
        case "n": return ScalarSet("\n")
        case "t": return ScalarSet("\t")
        case "r": return ScalarSet("\r")
        case "f": return ScalarSet("\u{0C}")
        case "v": return ScalarSet("\u{0B}")
        case "0":
            if let d = peek, d.value >= 0x30 && d.value <= 0x39 { return nil }
            return ScalarSet([0...0])
        case "x":
            guard let v = hex(count: 2) else { return nil }
            return ScalarSet([v...v])
        case "u":
            if peek == "{" {
                i += 1
                var v: UInt32 = 0
                var n = 0
                while let d = peek, let h = Self.hexValue(d) { v = v * 16 + h; n += 1; i += 1; if n > 6 { return nil } }
                guard n > 0, peek == "}", v <= ScalarSet.maxScalar else { return nil }
                i += 1
                return ScalarSet([v...v])
            }
            guard let v = hex(count: 4) else { return nil }
            return ScalarSet([v...v])
        case "b":
            return inClass ? ScalarSet([8...8]) : nil  // a word boundary outside a class
        default:
            // An escaped punctuation character stands for itself; a letter or digit escape
            // (back references, \p, \B, \k ...) is outside the subset.
            let v = c.value
            let isAlnum = (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
            return isAlnum ? nil : ScalarSet([v...v])
        }
    }

    static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c.value {
        case 0x30...0x39: return c.value - 0x30
        case 0x41...0x46: return c.value - 0x37
        case 0x61...0x66: return c.value - 0x57
        default: return nil
        }
    }

    mutating func hex(count: Int) -> UInt32? {
        var v: UInt32 = 0
        for _ in 0..<count {
            guard let c = peek, let h = Self.hexValue(c) else { return nil }
            v = v * 16 + h
            i += 1
        }
        return v
    }

    /// After `[`: the class to its `]`.
    mutating func characterSet() -> ScalarSet? {
        var negated = false
        if peek == "^" { negated = true; i += 1 }
        var set = ScalarSet([])
        var first = true
        while true {
            guard let c = peek else { return nil }
            if c == "]" && !first { i += 1; break }
            if c == "]" && first {
                // ECMA-262: `[]` is empty, `[^]` is any character.
                i += 1
                return negated ? .all : ScalarSet([])
            }
            first = false
            guard let lo = classAtom() else { return nil }
            if peek == "-", i + 1 < s.count, s[i + 1] != "]" {
                i += 1
                guard let hi = classAtom() else { return nil }
                guard lo.ranges.count == 1, hi.ranges.count == 1,
                      lo.ranges[0].lowerBound == lo.ranges[0].upperBound, hi.ranges[0].lowerBound == hi.ranges[0].upperBound,
                      lo.ranges[0].lowerBound <= hi.ranges[0].lowerBound else { return nil }
                set = set.union(ScalarSet([lo.ranges[0].lowerBound...hi.ranges[0].lowerBound]))
            } else {
                set = set.union(lo)
            }
        }
        return negated ? set.complement : set
    }

    mutating func classAtom() -> ScalarSet? {
        guard let c = peek else { return nil }
        i += 1
        if c == "\\" { return escape(inClass: true) }
        if c == "[" && (peek == ":" || peek == "=" || peek == ".") { return nil }  // POSIX classes
        return ScalarSet([c.value...c.value])
    }
}
