// ToolCallKit — the `minimax_m3` format: namespaced tags, `]<]minimax[>[<tool_call>` …

/// Grammar for MiniMax M3's tool calls.
///
/// Every tag is preceded by the namespace token `]<]minimax[>[` (written `⟨ns⟩` here). Frames:
/// `⟨ns⟩<tool_call>` then `⟨ns⟩<invoke name="F">` blocks, each holding parameters
/// `⟨ns⟩<KEY>value⟨ns⟩</KEY>`, then `⟨ns⟩</invoke>`, and `⟨ns⟩</tool_call>`; or a bare
/// `⟨ns⟩<invoke name=` block (the wrapper stripped). Rules:
///
/// - A parameter whose first bytes (after white space) are another namespaced opener is an
///   element tree: child tags make an object, `<item>` children an array, a tag repeated among
///   its siblings folds into an array; leaves are text. The tree is held until its close and
///   typed then by the argument's schema (`properties`, `additionalProperties`, `items`, and the
///   members of `anyOf`/`oneOf` that fit the tree's shape), leaves by ``SchemaTyping``.
/// - Any other parameter is a text value (``TextValueScanner``): its raw bytes up to its own
///   close tag, white space at the edges kept; a namespace token inside it ends it (the close
///   tag was missing). It streams as a string when the schema (or, without one, the text) says
///   so; typed by ``SchemaTyping`` otherwise.
/// - A top-level key whose schema takes an array (and no string) is held until a parameter with
///   another key begins (or the call ends), so consecutive repeats of its tag fold into an array
///   (`<k>a</k><k>b</k>` → `["a", "b"]`; one occurrence is the whole value when it is one, a
///   JSON array or `<item>` children). Any other top-level key given twice keeps its last value,
///   as in the other text-valued formats.
/// - Names are quoted or bare and trimmed; keys are the tag's bytes up to `>`, as written.
/// - Any other namespaced tag outside a call (an orphan close) is markup; a namespaced
///   `<mm:think>` or `</mm:think>` is text (reasoning separation is off, or it would have been
///   read as reasoning), except a close that begins the output (markup, as the bare one).
/// - End of stream: accepted when the last value was closed (only closing tags are missing,
///   and no required parameter is); cut inside a name, key, value or tree, or before any
///   parameter, is `incomplete`.
struct MiniMaxM3Grammar: CallGrammar {
    private enum State: Sendable {
        /// The frame's own tag, after a namespace token that opens no call.
        case top
        /// Inside `<tool_call>`, between invokes.
        case frame
        /// After `<invoke name=`: the name up to `>`.
        case name
        /// Inside an invoke, between parameters.
        case params
        /// After a parameter's opener: white space, then text or a child tag.
        case valueStart(key: String, at: Int)
        /// A text value (its tags in `valueTags`).
        case value(TextValueScanner)
        /// An element tree (its open elements in `stack`).
        case tree
        /// Skipping to the frame's end; the frame is `malformed`.
        case junk(String)
    }

    /// A parsed element: text, or children in order.
    indirect enum Node: Sendable {
        case text([UInt8])
        case element([(name: String, node: Node)])
    }

    private struct OpenElement: Sendable {
        var name: String
        var children: [(name: String, node: Node)] = []
        var text: [UInt8] = []
    }

    static let ns = "]<]minimax[>["
    static let nsBytes = Array(ns.utf8)
    static let wrapperOpen = Array((ns + "<tool_call>").utf8)
    static let wrapperClose = Array((ns + "</tool_call>").utf8)
    static let invokeOpen = Array((ns + "<invoke name=").utf8)
    static let invokeClose = Array((ns + "</invoke>").utf8)
    static let maxNameBytes = 512
    private static let nsSet = MarkerSet([nsBytes])
    private static let nameTags = TaggedFunctionTags(
        wrapper: (ns + "<tool_call>", ns + "</tool_call>"), function: (ns + "<invoke name=", ns + "</invoke>"),
        parameter: (ns + "<", ns + "</"), quotedNames: true, stripNewlines: false)

    let markers: [Marker] = [
        Marker(MiniMaxM3Grammar.ns + "<tool_call>"),
        Marker(MiniMaxM3Grammar.ns + "<invoke name="),
        Marker(MiniMaxM3Grammar.ns),
        // A turn without reasoning begins with a bare close.
        Marker("</mm:think>", kind: .stray, condition: .atStart),
    ]

    private var state: State = .frame
    private var pos = 0
    private var bodyStart = 0
    /// Whether the frame began before any visible text.
    private var frameAtStart = false
    private var wrapped = true
    private var callsInFrame = 0
    private var tool: ToolDefinition?
    private var emitter = TextArgumentEmitter()
    private var valueTags: TextValueScanner.Tags? = nil
    private var stack: [OpenElement] = []
    /// The values of the array-typed top-level key just read, held while the same tag repeats.
    private var repeated: (key: String, nodes: [Node])? = nil

    var skipRule: SkipRule { .through([wrapped ? Self.wrapperClose : Self.invokeClose]) }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        self.bodyStart = bodyStart
        frameAtStart = atStart
        pos = bodyStart
        callsInFrame = 0
        wrapped = marker == 0
        stack.removeAll()
        switch marker {
        case 0: state = .frame
        case 1: state = .name
        default: state = .top
        }
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .top:
                switch Self.readTag(w, from: pos, spaces: false) {
                case .needMore:
                    return .needMore
                case .invalid:
                    actions.append(.markup(end: bodyStart))
                    return .finished(at: bodyStart)
                case .tag(let name, let closing, let next):
                    // Reasoning markers are text when reasoning separation is off (with it on,
                    // the decoder reads them first), but for a close that begins the output.
                    let text = name == "mm:think" && !(closing && frameAtStart)
                    actions.append(text ? .text(end: next) : .markup(end: next))
                    return .finished(at: next)
                }
            case .frame:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, [Self.invokeOpen, Self.wrapperClose]) {
                case .found(0):
                    pos += Self.invokeOpen.count
                    state = .name
                case .found:
                    let end = pos + Self.wrapperClose.count
                    actions.append(.markup(end: end))
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    state = .junk("expected an invoke block")
                }
            case .name:
                switch TaggedFunctionParser.readName(w, from: pos, tags: Self.nameTags) {
                case .needMore:
                    return .needMore
                case .invalid:
                    if !wrapped {
                        actions.append(.text(end: bodyStart))
                        return .finished(at: bodyStart)
                    }
                    state = .junk("the invoke name does not end with '>'")
                case .name(let name, let next):
                    pos = next
                    actions.append(.start(name: name, id: nil))
                    tool = context.tools?[name]
                    emitter = TextArgumentEmitter(maxDepth: context.maxDepth)
                    repeated = nil
                    state = .params
                }
            case .params:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, [Self.nsBytes]) {
                case .partial: return .needMore
                case .none:
                    state = .junk("unexpected text between parameters")
                    continue
                case .found: break
                }
                switch Self.readTag(w, from: pos + Self.nsBytes.count) {
                case .needMore:
                    return .needMore
                case .invalid:
                    state = .junk("a parameter tag does not end with '>'")
                case .tag(let name, let closing, let next):
                    if !closing {
                        if let held = repeated, held.key != name { emitRepeated(actions: &actions) }
                        pos = next
                        state = .valueStart(key: name, at: next)
                    } else if name == "invoke" {
                        settle(end: next, actions: &actions)
                        pos = next
                        if !wrapped { return .finished(at: next) }
                        state = .frame
                    } else if name == "tool_call" {
                        // The invoke's close is missing; the wrapper's close ends both.
                        settle(end: next, actions: &actions)
                        return .finished(at: next)
                    } else {
                        state = .junk("a close tag that closes no parameter")
                    }
                }
            case .valueStart(let key, let at):
                var j = at
                while j < w.end && JSONReader.isSpace(w[j]) && j - at < TextValueScanner.maxSpaceAfterClose { j += 1 }
                var structured = false
                var empty = false
                if j - at < TextValueScanner.maxSpaceAfterClose {
                    guard j < w.end else { return .needMore }
                    switch TagMatch.at(w, j, [Self.nsBytes]) {
                    case .partial:
                        return .needMore
                    case .found:
                        let k = j + Self.nsBytes.count
                        guard k + 1 < w.end else { return .needMore }
                        structured = w[k] == UInt8(ascii: "<") && w[k + 1] != UInt8(ascii: "/")
                        empty = w[k] == UInt8(ascii: "<") && w[k + 1] == UInt8(ascii: "/")
                    case .none:
                        break
                    }
                }
                // An element with nothing in it, for a key whose schema takes an object or an
                // array and no string: read as a tree, whose empty leaf is that empty container.
                let emptyContainer = empty && Self.emptyContainer(tool?.typingSchema(forArgument: key)) != nil
                if structured || emptyContainer || Self.foldsRepeats(key, tool) {
                    // A tree, or a value of an array-typed key (held: the key may repeat).
                    stack = [OpenElement(name: key)]
                    pos = structured ? j : at
                    state = .tree
                } else {
                    emitter.beginValue(key: key, tool: tool, actions: &actions)
                    valueTags = TextValueScanner.Tags(close: Self.ns + "</" + key + ">", follows: [Self.ns], breaks: [Self.ns], stripNewlines: false)
                    pos = at
                    state = .value(TextValueScanner(start: at))
                }
            case .value(var scanner):
                switch scanner.advance(w, tags: valueTags!, emitter: &emitter, actions: &actions) {
                case .needMore:
                    state = .value(scanner)
                    return .needMore
                case .ended(let next):
                    pos = next
                    state = .params
                }
            case .tree:
                switch Self.nsSet.search(w, from: pos, end: w.end) {
                case .none:
                    stack[stack.count - 1].text.append(contentsOf: w.slice(pos..<w.end))
                    pos = w.end
                    return .needMore
                case .partial(let at):
                    stack[stack.count - 1].text.append(contentsOf: w.slice(pos..<at))
                    pos = at
                    return .needMore
                case .found(_, let at):
                    stack[stack.count - 1].text.append(contentsOf: w.slice(pos..<at))
                    pos = at
                    switch Self.readTag(w, from: at + Self.nsBytes.count) {
                    case .needMore:
                        return .needMore
                    case .invalid:
                        state = .junk("a tag inside a parameter does not end with '>'")
                    case .tag(let name, let closing, let next):
                        pos = next
                        if !closing {
                            guard stack.count < context.maxDepth else {
                                actions.append(.tooDeep(context, end: next))
                                return .skip
                            }
                            stack.append(OpenElement(name: name))
                            continue
                        }
                        guard name == stack[stack.count - 1].name else {
                            state = .junk("the close tag </\(name)> does not match <\(stack[stack.count - 1].name)>")
                            continue
                        }
                        let top = stack.removeLast()
                        let node: Node = top.children.isEmpty ? .text(top.text) : .element(top.children)
                        // A leaf is typed by decoding its text: JSON in it counts toward the cap.
                        if top.children.isEmpty, TextArgumentEmitter.nesting(top.text) + stack.count > context.maxDepth {
                            actions.append(.tooDeep(context, end: next))
                            return .skip
                        }
                        if !stack.isEmpty {
                            stack[stack.count - 1].children.append((name: top.name, node: node))
                            continue
                        }
                        state = .params
                        if Self.foldsRepeats(top.name, tool) {
                            // Held until a parameter with another key (or the call's end).
                            if repeated?.key == top.name { repeated!.nodes.append(node) } else { repeated = (key: top.name, nodes: [node]) }
                            continue
                        }
                        switch Self.type(node, schema: Self.propertySchema(top.name, tool), pointer: SchemaTyping.pointer(top.name)) {
                        case .success(let v): emitter.addValue(key: top.name, v, actions: &actions)
                        case .failure(let f): emitter.addMismatch(f.detail)
                        }
                    }
                }
            case .junk(let detail):
                let stop = wrapped ? Self.wrapperClose : Self.invokeClose
                return MarkerSet([stop]).rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in true }
            }
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .value(let scanner) = state, scanner.isCaughtUp(at: end), emitter.streamsString else { return nil }
        return valueTags?.passThrough
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        guard case .value(var scanner) = state else { preconditionFailure("takePassThrough outside a value") }
        scanner.takeForwarded(count, w, emitter: &emitter)
        state = .value(scanner)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .top:
            actions.append(.markup(end: w.end))
        case .frame:
            if callsInFrame == 0 {
                actions.append(.reject(.incomplete, detail: "the stream ended before an invoke block", end: w.end))
            } else {
                actions.append(.markup(end: w.end))
            }
        case .name:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the invoke name", end: w.end))
        case .params:
            if emitter.hasValues && (pos >= w.end || TagMatch.at(w, pos, [Self.nsBytes]) == .none) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            }
        case .valueStart, .tree:
            actions.append(.reject(.incomplete, detail: "the stream ended inside a value", end: w.end))
        case .value(var scanner):
            if scanner.finish(w, tags: valueTags!, emitter: &emitter, actions: &actions) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a value", end: w.end))
            }
        case .junk(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }

    // MARK: - Helpers

    private mutating func settleCutOff(end: Int, actions: inout [GrammarAction]) {
        emitRepeated(actions: &actions)
        if let detail = emitter.cutOffDetail(tool) {
            actions.append(.reject(.incomplete, detail: detail, end: end))
        } else {
            settle(end: end, actions: &actions)
        }
    }

    private mutating func settle(end: Int, actions: inout [GrammarAction]) {
        emitRepeated(actions: &actions)
        switch emitter.finishCall(actions: &actions) {
        case .success(let arguments):
            actions.append(.accept(arguments: arguments, end: end))
        case .failure(let m):
            actions.append(.reject(m.reason, detail: m.detail, end: end))
        }
        callsInFrame += 1
    }

    /// Whether a top-level key's values are held to the call's end: its schema takes an array
    /// and no string, so `<k>a</k><k>b</k>` folds into `["a", "b"]`.
    static func foldsRepeats(_ key: String, _ tool: ToolDefinition?) -> Bool {
        let types = SchemaTyping.types(of: tool?.typingSchema(forArgument: key))
        return types.contains("array") && !types.contains("string")
    }

    /// Emits the held values of an array-typed key: one occurrence typed as the whole value when
    /// it fits (a JSON array, `<item>` children), else every occurrence an element.
    private mutating func emitRepeated(actions: inout [GrammarAction]) {
        if let (key, nodes) = repeated {
            let schema = Self.propertySchema(key, tool)
            let pointer = SchemaTyping.pointer(key)
            if nodes.count == 1, case .success(let v) = Self.type(nodes[0], schema: schema, pointer: pointer) {
                emitter.addValue(key: key, v, actions: &actions)
                repeated = nil
                return
            }
            let items = Self.candidates(schema).first { Self.admits($0, "array", marker: "items") }?["items"]
            var out: [JSONValue] = []
            var failure: String? = nil
            for (i, n) in nodes.enumerated() {
                switch Self.type(n, schema: items, pointer: pointer + "/\(i)") {
                case .success(let v): out.append(v)
                case .failure(let f): failure = failure ?? f.detail
                }
            }
            if let failure { emitter.addMismatch(failure) } else { emitter.addValue(key: key, .array(out), actions: &actions) }
        }
        repeated = nil
    }

    private mutating func skipSpace(_ w: ByteWindow) {
        pos = w.skipSpace(from: pos)
    }

    enum TagRead {
        case needMore
        case invalid
        case tag(name: String, closing: Bool, next: Int)
    }

    /// Reads `<NAME>` or `</NAME>` from `from` (rescans at most ``maxNameBytes``): the name as
    /// written, which may not hold `<`, `>` or a newline (nor white space unless `spaces`: a tag
    /// outside a call is one of the format's own), nor be empty.
    static func readTag(_ w: ByteWindow, from: Int, spaces: Bool = true) -> TagRead {
        guard from < w.end else { return .needMore }
        guard w[from] == UInt8(ascii: "<") else { return .invalid }
        var i = from + 1
        guard i < w.end else { return .needMore }
        let closing = w[i] == UInt8(ascii: "/")
        if closing { i += 1 }
        let start = i
        while i < w.end {
            let b = w[i]
            if b == UInt8(ascii: ">") {
                guard i > start else { return .invalid }
                return .tag(name: String(decoding: w.slice(start..<i), as: UTF8.self), closing: closing, next: i + 1)
            }
            if b == UInt8(ascii: "<") || b == 0x0A || b == 0x0D || i - start >= maxNameBytes { return .invalid }
            if !spaces && JSONReader.isSpace(b) { return .invalid }
            i += 1
        }
        return .needMore
    }

    /// The schema of a top-level argument as written (for typing an element tree).
    static func propertySchema(_ key: String, _ tool: ToolDefinition?) -> JSONValue? {
        tool?.parameters["properties"]?[key]
    }

    /// The schema and its `anyOf`/`oneOf` members: the candidates a tree's shape picks from.
    private static func candidates(_ schema: JSONValue?) -> [JSONValue] {
        guard let schema, schema.isObject else { return [] }
        var out = [schema]
        for key in ["anyOf", "oneOf"] {
            if case .array(let members)? = schema[key] { out += members.filter(\.isObject) }
        }
        return out
    }

    /// The empty container an empty element stands for under `schema`: `{}` when it takes an
    /// object, `[]` when it takes an array; nil when it takes a string (an empty string) or
    /// neither.
    static func emptyContainer(_ schema: JSONValue?) -> JSONValue? {
        let cands = candidates(schema)
        guard !cands.contains(where: { SchemaTyping.types(of: $0).contains("string") }) else { return nil }
        if cands.contains(where: { admits($0, "object", marker: "properties") }) { return .object([]) }
        if cands.contains(where: { admits($0, "array", marker: "items") }) { return .array([]) }
        return nil
    }

    private static func admits(_ schema: JSONValue, _ type: String, marker: String) -> Bool {
        SchemaTyping.types(of: schema).contains(type) || schema[marker] != nil
    }

    /// An element tree that does not fit its schema: the `invalid_arguments` detail line.
    struct TypingFailure: Error {
        var detail: String
    }

    /// Types an element tree by `schema` (nil: untyped leaves); the failure is an
    /// `invalid_arguments` detail line.
    static func type(_ node: Node, schema: JSONValue?, pointer: String) -> Result<JSONValue, TypingFailure> {
        switch node {
        case .text(let bytes):
            // `<k></k>` for an object or an array is the empty one: the template writes a dict's
            // members and a list's `<item>`s inside the tag, so nothing inside is none of them.
            if bytes.allSatisfy(JSONReader.isSpace), let v = emptyContainer(schema) { return .success(v) }
            let text = String(decoding: bytes, as: UTF8.self)
            switch SchemaTyping.type(text, schema: schema) {
            case .success(let v): return .success(v)
            case .failure(let m): return .failure(TypingFailure(detail: SchemaTyping.detail(pointer: pointer, m, found: text)))
            }
        case .element(let children):
            let cands = candidates(schema)
            let arraySchema = cands.first { admits($0, "array", marker: "items") }
            let objectSchema = cands.first { admits($0, "object", marker: "properties") || $0["additionalProperties"] != nil }
            let allItems = children.allSatisfy { $0.name == "item" }
            let oneName = children.allSatisfy { $0.name == children[0].name }
            if allItems || (objectSchema == nil && arraySchema != nil && oneName) {
                var out: [JSONValue] = []
                for (i, c) in children.enumerated() {
                    switch type(c.node, schema: arraySchema?["items"], pointer: pointer + "/\(i)") {
                    case .success(let v): out.append(v)
                    case .failure(let d): return .failure(d)
                    }
                }
                return .success(.array(out))
            }
            // Group by name, in order of first appearance; repeated names fold into arrays.
            var order: [String] = []
            var groups: [String: [Node]] = [:]
            for c in children {
                if groups[c.name] == nil { order.append(c.name) }
                groups[c.name, default: []].append(c.node)
            }
            var members: [(key: String, value: JSONValue)] = []
            for name in order {
                let nodes = groups[name]!
                var prop = objectSchema?["properties"]?[name]
                if prop == nil, let extra = objectSchema?["additionalProperties"], extra.isObject { prop = extra }
                let p = pointer + "/" + SchemaCompiler.escape(name)
                if nodes.count == 1 {
                    switch type(nodes[0], schema: prop, pointer: p) {
                    case .success(let v): members.append((key: name, value: v))
                    case .failure(let d): return .failure(d)
                    }
                } else {
                    let items = candidates(prop).first { admits($0, "array", marker: "items") }?["items"] ?? prop
                    var out: [JSONValue] = []
                    for (i, n) in nodes.enumerated() {
                        switch type(n, schema: items, pointer: p + "/\(i)") {
                        case .success(let v): out.append(v)
                        case .failure(let d): return .failure(d)
                        }
                    }
                    members.append((key: name, value: .array(out)))
                }
            }
            return .success(.object(members))
        }
    }
}
