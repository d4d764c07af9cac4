// ToolCallKit — which calls a request allows: OpenAI's `tool_choice` and `parallel_tool_calls`.

/// Which tools a model may call, as OpenAI's `tool_choice` says it.
///
/// The same policy drives the exported grammars (``ToolCallFormat/grammar(tools:options:)``) and
/// the decoder (``ToolCallDecoder/Options/toolChoice``), so that what a grammar lets a model write
/// is what the decoder accepts (docs/grammar.md).
public enum ToolChoice: Sendable, Equatable, CustomStringConvertible {
    /// Text, and any number of calls of any declared tool.
    case auto
    /// At least one call (the output begins with it).
    case required
    /// No call at all: the output holds no call markup.
    case none
    /// Only this tool, at least once.
    case function(String)
    /// Only these tools; at least one call when `required`.
    case allowed([String], required: Bool)

    /// Reads the command line's spelling: `auto`, `required`, `none`, a tool's name, or an
    /// OpenAI `tool_choice` object (`{"type": "function", "function": {"name": ...}}`, or
    /// `{"type": "allowed_tools", "allowed_tools": {"mode": "auto"|"required", "tools": [...]}}`).
    public init?(parsing text: String) {
        switch text {
        case "auto": self = .auto
        case "required", "any": self = .required
        case "none": self = .none
        case "": return nil
        default:
            if text.hasPrefix("{") {
                guard let v = try? JSONValue.parse(Array(text.utf8)), let c = ToolChoice(json: v) else { return nil }
                self = c
            } else {
                self = .function(text)
            }
        }
    }

    /// Reads an OpenAI `tool_choice` value (a string or an object).
    public init?(json: JSONValue) {
        if case .string(let s) = json {
            guard s == "auto" || s == "required" || s == "none" || s == "any" else { return nil }
            self.init(parsing: s)
            return
        }
        guard case .string(let type)? = json["type"] else { return nil }
        switch type {
        case "function", "tool":
            guard case .string(let name)? = json["function"]?["name"] ?? json["name"] else { return nil }
            self = .function(name)
        case "allowed_tools":
            let body = json["allowed_tools"] ?? json
            guard case .array(let list)? = body["tools"] else { return nil }
            let names = list.compactMap { t -> String? in
                if case .string(let n)? = t["function"]?["name"] ?? t["name"] { return n }
                return nil
            }
            guard names.count == list.count else { return nil }
            self = .allowed(names, required: body["mode"]?.stringValue == "required")
        case "auto", "required", "none", "any":
            self.init(parsing: type)
        default:
            return nil
        }
    }

    /// Whether a call of `name` is allowed (its being declared aside).
    public func allows(_ name: String) -> Bool {
        switch self {
        case .auto, .required: return true
        case .none: return false
        case .function(let n): return n == name
        case .allowed(let names, _): return names.contains(name)
        }
    }

    /// Whether the output must hold at least one call.
    public var requiresCall: Bool {
        switch self {
        case .required, .function: return true
        case .allowed(_, let required): return required
        case .auto, .none: return false
        }
    }

    /// The names this choice restricts calls to (nil: any declared tool).
    public var names: [String]? {
        switch self {
        case .auto, .required: return nil
        case .none: return []
        case .function(let n): return [n]
        case .allowed(let names, _): return names
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .required: return "required"
        case .none: return "none"
        case .function(let n): return n
        case .allowed(let names, let required):
            return "allowed_tools(\(required ? "required" : "auto"): \(names.joined(separator: ", ")))"
        }
    }
}
