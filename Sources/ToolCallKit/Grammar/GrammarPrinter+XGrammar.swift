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
            let tag = obj(["type": .string("tag"), "begin": markerFormat(shape.begin, asBegin: true),
                           "content": format(shape.block), "end": .string(shape.end)])
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
                let think = obj(["type": .string("tag"), "begin": .string(r.open), "content": .object(anyText), "end": .string(r.close)])
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

    /// Whether `node` holds a JSON node (through its rules).
    private func holdsJSON(_ node: GrammarNode, _ seen: inout Set<String>) -> Bool {
        switch node {
        case .json: return true
        case .rule(let r):
            guard seen.insert(r).inserted, let n = doc.node(r) else { return false }
            return holdsJSON(n, &seen)
        case .sequence(let xs), .choice(let xs):
            return xs.contains { holdsJSON($0, &seen) }
        case .optional(let x), .star(let x), .plus(let x), .repeatCount(let x, _, _):
            return holdsJSON(x, &seen)
        default:
            return false
        }
    }

    /// A node as a structural-tag format.
    func format(_ node: GrammarNode) -> JSONValue {
        var seen = Set<String>()
        switch node {
        case .literal(let s):
            return constFormat(s)
        case .marker(let s):
            return markerFormat(s)
        case .json(let schema):
            return obj(["type": .string("json_schema"), "json_schema": schema])
        case .text(let r) where r.minCharacters == 0 && r.maxCharacters == nil && r.noEdge == nil:
            var anyText: [(key: String, value: JSONValue)] = [("type", .string("any_text"))]
            if !r.excluded.isEmpty { anyText.append(("excludes", .array(r.excluded.map { .string($0) }))) }
            if r.end.isEmpty { return .object(anyText) }
            return obj(["type": .string("tag"), "begin": .string(""), "content": .object(anyText), "end": .string(r.end)])
        default:
            break
        }
        guard holdsJSON(node, &seen) else {
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
