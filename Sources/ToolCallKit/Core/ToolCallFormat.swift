// ToolCallKit — the ten wire formats.

/// A tool-call wire format. Raw values are the names the CLI and the events use.
public enum ToolCallFormat: String, CaseIterable, Sendable, Codable {
    /// Hermes / Qwen JSON in tags. Example: `<tool_call>{"name": "f", "arguments": {}}</tool_call>`
    case json
    /// Liquid LFM2 Python-literal call lists. Example: `<|tool_call_start|>[f(a='v')]<|tool_call_end|>`
    case lfm2
    /// Qwen3-Coder XML-ish functions. Example: `<tool_call><function=f><parameter=a>v</parameter></function></tool_call>`
    case xmlFunction = "xml_function"
    /// GLM-4.5 and later. Example: `<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`
    case glm4
    /// FunctionGemma. Example: `<start_function_call>call:f{a:<escape>v<escape>}<end_function_call>`
    case gemma
    /// Gemma 4. Example: `<|tool_call>call:f{a:<|"|>v<|"|>}<tool_call|>`
    case gemma4
    /// Kimi K2. Example: `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>`
    case kimiK2 = "kimi_k2"
    /// MiniMax M2. Example: `<minimax:tool_call><invoke name="f"><parameter name="a">v</parameter></invoke></minimax:tool_call>`
    case minimaxM2 = "minimax_m2"
    /// Mistral. Example: `[TOOL_CALLS]f[ARGS]{"a": 1}` or `[TOOL_CALLS][{"name": "f", "arguments": {}}]`
    case mistral
    /// Llama 3.x. Example: `<|python_tag|>{"name": "f", "parameters": {}}`
    case llama3

    /// Parses either spelling: the raw value (`xml_function`) or the case name (`xmlFunction`).
    public init?(name: String) {
        if let f = ToolCallFormat(rawValue: name) {
            self = f
            return
        }
        guard let f = ToolCallFormat.allCases.first(where: { $0.caseName == name }) else { return nil }
        self = f
    }

    /// The Swift case name (`xmlFunction`).
    public var caseName: String {
        switch self {
        case .json: return "json"
        case .lfm2: return "lfm2"
        case .xmlFunction: return "xmlFunction"
        case .glm4: return "glm4"
        case .gemma: return "gemma"
        case .gemma4: return "gemma4"
        case .kimiK2: return "kimiK2"
        case .minimaxM2: return "minimaxM2"
        case .mistral: return "mistral"
        case .llama3: return "llama3"
        }
    }

    /// Whether this build parses the format (the others are planned).
    public var isImplemented: Bool {
        GrammarFactory.isImplemented(self)
    }
}
