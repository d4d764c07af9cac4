// ToolCallKitC — the JSON request of `tck_grammar`.

import ToolCallKit

/// A grammar request: the keys of `toolcall grammar`'s options with `_` for `-`.
struct GrammarRequest {
    var format: ToolCallFormat?
    var tools: JSONValue?
    var options = GrammarOptions()
    var tokenizer: String?

    static let keys = ["format", "tools", "tool_choice", "parallel_tool_calls", "target", "reasoning", "reasoning_open", "tokenizer"]

    init(json: [UInt8]) throws(DecoderConfig.Problem) {
        guard let root = try? JSONValue.parse(json), let members = root.objectValue else {
            throw .init(message: "config must be a JSON object")
        }
        var reasoning = false
        var reasoningOpen = false
        for (key, value) in members {
            if case .null = value { continue }
            switch key {
            case "format":
                let name = try DecoderConfig.string(value, key)
                guard let f = ToolCallFormat(name: name) else { throw .init(message: "unknown format '\(name)'") }
                format = f
            case "tools": tools = value
            case "tool_choice": options.toolChoice = try DecoderConfig.toolChoice(value)
            case "parallel_tool_calls": options.parallelToolCalls = try DecoderConfig.bool(value, key)
            case "target":
                let t = try DecoderConfig.string(value, key)
                guard let target = GrammarTarget(rawValue: t) else { throw .init(message: "target must be xgrammar, lark or gbnf") }
                options.target = target
            case "reasoning": reasoning = try DecoderConfig.bool(value, key)
            case "reasoning_open": reasoningOpen = try DecoderConfig.bool(value, key)
            case "tokenizer": tokenizer = try DecoderConfig.string(value, key)
            default:
                throw .init(message: "unknown config key '\(key)' (known: \(Self.keys.joined(separator: ", ")))")
            }
        }
        options.reasoning = reasoning || reasoningOpen
        options.reasoningOpen = reasoningOpen
        guard format != nil else { throw .init(message: "config needs \"format\"") }
        guard tools != nil else { throw .init(message: "config needs \"tools\"") }
    }

    func answer() throws(DecoderConfig.Problem) -> String {
        guard let format, let tools else { throw .init(message: "config needs format and tools") }
        var text: [UInt8] = []
        tools.write(to: &text)
        let set: ToolSet
        do {
            set = try ToolSet.load(json: text)
        } catch {
            throw .init(message: "tools: \(error.message)")
        }
        var options = self.options
        if let tokenizer {
            do {
                options.specialTokens = GrammarOptions.specialTokens(of: format, in: try TokenizerCache.shared.tokenizer(at: tokenizer))
            } catch {
                throw .init(message: error.message)
            }
        }
        let g: ExportedGrammar
        do {
            g = try format.grammar(tools: set, options: options)
        } catch {
            throw .init(message: error.message)
        }
        return JSONValue.object([
            ("grammar", .string(g.text)), ("lazy", .bool(g.lazy)),
            ("triggers", .array(g.triggerWords.map { .string($0) })), ("report", .array(g.report.map { .string($0) })),
        ]).jsonText
    }
}
