// ToolCallKit — checking a call's arguments against its tool's JSON schema.

/// Checks a JSON value against the JSON Schema subset that tool definitions use.
///
/// A call that has the right shape is not yet a correct call: a model may write an enum value
/// the tool does not know, a number out of range or a string the tool cannot parse, and
/// constrained generation does not reliably prevent it. A validator compiled once per tool
/// lets a decoder (``ToolCallDecoder/Options/validate``) or a server that parsed the call
/// elsewhere stop such a call, with a message precise enough to send back to the model.
///
/// Supported keywords: `type` (a name or a list; `float` is read as `number`), `properties`,
/// `required`, `additionalProperties` (boolean or schema), `items` (a schema, or a list read as
/// `prefixItems` with `additionalItems` for the rest), `prefixItems`, `enum`, `const`,
/// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or the draft-04
/// booleans), `multipleOf`, `minLength`, `maxLength` (counted in Unicode scalars), `pattern`
/// (PCRE2 in UTF mode, searched anywhere in the string as JSON Schema's ECMA-262 patterns are,
/// `$` only at the very end as in ECMA-262, with a match limit), `minItems`, `maxItems`, `uniqueItems`, `anyOf`, `oneOf`, `allOf`,
/// `not`, `nullable` (OpenAPI: `null` is also accepted), and local `$ref` (`#/$defs/…`,
/// `#/definitions/…`, or any JSON Pointer into the same schema). Annotations (`description`,
/// `title`, `default`, `examples`, `format`, `$schema`, `x-…`, …) are ignored by design. Any
/// other keyword is listed once in ``warnings`` when the schema is compiled, and not checked.
///
/// Numbers are compared exactly from their JSON text (integers beyond `Double` precision
/// included); values compare as JSON Schema says (`1` equals `1.0`, key order does not
/// matter). A value of the wrong `type` gets one violation and its other keywords are not
/// checked (they would only repeat the same fault).
///
/// Its cost follows the sizes of the schema and of the value, never their product or an
/// exponential of them: a schema is compiled without recursion (a `$ref` chain thousands of
/// links long costs heap, not stack) and one whose checks would nest more than 64
/// `$ref`/combinator steps on one value is refused; within one call each sub-schema is
/// checked at most once per value; messages quote at most 200 bytes of an `enum` or `const`;
/// and a ``Budget`` bounds the violations listed, the schema checks made, the PCRE2 match
/// work of the `pattern`s and the matches that may give up at their limit. A call that exhausts a budget gets a violation
/// saying so, never a silent pass.
///
/// It does not fetch remote `$ref`s, does not check `format`, and does not coerce types
/// (``SchemaTyping`` types text-valued arguments before they get here).
///
/// A validator is a `Sendable` value: the compiled patterns are shared read-only, and every
/// ``validate(_:)`` call makes its own PCRE2 match data, so one validator may serve many
/// decoders and threads at once.
public struct SchemaValidator: Sendable {
    /// One way a value breaks its schema.
    ///
    /// Its ``description`` is one line of a rejected call's `invalid_arguments` detail:
    /// `<JSON Pointer>: expected <what>, found <value>`. The pointer of the value itself (the
    /// arguments object) is the empty string, as RFC 6901 spells the root.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        /// Where the offending value is (RFC 6901; `""` is the root, `/a/0` the first item of `a`).
        public var pointer: String
        /// What the schema expects there (`one of ["celsius", "fahrenheit"]`, `at most 9`).
        public var expected: String
        /// The value found, as compact JSON, cut at 120 bytes with `…`; `nothing` for a missing
        /// required property.
        public var found: String

        /// Creates a violation (for tests and for servers that add their own checks).
        public init(pointer: String, expected: String, found: String) {
            self.pointer = pointer
            self.expected = expected
            self.found = found
        }

        /// The detail line: `<pointer>: expected <what>, found <value>`.
        public var description: String { "\(pointer): expected \(expected), found \(found)" }
    }

    /// Why a schema cannot be compiled.
    public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Where in the schema, as a URI fragment (`#/properties/origin/pattern`; `#` is the root).
        public var location: String
        /// What is wrong.
        public var reason: String

        /// Creates a schema error.
        public init(location: String, reason: String) {
            self.location = location
            self.reason = reason
        }

        /// `<location>: <reason>`.
        public var description: String { "\(location): \(reason)" }
    }

    /// The schema this validator was compiled from.
    public let schema: JSONValue
    /// Keywords that are present but not checked, one line each (`#/properties/a: keyword
    /// "minProperties" is not checked`), in the order they appear.
    public let warnings: [String]

    /// Compiled nodes, boxed so that reading one during validation copies no arrays.
    let nodes: [CompiledNode]
    let patterns: [PCRE2Regex]
    let root: Int

    /// The longest rendering of a found value in a violation, in bytes.
    static let maxFoundBytes = 120
    /// The most of an `enum` list or a `const` value a violation quotes, in bytes.
    static let maxQuotedBytes = 200
    /// The longest `expected` text of one violation (an `anyOf` message quoting its branches'
    /// faults is cut here), in bytes.
    static let maxExpectedBytes = 1_000
    /// The longest chain of `$ref`/`allOf`/`anyOf`/`oneOf`/`not` steps that stay on one value.
    static let maxInPlaceChain = 64
    /// The deepest a validation may nest (values inside values, plus the in-place steps of
    /// each), so that a deep value cannot exhaust the stack.
    static let maxCheckDepth = 2_048

    /// What one ``validate(_:)`` call may spend, so that its cost follows the sizes of the
    /// call and the schema, never their product or an exponential of them.
    ///
    /// Within one call, each sub-schema is checked at most once against each value (a
    /// `$ref` shared by many `anyOf`/`allOf` branches is worked out once and its result
    /// reused), and the totals below bound the rest. A call that runs out is rejected with a
    /// violation that says which budget ran out: a validator never gives up silently.
    public struct Budget: Sendable, Equatable {
        /// The most violations a call lists; further ones are counted (``Report/omitted``).
        public var maxViolations: Int
        /// Schema checks (one sub-schema against one value) any call may make...
        public var baseSteps: Int
        /// ...plus this many for each value in the call (the arguments object, its members,
        /// their items, and so on).
        public var stepsPerValue: Int
        /// How many `pattern` matches of one call may give up at their match limit (each
        /// having spent the whole limit); at the last of them the call stops, the rest of it
        /// unchecked, and it is rejected saying so. At least 1.
        public var patternLimitHits: Int

        /// PCRE2 match steps the `pattern` checks of one call may spend at their full match
        /// limit. Each match is charged the whole limit it is given; once this is spent, a
        /// match may take only ``patternStepsPerByte`` steps per byte of its string, so the
        /// total match work of a call is at most this plus that many steps per byte of the call.
        public var patternSteps: Int
        /// The steps per byte of its string (plus one) a match may always take: far more than
        /// a pattern that runs in linear time needs.
        public var patternStepsPerByte: Int

        /// The defaults: 100 violations listed; 1,000,000 checks plus 16 per value; 10 pattern
        /// matches that give up (each having spent its whole match limit); 10,000,000 match
        /// steps at full limit, then 100 per byte.
        public init(
            maxViolations: Int = 100, baseSteps: Int = 1_000_000, stepsPerValue: Int = 16, patternLimitHits: Int = 10,
            patternSteps: Int = 10_000_000, patternStepsPerByte: Int = 100
        ) {
            self.maxViolations = max(1, maxViolations)
            self.baseSteps = max(0, baseSteps)
            self.stepsPerValue = max(1, stepsPerValue)
            self.patternLimitHits = max(1, patternLimitHits)
            self.patternSteps = max(0, patternSteps)
            self.patternStepsPerByte = max(1, patternStepsPerByte)
        }
    }

    /// The result of one ``check(_:)``.
    public struct Report: Sendable, Equatable {
        /// The first violations, at most ``Budget/maxViolations`` of them.
        public var violations: [Violation]
        /// How many further violations were found and not listed.
        public var omitted: Int

        /// Whether the value is valid.
        public var isValid: Bool { violations.isEmpty }

        /// The `invalid_arguments` detail: one line per violation, then `and N more
        /// violations` when some were left out.
        public var detail: String {
            var lines = violations.map(\.description)
            if omitted > 0 { lines.append("and \(omitted) more violation\(omitted == 1 ? "" : "s")") }
            return lines.joined(separator: "\n")
        }
    }

    /// What one call may spend.
    public let budget: Budget

    /// Compiles a schema: resolves `$ref`s, compiles each distinct `pattern` once, and lists
    /// the keywords it will not check.
    ///
    /// - Parameters:
    ///   - schema: the JSON schema (an object or a boolean).
    ///   - matchLimit: the most backtracking steps one `pattern` match may take; a match that
    ///     hits it is a violation, never a hang.
    ///   - depthLimit: the deepest backtracking one `pattern` match may reach.
    ///   - budget: what one ``validate(_:)`` call may spend.
    /// - Throws: ``SchemaError`` for a schema that cannot be applied: a `pattern` PCRE2 cannot
    ///   compile, a `$ref` that points nowhere or outside the schema, a `$ref` cycle that never
    ///   reaches a value, a chain of more than 64 `$ref`/`allOf`/`anyOf`/`oneOf`/`not` steps that
    ///   stay on one value, a keyword whose value has the wrong JSON type, an unknown `type`
    ///   name, or `required` naming an undeclared property when `additionalProperties` is false.
    public init(
        schema: JSONValue, matchLimit: UInt32 = 100_000, depthLimit: UInt32 = 1_000, budget: Budget = Budget()
    ) throws(SchemaError) {
        try self.init(
            schema: schema, compiler: SchemaCompiler(root: schema, matchLimit: matchLimit, depthLimit: depthLimit),
            budget: budget)
    }

    /// Compiles a schema for reading only (``argumentTypes(_:)``): `pattern`s are not compiled.
    init(schema: JSONValue, compilingPatterns: Bool) throws(SchemaError) {
        try self.init(
            schema: schema,
            compiler: SchemaCompiler(root: schema, matchLimit: 1, depthLimit: 1, compilesPatterns: compilingPatterns),
            budget: Budget())
    }

    private init(schema: JSONValue, compiler: SchemaCompiler, budget: Budget) throws(SchemaError) {
        var c = compiler
        let root = try c.compileRoot(schema)
        try c.checkCycles(maxChain: Self.maxInPlaceChain)
        self.schema = schema
        self.nodes = c.nodes.map(CompiledNode.init)
        self.patterns = c.patterns
        self.warnings = c.warnings
        self.root = root
        self.budget = budget
    }

    /// Checks a value.
    ///
    /// - Parameter value: the value (for a tool call, its arguments object).
    /// - Returns: the violations (at most ``Budget/maxViolations``; ``check(_:)`` also counts
    ///   those left out), one per fault, in a stable order: a value's own keywords
    ///   (`$ref`, `type`, `enum`, `const`, bounds, length, `pattern`, item counts, `uniqueItems`),
    ///   then its items or members in the order written, then missing required properties in
    ///   the order `required` lists them, then `anyOf`, `oneOf`, `allOf` and `not`. Empty when
    ///   the value is valid.
    public func validate(_ value: JSONValue) -> [Violation] {
        check(value).violations
    }

    /// Checks a value, counting the violations beyond ``Budget/maxViolations`` too.
    ///
    /// - Parameter value: the value (for a tool call, its arguments object).
    /// - Returns: the first violations (in ``validate(_:)``'s order) and how many more there are.
    public func check(_ value: JSONValue) -> Report {
        var run = ValidationRun(cap: budget.maxViolations)
        run.shared.allowance = budget.baseSteps
        run.shared.perValue = budget.stepsPerValue
        run.shared.value = value
        run.shared.patternHitsLeft = budget.patternLimitHits
        run.shared.patternSteps = budget.patternSteps
        check(root, value, &run)
        if let stop = run.shared.stopped {
            // Said once, first: whatever else is listed is what was found before it stopped.
            if run.total < Int.max { run.total += 1 }
            if run.out.count >= run.cap { run.out.removeLast() }
            run.out.insert(ValidationRun.Entry(violation: stop), at: 0)
        }
        return Report(violations: run.out.map(\.violation), omitted: run.total - run.out.count)
    }

    /// The number of values in `v`, itself included (without recursion: a value built in code
    /// may nest deeper than any parser allows).
    static func valueCount(_ v: JSONValue) -> Int {
        var count = 0
        var stack = [v]
        while let x = stack.popLast() {
            count += 1
            switch x {
            case .array(let a): stack.append(contentsOf: a)
            case .object(let o): for m in o { stack.append(m.value) }
            default: break
            }
        }
        return count
    }

    /// Whether `value` is valid (``validate(_:)`` is empty).
    public func isValid(_ value: JSONValue) -> Bool { check(value).isValid }

    /// The JSON types the compiled schema admits for the top-level property `key`, in the
    /// order to try them (`integer`, `number`, `string`, `boolean`, `null`, `object`, `array`
    /// as written; `float` read as `number`); empty when it names none.
    ///
    /// This is the schema the validator checks: `$ref`s are followed, and `allOf` members,
    /// the property's own `type`, `enum` and `const` all constrain it (their types intersect),
    /// while `anyOf`/`oneOf` branches each add theirs. A value typed by this list is judged
    /// by the same reading of the schema that ``validate(_:)`` applies.
    func argumentTypes(_ key: String) -> [String] {
        var memo: [Int: [String]?] = [:]
        return argumentTypes(key, in: conjunctiveClosure(of: root), memo: &memo)
    }

    /// ``argumentTypes(_:)`` for every top-level property (those that name no type left out),
    /// sharing the work between them.
    func allArgumentTypes() -> [String: [String]] {
        var out: [String: [String]] = [:]
        var memo: [Int: [String]?] = [:]
        let top = conjunctiveClosure(of: root)
        for key in topLevelPropertyNames() where out[key] == nil {
            let types = argumentTypes(key, in: top, memo: &memo)
            if !types.isEmpty { out[key] = types }
        }
        return out
    }

    private func argumentTypes(_ key: String, in top: [Int], memo: inout [Int: [String]?]) -> [String] {
        var result: [String]? = nil
        var visiting: Set<Int> = []
        for n in top {
            guard let i = nodes[n].n.properties[key] else { continue }
            guard let t = admitted(nodes[n].n.propertyNodes[i], &visiting, &memo) else { continue }
            result = result.map { Self.intersect($0, t) } ?? t
        }
        return result ?? []
    }

    /// The names of the top-level properties the schema declares (through `$ref` and
    /// `allOf` too), in the order first declared.
    func topLevelPropertyNames() -> [String] {
        var out: [String] = []
        var seen: Set<String> = []
        for n in conjunctiveClosure(of: root) {
            for name in nodes[n].n.propertyOrder where seen.insert(name).inserted { out.append(name) }
        }
        return out
    }

    /// The names the top-level `required` lists (through `$ref` and `allOf` too), each once.
    func topLevelRequired() -> [String] {
        var out: [String] = []
        var seen: Set<String> = []
        for n in conjunctiveClosure(of: root) {
            for name in nodes[n].n.required where seen.insert(name).inserted { out.append(name) }
        }
        return out
    }

    /// `n` and every node that must also hold for its value: its `$ref` and `allOf` members,
    /// transitively (each once).
    private func conjunctiveClosure(of n: Int) -> [Int] {
        if nodes[n].n.allOf.isEmpty && nodes[n].n.ref == nil { return [n] }
        var out: [Int] = []
        var seen: Set<Int> = [n]
        var stack = [n]
        while let k = stack.popLast() {
            out.append(k)
            let node = nodes[k].n
            for next in node.allOf + (node.ref.map { [$0] } ?? []) where seen.insert(next).inserted {
                stack.append(next)
            }
        }
        return out
    }

    /// The types node `n` admits (nil: no constraint), per ``argumentTypes(_:)``.
    private func admitted(_ n: Int, _ visiting: inout Set<Int>, _ memo: inout [Int: [String]?]) -> [String]? {
        if let known = memo[n] { return known }
        let plain = nodes[n].n
        if plain.ref == nil && plain.allOf.isEmpty && plain.anyOf.isEmpty && plain.oneOf.isEmpty
            && plain.enumValues == nil && plain.constValue == nil && !plain.isFalse
        {
            // The common case: the node's own `type`, nothing to combine.
            return plain.types == nil ? nil : plain.typeNames
        }
        guard visiting.insert(n).inserted else { return nil }  // a cycle constrains nothing more
        defer { visiting.remove(n) }
        var result: [String]? = nil
        func meet(_ t: [String]?) {
            guard let t else { return }
            result = result.map { Self.intersect($0, t) } ?? t
        }
        for k in conjunctiveClosure(of: n) {
            let node = nodes[k].n
            if node.isFalse { meet([]) }
            if node.types != nil { meet(node.typeNames) }
            if let values = node.enumValues, !values.isEmpty { meet(Self.typeNames(of: values)) }
            if let c = node.constValue { meet(Self.typeNames(of: [c])) }
            for branches in [node.anyOf, node.oneOf] where !branches.isEmpty {
                var union: [String] = []
                var open = false
                for b in branches {
                    guard let t = admitted(b, &visiting, &memo) else {
                        open = true
                        continue
                    }
                    for name in t where !union.contains(name) { union.append(name) }
                }
                if !open { meet(union) }
            }
            if node.nullable, var r = result, !r.isEmpty, !r.contains("null") {
                r.append("null")
                result = r
            }
        }
        memo[n] = .some(result)
        return result
    }

    /// The JSON type names of `values`, in first-seen order.
    private static func typeNames(of values: [JSONValue]) -> [String] {
        var out: [String] = []
        for v in values {
            let name: String
            switch v {
            case .string: name = "string"
            case .number: name = "number"
            case .bool: name = "boolean"
            case .null: name = "null"
            case .array: name = "array"
            case .object: name = "object"
            }
            if !out.contains(name) { out.append(name) }
        }
        return out
    }

    /// The types both lists admit, in `a`'s order (`integer` is the meet of `integer` and `number`).
    private static func intersect(_ a: [String], _ b: [String]) -> [String] {
        var out: [String] = []
        for t in a {
            var kept: String? = nil
            if b.contains(t) {
                kept = t
            } else if t == "number" && b.contains("integer") || t == "integer" && b.contains("number") {
                kept = "integer"
            }
            if let kept, !out.contains(kept) { out.append(kept) }
        }
        return out
    }
}

// MARK: - Compiled form

extension SchemaValidator {
    /// JSON types as bits.
    struct TypeMask: OptionSet, Sendable {
        let rawValue: UInt8
        static let null = TypeMask(rawValue: 1)
        static let boolean = TypeMask(rawValue: 2)
        static let object = TypeMask(rawValue: 4)
        static let array = TypeMask(rawValue: 8)
        static let number = TypeMask(rawValue: 16)
        static let integer = TypeMask(rawValue: 32)
        static let string = TypeMask(rawValue: 64)

        static func named(_ name: String) -> TypeMask? {
            switch name {
            case "null": return .null
            case "boolean": return .boolean
            case "object": return .object
            case "array": return .array
            case "number", "float": return .number
            case "integer": return .integer
            case "string": return .string
            default: return nil
            }
        }

        func admits(_ v: JSONValue) -> Bool {
            switch v {
            case .null: return contains(.null)
            case .bool: return contains(.boolean)
            case .object: return contains(.object)
            case .array: return contains(.array)
            case .string: return contains(.string)
            case .number(let t):
                if contains(.number) { return true }
                return contains(.integer) && (Int64(t) != nil || ExactNumber(t)?.isInteger ?? false)
            }
        }
    }

    /// A numeric bound.
    struct Bound: Sendable {
        var value: ExactNumber
        var exclusive: Bool
        /// The bound as an `Int64`, when it is one (the common case, compared without parsing).
        var int: Int64?

        init(value: ExactNumber, exclusive: Bool) {
            self.value = value
            self.exclusive = exclusive
            self.int = Int64(value.text)
        }

        /// -1, 0 or 1 as `x` (an `Int64` when `xi` is set) is below, at or above the bound.
        func compare(_ xi: Int64?, _ text: String, _ exact: inout ExactNumber?) -> Int {
            if let xi, let int { return xi < int ? -1 : (xi == int ? 0 : 1) }
            if exact == nil { exact = ExactNumber(text) }
            guard let x = exact else { return 0 }
            return ExactNumber.compare(x, value)
        }
    }

    /// An immutable, shared ``Node``.
    final class CompiledNode: Sendable {
        let n: Node
        init(_ n: Node) { self.n = n }
    }

    /// One compiled schema; children are indexes into ``nodes``.
    struct Node: Sendable {
        /// The schema's location, for messages (`#/properties/a`).
        var location: String
        /// The `false` schema: nothing is valid.
        var isFalse = false
        var types: TypeMask?
        /// The `type` names as written, `null` added for `nullable`, for messages.
        var typeNames: [String] = []
        var nullable = false
        var enumValues: [JSONValue]?
        /// The `expected` text of an enum violation, made once (quoting at most
        /// ``SchemaValidator/maxQuotedBytes`` of the list).
        var enumExpected = ""
        var enumKeys: Set<String> = []
        /// A short enum of strings only: compared directly, without canonical keys.
        var enumStrings: [String]?
        var constValue: JSONValue?
        /// The `expected` text of a const violation, made once (cut like ``enumExpected``).
        var constExpected = ""
        var lower: [Bound] = []
        var upper: [Bound] = []
        var multipleOf: ExactNumber?
        var minLength: Int?
        var maxLength: Int?
        var pattern: Int?
        var minItems: Int?
        var maxItems: Int?
        var uniqueItems = false
        var prefixItems: [Int] = []
        var items: Int?
        /// Property name → its position in ``propertyOrder``.
        var properties: [String: Int] = [:]
        var propertyOrder: [String] = []
        /// The declared property names for a "no such property" message, made once (cut like
        /// ``enumExpected``).
        var declaredText = "none"
        /// The schema of each property, by position.
        var propertyNodes: [Int] = []
        var required: [String] = []
        /// For each property position, its position in ``required`` (or -1).
        var requiredSlot: [Int] = []
        /// Whether `required` names a property that `properties` does not declare.
        var requiredUndeclared = false
        /// `additionalProperties`: nil allows anything; a node index checks it.
        var additional: Int?
        var additionalForbidden = false
        var anyOf: [Int] = []
        var oneOf: [Int] = []
        var allOf: [Int] = []
        var not: Int?
        var ref: Int?

        init(location: String) { self.location = location }

        /// Children checked against the same value (no descent): `$ref` and the combinators.
        var inPlace: [Int] {
            var out = anyOf + oneOf + allOf
            if let not { out.append(not) }
            if let ref { out.append(ref) }
            return out
        }
    }
}

// MARK: - Validation

/// One step of a JSON Pointer.
private enum PathItem {
    case key(String)
    case index(Int)
}

/// The state of one ``SchemaValidator/validate(_:)`` call, or of one branch of it (an `anyOf`
/// alternative, a `not`), whose findings are judged before they count.
private struct ValidationRun {
    /// A violation and whether it is a bare type mismatch (for merging `anyOf` messages).
    struct Entry {
        var violation: SchemaValidator.Violation
        var isType = false
    }

    /// One sub-schema's findings against the current value: the first entries and how many.
    struct Outcome {
        var entries: [Entry]
        var total: Int
    }

    /// What the whole call shares, passed from a run to its branches and back.
    struct Shared {
        /// Schema checks made, and the number allowed: the base, and once that is spent, the
        /// base plus ``perValue`` for each value of the call (counted only then, so a call
        /// that stays within the base never pays for the count).
        var steps = 0
        var allowance = 0
        var perValue = 0
        /// The value of the call, until its values have been counted.
        var value: JSONValue?
        /// Pattern matches that may still give up at their limit before the call stops.
        var patternHitsLeft = 0
        /// Match steps left to give at full limit (``SchemaValidator/Budget/patternSteps``).
        var patternSteps = 0
        /// Why the call stopped early (a budget ran out); nil while it has not.
        var stopped: SchemaValidator.Violation?
        /// How deep the checks nest now.
        var depth = 0
        /// In-place sub-schemas already checked against the current value, by node.
        var memo: [Int: Outcome] = [:]
    }

    var path: [PathItem] = []
    /// The first ``cap`` entries.
    var out: [Entry] = []
    /// Every entry found, listed or not.
    var total = 0
    let cap: Int
    var shared = Shared()

    init(cap: Int, path: [PathItem] = []) {
        self.cap = cap
        self.path = path
    }

    var pointer: String {
        var s = ""
        for p in path {
            s += "/"
            switch p {
            case .index(let i): s += String(i)
            case .key(let k): s += JSONPointer.escape(k)
            }
        }
        return s
    }

    mutating func add(_ expected: String, _ value: JSONValue?, isType: Bool = false) {
        if total < Int.max { total += 1 }
        guard out.count < cap else { return }
        let found = value.map { SchemaValidator.render($0, limit: SchemaValidator.maxFoundBytes) } ?? "nothing"
        let shown = SchemaValidator.cut(expected, limit: SchemaValidator.maxExpectedBytes)
        out.append(Entry(violation: .init(pointer: pointer, expected: shown, found: found), isType: isType))
    }

    mutating func append(_ o: Outcome) {
        total = total > Int.max - o.total ? Int.max : total + o.total
        for e in o.entries where out.count < cap { out.append(e) }
    }

    /// A run for a branch of this one: same place, same shared state (moved, not copied).
    mutating func branch() -> ValidationRun {
        var sub = ValidationRun(cap: cap, path: path)
        swap(&sub.shared, &shared)
        return sub
    }

    /// Takes the shared state back from a finished branch.
    mutating func rejoin(_ sub: inout ValidationRun) {
        swap(&sub.shared, &shared)
    }

    /// Whether a budget ran out (every check from then on returns at once).
    var isStopped: Bool { shared.stopped != nil }

    /// Counts one check; false (and the call stopped) when the allowance is spent.
    mutating func step() -> Bool {
        if shared.stopped != nil { return false }
        shared.steps += 1
        if shared.steps > shared.allowance, let value = shared.value {
            shared.value = nil
            let (extra, overflow) = SchemaValidator.valueCount(value).multipliedReportingOverflow(by: shared.perValue)
            shared.allowance = overflow || extra > Int.max - shared.allowance ? Int.max : shared.allowance + extra
        }
        if shared.steps > shared.allowance {
            shared.stopped = .init(
                pointer: "", expected: "a call that can be checked within \(shared.allowance) schema checks",
                found: "more (validation stopped there; the violations listed were found before it)")
            return false
        }
        return true
    }
}

extension SchemaValidator {
    private func check(_ n: Int, _ v: JSONValue, _ run: inout ValidationRun) {
        guard run.step() else { return }
        if run.shared.depth >= Self.maxCheckDepth {
            run.add("a value nested at most \(Self.maxCheckDepth) schema levels deep (not checked further)", v)
            return
        }
        run.shared.depth += 1
        defer { run.shared.depth -= 1 }
        let node = nodes[n]
        if node.n.isFalse {
            run.add("no value (the schema is false)", v)
            return
        }
        if node.n.nullable, case .null = v { return }
        if let ref = node.n.ref { run.append(outcome(ref, v, &run)) }
        if let types = node.n.types, !types.admits(v) {
            let names = node.n.typeNames
            run.add(names.count == 1 ? names[0] : "one of " + names.joined(separator: ", "), v, isType: true)
            return
        }
        if node.n.enumValues != nil, !enumContains(node, v) {
            run.add(node.n.enumExpected, v)
        }
        if let c = node.n.constValue, Self.canonical(c) != Self.canonical(v) {
            run.add(node.n.constExpected, v)
        }
        switch v {
        case .number(let t):
            checkNumber(node, t, v, &run)
        case .string(let s):
            checkString(node, s, v, &run)
        case .array(let items):
            checkArray(node, items, v, &run)
        case .object(let members):
            checkObject(node, members, &run)
        case .null, .bool:
            break
        }
        if !node.n.anyOf.isEmpty { checkAlternatives(node.n.anyOf, keyword: "anyOf", exactlyOne: false, v, &run) }
        if !node.n.oneOf.isEmpty { checkAlternatives(node.n.oneOf, keyword: "oneOf", exactlyOne: true, v, &run) }
        for k in node.n.allOf { run.append(outcome(k, v, &run)) }
        if let not = node.n.not, outcome(not, v, &run).total == 0, !run.isStopped {
            run.add("a value not valid against \(Self.render(schemaAt(not), limit: 80)) (\"not\")", v)
        }
    }

    /// What node `n` finds in `v` (the value the run is at), each node worked out once per
    /// value: an `anyOf` of `allOf`s over one shared `$ref` costs its size, not 2^depth.
    private func outcome(_ n: Int, _ v: JSONValue, _ run: inout ValidationRun) -> ValidationRun.Outcome {
        if let known = run.shared.memo[n] { return known }
        var sub = run.branch()
        check(n, v, &sub)
        run.rejoin(&sub)
        let o = ValidationRun.Outcome(entries: sub.out, total: sub.total)
        if !run.isStopped { run.shared.memo[n] = o }
        return o
    }

    /// Checks `item` (a member or item of the current value) against node `n`, at `step`.
    private func descend(_ n: Int, _ item: JSONValue, at step: PathItem, _ run: inout ValidationRun) {
        run.path.append(step)
        if run.shared.memo.isEmpty {
            // The common case (no shared sub-schemas so far): nothing to set aside.
            check(n, item, &run)
            if !run.shared.memo.isEmpty { run.shared.memo.removeAll() }  // the item's, not ours
        } else {
            let outer = run.shared.memo
            run.shared.memo = [:]
            check(n, item, &run)
            run.shared.memo = outer
        }
        run.path.removeLast()
    }

    private func checkNumber(_ node: CompiledNode, _ t: String, _ v: JSONValue, _ run: inout ValidationRun) {
        guard !node.n.lower.isEmpty || !node.n.upper.isEmpty || node.n.multipleOf != nil else { return }
        // Integers that fit 64 bits are compared as such; anything else exactly from its digits.
        let xi = Int64(t)
        var exact: ExactNumber? = nil
        for b in node.n.lower {
            let c = b.compare(xi, t, &exact)
            if c < 0 || (b.exclusive && c == 0) {
                run.add((b.exclusive ? "more than " : "at least ") + b.value.text, v)
            }
        }
        for b in node.n.upper {
            let c = b.compare(xi, t, &exact)
            if c > 0 || (b.exclusive && c == 0) {
                run.add((b.exclusive ? "less than " : "at most ") + b.value.text, v)
            }
        }
        if let m = node.n.multipleOf {
            let ok: Bool
            if let xi, let mi = Int64(m.text) {
                ok = xi % mi == 0
            } else {
                if exact == nil { exact = ExactNumber(t) }
                ok = exact?.isMultiple(of: m) ?? true
            }
            if !ok { run.add("a multiple of \(m.text)", v) }
        }
    }

    private func checkString(_ node: CompiledNode, _ s: String, _ v: JSONValue, _ run: inout ValidationRun) {
        let lo = node.n.minLength ?? 0
        let hi = node.n.maxLength ?? .max
        let bytes = s.utf8.count
        // A string has between ⌈bytes / 4⌉ and `bytes` scalars: count them only when a bound
        // falls inside that range.
        if lo > (bytes + 3) / 4 || hi < bytes {
            let n = s.unicodeScalars.count
            if n < lo { run.add("at least \(Self.plural(lo, "character"))", v) }
            if n > hi { run.add("at most \(Self.plural(hi, "character"))", v) }
        }
        if let p = node.n.pattern {
            let regex = patterns[p]
            // Each match may spend what is left of the call's pattern budget (all of its own
            // limit while the budget lasts), and always a little per byte of its subject, so a
            // linear pattern is never cut short; it is charged the whole limit it was given.
            let (perByte, overflow) = budget.patternStepsPerByte.multipliedReportingOverflow(by: bytes + 1)
            let floor = overflow ? Int(regex.matchLimit) : min(Int(regex.matchLimit), perByte)
            let limit = max(floor, min(Int(regex.matchLimit), run.shared.patternSteps))
            run.shared.patternSteps = max(0, run.shared.patternSteps - limit)
            // Match data belongs to this call alone.
            let matcher = regex.makeMatcher(matchLimit: UInt32(limit))
            do {
                if case .noMatch = try matcher.match(Array(s.utf8)) {
                    run.add("a string matching /\(regex.pattern)/", v)
                }
            } catch {
                let why = !error.isLimit ? "PCRE2: \(error.message)"
                    : limit < Int(regex.matchLimit)
                    ? "the match gave up at its limit of \(limit) steps, the call's pattern budget being spent"
                    : "the match gave up at its limit"
                run.add("a string matching /\(regex.pattern)/ (\(why))", v)
                if error.isLimit {
                    run.shared.patternHitsLeft -= 1
                    if run.shared.patternHitsLeft <= 0 && run.shared.stopped == nil {
                        run.shared.stopped = .init(
                            pointer: run.pointer,
                            expected: "a call whose pattern checks fit the validation budget (\(budget.patternLimitHits) matches gave up at their match limit; the rest of the call was not checked)",
                            found: Self.render(v, limit: Self.maxFoundBytes))
                    }
                }
            }
        }
    }

    private func checkArray(_ node: CompiledNode, _ items: [JSONValue], _ v: JSONValue, _ run: inout ValidationRun) {
        if let m = node.n.minItems, items.count < m { run.add("at least \(Self.plural(m, "item"))", v) }
        if let m = node.n.maxItems, items.count > m { run.add("at most \(Self.plural(m, "item"))", v) }
        if node.n.uniqueItems && items.count > 1 {
            var seen: [String: Int] = [:]
            for (i, item) in items.enumerated() {
                let key = Self.canonical(item)
                if let first = seen[key] {
                    run.path.append(.index(i))
                    run.add("a unique item (item \(first) is the same)", item)
                    run.path.removeLast()
                } else {
                    seen[key] = i
                }
            }
        }
        guard !node.n.prefixItems.isEmpty || node.n.items != nil else { return }
        for (i, item) in items.enumerated() {
            if run.isStopped { return }
            let schema = i < node.n.prefixItems.count ? node.n.prefixItems[i] : node.n.items
            guard let schema else { continue }
            descend(schema, item, at: .index(i), &run)
        }
    }

    private func enumContains(_ node: CompiledNode, _ v: JSONValue) -> Bool {
        if let strings = node.n.enumStrings {
            guard case .string(let s) = v else { return false }
            return strings.contains(s)
        }
        return node.n.enumKeys.contains(Self.canonical(v))
    }

    private func checkObject(_ node: CompiledNode, _ members: [(key: String, value: JSONValue)], _ run: inout ValidationRun) {
        let open = node.n.additional == nil && !node.n.additionalForbidden
        let requiredCount = node.n.required.count
        // Required properties seen, by position in `required` (a bit each while they fit).
        var seenBits: UInt64 = 0
        var seen: [Bool] = requiredCount > 64 ? Array(repeating: false, count: requiredCount) : []
        if !node.n.properties.isEmpty || !open {
            let order = node.n.propertyOrder
            for (i, (key, value)) in members.enumerated() {
                if run.isStopped { return }
                // Models mostly write keys in schema order: try the same position before hashing.
                let position = i < order.count && order[i] == key ? i : node.n.properties[key]
                if let position {
                    let slot = node.n.requiredSlot[position]
                    if slot >= 0 {
                        if slot < 64 { seenBits |= 1 << UInt64(slot) } else { seen[slot] = true }
                    }
                    descend(node.n.propertyNodes[position], value, at: .key(key), &run)
                } else if let a = node.n.additional {
                    descend(a, value, at: .key(key), &run)
                } else if node.n.additionalForbidden {
                    run.path.append(.key(key))
                    run.add("no such property (declared: \(node.n.declaredText))", value)
                    run.path.removeLast()
                }
            }
        }
        guard requiredCount > 0 else { return }
        for (slot, name) in node.n.required.enumerated() {
            var has = slot < 64 ? seenBits & (1 << UInt64(slot)) != 0 : seen[slot]
            if !has && node.n.requiredUndeclared && node.n.properties[name] == nil {
                // Not a declared property, so not marked above: look for it.
                has = members.contains { $0.key == name }
            }
            if !has {
                run.path.append(.key(name))
                run.add("a value (the property is required)", nil)
                run.path.removeLast()
            }
        }
    }

    private func checkAlternatives(
        _ branches: [Int], keyword: String, exactlyOne: Bool, _ v: JSONValue, _ run: inout ValidationRun
    ) {
        var failures: [ValidationRun.Outcome] = []
        var valid: [Int] = []
        for (i, b) in branches.enumerated() {
            let o = outcome(b, v, &run)
            if run.isStopped { return }
            if o.total == 0 {
                valid.append(i)
                if !exactlyOne { return }
            } else {
                failures.append(o)
            }
        }
        if valid.count == 1 { return }
        if valid.count > 1 {
            let list = valid.map { "\(keyword)[\($0)]" }.joined(separator: ", ")
            run.add("exactly one \(keyword) alternative to match (\(list) all match)", v)
            return
        }
        // Every branch failed. Bare type mismatches merge into one list of types.
        let here = run.pointer
        if failures.allSatisfy({ $0.total == 1 && $0.entries.count == 1 && $0.entries[0].isType && $0.entries[0].violation.pointer == here }) {
            var names: [String] = []
            for f in failures {
                var e = f.entries[0].violation.expected
                if e.hasPrefix("one of ") { e.removeFirst(7) }
                for n in e.split(separator: ",").map({ $0.trimmingSpaces }) where !names.contains(n) { names.append(n) }
            }
            run.add(names.count == 1 ? names[0] : "one of " + names.joined(separator: ", "), v, isType: true)
            return
        }
        // Each branch's own faults; those about this very value leave out pointer and value.
        // The text is built only up to what a violation shows.
        var text = "a value valid against one of the \(keyword) alternatives ("
        for (i, f) in failures.enumerated() {
            if text.utf8.count > Self.maxExpectedBytes { break }
            if i > 0 { text += " | " }
            text += "\(keyword)[\(i)]: "
            for (j, e) in f.entries.enumerated() {
                if text.utf8.count > Self.maxExpectedBytes { break }
                if j > 0 { text += "; " }
                text += e.violation.pointer == here ? "expected \(e.violation.expected)" : e.violation.description
            }
            if f.total > f.entries.count { text += "; and \(f.total - f.entries.count) more" }
        }
        run.add(text + ")", v)
    }

    /// The schema JSON a node was compiled from (for `not` messages).
    private func schemaAt(_ n: Int) -> JSONValue {
        SchemaCompiler.resolve(nodes[n].n.location, in: schema) ?? .object([])
    }

    static func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

// MARK: - Rendering and comparing values

extension SchemaValidator {
    /// JSON text with `", "` and `": "` separators, cut at `limit` bytes (on a character
    /// boundary) with `…`.
    static func render(_ v: JSONValue, limit: Int) -> String {
        var out: [UInt8] = []
        write(v, to: &out, limit: limit)
        if out.count > limit {
            var end = limit
            while end > 0 && out[end] & 0xC0 == 0x80 { end -= 1 }
            return String(decoding: out[0..<end], as: UTF8.self) + "…"
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ v: JSONValue, to out: inout [UInt8], limit: Int) {
        if out.count > limit { return }
        switch v {
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, x) in a.enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                write(x, to: &out, limit: limit)
                if out.count > limit { return }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                JSONValue.writeString(m.key, to: &out)
                out.append(contentsOf: ": ".utf8)
                write(m.value, to: &out, limit: limit)
                if out.count > limit { return }
            }
            out.append(UInt8(ascii: "}"))
        case .string(let s) where s.utf8.count > limit:
            // Escape only the part that can show.
            var cut = s.unicodeScalars.startIndex
            var bytes = 0
            while cut < s.unicodeScalars.endIndex && bytes <= limit {
                bytes += UTF8.width(s.unicodeScalars[cut])
                cut = s.unicodeScalars.index(after: cut)
            }
            out.append(UInt8(ascii: "\""))
            JSONValue.writeEscaped(String(s.unicodeScalars[..<cut]).utf8.span, to: &out)
        default:
            v.write(to: &out)
        }
    }

    /// `values` as a JSON list (`["a", "b"]`), quoting values only while the text stays within
    /// `limit` bytes; the rest are counted (`["a", "b", … 248 more]`).
    static func renderList(_ values: [JSONValue], limit: Int) -> String {
        var out = "["
        for (i, v) in values.enumerated() {
            let piece = render(v, limit: limit)
            if i > 0 && out.utf8.count + piece.utf8.count > limit {
                return out + ", … \(values.count - i) more]"
            }
            out += (i > 0 ? ", " : "") + piece
        }
        return out + "]"
    }

    /// `text` cut at `limit` bytes (on a character boundary) with `…`.
    static func cut(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let head = Array(text.utf8.prefix(limit + 1))
        var end = limit
        while end > 0 && head[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: head[0..<end], as: UTF8.self) + "…"
    }

    /// A key equal for values JSON Schema calls equal: numbers by value, objects by members
    /// whatever their order.
    static func canonical(_ v: JSONValue) -> String {
        var out = ""
        canonical(v, into: &out)
        return out
    }

    private static func canonical(_ v: JSONValue, into out: inout String) {
        switch v {
        case .null: out += "n"
        case .bool(let b): out += b ? "t" : "f"
        case .number(let t): out += "#" + (ExactNumber(t)?.canonical ?? t) + ";"
        case .string(let s): out += "s" + String(s.utf8.count) + ":" + s
        case .array(let a):
            out += "[" + String(a.count) + ":"
            for x in a { canonical(x, into: &out) }
            out += "]"
        case .object(let o):
            out += "{" + String(o.count) + ":"
            for m in o.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                out += String(m.key.utf8.count) + ":" + m.key
                canonical(m.value, into: &out)
            }
            out += "}"
        }
    }
}
