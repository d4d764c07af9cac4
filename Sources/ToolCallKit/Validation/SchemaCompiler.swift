// ToolCallKit — compiling a JSON schema into SchemaValidator's nodes, once, at load time.

/// Turns a schema into ``SchemaValidator/Node``s: checks keyword values, resolves local
/// `$ref`s (each target compiled once, so recursive schemas work), compiles each distinct
/// `pattern` once, and lists the keywords that will not be checked.
///
/// It does not validate values; ``SchemaValidator`` does.
struct SchemaCompiler {
    typealias Node = SchemaValidator.Node
    typealias SchemaError = SchemaValidator.SchemaError

    /// Keywords the validator checks.
    static let supported: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "prefixItems", "additionalItems",
        "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
        "anyOf", "oneOf", "allOf", "not", "nullable", "$ref", "$defs", "definitions",
    ]

    /// Keywords that describe and never constrain (plus any `x-…` extension).
    static let annotations: Set<String> = [
        "description", "title", "default", "examples", "example", "$schema", "$id", "$comment", "$anchor",
        "deprecated", "readOnly", "writeOnly", "format", "contentMediaType", "contentEncoding",
        "contentSchema", "discriminator", "externalDocs", "xml", "enumDescriptions", "propertyOrdering",
    ]

    let root: JSONValue
    let matchLimit: UInt32
    let depthLimit: UInt32
    var nodes: [Node] = []
    var patterns: [PCRE2Regex] = []
    var warnings: [String] = []
    private var memo: [String: Int] = [:]
    private var patternIndex: [String: Int] = [:]
    /// Sub-schemas found but not compiled yet.
    private var pending: [(schema: JSONValue, location: String, index: Int)] = []
    /// The node being compiled: each `required` name's position in its list (so the list is
    /// built in linear time, duplicates dropped).
    private var requiredPosition: [String: Int] = [:]
    /// Member maps of the large objects `$ref`s pass through, by pointer (``resolveIndexed(_:)``).
    private var objectIndex: [String: [String: JSONValue]] = [:]

    /// Whether `pattern`s are compiled (typing reads the schema without them).
    let compilesPatterns: Bool

    init(root: JSONValue, matchLimit: UInt32, depthLimit: UInt32, compilesPatterns: Bool = true) {
        self.root = root
        self.matchLimit = matchLimit
        self.depthLimit = depthLimit
        self.compilesPatterns = compilesPatterns
    }

    /// Compiles `schema` (the document's root, at `#`) and everything it reaches.
    ///
    /// Sub-schemas are queued rather than compiled by recursion, so a `$ref` chain thousands of
    /// links long, or a deeply nested schema, costs heap for the queue and never stack.
    ///
    /// - Returns: the root node's index.
    mutating func compileRoot(_ schema: JSONValue) throws(SchemaError) -> Int {
        let root = enqueue(schema, at: "#")
        while let job = pending.popLast() {
            try compileNode(job.schema, at: job.location, index: job.index)
        }
        return root
    }

    /// The node index for the schema at `location` (a URI fragment such as `#/properties/a`):
    /// the one already made for that location, or a new one queued for compilation.
    private mutating func enqueue(_ s: JSONValue, at location: String) -> Int {
        if let n = memo[location] { return n }
        let index = nodes.count
        memo[location] = index
        nodes.append(Node(location: location))
        pending.append((s, location, index))
        return index
    }

    private mutating func compileNode(_ s: JSONValue, at location: String, index: Int) throws(SchemaError) {
        var node = Node(location: location)
        switch s {
        case .bool(let b):
            node.isFalse = !b
            nodes[index] = node
            return
        case .object(let members):
            for (key, value) in members {
                try compileKeyword(key, value, schema: s, into: &node, at: location)
            }
        default:
            throw SchemaError(location: location, reason: "a schema must be an object or a boolean")
        }
        if node.nullable, var t = node.types, !t.contains(.null) {
            t.insert(.null)
            node.types = t
            node.typeNames.append("null")
        }
        if !node.propertyOrder.isEmpty {
            node.declaredText = SchemaValidator.cut(
                node.propertyOrder.joined(separator: ", "), limit: SchemaValidator.maxQuotedBytes)
        }
        node.requiredSlot = node.propertyOrder.map { requiredPosition[$0] ?? -1 }
        node.requiredUndeclared = node.required.contains { node.properties[$0] == nil }
        if node.additionalForbidden && s["patternProperties"] == nil {
            for name in node.required where node.properties[name] == nil {
                throw SchemaError(
                    location: location + "/required",
                    reason: "required property \"\(name)\" is not declared in properties and additionalProperties is false")
            }
        }
        requiredPosition.removeAll(keepingCapacity: true)
        nodes[index] = node
    }

    private mutating func compileKeyword(
        _ key: String, _ value: JSONValue, schema: JSONValue, into node: inout Node, at location: String
    ) throws(SchemaError) {
        let here = location + "/" + Self.escape(key)
        func fail(_ reason: String) -> SchemaError { SchemaError(location: here, reason: reason) }
        switch key {
        case "type":
            var names: [String] = []
            switch value {
            case .string(let t): names = [t]
            case .array(let ts):
                for t in ts {
                    guard case .string(let name) = t else { throw fail("type must be a name or a list of names") }
                    names.append(name)
                }
            default: throw fail("type must be a name or a list of names")
            }
            var mask = SchemaValidator.TypeMask()
            for name in names {
                guard let m = SchemaValidator.TypeMask.named(name) else { throw fail("unknown type \"\(name)\"") }
                mask.insert(m)
                let shown = name == "float" ? "number" : name
                if !node.typeNames.contains(shown) { node.typeNames.append(shown) }
            }
            node.types = mask
        case "properties":
            guard case .object(let props) = value else { throw fail("properties must be an object") }
            node.properties.reserveCapacity(props.count)
            node.propertyOrder.reserveCapacity(props.count)
            node.propertyNodes.reserveCapacity(props.count)
            memo.reserveCapacity(memo.count + props.count)
            for (name, sub) in props {
                node.properties[name] = node.propertyOrder.count
                node.propertyNodes.append(enqueue(sub, at: here + "/" + Self.escape(name)))
                node.propertyOrder.append(name)
            }
        case "required":
            guard case .array(let names) = value else { throw fail("required must be a list of names") }
            requiredPosition.reserveCapacity(names.count)
            node.required.reserveCapacity(names.count)
            for n in names {
                guard case .string(let name) = n else { throw fail("required must be a list of names") }
                if requiredPosition[name] == nil {
                    requiredPosition[name] = node.required.count
                    node.required.append(name)
                }
            }
        case "additionalProperties":
            if case .bool(let b) = value {
                node.additionalForbidden = !b
            } else {
                node.additional = enqueue(value, at: here)
            }
        case "items":
            if case .array(let list) = value {
                // Draft-07 tuple form: the list is prefixItems, additionalItems the rest.
                node.prefixItems = compileList(list, at: here)
                if let rest = schema["additionalItems"] {
                    node.items = enqueue(rest, at: location + "/additionalItems")
                }
            } else {
                node.items = enqueue(value, at: here)
            }
        case "additionalItems":
            break  // read with a list-valued `items`; meaningless otherwise
        case "prefixItems":
            guard case .array(let list) = value else { throw fail("prefixItems must be a list of schemas") }
            node.prefixItems = compileList(list, at: here)
        case "enum":
            guard case .array(let values) = value else { throw fail("enum must be a list") }
            node.enumValues = values
            node.enumExpected = "one of " + SchemaValidator.renderList(values, limit: SchemaValidator.maxQuotedBytes)
            node.enumKeys = Set(values.map(SchemaValidator.canonical))
            let strings = values.compactMap(\.stringValue)
            if strings.count == values.count && strings.count <= 16 { node.enumStrings = strings }
        case "const":
            node.constValue = value
            node.constExpected = SchemaValidator.render(value, limit: SchemaValidator.maxQuotedBytes)
        case "minimum", "maximum":
            guard case .number(let t) = value, let x = ExactNumber(t) else { throw fail("\(key) must be a number") }
            // Draft-04: a boolean exclusiveMinimum/exclusiveMaximum makes this bound exclusive.
            let flag = schema[key == "minimum" ? "exclusiveMinimum" : "exclusiveMaximum"] == .bool(true)
            if key == "minimum" {
                node.lower.append(.init(value: x, exclusive: flag))
            } else {
                node.upper.append(.init(value: x, exclusive: flag))
            }
        case "exclusiveMinimum", "exclusiveMaximum":
            if case .bool = value { break }
            guard case .number(let t) = value, let x = ExactNumber(t) else {
                throw fail("\(key) must be a number (or, draft-04, a boolean)")
            }
            if key == "exclusiveMinimum" {
                node.lower.append(.init(value: x, exclusive: true))
            } else {
                node.upper.append(.init(value: x, exclusive: true))
            }
        case "multipleOf":
            guard case .number(let t) = value, let x = ExactNumber(t), !x.negative, !x.isZero else {
                throw fail("multipleOf must be a number greater than 0")
            }
            node.multipleOf = x
        case "minLength", "maxLength", "minItems", "maxItems":
            guard case .number(let t) = value, let x = ExactNumber(t), x.isInteger, !x.negative else {
                throw fail("\(key) must be a non-negative integer")
            }
            let n = x.exponent > 18 ? Int.max : Int(t) ?? Int(Double(t) ?? 0)
            switch key {
            case "minLength": node.minLength = n
            case "maxLength": node.maxLength = n
            case "minItems": node.minItems = n
            default: node.maxItems = n
            }
        case "pattern":
            guard case .string(let p) = value else { throw fail("pattern must be a string") }
            if !compilesPatterns { break }
            if let i = patternIndex[p] {
                node.pattern = i
            } else {
                do {
                    // ECMA-262's `$` does not match before a trailing newline: "SFO\n" is not `^[A-Z]{3}$`.
                    let re = try PCRE2Regex(
                        p, options: [.utf, .dollarEndOnly], matchLimit: matchLimit, depthLimit: depthLimit)
                    node.pattern = patterns.count
                    patternIndex[p] = patterns.count
                    patterns.append(re)
                } catch {
                    throw fail("pattern \(JSONValue.string(p).jsonText) does not compile: \(error)")
                }
            }
        case "uniqueItems":
            guard case .bool(let b) = value else { throw fail("uniqueItems must be a boolean") }
            node.uniqueItems = b
        case "anyOf", "oneOf", "allOf":
            guard case .array(let list) = value, !list.isEmpty else { throw fail("\(key) must be a non-empty list of schemas") }
            let compiled = compileList(list, at: here)
            switch key {
            case "anyOf": node.anyOf = compiled
            case "oneOf": node.oneOf = compiled
            default: node.allOf = compiled
            }
        case "not":
            node.not = enqueue(value, at: here)
        case "nullable":
            guard case .bool(let b) = value else { throw fail("nullable must be a boolean") }
            node.nullable = b
        case "$ref":
            guard case .string(let ref) = value else { throw fail("$ref must be a string") }
            guard ref.hasPrefix("#") else {
                throw fail("$ref \"\(ref)\" is not local (only #/… references into the same schema are supported)")
            }
            let target = Self.normalize(ref)
            if let known = memo[target] {
                node.ref = known
            } else {
                guard let resolved = resolveIndexed(target) else {
                    throw fail("$ref \"\(ref)\" points nowhere")
                }
                node.ref = enqueue(resolved, at: target)
            }
        case "$defs", "definitions":
            guard value.isObject else { throw fail("\(key) must be an object") }
        default:
            if Self.annotations.contains(key) || key.hasPrefix("x-") { break }
            warnings.append("\(location): keyword \"\(key)\" is not checked")
        }
    }

    private mutating func compileList(_ list: [JSONValue], at location: String) -> [Int] {
        var out: [Int] = []
        for (i, s) in list.enumerated() { out.append(enqueue(s, at: location + "/\(i)")) }
        return out
    }

    /// Rejects a cycle of `$ref`s and combinators that never reaches a value (it would recurse
    /// forever on any value), and a chain of such steps longer than `maxChain` (checking one
    /// value would nest that deep).
    func checkCycles(maxChain: Int) throws(SchemaError) {
        // 0 unvisited, 1 on the stack, 2 done.
        var state = [UInt8](repeating: 0, count: nodes.count)
        // For a done node: the longest chain of in-place steps from it.
        var chain = [Int](repeating: 0, count: nodes.count)
        for start in nodes.indices where state[start] == 0 {
            var stack: [(node: Int, next: Int)] = [(start, 0)]
            state[start] = 1
            while let top = stack.last {
                let edges = nodes[top.node].inPlace
                if top.next < edges.count {
                    stack[stack.count - 1].next += 1
                    let e = edges[top.next]
                    if state[e] == 1 {
                        throw SchemaError(
                            location: nodes[e].location, reason: "a $ref cycle that never reaches a value")
                    }
                    if state[e] == 0 {
                        state[e] = 1
                        stack.append((e, 0))
                    }
                } else {
                    var longest = 0
                    for e in edges { longest = max(longest, chain[e] + 1) }
                    guard longest <= maxChain else {
                        throw SchemaError(
                            location: nodes[top.node].location,
                            reason: "a chain of more than \(maxChain) $ref/allOf/anyOf/oneOf/not steps on one value starts here; it is too deep to check")
                    }
                    chain[top.node] = longest
                    state[top.node] = 2
                    stack.removeLast()
                }
            }
        }
    }

    /// ``resolve(_:in:)`` for many references into one schema: the members of each large object
    /// a pointer passes through are indexed once, so resolving thousands of `$ref`s into one
    /// `$defs` is linear rather than quadratic.
    private mutating func resolveIndexed(_ fragment: String) -> JSONValue? {
        guard fragment.hasPrefix("#") else { return nil }
        let path = fragment.dropFirst()
        if path.isEmpty { return root }
        guard path.hasPrefix("/") else { return nil }
        var current = root
        var prefix = "#"
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let step = JSONPointer.unescape(raw)
            switch current {
            case .object(let members):
                let next: JSONValue?
                if members.count <= 8 {
                    next = current[step]
                } else {
                    if objectIndex[prefix] == nil {
                        var map: [String: JSONValue] = [:]
                        for m in members where map[m.key] == nil { map[m.key] = m.value }
                        objectIndex[prefix] = map
                    }
                    next = objectIndex[prefix]?[step]
                }
                guard let next else { return nil }
                current = next
            case .array(let a):
                guard let i = Int(step), i >= 0, i < a.count else { return nil }
                current = a[i]
            default:
                return nil
            }
            prefix += "/" + raw
        }
        return current
    }

    // MARK: - Pointers

    /// `~` and `/` escaped for a JSON Pointer step.
    static func escape(_ key: String) -> String { JSONPointer.escape(key) }

    /// A `$ref` fragment with percent-escapes decoded (`#/$defs/a%20b` → `#/$defs/a b`).
    static func normalize(_ ref: String) -> String {
        guard ref.contains("%") else { return ref }
        var bytes: [UInt8] = []
        let b = Array(ref.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let h = hex(b[i + 1]), let l = hex(b[i + 2]) {
                bytes.append(h << 4 | l)
                i += 3
            } else {
                bytes.append(b[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// The value a `#/a/b` fragment names inside `root`, or nil.
    static func resolve(_ fragment: String, in root: JSONValue) -> JSONValue? {
        guard fragment.hasPrefix("#") else { return nil }
        let path = fragment.dropFirst()
        if path.isEmpty { return root }
        guard path.hasPrefix("/") else { return nil }
        var current = root
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let step = JSONPointer.unescape(raw)
            switch current {
            case .object:
                guard let next = current[step] else { return nil }
                current = next
            case .array(let a):
                guard let i = Int(step), i >= 0, i < a.count else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}
