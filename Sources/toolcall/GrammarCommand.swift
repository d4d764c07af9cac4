// toolcall — `grammar`: a constrained-decoding grammar for a format, the tools and the choice.

import ToolCallKit

/// `toolcall grammar (--format NAME | --model DIR) --tools FILE [--tool-choice auto|required|none|NAME]
/// [--parallel-tool-calls true|false] [--target xgrammar|lark|gbnf] [--reasoning | --reasoning-open]
/// [--tokenizer FILE]`.
///
/// Writes the grammar to standard output (one document, ending in a newline) and one warning
/// line on standard error per schema keyword the grammar does not enforce.
struct GrammarCommand {
    var format: String?
    var model: String?
    var tools: String?
    var toolChoice = ToolChoice.auto
    var parallel = true
    var target = GrammarTarget.xgrammar
    var reasoning = false
    var reasoningOpen = false
    var tokenizer: String?

    init(_ args: ArraySlice<String>) throws(ExitError) {
        var args = args
        var seen: Set<String> = []
        while let arg = args.popFirst() {
            var flag = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                flag = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            func value() throws(ExitError) -> String {
                guard seen.insert(flag).inserted else { throw .usage("\(flag) is given more than once") }
                if let inline { return inline }
                guard let v = args.popFirst(), !v.hasPrefix("--") else { throw .usage("\(flag) needs a value") }
                return v
            }
            switch flag {
            case "--format": format = try value()
            case "--model": model = try value()
            case "--tools": tools = try value()
            case "--tool-choice":
                let v = try value()
                guard let c = ToolChoice(parsing: v) else {
                    throw .usage("--tool-choice takes auto, required, none, a tool's name or an OpenAI tool_choice object, not '\(v)'")
                }
                toolChoice = c
            case "--parallel-tool-calls":
                let v = try value()
                guard v == "true" || v == "false" else { throw .usage("--parallel-tool-calls takes true or false, not '\(v)'") }
                parallel = v == "true"
            case "--target":
                let v = try value()
                guard let t = GrammarTarget(rawValue: v) else { throw .usage("--target takes xgrammar, lark or gbnf, not '\(v)'") }
                target = t
            case "--reasoning": reasoning = true
            case "--reasoning-open": reasoningOpen = true
            case "--tokenizer": tokenizer = try value()
            default: throw .usage(UsageMessages.unknownArgument(arg, command: "grammar", help: Help.grammar))
            }
        }
        if format != nil && model != nil { throw .usage("--format and --model cannot be used together") }
        if format == nil && model == nil { throw .usage("grammar needs --format NAME or --model DIR") }
        if tools == nil { throw .usage("grammar needs --tools FILE (the grammar writes the tools' calls)") }
        if reasoning && reasoningOpen { throw .usage("--reasoning and --reasoning-open cannot be used together (--reasoning-open implies a reasoning block)") }
    }

    func run() throws(ExitError) {
        let format: ToolCallFormat
        if let name = format_ {
            guard let f = ToolCallFormat(name: name) else { throw .usage(FormatNames.unknown(name)) }
            format = f
        } else {
            let dir = model ?? ""
            let inferred: FormatInference
            do {
                inferred = try ToolCallFormat.infer(modelDirectory: dir)
            } catch {
                throw .file("--model: \(error.message)")
            }
            guard let f = inferred.modelFormat else {
                throw .usage("--model \(dir): no tool-call format found; evidence: " + inferred.evidence.joined(separator: "; ")
                    + "; name the format with --format NAME instead (toolcall formats lists them)")
            }
            format = f
        }
        let path = tools ?? ""
        let bytes = try StandardStreams.readFile(path, what: "--tools", limit: StandardStreams.toolsFileLimit)
        let toolSet: ToolSet
        do {
            toolSet = try ToolSet.load(json: bytes)
        } catch {
            throw .file("--tools \(path): \(error.message)")
        }
        var special: [String: Int] = [:]
        if let tok = try loadTokenizer() {
            special = GrammarOptions.specialTokens(of: format, in: tok)
        }
        let options = GrammarOptions(
            target: target, toolChoice: toolChoice, parallelToolCalls: parallel, reasoning: reasoning,
            reasoningOpen: reasoningOpen, specialTokens: special)
        let grammar: ExportedGrammar
        do {
            grammar = try format.grammar(tools: toolSet, options: options)
        } catch {
            throw .usage("grammar: \(error.message)")
        }
        for line in grammar.report { Messages.warning("not enforced: " + line) }
        var text = grammar.text
        if !text.hasSuffix("\n") { text += "\n" }
        StandardStreams.writeOut(text)
    }

    private var format_: String? { format }

    /// `--tokenizer FILE`, or the model folder's tokenizer.json when there is one (read as
    /// `decode` reads it: ``Tokenizer/init(contentsOfFile:)``, a regular file of at most 512 MiB).
    private func loadTokenizer() throws(ExitError) -> Tokenizer? {
        if let tokenizer {
            do {
                return try Tokenizer(contentsOfFile: tokenizer)
            } catch {
                throw .file("--tokenizer \(error.description)")
            }
        }
        guard let model else { return nil }
        let candidate = model.hasSuffix("/") ? model + "tokenizer.json" : model + "/tokenizer.json"
        do {
            return try Tokenizer(contentsOfFile: candidate)
        } catch {
            // A folder without a readable tokenizer.json is still a folder to write a grammar for.
            if error.kind == .missing || error.kind == .unreadable { return nil }
            throw .file("--model \(error.description)")
        }
    }
}
