// ToolCallKit — writing a grammar document as an xgrammar structural tag.

extension GrammarPrinter {
    /// The document as `{"type": "structural_tag", "format": {...}}`.
    ///
    /// With a `shape` (text with triggered blocks), the top is xgrammar's own `triggered_tags`
    /// (`at_least_one` for a required call, `stop_after_first` for one call), so that free text
    /// costs what it costs in xgrammar's built-in tags; otherwise the root is mapped node by node.
    /// JSON arguments are `json_schema` formats; parts without JSON (raw values, Python and Gemma
    /// values, text automata) are `grammar` formats in xgrammar's EBNF.
    func xgrammar(shape: XGrammarShape?) -> String {
        var f: JSONValue
        if let shape {
            // xgrammar 0.2.9 refuses a token `begin` inside `triggered_tags` (a string trigger
            // dispatches on text, and it matches a special token against its text); the end
            // and the markers inside may be tokens.
            let tag = obj(["type": .string("tag"), "begin": .string(shape.begin),
                           "content": format(shape.block), "end": endFormat(shape.end)])
            var triggered: [(key: String, value: JSONValue)] = [
                ("type", .string("triggered_tags")), ("triggers", .array([.string(shape.trigger)])),
                ("tags", .array([tag])), ("at_least_one", .bool(shape.atLeastOne)),
                ("stop_after_first", .bool(shape.stopAfterFirst)),
            ]
            if !shape.excludes.isEmpty { triggered.append(("excludes", .array(shape.excludes.map { .string($0) }))) }
            f = .object(triggered)
            if let r = shape.reasoning {
                let excludes = shape.reasoningExcludes.filter { $0 != r.close }
                var anyText: [(key: String, value: JSONValue)] = [("type", .string("any_text"))]
                if !excludes.isEmpty { anyText.append(("excludes", .array(excludes.map { .string($0) }))) }
                let think = obj(["type": .string("tag"), "begin": markerFormat(r.open, asBegin: true), "content": .object(anyText), "end": endFormat(r.close)])
                f = seqFormat([
                    obj(["type": .string("optional"), "content": seqFormat([think, obj(["type": .string("optional"), "content": constFormat("\n\n")])])]),
                    f,
                ])
            }
        } else {
            f = format(doc.node("root") ?? .empty)
        }
        return JSONValue.object([("type", .string("structural_tag")), ("format", f)]).jsonText
    }

    private func obj(_ d: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(d.map { ($0.key, $0.value) })
    }

    private func constFormat(_ s: String) -> JSONValue {
        obj(["type": .string("const_string"), "value": .string(s)])
    }

    private func seqFormat(_ xs: [JSONValue]) -> JSONValue {
        xs.count == 1 ? xs[0] : obj(["type": .string("sequence"), "elements": .array(xs)])
    }

    /// A marker as a format (a sequence of tokens and strings when it holds special tokens), or
    /// as a tag's `begin` (a string, or one token).
    private func markerFormat(_ s: String, asBegin: Bool = false) -> JSONValue {
        let parts = split(s)
        if asBegin {
            if parts.count == 1, let t = parts[0].token { return obj(["type": .string("token"), "token": .number(String(t))]) }
            return .string(s)
        }
        let xs = parts.map { p in p.token.map { obj(["type": .string("token"), "token": .number(String($0))]) } ?? constFormat(p.text) }
        return seqFormat(xs)
    }

    /// A tag's end: one special token, or the text.
    private func endFormat(_ s: String) -> JSONValue {
        let parts = split(s)
        if parts.count == 1, let t = parts[0].token { return obj(["type": .string("token"), "token": .number(String(t))]) }
        return .string(s)
    }

    /// Whether `node` is mapped part by part rather than as one EBNF grammar: it holds a JSON
    /// schema or free text (xgrammar's own `json_schema` and `any_text` compile much faster than
    /// the same in EBNF: a text automaton is a grammar state per character it tracks, each with
    /// a token mask). A recursive rule is never unrolled: it is written as a grammar.
    private func structured(_ node: GrammarNode, _ memo: XGrammarMemo) -> Bool {
        switch node {
        case .json: return true
        case .text(let r): return Self.isFreeText(r)
        case .rule(let r):
            if let v = memo.rules[r] { return v }
            guard !memo.visiting.contains(r), let n = doc.node(r) else {
                // Recursion: neither this rule nor those around it can be unrolled.
                memo.recursive.formUnion(memo.visiting)
                return false
            }
            memo.visiting.insert(r)
            let v = structured(n, memo)
            memo.visiting.remove(r)
            let result = v && !memo.recursive.contains(r)
            memo.rules[r] = result
            return result
        case .sequence(let xs), .choice(let xs):
            // Every child is visited (so that recursion anywhere below is known); a recursive
            // rule is written as a grammar of its own.
            var any = false
            for x in xs where structured(x, memo) { any = true }
            return any
        case .optional(let x), .star(let x), .plus(let x), .repeatCount(let x, _, _):
            return structured(x, memo)
        default:
            return false
        }
    }

    /// Free text that xgrammar's `any_text` says: no bounds but at most one leading character,
    /// no edge rule.
    static func isFreeText(_ r: TextRegion) -> Bool {
        r.maxCharacters == nil && r.noEdge == nil && r.minCharacters <= 1
    }

    /// A node as a structural-tag format.
    func format(_ node: GrammarNode) -> JSONValue {
        format(node, XGrammarMemo())
    }

    private func format(_ node: GrammarNode, _ memo: XGrammarMemo) -> JSONValue {
        let format = { (n: GrammarNode) in self.format(n, memo) }
        switch node {
        case .literal(let s):
            return constFormat(s)
        case .marker(let s):
            return markerFormat(s)
        case .json(let schema):
            return obj(["type": .string("json_schema"), "json_schema": schema])
        case .text(let r) where Self.isFreeText(r):
            var anyText: [(key: String, value: JSONValue)] = [("type", .string("any_text"))]
            if !r.excluded.isEmpty { anyText.append(("excludes", .array(r.excluded.map { .string($0) }))) }
            var rest: JSONValue = .object(anyText)
            if !r.end.isEmpty {
                rest = obj(["type": .string("tag"), "begin": .string(""), "content": .object(anyText), "end": endFormat(r.end)])
            }
            guard r.minCharacters == 1 else { return rest }
            // Not empty: a first character that begins no excluded string (so none can start
            // there, and any_text excludes the rest exactly), then any text.
            var first = Set<UInt32>()
            for e in r.excluded { if let u = e.unicodeScalars.first { first.insert(u.value) } }
            let lead = GrammarNode.characters(CharacterClass(first.sorted().map { $0...$0 }, negated: true))
            return seqFormat([obj(["type": .string("grammar"), "grammar": .string(ebnf(lead))]), rest])
        default:
            break
        }
        guard structured(node, memo) else {
            return obj(["type": .string("grammar"), "grammar": .string(ebnf(node))])
        }
        switch node {
        case .rule(let r):
            return format(doc.node(r) ?? .empty)
        case .sequence(let xs):
            return seqFormat(xs.map(format))
        case .choice(let xs):
            return xs.count == 1 ? format(xs[0]) : obj(["type": .string("or"), "elements": .array(xs.map(format))])
        case .optional(let x):
            return obj(["type": .string("optional"), "content": format(x)])
        case .star(let x):
            return obj(["type": .string("star"), "content": format(x)])
        case .plus(let x):
            return obj(["type": .string("plus"), "content": format(x)])
        case .repeatCount(let x, let lo, let hi):
            if let hi {
                return obj(["type": .string("repeat"), "min": .number(String(lo)), "max": .number(String(hi)), "content": format(x)])
            }
            return seqFormat([
                obj(["type": .string("repeat"), "min": .number(String(lo)), "max": .number(String(lo)), "content": format(x)]),
                obj(["type": .string("star"), "content": format(x)]),
            ])
        default:
            return obj(["type": .string("grammar"), "grammar": .string(ebnf(node))])
        }
    }
}

/// What ``GrammarPrinter/format(_:)`` learns about the document's rules while it maps them.
final class XGrammarMemo {
    var rules: [String: Bool] = [:]
    var visiting: Set<String> = []
    var recursive: Set<String> = []
}
