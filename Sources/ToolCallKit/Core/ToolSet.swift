// ToolCallKit — the declared tools: which names are accepted, and their argument schemas.

/// One declared function.
public struct ToolDefinition: Sendable, Equatable {
    /// The function name.
    public var name: String
    /// The JSON schema of the arguments (`{"type": "object"}` when none was given).
    public var parameters: JSONValue

    public init(name: String, parameters: JSONValue = .object([(key: "type", value: .string("object"))])) {
        self.name = name
        self.parameters = parameters
    }

    /// The schema of one top-level argument, when the parameters declare it.
    public func schema(forArgument key: String) -> JSONValue? {
        parameters["properties"]?[key]
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

    public init(_ tools: [ToolDefinition]) {
        self.tools = tools
        var map: [String: Int] = [:]
        for (i, t) in tools.enumerated() where map[t.name] == nil { map[t.name] = i }
        self.byName = map
    }

    /// The definition declared under `name`.
    public subscript(name: String) -> ToolDefinition? {
        byName[name].map { tools[$0] }
    }

    /// Whether `name` is declared.
    public func declares(_ name: String) -> Bool { byName[name] != nil }

    /// The tools whose parameters admit `arguments` by their keys: every key is a declared
    /// property (any key, when the schema lists none) and every required property is present.
    /// For formats whose call may arrive without a usable name (Kimi's bare counter ids).
    func tools(admittingKeysOf arguments: JSONValue) -> [ToolDefinition] {
        guard case .object(let members) = arguments else { return [] }
        let keys = Set(members.map(\.key))
        return tools.filter { tool in
            if case .object(let props)? = tool.parameters["properties"] {
                let declared = Set(props.map(\.key))
                guard keys.isSubset(of: declared) else { return false }
            }
            if case .array(let required)? = tool.parameters["required"] {
                for r in required { if let k = r.stringValue, !keys.contains(k) { return false } }
            }
            return true
        }
    }

    /// Tool sets are equal when they declare the same tools (compiled validators aside).
    public static func == (a: ToolSet, b: ToolSet) -> Bool { a.tools == b.tools }

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
    func validationFailure(name: String, arguments: JSONValue) -> String? {
        guard let i = byName[name], let validators else { return nil }
        switch validators[i] {
        case .success(let v):
            let violations = v.validate(arguments)
            return violations.isEmpty ? nil : violations.map(\.description).joined(separator: "\n")
        case .failure(let error):
            return "the tool's schema cannot be checked: \(error)"
        }
    }

    /// Loads an OpenAI-style `tools` array (docs/cli.md, Tools and validation).
    ///
    /// Entries may be `{"type": "function", "function": {...}}`, lack `type`, or be flat
    /// `{"name", "parameters"}` objects. `parameters` may be missing (meaning
    /// `{"type": "object"}`) or lack `type`.
    ///
    /// - Parameter json: the file's bytes.
    /// - Throws: ``LoadError`` when the text is not JSON, not an array, an entry has no name,
    ///   or `parameters` is present and not an object.
    public static func load(json: some Collection<UInt8>) throws(LoadError) -> ToolSet {
        let root: JSONValue
        do {
            root = try JSONValue.parse(json)
        } catch {
            throw LoadError(message: "not valid JSON (\(error))")
        }
        guard case .array(let entries) = root else {
            throw LoadError(message: "expected a JSON array of tools")
        }
        var out: [ToolDefinition] = []
        for (i, entry) in entries.enumerated() {
            guard entry.isObject else { throw LoadError(message: "tool \(i) is not an object") }
            let fn = entry["function"].flatMap { $0.isObject ? $0 : nil } ?? entry
            guard let name = fn["name"]?.stringValue, !name.isEmpty else {
                throw LoadError(message: "tool \(i) has no name")
            }
            var params = JSONValue.object([(key: "type", value: .string("object"))])
            if let p = fn["parameters"] {
                guard p.isObject else {
                    throw LoadError(message: "tool \"\(name)\": parameters is not an object")
                }
                params = p
            }
            out.append(ToolDefinition(name: name, parameters: params))
        }
        return ToolSet(out)
    }
}
