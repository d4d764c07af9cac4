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
/// Built from an OpenAI-style `tools` array. It does not validate arguments (that is
/// ``SchemaValidator``'s job); it answers "is this name declared" and "what schema does this
/// argument have".
public struct ToolSet: Sendable, Equatable {
    /// Why a tools file could not be loaded.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    public private(set) var tools: [ToolDefinition]
    private var byName: [String: Int]

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

    /// Loads an OpenAI-style `tools` array (DESIGN.md §4).
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
