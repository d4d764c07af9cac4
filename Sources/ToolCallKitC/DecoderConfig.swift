// ToolCallKitC — the JSON configuration of `tck_decoder_new`.

import ToolCallKit

/// A decoder's settings, read from the JSON object `tck_decoder_new` takes.
///
/// The keys are the long option names of `toolcall decode` with `_` for `-`, and the same
/// combinations are refused as on the command line (`validate` without `tools`, `raw` with
/// OpenAI output, `format` with `model`). Unknown keys are refused too, so a misspelt option
/// is an error rather than silently ignored, and so is a key given twice (which of the two
/// was meant cannot be known). `null` means "not given".
///
/// `model` means what `--model` means: the folder's format (or response template) is
/// inferred, and the decoder takes text. Its tokenizer.json is read only for token input:
/// with `"input": "tokens"` (when the decoder is made), or when the first feed is token ids
/// (``input`` left out).
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
    /// `input`: "text" or "tokens"; nil when not given (see ``inputKind``).
    var input: String?
    var skipSpecial = false
    var openAI = false
    /// The `output` mode: "events", "openai", "responses" or "anthropic".
    var output = "events"
    var toolChoice = ToolChoice.auto
    var parallelToolCalls = true

    /// What the decoder takes.
    enum InputKind: Equatable {
        /// Bytes (`tck_feed`).
        case text
        /// Token ids (`tck_feed_tokens`), decoded with the tokenizer at this path, loaded
        /// when the decoder is made.
        case tokens(tokenizer: String)
        /// A model folder's decoder without `input`: text, unless the first feed is token
        /// ids, which loads the folder's tokenizer.json (this path) then.
        case firstFeedDecides(tokenizer: String)
    }

    /// The keys this build knows.
    static let keys: [String] = [
        "format", "model", "tools", "validate", "whole_calls", "reasoning", "reasoning_open", "raw",
        "id_seed", "max_call_bytes", "tokenizer", "input", "skip_special", "output", "tool_choice",
        "parallel_tool_calls",
    ]

    /// What the decoder takes: token ids with `tokenizer` or `"input": "tokens"` (the
    /// tokenizer, or the model folder's tokenizer.json), text otherwise; a model folder's
    /// decoder without `input` decides at its first feed.
    var inputKind: InputKind {
        if let tokenizer { return .tokens(tokenizer: tokenizer) }
        guard let model else { return .text }
        let folderTokenizer = model.hasSuffix("/") ? model + "tokenizer.json" : model + "/tokenizer.json"
        switch input {
        case "tokens": return .tokens(tokenizer: folderTokenizer)
        case "text": return .text
        default: return .firstFeedDecides(tokenizer: folderTokenizer)
        }
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
        // JSON parsing keeps the last of two equal keys: look for them in the text.
        if let key = Self.repeatedTopLevelKey(json) {
            throw Problem(message: "config key '\(key)' is given twice (give each option once)")
        }
        for (key, value) in members {
            if case .null = value { continue }
            switch key {
            case "format":
                let name = try Self.string(value, key)
                guard let f = ToolCallFormat(name: name) else { throw Problem(message: Self.unknownFormat(name)) }
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
            case "input":
                let kind = try Self.string(value, key)
                guard kind == "text" || kind == "tokens" else {
                    throw Problem(message: "input must be \"text\" or \"tokens\", not \"\(kind)\"")
                }
                input = kind
            case "skip_special": skipSpecial = try Self.bool(value, key)
            case "tool_choice": toolChoice = try Self.toolChoice(value)
            case "parallel_tool_calls": parallelToolCalls = try Self.bool(value, key)
            case "output":
                let mode = try Self.string(value, key)
                guard ["events", "openai", "responses", "anthropic"].contains(mode) else {
                    throw Problem(message: "output must be \"events\", \"openai\", \"responses\" or \"anthropic\", not \"\(mode)\"")
                }
                openAI = mode == "openai"
                output = mode
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
        if raw && output != "events" { throw Problem(message: "raw cannot be used with output \"\(output)\"") }
        if input == "tokens" && tokenizer == nil && model == nil {
            throw Problem(message: "input \"tokens\" needs tokenizer (a tokenizer.json) or model (a folder with one)")
        }
        if input == "text" && tokenizer != nil {
            throw Problem(message: "tokenizer is used only for token input: not with input \"text\"")
        }
        if skipSpecial && inputKind == .text {
            throw Problem(message: "skip_special is used only for token input (it needs tokenizer, or model without input \"text\")")
        }
    }

    /// The message for a `format` that is not a format: the command line's suggestion
    /// (``ToolCallFormat/suggestion(forUnknownName:)``), in the configuration's terms.
    static func unknownFormat(_ name: String) -> String {
        let names = ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ")
        let list = "(the formats: \(names); tck_infer names a model folder's format)"
        guard let s = ToolCallFormat.suggestion(forUnknownName: name) else { return "unknown format '\(name)' \(list)" }
        let f = s.format.rawValue
        guard let who = s.who else { return "unknown format '\(name)': try \"format\": \"\(f)\" \(list)" }
        return "unknown format '\(name)': \(who) \(f), so try \"format\": \"\(f)\" \(list)"
    }

    /// The first key that the top level of a (valid) JSON object holds twice, compared after
    /// unescaping (`"form\u0061t"` is `"format"`); nil when every key is there once.
    static func repeatedTopLevelKey(_ json: some Collection<UInt8>) -> String? {
        let b = Array(json)
        var seen: Set<String> = []
        var depth = 0
        var i = 0
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                i += 1
            case UInt8(ascii: "\""):
                let start = i
                i += 1
                while i < b.count && b[i] != UInt8(ascii: "\"") { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i += 1
                guard depth == 1 else { continue }
                // A string at the top level is a key when a colon follows it.
                var j = i
                while j < b.count && (b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D) { j += 1 }
                guard j < b.count, b[j] == UInt8(ascii: ":"), let key = (try? JSONValue.parse(b[start..<min(i, b.count)]))?.stringValue
                else { continue }
                if !seen.insert(key).inserted { return key }
            default:
                i += 1
            }
        }
        return nil
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
