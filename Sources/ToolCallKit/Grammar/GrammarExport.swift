// ToolCallKit — constrained-decoding grammars from a format's declaration, the tools and the
// request's tool_choice / parallel_tool_calls (docs/grammar.md).

/// The language an exported grammar is written in.
public enum GrammarTarget: String, Sendable, CaseIterable {
    /// An xgrammar structural tag, `{"type": "structural_tag", "format": {...}}`.
    case xgrammar
    /// A llguidance Lark grammar (`%json` for JSON arguments, lazy lexemes for free text).
    case lark
    /// llama.cpp's GBNF; for a lazy grammar, the server's `{"grammar", "grammar_lazy",
    /// "grammar_triggers"}` object.
    case gbnf
}

/// What an exported grammar is for.
public struct GrammarOptions: Sendable {
    public var target: GrammarTarget
    public var toolChoice: ToolChoice
    /// At most one call when false.
    public var parallelToolCalls: Bool
    /// The format's reasoning block may come first.
    public var reasoning: Bool
    /// The output begins inside the reasoning block (the prompt opened it); implies `reasoning`.
    public var reasoningOpen: Bool
    /// Marker texts that are one special token in the model's vocabulary, with their ids: such
    /// markers are written as tokens (``GrammarOptions/specialTokens(in:)`` finds them).
    public var specialTokens: [String: Int]

    public init(
        target: GrammarTarget = .xgrammar, toolChoice: ToolChoice = .auto, parallelToolCalls: Bool = true,
        reasoning: Bool = false, reasoningOpen: Bool = false, specialTokens: [String: Int] = [:]
    ) {
        self.target = target
        self.toolChoice = toolChoice
        self.parallelToolCalls = parallelToolCalls
        self.reasoning = reasoning || reasoningOpen
        self.reasoningOpen = reasoningOpen
        self.specialTokens = specialTokens
    }
}

/// A grammar, as the target takes it.
public struct ExportedGrammar: Sendable {
    public let target: GrammarTarget
    /// The grammar's text: JSON for xgrammar and for a lazy GBNF grammar, Lark or GBNF text
    /// otherwise.
    public let text: String
    /// For GBNF: whether the grammar is lazy (llama.cpp applies it from the first trigger on).
    public let lazy: Bool
    /// For a lazy grammar: the trigger words, and the patterns (regular expressions).
    public let triggerWords: [String]
    /// What the grammar does not enforce that the validator checks, one line each
    /// (`tool "f": #/properties/a: "pattern" is not expressed ... (gbnf)`): never dropped
    /// silently.
    public let report: [String]
}

/// Why no grammar could be made.
public struct GrammarExportError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

extension ToolCallFormat {
    /// A constrained-decoding grammar for this format, these tools and this policy.
    ///
    /// The grammar admits exactly what docs/grammar.md says: text and calls in the format's own
    /// layout (``CallLayout``), arguments by each tool's schema, the policy's calls only.
    /// Everything it admits decodes, with the same tools and ``ToolCallDecoder/Options``
    /// (`toolChoice`, `parallelToolCalls`, `validate`), as accepted calls and plain text.
    public func grammar(tools: ToolSet, options: GrammarOptions = GrammarOptions()) throws(GrammarExportError) -> ExportedGrammar {
        guard let layout = definition.layout else {
            throw GrammarExportError(message: "format '\(rawValue)' has no call layout to export a grammar from (response-template formats have none yet)")
        }
        var exporter = GrammarExporter(format: self, layout: layout, tools: tools, options: options)
        return try exporter.export()
    }
}

extension GrammarOptions {
    /// The format's marker texts that are single special tokens of `tokenizer`, with their ids.
    public static func specialTokens(of format: ToolCallFormat, in tokenizer: Tokenizer) -> [String: Int] {
        var out: [String: Int] = [:]
        guard let layout = format.definition.layout else { return out }
        var special: [String: Int] = [:]
        for t in tokenizer.addedTokens where t.special { special[t.content] = t.id }
        for text in GrammarExporter.markupTexts(format: format, layout: layout) {
            if let id = special[text] { out[text] = id }
        }
        // Markup pieces that begin with a special token (`<|tool_call_begin|>functions.`).
        for (text, id) in special where out[text] == nil {
            if GrammarExporter.markupTexts(format: format, layout: layout).contains(where: { $0.hasPrefix(text) && $0 != text }) {
                out[text] = id
            }
        }
        return out
    }
}

/// Builds one grammar document; the printers write it.
struct GrammarExporter {
    let format: ToolCallFormat
    let layout: CallLayout
    let tools: ToolSet
    let options: GrammarOptions
    var values: ValueGrammar

    init(format: ToolCallFormat, layout: CallLayout, tools: ToolSet, options: GrammarOptions) {
        self.format = format
        self.layout = layout
        self.tools = tools
        self.options = options
        self.values = ValueGrammar(doc: GrammarDocument(), target: options.target.rawValue)
    }

    /// The texts the format's markup is made of that may be special tokens: the markers, the
    /// reasoning markers and the layout's markup pieces.
    static func markupTexts(format: ToolCallFormat, layout: CallLayout) -> [String] {
        var out = format.definition.markerTexts + format.definition.reasoningMarkerTexts + [layout.trigger]
        func add(_ pieces: [CallLayout.Piece]) {
            for p in pieces {
                switch p {
                case .markup(let s): out.append(s)
                case .optionalID(let prefix, _), .optionalQuotedID(let prefix): out.append(prefix)
                case .arguments(.tagged(let t)):
                    for q in t.open + t.close { if case .markup(let s) = q { out.append(s) } }
                default: break
                }
            }
        }
        add(layout.open)
        add(layout.call)
        add(layout.close)
        var seen = Set<String>()
        return out.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// What text outside calls never holds: every marker of the format (start, stray and
    /// conditional ones: the grammar always declares tools), and the reasoning openers when
    /// reasoning is separated.
    var textExcludes: [String] {
        var out = format.definition.markerTexts
        if options.reasoning { out += format.definition.reasoning.pairs.map(\.open) }
        var seen = Set<String>()
        return out.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// What ``build()`` makes: the document's rules are in ``values``; the roots are here.
    struct Built {
        /// The whole language (what the grammar admits from the start of the output).
        var main: GrammarNode
        /// For `auto` without reasoning: the language from the first block on (a lazy grammar's
        /// root).
        var lazyRoot: GrammarNode?
        var chosen: [ToolDefinition]
        var excludes: [String]
        var block: GrammarNode
        var blockWithoutClose: (GrammarNode, String)?
        var manyBlocks: Bool
    }

    /// The grammar's language as nodes (its rules go into ``values``' document).
    mutating func build() throws(GrammarExportError) -> Built {
        let chosen = try chosenTools()
        let excludes = textExcludes
        // Blocks: one call (parallel off) or a list of calls.
        let multiple = options.parallelToolCalls && !layout.oneCallPerBlock
        var block = GrammarNode.empty
        var bare: GrammarNode? = nil
        var blockWithoutClose: (GrammarNode, String)? = nil
        if !chosen.isEmpty {
            let call = try callChoice(chosen)
            let calls: GrammarNode = multiple ? .seq([call, .star(.seq([marker(layout.separator), call]))]) : call
            let open = try pieces(layout.open, tool: nil)
            let close = try pieces(layout.close, tool: nil)
            let body = values.doc.add("block", .seq([open, calls, close]))
            block = body
            if layout.bareAtStart { bare = body }
            // For xgrammar's tags: the block without its closing markup, which becomes the
            // tag's end (a tag whose content is unbounded needs one).
            if case .marker(let end) = close, !end.isEmpty {
                blockWithoutClose = (.seq([open, calls]), end)
            } else if options.target == .xgrammar, layout.oneCallPerBlock, case .markup(let last)? = layout.call.last,
                      let end = format.definition.markerTexts.filter({ !$0.isEmpty && last.hasSuffix($0) }).max(by: { $0.utf8.count < $1.utf8.count }) {
                // A block of one call that ends with one of the format's markers (`</tool_call>`):
                // the marker is the tag's end, so that it can be a token there.
                let trimmed = Array(layout.call.dropLast()) + [.markup(String(last.dropLast(end.count)))]
                var alts: [GrammarNode] = []
                for t in chosen { alts.append(values.doc.add("call_" + t.name, try pieces(trimmed, tool: t))) }
                blockWithoutClose = (.seq([open, .oneOf(alts)]), end)
            }
        }
        let trigger = layout.trigger
        let text = GrammarNode.text(TextRegion(excluded: excludes, end: ""))
        func textThen() -> GrammarNode { .text(TextRegion(excluded: excludes, end: trigger)) }
        // Text after the one block allowed: only where the template writes the content after the
        // calls (with many blocks, text may follow any of them anyway).
        let trailing: GrammarNode = layout.textAfter ? text : .empty
        let blockAfterText = GrammarNode.seq([textThen(), block])
        let blockHere = GrammarNode.seq([.marker(trigger), block])
        // Several blocks (separated by text) when calls may be many; one when not, or when a
        // block ends the message.
        let manyBlocks = options.parallelToolCalls && !layout.endsMessage
        var main: GrammarNode
        var lazyRoot: GrammarNode? = nil
        let choice = options.toolChoice
        if chosen.isEmpty {
            main = text
        } else if choice.requiresCall {
            var first = blockHere
            if let bare { first = .choice([blockHere, bare]) }
            main = manyBlocks ? .seq([first, .star(blockAfterText), text]) : .seq([first, trailing])
        } else {
            var start: GrammarNode = manyBlocks ? .seq([.star(blockAfterText), text]) : .choice([.seq([blockAfterText, trailing]), text])
            if let bare {
                start = .choice([manyBlocks ? .seq([bare, .star(blockAfterText), text]) : .seq([bare, trailing]), start])
            }
            main = start
            lazyRoot = manyBlocks ? .seq([blockHere, .star(blockAfterText), text]) : .seq([blockHere, trailing])
        }
        // Reasoning first: optional, or already open.
        let pairs = format.definition.reasoning.pairs
        let reasoningExcludes = pairs.map(\.close) + format.definition.reasoning.endedBy
        let afterReasoning = GrammarNode.optional(.literal("\n\n"))
        if options.reasoningOpen {
            let closes = GrammarNode.oneOf(Self.unique(pairs.map(\.close)).map { c in
                GrammarNode.text(TextRegion(excluded: reasoningExcludes, end: c))
            })
            main = .seq([closes, afterReasoning, main])
            lazyRoot = nil
        } else if options.reasoning {
            let pair = pairs.count > 1 ? pairs[1] : pairs[0]
            let block = GrammarNode.seq([.marker(pair.open), .text(TextRegion(excluded: reasoningExcludes, end: pair.close)), afterReasoning])
            main = .seq([.optional(block), main])
        }
        return Built(
            main: main, lazyRoot: lazyRoot, chosen: chosen, excludes: excludes, block: block,
            blockWithoutClose: blockWithoutClose, manyBlocks: manyBlocks)
    }

    /// The grammar document with its whole language as root, before any target prints it
    /// (what the tests match outputs against).
    mutating func document() throws(GrammarExportError) -> GrammarDocument {
        let b = try build()
        var doc = values.doc
        doc.setRoot(b.main)
        return doc
    }

    mutating func export() throws(GrammarExportError) -> ExportedGrammar {
        let b = try build()
        let (main, lazyRoot, chosen, excludes, block, blockWithoutClose, manyBlocks) =
            (b.main, b.lazyRoot, b.chosen, b.excludes, b.block, b.blockWithoutClose, b.manyBlocks)
        let trigger = layout.trigger
        let choice = options.toolChoice
        let pairs = format.definition.reasoning.pairs
        let reasoningExcludes = pairs.map(\.close) + format.definition.reasoning.endedBy
        var doc = values.doc
        let isLazy = options.target == .gbnf && lazyRoot != nil && !options.toolChoice.requiresCall && !chosen.isEmpty && !layout.bareAtStart
        doc.setRoot(isLazy ? lazyRoot! : main)
        var report = values.report
        for t in chosen where (t.parameters["properties"]?.objectValue ?? []).isEmpty && !Self.argumentsAreJSON(layout) {
            if t.parameters["additionalProperties"] != .bool(false) {
                report.append("tool \(JSONValue.string(t.name).jsonText): declares no properties, so the \(format.rawValue) grammar writes its calls without arguments (\(options.target.rawValue))")
            }
        }
        let printer = GrammarPrinter(doc: doc, tokens: options.specialTokens)
        switch options.target {
        case .gbnf:
            let gbnf = printer.gbnf()
            if isLazy {
                let triggers = Self.unique([trigger] + excludes)
                var obj: [(key: String, value: JSONValue)] = [("grammar", .string(gbnf)), ("grammar_lazy", .bool(true))]
                // llama.cpp's server reads a trigger's type as a number: 0 a token (with its
                // id), 1 a word.
                obj.append(("grammar_triggers", .array(triggers.map { t in
                    if let id = options.specialTokens[t] {
                        return .object([("type", .number("0")), ("value", .string(t)), ("token", .number(String(id)))])
                    }
                    return .object([("type", .number("1")), ("value", .string(t))])
                })))
                if !options.specialTokens.isEmpty {
                    // The server keeps these as single tokens (its `preserved_tokens`).
                    obj.append(("preserved_tokens", .array(options.specialTokens.keys.sorted().map { .string($0) })))
                }
                return ExportedGrammar(target: .gbnf, text: JSONValue.object(obj).jsonText, lazy: true, triggerWords: triggers, report: report)
            }
            return ExportedGrammar(target: .gbnf, text: gbnf, lazy: false, triggerWords: [], report: report)
        case .lark:
            return ExportedGrammar(target: .lark, text: printer.lark(), lazy: false, triggerWords: [], report: report)
        case .xgrammar:
            let structure: XGrammarShape?
            // xgrammar's triggered tags stop after the first block when one call is allowed:
            // text after it (Gemma 4) needs the node-by-node form.
            if chosen.isEmpty || options.reasoningOpen || layout.bareAtStart || (layout.textAfter && !manyBlocks) {
                structure = nil
            } else {
                // The shortest marker the block's opener begins with triggers the tag: xgrammar
                // refuses an excluded string inside a trigger, and such a marker is one.
                let short = excludes.filter { trigger.hasPrefix($0) }.min { $0.utf8.count < $1.utf8.count } ?? trigger
                structure = XGrammarShape(
                    trigger: short, begin: trigger, block: blockWithoutClose?.0 ?? block, end: blockWithoutClose?.1 ?? "",
                    // A string that begins with the trigger never stands in text (the trigger
                    // dispatches to the tag first), and xgrammar 0.2.9 stops dispatching on a
                    // trigger that an excluded string extends: text could then hold the opener
                    // followed by anything. So neither kind is excluded.
                    excludes: excludes.filter { !trigger.hasPrefix($0) && !$0.hasPrefix(short) },
                    atLeastOne: choice.requiresCall, stopAfterFirst: !manyBlocks,
                    reasoning: options.reasoning ? pairs.count > 1 ? pairs[1] : pairs[0] : nil,
                    reasoningExcludes: reasoningExcludes)
            }
            return ExportedGrammar(target: .xgrammar, text: printer.xgrammar(shape: structure), lazy: false, triggerWords: [], report: report)
        }
    }

    static func unique(_ xs: [String]) -> [String] {
        var seen = Set<String>()
        return xs.filter { seen.insert($0).inserted }
    }

    static func argumentsAreJSON(_ layout: CallLayout) -> Bool {
        for p in layout.call { if case .arguments(.json) = p { return true } }
        return false
    }

    /// The declared tools the choice admits, in the tools' order.
    func chosenTools() throws(GrammarExportError) -> [ToolDefinition] {
        guard let names = options.toolChoice.names else { return tools.tools }
        for n in names where !tools.declares(n) {
            throw GrammarExportError(message: "tool_choice names \(JSONValue.string(n).jsonText), which the tools do not declare")
        }
        if names.isEmpty, case .allowed = options.toolChoice {
            throw GrammarExportError(message: "tool_choice allows no tool")
        }
        return tools.tools.filter { names.contains($0.name) }
    }

    /// Markup: a marker node (so that a printer may write a special token).
    func marker(_ s: String) -> GrammarNode { s.isEmpty ? .empty : .marker(s) }

    mutating func callChoice(_ chosen: [ToolDefinition]) throws(GrammarExportError) -> GrammarNode {
        var alts: [GrammarNode] = []
        for t in chosen {
            let node = try pieces(layout.call, tool: t)
            alts.append(values.doc.add("call_" + t.name, node))
        }
        return .oneOf(alts)
    }

    mutating func pieces(_ list: [CallLayout.Piece], tool: ToolDefinition?) throws(GrammarExportError) -> GrammarNode {
        var out: [GrammarNode] = []
        for p in list {
            switch p {
            case .markup(let s):
                out.append(marker(s))
            case .name(let spelling):
                guard let tool else { continue }
                var b: [UInt8] = []
                CallLayout.spell(tool.name, spelling, to: &b)
                out.append(.literal(String(decoding: b, as: UTF8.self)))
            case .index:
                out.append(.plus(.characters(.digit)))
            case .optionalID(let prefix, let length):
                let alnum = CharacterClass([0x30...0x39, 0x41...0x5A, 0x61...0x7A])
                out.append(.optional(.seq([marker(prefix), .repeatCount(.characters(alnum), min: length, max: length)])))
            case .quotedID:
                let idChars = CharacterClass([0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F...0x5F, 0x2D...0x2D])
                out.append(.seq([.literal("\""), .repeatCount(.characters(idChars), min: 1, max: 40), .literal("\"")]))
            case .optionalQuotedID(let prefix):
                let idChars = CharacterClass([0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F...0x5F, 0x2D...0x2D])
                out.append(.optional(.seq([marker(prefix), .literal("\""), .repeatCount(.characters(idChars), min: 1, max: 40), .literal("\"")])))
            case .arguments(let a):
                guard let tool else { continue }
                out.append(try arguments(a, tool))
            }
        }
        return .seq(out)
    }

    /// The schema as the grammar reads it, with `additionalProperties` written on every object
    /// schema that lists properties and has none (false: a constrained model writes only the
    /// declared keys; the validator admits that too) or lists none (true: any object).
    static func explicit(_ schema: JSONValue) -> JSONValue {
        switch schema {
        case .object(let members):
            var out: [(key: String, value: JSONValue)] = members.map { m in
                switch m.key {
                case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
                    if case .object(let props) = m.value {
                        return (m.key, .object(props.map { ($0.key, explicit($0.value)) }))
                    }
                    return m
                case "items", "additionalProperties", "not", "additionalItems", "contains":
                    return (m.key, explicit(m.value))
                case "anyOf", "oneOf", "allOf", "prefixItems":
                    if case .array(let xs) = m.value { return (m.key, .array(xs.map(explicit))) }
                    return m
                default:
                    return m
                }
            }
            let isObject = schema["type"] == .string("object") || schema["properties"] != nil
                || (schema["type"]?.arrayValue?.contains(.string("object")) ?? false)
            if isObject && schema["additionalProperties"] == nil {
                let hasProps = !(schema["properties"]?.objectValue ?? []).isEmpty
                out.append(("additionalProperties", .bool(!hasProps)))
            }
            return .object(out)
        default:
            return schema
        }
    }

    mutating func arguments(_ a: CallLayout.Arguments, _ tool: ToolDefinition) throws(GrammarExportError) -> GrammarNode {
        values.tool = tool.name
        let schema = Self.explicit(tool.parameters)
        values.root = schema
        values.stringExcludes = ""
        switch a {
        case .json:
            if options.target == .gbnf {
                var s = schema
                if s["type"] == nil { s = ValueGrammar.merge(s, .object([("type", .string("object"))])) }
                return values.value(s, .json, at: "#")
            }
            reportNative(schema, at: "#")
            var s = schema
            if s["type"] == nil { s = ValueGrammar.merge(s, .object([("type", .string("object"))])) }
            return .json(s)
        case .gemma(let style):
            var s = schema
            if s["type"] == nil { s = ValueGrammar.merge(s, .object([("type", .string("object"))])) }
            return values.value(s, .gemma(style), at: "#")
        case .python:
            let props = schema["properties"]?.objectValue ?? []
            let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
            var members: [(GrammarNode, Bool)] = []
            for p in props {
                guard CallRenderer.isPythonName(p.key) else {
                    values.note("#/properties", p.key, "is not a Python name, so the call cannot write it")
                    continue
                }
                let isObject = p.value["type"] == .string("object")
                let v = values.value(p.value, isObject ? .json : .python, at: "#/properties/\(p.key)")
                members.append((.seq([.literal(p.key + "="), v]), required.contains(p.key)))
            }
            return Self.members(members, separator: .literal(", "), doc: &values.doc, name: tool.name)
        case .pythonVerbatim:
            // LFM2.5: a string argument between `'` quotes, verbatim (the grammar keeps `'` out
            // of it); anything else as for `.python`.
            let props = schema["properties"]?.objectValue ?? []
            let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
            var members: [(GrammarNode, Bool)] = []
            for p in props {
                guard CallRenderer.isPythonName(p.key) else {
                    values.note("#/properties", p.key, "is not a Python name, so the call cannot write it")
                    continue
                }
                let v: GrammarNode
                if Self.types(of: p.value, root: schema) == ["string"] && p.value["enum"] == nil && p.value["const"] == nil {
                    // A pattern's language without `'` (reported when it could write one).
                    if let body = values.patternBody(p.value, removing: ScalarSet("'"), at: "#/properties/\(p.key)", spell: { $0.node }) {
                        v = .seq([.literal("'"), body, .literal("'")])
                    } else {
                        v = .seq([.literal("'"), values.text(TextRegion(excluded: ["'"], end: "'", minCharacters: p.value["minLength"]?.intValue ?? 0,
                                                                            maxCharacters: p.value["maxLength"]?.intValue), at: "#/properties/\(p.key)")])
                    }
                } else {
                    let isObject = p.value["type"] == .string("object")
                    v = values.value(p.value, isObject ? .json : .python, at: "#/properties/\(p.key)")
                }
                members.append((.seq([.literal(p.key + "="), v]), required.contains(p.key)))
            }
            return Self.members(members, separator: .literal(", "), doc: &values.doc, name: tool.name)
        case .tagged(let t):
            let props = schema["properties"]?.objectValue ?? []
            let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
            var members: [(GrammarNode, Bool)] = []
            for p in props {
                var open: [GrammarNode] = []
                for q in t.open {
                    switch q {
                    case .markup(let s): open.append(marker(s))
                    case .key(let spelling):
                        var b: [UInt8] = []
                        CallLayout.spell(p.key, spelling, to: &b)
                        open.append(.literal(String(decoding: b, as: UTF8.self)))
                    case .stringFlag:
                        open.append(.literal(Self.types(of: p.value, root: schema) == ["string"] ? "true" : "false"))
                    case .typeName:
                        let ty = Self.types(of: p.value, root: schema).first ?? "string"
                        open.append(.literal(ty == "integer" ? "number" : ty))
                    }
                }
                let value = rawValue(p.value, t, close: t.closeText(p.key), at: "#/properties/\(p.key)")
                members.append((values.doc.add("param_" + p.key, .seq(open + [value])), required.contains(p.key)))
            }
            return Self.members(members, separator: .empty, doc: &values.doc, name: tool.name)
        }
    }

    /// Report lines for the keywords a target's native JSON schema support leaves out.
    mutating func reportNative(_ schema: JSONValue, at path: String) {
        let unsupported: [String: String] = options.target == .xgrammar
            ? ["not": "is not supported by xgrammar's JSON schemas", "uniqueItems": "is not supported by xgrammar's JSON schemas",
               "multipleOf": "is not supported by xgrammar's JSON schemas on non-integers"]
            : ["not": "is not supported by llguidance's JSON schemas", "uniqueItems": "is not supported by llguidance's JSON schemas"]
        func walk(_ s: JSONValue, _ path: String) {
            guard case .object(let members) = s else { return }
            for (k, v) in members {
                if let why = unsupported[k] { values.note(path, k, why) }
                if ValueGrammar.uncheckedByValidator.contains(k) { values.note(path, k, "is checked by neither the validator nor the grammar") }
                switch v {
                case .object(let inner) where ["properties", "$defs", "definitions"].contains(k):
                    for m in inner { walk(m.value, "\(path)/\(k)/\(m.key)") }
                case .object:
                    walk(v, "\(path)/\(k)")
                case .array(let xs) where ["anyOf", "oneOf", "allOf", "prefixItems", "items"].contains(k):
                    for (i, x) in xs.enumerated() { walk(x, "\(path)/\(k)/\(i)") }
                default: break
                }
            }
        }
        walk(schema, path)
    }

    /// The JSON types a schema admits (its `type`, or that of its `$ref` / union members).
    static func types(of schema: JSONValue, root: JSONValue) -> [String] {
        if case .string(let t)? = schema["type"] { return [t] }
        if case .array(let ts)? = schema["type"] { return ts.compactMap(\.stringValue) }
        if case .string(let ref)? = schema["$ref"] {
            var g = ValueGrammar(doc: GrammarDocument(), target: "")
            g.root = root
            if let t = g.resolve(ref) { return types(of: t, root: root) }
        }
        for k in ["anyOf", "oneOf"] {
            if case .array(let ms)? = schema[k] { return unique(ms.flatMap { types(of: $0, root: root) }) }
        }
        if case .array(let vs)? = schema["enum"] {
            return unique(vs.map { CallRenderer.schemaType(of: $0) })
        }
        if let c = schema["const"] { return [CallRenderer.schemaType(of: c)] }
        if schema["properties"] != nil { return ["object"] }
        return []
    }

    /// A tagged parameter's value text by its schema, then the parameter's close: a string as raw
    /// text that holds none of the format's tags; any other value as JSON (or Python's `str()`,
    /// as the layout's ``CallLayout/TaggedValues`` says) whose strings hold no `<` (so that no
    /// tag can be spelt inside).
    mutating func rawValue(_ schema: JSONValue, _ t: CallLayout.TaggedArguments, close closeText: String, at path: String) -> GrammarNode {
        var s = schema
        if case .string(let ref)? = schema["$ref"], let target = values.resolve(ref) { s = target }
        let close = marker(closeText)
        for k in ["anyOf", "oneOf"] {
            if case .array(let ms)? = s[k] {
                let base = JSONValue.object((s.objectValue ?? []).filter { $0.key != k })
                return .oneOf(ms.enumerated().map { i, m in rawValue(ValueGrammar.merge(base, m), t, close: closeText, at: "\(path)/\(k)/\(i)") })
            }
        }
        let types = Self.types(of: s, root: values.root)
        if case .array(let vs)? = s["enum"] ?? s["const"].map({ .array([$0]) }) {
            var alts: [GrammarNode] = []
            for v in vs {
                var b: [UInt8] = []
                if case .string(let str) = v {
                    b = Array(str.utf8)
                } else if t.values.writesPython(v) {
                    CallRenderer.writePythonRepr(v, to: &b)
                } else {
                    CallRenderer.writeTemplateJSON(v, to: &b)
                }
                let text = String(decoding: b, as: UTF8.self)
                if t.valueExcludes.contains(where: { text.contains($0) }) || (t.stripsNewlines && (text.hasPrefix("\n") || text.hasSuffix("\n"))) {
                    values.note(path, "enum", "value \(v.jsonText) cannot be written as a raw value here and is left out")
                    continue
                }
                alts.append(.seq([.literal(text), close]))
            }
            return .oneOf(alts)
        }
        if types == ["string"] {
            return rawString(s, t, close: closeText, minimum: 0, at: path)
        }
        var alts: [GrammarNode] = []
        values.stringExcludes = "<"
        defer { values.stringExcludes = "" }
        let list = types.isEmpty ? ["string", "number", "boolean", "null", "array", "object"] : types
        for ty in list {
            if ty == "string" {
                // Not empty: an empty value is read as the other types' null or as "".
                alts.append(rawString(s, t, close: closeText, minimum: 1, at: path))
                continue
            }
            var one = s
            if case .object(var m) = one {
                m.removeAll { $0.key == "type" }
                m.append(("type", .string(ty)))
                one = .object(m)
            }
            alts.append(.seq([values.value(one, t.values.writesPython(type: ty) ? .python : .json, at: path), close]))
        }
        return .oneOf(alts)
    }

    /// A string as a tagged parameter's raw text, then the parameter's close: its `pattern`'s
    /// language without the characters that begin the format's tags (and without newlines where
    /// the parser strips them at the edges), or text that holds no tag, by its length bounds
    /// (at least `minimum` characters).
    mutating func rawString(_ s: JSONValue, _ t: CallLayout.TaggedArguments, close closeText: String, minimum: Int, at path: String) -> GrammarNode {
        var removed = ScalarSet(t.valueExcludes.compactMap { $0.unicodeScalars.first }.map { $0.value...$0.value })
        if t.stripsNewlines { removed = removed.union(ScalarSet("\n")) }
        if minimum > 0, case .string(let p)? = s["pattern"], PatternNode.parse(p)?.admitsEmpty ?? false {
            // A grammar cannot intersect the pattern with "not empty".
            values.note(path, "pattern", "admits an empty value, which this union of types cannot write; not enforced")
        } else if let body = values.patternBody(s, removing: removed, at: path, spell: { $0.node }) {
            return .seq([body, marker(closeText)])
        }
        let edge: CharacterClass? = t.stripsNewlines ? CharacterClass("\n") : nil
        let region = TextRegion(
            excluded: t.valueExcludes, end: closeText, minCharacters: max(minimum, s["minLength"]?.intValue ?? 0),
            maxCharacters: s["maxLength"]?.intValue, noEdge: edge)
        return values.text(region, at: path)
    }

    /// Members in order, each required or optional, with `separator` between two written ones.
    static func members(_ items: [(GrammarNode, Bool)], separator: GrammarNode, doc: inout GrammarDocument, name: String) -> GrammarNode {
        let n = items.count
        if n == 0 { return .empty }
        var after: [GrammarNode] = Array(repeating: .empty, count: n + 1)
        var first: [GrammarNode] = Array(repeating: .empty, count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            let (node, isRequired) = items[i]
            let withSep = GrammarNode.seq([separator, node])
            after[i] = .seq([isRequired ? withSep : .optional(withSep), after[i + 1]])
            if n - i > 2 { after[i] = doc.add(name + "_rest", after[i]) }
            let own = GrammarNode.seq([node, after[i + 1]])
            first[i] = isRequired ? own : (i == n - 1 ? .optional(own) : .oneOf([own, first[i + 1]]))
            if i < n - 1, !isRequired, n - i > 2 { first[i] = doc.add(name + "_from", first[i]) }
        }
        return first[0]
    }
}

/// The top of an xgrammar structural tag when it has the shape xgrammar's own tags have:
/// text with triggered blocks.
struct XGrammarShape {
    let trigger: String
    /// The block's opening marker (the trigger begins it).
    let begin: String
    /// The block after `begin`, without `end`.
    let block: GrammarNode
    /// The block's closing markup.
    let end: String
    let excludes: [String]
    let atLeastOne: Bool
    let stopAfterFirst: Bool
    let reasoning: (open: String, close: String)?
    let reasoningExcludes: [String]
}
