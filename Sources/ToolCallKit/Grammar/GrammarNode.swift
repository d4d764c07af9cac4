// ToolCallKit — an exported grammar before it is printed: one small expression language that
// every target (xgrammar structural tags, llguidance Lark, llama.cpp GBNF) can print.

/// One expression of an exported grammar.
///
/// The exporter builds a grammar from a format's ``CallLayout``, the tools' schemas and the
/// policy; the printers write it in each target's language. Expressions name what they mean
/// (a marker, a JSON value by a schema, text that holds none of some strings) rather than how a
/// language spells it, so that each printer can use its language's own construct (llguidance's
/// `%json`, xgrammar's `json_schema` and `any_text`, a character automaton in GBNF).
indirect enum GrammarNode: Sendable, Equatable {
    /// These bytes exactly (UTF-8 text).
    case literal(String)
    /// A format marker: the same bytes as a literal, written as the special token it is when the
    /// tokenizer given to the exporter has it as one.
    case marker(String)
    /// A named rule of the document.
    case rule(String)
    case sequence([GrammarNode])
    case choice([GrammarNode])
    case optional(GrammarNode)
    case star(GrammarNode)
    case plus(GrammarNode)
    /// `min` to `max` (nil: no bound) of the node.
    case repeatCount(GrammarNode, min: Int, max: Int?)
    /// One Unicode scalar of the class.
    case characters(CharacterClass)
    /// One JSON value that the schema admits (with the exporter's reading of the schema; see
    /// docs/grammar.md). Printed natively where a target has JSON schemas, else expanded.
    case json(JSONValue)
    /// Text that holds none of the region's excluded strings, then the region's end.
    case text(TextRegion)

    static let empty = GrammarNode.literal("")

    /// A sequence, flattened, with empty literals dropped and adjacent literals joined.
    static func seq(_ parts: [GrammarNode]) -> GrammarNode {
        var out: [GrammarNode] = []
        for p in parts {
            switch p {
            case .sequence(let inner):
                for q in inner { append(q, to: &out) }
            default:
                append(p, to: &out)
            }
        }
        if out.isEmpty { return .empty }
        return out.count == 1 ? out[0] : .sequence(out)
    }

    private static func append(_ p: GrammarNode, to out: inout [GrammarNode]) {
        if case .literal(let s) = p {
            if s.isEmpty { return }
            if case .literal(let t)? = out.last {
                out[out.count - 1] = .literal(t + s)
                return
            }
        }
        out.append(p)
    }

    /// A choice; one alternative is itself.
    static func oneOf(_ alternatives: [GrammarNode]) -> GrammarNode {
        alternatives.count == 1 ? alternatives[0] : .choice(alternatives)
    }
}

/// A set of Unicode scalars, as ranges (possibly negated: every scalar outside them).
struct CharacterClass: Sendable, Equatable {
    var ranges: [ClosedRange<UInt32>]
    var negated: Bool

    init(_ ranges: [ClosedRange<UInt32>], negated: Bool = false) {
        self.ranges = ranges
        self.negated = negated
    }

    /// The class of these characters.
    init(_ chars: String, negated: Bool = false) {
        self.ranges = chars.unicodeScalars.map { $0.value...$0.value }
        self.negated = negated
    }

    static let digit = CharacterClass([0x30...0x39])
    static let nonZeroDigit = CharacterClass([0x31...0x39])
}

/// Free text in an exported grammar: any characters, holding none of `excluded`, then `end`
/// (the markup that closes the region; empty when the region runs to the end of the output).
struct TextRegion: Sendable, Equatable {
    /// Strings the text never holds (markers, a value's closing tag).
    var excluded: [String]
    /// What follows the text; the excluded strings are searched in the text only.
    var end: String
    /// The fewest and most characters (Unicode scalars) the text holds.
    var minCharacters: Int = 0
    var maxCharacters: Int? = nil
    /// Characters the text may not begin or end with (a value whose edges the parser strips).
    var noEdge: CharacterClass? = nil
}

/// A grammar document: named rules, the first of which is the root.
struct GrammarDocument: Sendable {
    var rules: [(name: String, node: GrammarNode)] = []
    private var index: [String: Int] = [:]

    /// Adds a rule named `base` (or `base` and a number when taken) and returns a reference.
    mutating func add(_ base: String, _ node: GrammarNode) -> GrammarNode {
        let name = fresh(base)
        index[name] = rules.count
        rules.append((name, node))
        return .rule(name)
    }

    /// Reserves a name now and sets its rule later (recursive rules).
    mutating func reserve(_ base: String) -> String {
        let name = fresh(base)
        index[name] = rules.count
        rules.append((name, .empty))
        return name
    }

    mutating func set(_ name: String, _ node: GrammarNode) {
        if let i = index[name] { rules[i].node = node }
    }

    func node(_ name: String) -> GrammarNode? { index[name].map { rules[$0].node } }

    /// A rule name made of lowercase letters, digits and `_` (printers map `_` where their
    /// language needs it), unique in the document.
    private func fresh(_ base: String) -> String {
        var clean = ""
        for s in base.unicodeScalars {
            if (s >= "a" && s <= "z") || (s >= "0" && s <= "9") {
                clean.unicodeScalars.append(s)
            } else if s >= "A" && s <= "Z" {
                clean.unicodeScalars.append(Unicode.Scalar(s.value + 32)!)
            } else if !clean.hasSuffix("_") && !clean.isEmpty {
                clean += "_"
            }
            if clean.count >= 40 { break }
        }
        while clean.hasSuffix("_") { clean.removeLast() }
        if clean.isEmpty || (clean.first!.isNumber) { clean = "r_" + clean }
        if index[clean] == nil && !Self.reserved.contains(clean) { return clean }
        var n = 2
        while index["\(clean)_\(n)"] != nil { n += 1 }
        return "\(clean)_\(n)"
    }

    /// Names the printers use themselves.
    private static let reserved: Set<String> = ["root", "start", "ws", "json_value"]

    /// Sets the root rule (first in the document).
    mutating func setRoot(_ node: GrammarNode) {
        if let i = index["root"] {
            rules[i].node = node
        } else {
            for k in index.keys { index[k]! += 1 }
            index["root"] = 0
            rules.insert(("root", node), at: 0)
        }
    }
}
