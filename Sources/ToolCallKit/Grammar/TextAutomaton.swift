// ToolCallKit — free text that holds none of some strings, as a character automaton: how a
// grammar language without intersection (GBNF, xgrammar's EBNF) says "no marker here".

/// The automaton of a ``TextRegion``: an Aho–Corasick automaton over Unicode scalars whose
/// states are the longest suffix of the text read that begins an excluded string (a state that
/// completes one is dead), crossed with a character count (for the bounds) and whether the last
/// character was an edge character.
struct TextAutomaton {
    struct State: Hashable {
        var node: Int
        var count: Int
        var lastEdge: Bool
    }

    /// A transition on a set of scalars (`negated`: every scalar outside `scalars`).
    struct Edge {
        var scalars: [UInt32]
        var negated: Bool
        var target: State
    }

    private var children: [[UInt32: Int]] = [[:]]
    private var fail: [Int] = [0]
    private var dead: [Bool] = [false]
    /// Every scalar an excluded string or the edge class names: the others all lead to the root.
    let alphabet: [UInt32]
    let region: TextRegion
    private let edge: Set<UInt32>
    private let cap: Int

    init(_ region: TextRegion) {
        self.region = region
        var edge = Set<UInt32>()
        if let e = region.noEdge { for r in e.ranges { for v in r { edge.insert(v) } } }
        self.edge = edge
        var letters = edge
        for p in region.excluded where !p.isEmpty {
            var s = 0
            for u in p.unicodeScalars {
                letters.insert(u.value)
                if let c = children[s][u.value] {
                    s = c
                } else {
                    children.append([:])
                    fail.append(0)
                    dead.append(false)
                    children[s][u.value] = children.count - 1
                    s = children.count - 1
                }
            }
            dead[s] = true
        }
        alphabet = letters.sorted()
        cap = region.maxCharacters ?? max(region.minCharacters, region.noEdge != nil ? 1 : 0)
        // Failure links, breadth first.
        var queue: [Int] = []
        for (_, c) in children[0] { queue.append(c) }
        var head = 0
        while head < queue.count {
            let s = queue[head]
            head += 1
            for (u, c) in children[s] {
                var f = fail[s]
                while f != 0 && children[f][u] == nil { f = fail[f] }
                let target = children[f][u] ?? 0
                fail[c] = target == c ? 0 : target
                if dead[fail[c]] { dead[c] = true }
                queue.append(c)
            }
        }
    }

    private func step(_ s: Int, _ u: UInt32) -> Int {
        var f = s
        while f != 0 && children[f][u] == nil { f = fail[f] }
        return children[f][u] ?? 0
    }

    let start = State(node: 0, count: 0, lastEdge: false)

    /// Whether the text may end in `s`.
    func accepts(_ s: State) -> Bool {
        s.count >= region.minCharacters && !s.lastEdge
    }

    private func next(_ s: State, _ u: UInt32?) -> State? {
        let isEdge = u.map { edge.contains($0) } ?? false
        if isEdge && s.count == 0 { return nil }
        var count = s.count + 1
        if let max = region.maxCharacters {
            if count > max { return nil }
        } else {
            count = min(count, cap)
        }
        let node = u.map { step(s.node, $0) } ?? 0
        if dead[node] { return nil }
        return State(node: node, count: count, lastEdge: isEdge)
    }

    /// The transitions out of `s`, grouped by target.
    func edges(_ s: State) -> [Edge] {
        var byTarget: [State: [UInt32]] = [:]
        var order: [State] = []
        for u in alphabet {
            guard let t = next(s, u) else { continue }
            if byTarget[t] == nil { order.append(t) }
            byTarget[t, default: []].append(u)
        }
        var out = order.map { Edge(scalars: byTarget[$0]!, negated: false, target: $0) }
        if let other = next(s, nil) {
            out.append(Edge(scalars: alphabet, negated: true, target: other))
        }
        return out
    }

    /// Every state reachable from the start, in order of discovery (the start first).
    func states(limit: Int) -> [State]? {
        var seen: [State: Int] = [start: 0]
        var list = [start]
        var i = 0
        while i < list.count {
            for e in edges(list[i]) where seen[e.target] == nil {
                seen[e.target] = list.count
                list.append(e.target)
                if list.count > limit { return nil }
            }
            i += 1
        }
        return list
    }
}
