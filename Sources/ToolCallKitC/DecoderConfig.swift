// ToolCallKitC — the JSON configuration of `tck_decoder_new`.

import ToolCallKit

/// A decoder's settings, read from the JSON object `tck_decoder_new` takes.
///
/// The keys are the long option names of `toolcall decode` with `_` for `-`, and the same
/// combinations are refused as on the command line (`validate` without `tools`, `raw` with
/// OpenAI output, `format` with `model`). Unknown keys are refused too, so a misspelt option
/// is an error rather than silently ignored. `null` means "not given".
///
/// This type reads and checks; it does not load files (see ``CDecoder``).
struct DecoderConfig {
    /// A configuration that cannot be used; the message names the key.
    struct Problem: Error {
        let message: String
    }

    var format: ToolCallFormat?
    var model: String?
    var tools: JSONValue?
    var validate = false
    var wholeCalls = false
    var reasoning = false
    var reasoningOpen = false
    var raw = false
    var idSeed: UInt64?
    var maxCallBytes: Limit?
    var tokenizer: String?
    var skipSpecial = false
    var openAI = false
    var toolChoice = ToolChoice.auto
    var parallelToolCalls = true

    /// The keys this build knows.
    static let keys: [String] = [
        "format", "model", "tools", "validate", "whole_calls", "reasoning", "reasoning_open", "raw",
        "id_seed", "max_call_bytes", "tokenizer", "skip_special", "output", "tool_choice", "parallel_tool_calls",
    ]

    /// The tokenizer file in use: `tokenizer`, or the model folder's tokenizer.json.
    var tokenizerPath: String? {
        if let tokenizer { return tokenizer }
        if let model { return model.hasSuffix("/") ? model + "tokenizer.json" : model + "/tokenizer.json" }
        return nil
    }

    /// Reads a configuration.
    ///
    /// - Parameter json: the configuration's JSON text; it must be an object.
    /// - Throws: ``Problem`` for text that is not a JSON object, an unknown key, a value of the
    ///   wrong type or range, or a combination the command line refuses too.
    init(json: some Collection<UInt8>) throws(Problem) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(json)
        } catch {
            throw Problem(message: "config is not valid JSON (\(error))")
        }
        guard let members = root.objectValue else {
            throw Problem(message: "config must be a JSON object of decode options")
        }
        for (key, value) in members {
            if case .null = value { continue }
            switch key {
            case "format":
                let name = try Self.string(value, key)
                guard let f = ToolCallFormat(name: name) else {
                    let names = ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    throw Problem(message: "unknown format '\(name)' (one of: \(names))")
                }
                format = f
            case "model": model = try Self.string(value, key)
            case "tools":
                guard case .array = value else {
                    throw Problem(message: "tools must be the tools array itself (a JSON array), not \(Self.kind(value))")
                }
                tools = value
            case "validate": validate = try Self.bool(value, key)
            case "whole_calls": wholeCalls = try Self.bool(value, key)
            case "reasoning": reasoning = try Self.bool(value, key)
            case "reasoning_open": reasoningOpen = try Self.bool(value, key)
            case "raw": raw = try Self.bool(value, key)
            case "id_seed":
                guard case .number(let text) = value, let n = UInt64(text) else {
                    throw Problem(message: "id_seed must be a whole number from 0 to \(UInt64.max), not \(value.jsonText)")
                }
                idSeed = n
            case "max_call_bytes":
                if value.stringValue == "unlimited" {
                    maxCallBytes = .unlimited
                    continue
                }
                guard case .number(let text) = value, let n = Int(text) else {
                    throw Problem(message: "max_call_bytes must be a whole number of at least 1 or \"unlimited\", not \(value.jsonText)")
                }
                do {
                    maxCallBytes = try Limit(n)
                } catch {
                    throw Problem(message: "max_call_bytes must be a whole number of at least 1: \(error)")
                }
            case "tokenizer": tokenizer = try Self.string(value, key)
            case "skip_special": skipSpecial = try Self.bool(value, key)
            case "tool_choice": toolChoice = try Self.toolChoice(value)
            case "parallel_tool_calls": parallelToolCalls = try Self.bool(value, key)
            case "output":
                let mode = try Self.string(value, key)
                guard mode == "events" || mode == "openai" else {
                    throw Problem(message: "output must be \"events\" or \"openai\", not \"\(mode)\"")
                }
                openAI = mode == "openai"
            default:
                throw Problem(message: "unknown config key '\(key)' (known: \(Self.keys.joined(separator: ", ")))")
            }
        }
        if reasoningOpen { reasoning = true }
        if format != nil && model != nil { throw Problem(message: "format and model cannot be used together") }
        if format == nil && model == nil {
            throw Problem(message: "config needs \"format\" or \"model\" (there is no default format)")
        }
        if validate && tools == nil { throw Problem(message: "validate needs tools") }
        if raw && openAI { throw Problem(message: "raw cannot be used with output \"openai\"") }
        if skipSpecial && tokenizerPath == nil {
            throw Problem(message: "skip_special needs tokenizer (or model)")
        }
    }

    /// `tool_choice`: "auto", "required", "none", a tool's name, or an OpenAI tool_choice object.
    static func toolChoice(_ v: JSONValue) throws(Problem) -> ToolChoice {
        let choice: ToolChoice?
        if case .string(let s) = v { choice = ToolChoice(parsing: s) } else { choice = ToolChoice(json: v) }
        guard let choice else {
            throw Problem(message: "tool_choice must be \"auto\", \"required\", \"none\", a tool's name or an OpenAI tool_choice object")
        }
        return choice
    }

    static func string(_ v: JSONValue, _ key: String) throws(Problem) -> String {
        guard let s = v.stringValue else { throw Problem(message: "\(key) must be a string, not \(kind(v))") }
        return s
    }

    static func bool(_ v: JSONValue, _ key: String) throws(Problem) -> Bool {
        guard case .bool(let b) = v else { throw Problem(message: "\(key) must be true or false, not \(kind(v))") }
        return b
    }

    private static func kind(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
