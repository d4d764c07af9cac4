// ToolCallKit — the declared tools: which names are accepted, and their argument schemas.

/// One declared function.
public struct ToolDefinition: Sendable, Equatable {
    /// The function name.
    public var name: String
    /// The JSON schema of the arguments (`{"type": "object"}` when none was given).
    public var parameters: JSONValue {
        didSet { typing = ArgumentTyping(parameters) }
    }
    /// How text-valued arguments are typed: read from the compiled schema, so typing and
    /// validation agree on what the schema says (``SchemaTyping``).
    private(set) var typing: ArgumentTyping

    public init(name: String, parameters: JSONValue = .object([(key: "type", value: .string("object"))])) {
        self.name = name
        self.parameters = parameters
        self.typing = ArgumentTyping(parameters)
    }

    /// The schema of one top-level argument, when the parameters declare it (as written:
    /// a `$ref` is not followed; see ``SchemaValidator`` for the compiled reading).
    public func schema(forArgument key: String) -> JSONValue? {
        parameters["properties"]?[key]
    }

    /// The argument's schema as typing reads it: `{"type": [...]}` listing the types the
    /// compiled schema admits for it (`$ref`s followed, `allOf` members intersected, `anyOf`
    /// and `oneOf` joined), or nil when it names none. What ``SchemaTyping`` takes.
    func typingSchema(forArgument key: String) -> JSONValue? {
        typing.schema(forArgument: key)
    }

    /// Whether the parameters declare the top-level property `key`.
    func declares(argument key: String) -> Bool {
        typing.declares(key)
    }

    /// Whether arguments with these keys fit the parameters by their keys: every key declared
    /// (any key, when none is) and every required property present.
    func admits(keys: Set<String>) -> Bool {
        typing.admits(keys: keys)
    }

    /// Definitions are equal when their names and parameters are.
    public static func == (a: ToolDefinition, b: ToolDefinition) -> Bool {
        a.name == b.name && a.parameters == b.parameters
    }
}

/// The types each top-level argument of one tool admits, worked out once from the compiled
/// schema.
///
/// A schema the validator cannot compile (a `$ref` that points nowhere, say) falls back to
/// the property as written; such a tool's calls are rejected anyway when validation is on.
final class ArgumentTyping: Sendable {
    /// Argument name → `{"type": [...]}`, for the arguments that name at least one type.
    private let byKey: [String: JSONValue]
    /// The top-level properties declared (nil when none is: any key is admitted).
    private let declared: Set<String>?
    /// The top-level properties required.
    private let required: [String]
    /// Set when the schema did not compile: type each argument by its schema as written.
    private let fallback: JSONValue?

    init(_ parameters: JSONValue) {
        do throws(SchemaValidator.SchemaError) {
            let compiled = try SchemaValidator(schema: parameters, compilingPatterns: false)
            byKey = compiled.allArgumentTypes().mapValues { types in
                .object([(key: "type", value: .array(types.map { .string($0) }))])
            }
            let names = compiled.topLevelPropertyNames()
            declared = names.isEmpty ? nil : Set(names)
            required = compiled.topLevelRequired()
            fallback = nil
        } catch {
            byKey = [:]
            var names: Set<String>? = nil
            if case .object(let props)? = parameters["properties"] { names = Set(props.map(\.key)) }
            declared = names
            var req: [String] = []
            if case .array(let list)? = parameters["required"] { req = list.compactMap(\.stringValue) }
            required = req
            fallback = parameters
        }
    }

    /// Whether `key` is a declared top-level property.
    func declares(_ key: String) -> Bool {
        declared?.contains(key) ?? false
    }

    /// Whether arguments with these keys fit by their keys alone: every key is declared (any
    /// key, when none is) and every required property is present.
    func admits(keys: Set<String>) -> Bool {
        if let declared, !keys.isSubset(of: declared) { return false }
        return required.allSatisfy { keys.contains($0) }
    }

    func schema(forArgument key: String) -> JSONValue? {
        if let fallback { return fallback["properties"]?[key] }
        return byKey[key]
    }
}

/// The tools a request declares: the names a decoder accepts and their schemas.
///
/// Built from an OpenAI-style `tools` array. It answers "is this name declared" and "what
/// schema does this argument have", and, once ``compilingValidators()`` has run, holds each
/// tool's ``SchemaValidator`` (the checking itself is the validator's job).
public struct ToolSet: Sendable, Equatable {
    /// Why a tools file could not be loaded.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    public private(set) var tools: [ToolDefinition]
    private var byName: [String: Int]
    /// Each tool's compiled validator (or why its schema cannot be compiled), once compiled.
    private var validators: [Result<SchemaValidator, SchemaValidator.SchemaError>]?
    /// Keywords that will not be checked, one line per keyword (`tool "f": #/properties/a:
    /// keyword "minProperties" is not checked`); filled by ``compilingValidators()``.
    public private(set) var validationWarnings: [String] = []
    /// What loading noticed and did not refuse, one line each: a key of a tool that is not
    /// read (`tool "f": unknown key "paramters" ignored ...`), an empty list, a second tool
    /// of one name given to ``init(_:)``.
    public private(set) var warnings: [String] = []
    /// Set only in ``everyName``.
    private var declaresEveryName = false

    /// A tool set of `tools`. A name declared twice keeps its first definition and adds a
    /// line to ``warnings`` (``load(json:)`` refuses such a list).
    public init(_ tools: [ToolDefinition]) {
        self.tools = tools
        var map: [String: Int] = [:]
        var warnings: [String] = []
        for (i, t) in tools.enumerated() {
            if let first = map[t.name] {
                warnings.append("tool \(i): the name \(JSONValue.string(t.name).jsonText) is already declared by tool \(first); this one is ignored")
            } else {
                map[t.name] = i
            }
        }
        if tools.isEmpty { warnings.append(Self.emptyWarning) }
        self.byName = map
        self.warnings = warnings
    }

    static let emptyWarning = "the tools list is empty: every call will be rejected as undeclared"

    /// The definition declared under `name`.
    public subscript(name: String) -> ToolDefinition? {
        if let i = byName[name] { return tools[i] }
        guard declaresEveryName else { return nil }
        var open = Self.openDefinition
        open.name = name
        return open
    }

    /// Whether `name` is declared.
    public func declares(_ name: String) -> Bool { declaresEveryName || byName[name] != nil }

    /// A tool set that declares every name, each with an open schema: the widest reading a
    /// decoder can give a text (rendering decodes its leading text with it, so that text stays
    /// text whatever tools the reader of the output declares).
    static let everyName: ToolSet = {
        var t = ToolSet([])
        t.declaresEveryName = true
        t.warnings = []
        return t
    }()

    private static let openDefinition = ToolDefinition(name: "")

    /// The tools whose parameters admit `arguments` by their keys: every key is a declared
    /// property (any key, when the schema lists none) and every required property is present.
    /// For formats whose call may arrive without a usable name (Kimi's bare counter ids).
    func tools(admittingKeysOf arguments: CanonicalJSON) -> [ToolDefinition] {
        arguments.isObject ? tools(admittingKeysOf: arguments.value) : []
    }

    func tools(admittingKeysOf arguments: JSONValue) -> [ToolDefinition] {
        guard case .object(let members) = arguments else { return [] }
        let keys = Set(members.map(\.key))
        return tools.filter { $0.typing.admits(keys: keys) }
    }

    /// Tool sets are equal when they declare the same tools (compiled validators aside).
    public static func == (a: ToolSet, b: ToolSet) -> Bool { a.tools == b.tools && a.declaresEveryName == b.declaresEveryName }

    /// Compiles every tool's schema for validation, once: patterns compiled, `$ref`s resolved,
    /// unchecked keywords listed in ``validationWarnings``.
    ///
    /// A schema that cannot be applied is an error at load time rather than a surprise on the
    /// first call that uses it.
    ///
    /// - Returns: this tool set with its validators.
    /// - Throws: ``LoadError`` naming the first tool whose schema cannot be compiled and why
    ///   (`tool "f": #/properties/a/pattern: pattern "(" does not compile: ...`).
    public func compilingValidators() throws(LoadError) -> ToolSet {
        let out = compilingValidatorsLeniently()
        for (tool, result) in zip(out.tools, out.validators ?? []) {
            if case .failure(let error) = result {
                throw LoadError(message: "tool \"\(tool.name)\": \(error)")
            }
        }
        return out
    }

    /// Compiles every tool's schema, keeping a failure per tool instead of throwing.
    func compilingValidatorsLeniently() -> ToolSet {
        if validators != nil { return self }
        var out = self
        var warnings: [String] = []
        out.validators = tools.map { tool in
            do throws(SchemaValidator.SchemaError) {
                let v = try SchemaValidator(schema: tool.parameters)
                warnings += v.warnings.map { "tool \"\(tool.name)\": \($0)" }
                return .success(v)
            } catch {
                return .failure(error)
            }
        }
        out.validationWarnings = warnings
        return out
    }

    /// The validator for the tool declared under `name`.
    ///
    /// A server that parsed a call elsewhere checks its arguments with
    /// `try tools.validator(for: call.name)?.validate(call.arguments)`.
    ///
    /// - Parameter name: the function name.
    /// - Returns: the compiled validator (made now when ``compilingValidators()`` has not run),
    ///   or nil when `name` is not declared.
    /// - Throws: ``SchemaValidator/SchemaError`` when the tool's schema cannot be compiled.
    public func validator(for name: String) throws(SchemaValidator.SchemaError) -> SchemaValidator? {
        guard let i = byName[name] else { return nil }
        if let validators { return try validators[i].get() }
        return try SchemaValidator(schema: tools[i].parameters)
    }

    /// The `invalid_arguments` detail for a call, or nil when its arguments are valid (or the
    /// name is not declared). A tool whose schema could not be compiled rejects every call.
    /// The typed arguments are built for the check and dropped after it.
    func validationFailure(name: String, arguments: CanonicalJSON) -> String? {
        guard let i = byName[name], let validators else { return nil }
        switch validators[i] {
        case .success(let v):
            let report = v.check(arguments.value)
            return report.isValid ? nil : report.detail
        case .failure(let error):
            return "the tool's schema cannot be checked: \(error)"
        }
    }

    /// Keys of a function definition that are read (`name`, `description`, `parameters`,
    /// Anthropic's `input_schema`) or known and meaningless here (OpenAI's `strict`,
    /// Anthropic's `cache_control` and `type`).
    static let definitionKeys: Set<String> = ["name", "description", "parameters", "input_schema", "strict", "cache_control", "type"]

    /// Loads the tools a request declares (docs/cli.md, Tools and validation).
    ///
    /// The text may be a `tools` array or a whole OpenAI request body (`{"model": ...,
    /// "tools": [...], ...}`, whose `tools` are read and the rest ignored). Entries may be
    /// OpenAI's `{"type": "function", "function": {...}}`, a flat `{"name", "parameters"}`
    /// object, or Anthropic's `{"name", "description", "input_schema"}`. The schema
    /// (`parameters` or `input_schema`) may be missing, meaning `{"type": "object"}`, or lack
    /// `type`.
    ///
    /// A key that is not read (a misspelt `paramters`, say) would leave a tool without its
    /// schema, so that validation accepts anything: each is listed in ``warnings``, as is an
    /// empty list (every call will be rejected as undeclared).
    ///
    /// - Parameter json: the file's bytes.
    /// - Throws: ``LoadError`` when the text is not JSON, not an array (or an object with a
    ///   `tools` array), an entry has no name, two entries have the same name, or the schema
    ///   is present and not an object (or given both as `parameters` and `input_schema`).
    public static func load(json: some Collection<UInt8>) throws(LoadError) -> ToolSet {
        let root: JSONValue
        do {
            root = try JSONValue.parse(json)
        } catch {
            throw LoadError(message: "not valid JSON (\(error))")
        }
        let entries: [JSONValue]
        switch root {
        case .array(let list):
            entries = list
        case .object:
            guard case .array(let list)? = root["tools"] else {
                throw LoadError(message: "expected a JSON array of tools, or a request body with a \"tools\" array")
            }
            entries = list
        default:
            throw LoadError(message: "expected a JSON array of tools")
        }
        var out: [ToolDefinition] = []
        var warnings: [String] = []
        var seen: [String: Int] = [:]
        for (i, entry) in entries.enumerated() {
            guard case .object(let outer) = entry else { throw LoadError(message: "tool \(i) is not an object") }
            let wrapped = entry["function"].flatMap { $0.isObject ? $0 : nil }
            let fn = wrapped ?? entry
            guard let name = fn["name"]?.stringValue, !name.isEmpty else {
                throw LoadError(message: "tool \(i) has no name")
            }
            let shown = JSONValue.string(name).jsonText
            if let first = seen[name] {
                throw LoadError(message: "tools \(first) and \(i) are both named \(shown)")
            }
            seen[name] = i
            func unknown(_ key: String, _ place: String) {
                warnings.append(
                    "tool \(shown): unknown key \(JSONValue.string(key).jsonText)\(place) ignored (read: name, description, parameters or input_schema)")
            }
            if wrapped != nil {
                for m in outer where m.key != "type" && m.key != "function" { unknown(m.key, " beside \"function\"") }
            }
            if case .object(let members) = fn {
                for m in members where !definitionKeys.contains(m.key) { unknown(m.key, "") }
            }
            var params = JSONValue.object([(key: "type", value: .string("object"))])
            switch (fn["parameters"], fn["input_schema"]) {
            case (.some, .some):
                throw LoadError(message: "tool \(shown): both parameters and input_schema are given")
            case (let p?, nil), (nil, let p?):
                guard p.isObject else {
                    let key = fn["parameters"] != nil ? "parameters" : "input_schema"
                    throw LoadError(message: "tool \(shown): \(key) is not an object")
                }
                params = p
            case (nil, nil):
                break
            }
            out.append(ToolDefinition(name: name, parameters: params))
        }
        var set = ToolSet(out)
        set.warnings = warnings + set.warnings
        return set
    }
}
