@testable import ToolCallKit

/// Matches bytes against an exported grammar's document (the rules before a target prints
/// them), so that the Swift tests can check a grammar without xgrammar, llguidance or llama.cpp.
///
/// It computes, for a node and a set of start offsets, the set of offsets where the node can
/// end (rules memoized per start): exact for the grammars the exporter writes, which are never
/// left-recursive. Text regions are checked by their definition (no excluded string in the
/// text, the bounds, the edges, then the end), not through ``TextAutomaton``, so that the
/// automaton the printers write is checked against the same definition by the Python tests.
struct GrammarMatcher {
    let doc: GrammarDocument
    let input: [UInt8]
    private var memo: [String: [Int: Set<Int>]] = [:]
    private var active: Set<String> = []

    init(_ doc: GrammarDocument, _ input: [UInt8]) {
        self.doc = doc
        self.input = input
    }

    /// Whether the whole input is in the document's language (its `root`).
    static func accepts(_ doc: GrammarDocument, _ input: [UInt8]) -> Bool {
        var m = GrammarMatcher(doc, input)
        guard let root = doc.node("root") else { return false }
        return m.ends(root, from: [0]).contains(input.count)
    }

    mutating func ends(_ node: GrammarNode, from starts: Set<Int>) -> Set<Int> {
        if starts.isEmpty { return [] }
        switch node {
        case .literal(let s), .marker(let s):
            let b = Array(s.utf8)
            return Set(starts.filter { p in p + b.count <= input.count && Array(input[p..<(p + b.count)]) == b }.map { $0 + b.count })
        case .rule(let name):
            var out = Set<Int>()
            for p in starts { out.formUnion(rule(name, at: p)) }
            return out
        case .sequence(let xs):
            var cur = starts
            for x in xs { cur = ends(x, from: cur) }
            return cur
        case .choice(let xs):
            var out = Set<Int>()
            for x in xs { out.formUnion(ends(x, from: starts)) }
            return out
        case .optional(let x):
            return starts.union(ends(x, from: starts))
        case .star(let x):
            return closure(x, from: starts)
        case .plus(let x):
            return closure(x, from: ends(x, from: starts))
        case .repeatCount(let x, let lo, let hi):
            var cur = starts
            for _ in 0..<lo { cur = ends(x, from: cur) }
            guard let hi else { return closure(x, from: cur) }
            var out = cur
            for _ in lo..<max(lo, hi) {
                cur = ends(x, from: cur)
                if cur.isEmpty { break }
                out.formUnion(cur)
            }
            return out
        case .characters(let c):
            var out = Set<Int>()
            for p in starts {
                guard let (v, n) = scalar(at: p) else { continue }
                let inRanges = c.ranges.contains { $0.contains(v) }
                if inRanges != c.negated { out.insert(p + n) }
            }
            return out
        case .json:
            // Only native targets keep JSON nodes; the tests match GBNF documents.
            return []
        case .text(let region):
            var out = Set<Int>()
            for p in starts { out.formUnion(text(region, from: p)) }
            return out
        }
    }

    private mutating func closure(_ x: GrammarNode, from starts: Set<Int>) -> Set<Int> {
        var out = starts
        var frontier = starts
        while !frontier.isEmpty {
            let next = ends(x, from: frontier).subtracting(out)
            out.formUnion(next)
            frontier = next
        }
        return out
    }

    private mutating func rule(_ name: String, at p: Int) -> Set<Int> {
        if let r = memo[name]?[p] { return r }
        let key = "\(name)@\(p)"
        // Left recursion (never written by the exporter) matches nothing here.
        guard active.insert(key).inserted, let node = doc.node(name) else { return [] }
        let r = ends(node, from: [p])
        active.remove(key)
        memo[name, default: [:]][p] = r
        return r
    }

    /// The Unicode scalar at `p` and its length in bytes (nil: not a well-formed one).
    private func scalar(at p: Int) -> (UInt32, Int)? {
        guard p < input.count else { return nil }
        let b0 = input[p]
        let n = b0 < 0x80 ? 1 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0
        guard n > 0, p + n <= input.count else { return nil }
        let s = String(decoding: input[p..<(p + n)], as: UTF8.self).unicodeScalars
        guard s.count == 1, let v = s.first?.value, v != 0xFFFD || Array(input[p..<(p + n)]) == [0xEF, 0xBF, 0xBD] else { return nil }
        return (v, n)
    }

    /// The ends of a text region starting at `p`.
    private func text(_ region: TextRegion, from p: Int) -> Set<Int> {
        var out = Set<Int>()
        let excluded = region.excluded.filter { !$0.isEmpty }.map { Array($0.utf8) }
        let end = Array(region.end.utf8)
        let edge = region.noEdge
        func isEdge(_ v: UInt32) -> Bool { edge.map { e in e.ranges.contains { $0.contains(v) } != e.negated } ?? false }
        var q = p
        var count = 0
        var last: UInt32? = nil
        while true {
            let closes = q + end.count <= input.count && Array(input[q..<(q + end.count)]) == end
            if count >= region.minCharacters && !(last.map(isEdge) ?? false) && closes {
                out.insert(q + end.count)
            }
            guard let (v, n) = scalar(at: q) else { break }
            if count == 0 && isEdge(v) { break }
            q += n
            count += 1
            if let maxCount = region.maxCharacters, count > maxCount { break }
            last = v
            // An excluded string that ends here, inside the text, ends the region.
            if excluded.contains(where: { e in q - e.count >= p && Array(input[(q - e.count)..<q]) == e }) { break }
        }
        return out
    }
}
