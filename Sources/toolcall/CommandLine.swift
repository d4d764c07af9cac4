// toolcall — argument parsing (no outside package can be fetched, so it is written here, small).

import ToolCallKit

/// A failure that ends the program with a documented exit code and a one-line message.
///
/// Exit codes: 0 success, 1 an unreadable or invalid file (or input the run cannot go on
/// with), 2 bad usage, 3 `infer` found no format. Every usage error is made with ``usage(_:)``
/// and every message is written by ``Messages``.
struct ExitError: Error {
    /// The exit status.
    let code: Int32
    /// The one-line message for stderr; nil when the status says it all (`infer` found nothing).
    let message: String?

    /// Bad usage: exit 2.
    static func usage(_ message: String) -> ExitError { ExitError(code: 2, message: message) }
    /// An unreadable or invalid file: exit 1.
    static func file(_ message: String) -> ExitError { ExitError(code: 1, message: message) }
}

/// The parsed `decode` options.
struct DecodeOptions {
    var format: String?
    var model: String?
    var tools: String?
    var validate = false
    var wholeCalls = false
    var input = "text"
    var tokenizer: String?
    var skipSpecial = false
    var output = "events"
    var raw = false
    var reasoning = false
    var reasoningOpen = false
    var maxCallBytes: Limit?
    var idSeed: UInt64?
    var chunkBytes: Int?
    var responseTemplate: String?
    var prefixFile: String?
    var toolChoice = ToolChoice.auto
    var parallelToolCalls = true
}

/// The range `--max-call-bytes` takes, for messages and help.
enum Limits {
    static let largestText = String(Limit.largest)
    static let range = "a whole number from 1 to \(largestText), or 'unlimited'"
}

/// Reads `decode`'s flags; every problem is a usage error naming the flag.
struct ArgumentReader {
    private var args: ArraySlice<String>
    /// The options that take a value, seen so far: each may be given once (a second value
    /// would silently replace the first). A repeated flag (`--raw --raw`) means the same as
    /// one, so scripts that add a flag they may already have are fine.
    private var seen: Set<String> = []

    init(_ args: ArraySlice<String>) { self.args = args }

    /// True when the arguments ask for help (`-h` or `--help` anywhere, as a flag).
    static func wantsHelp(_ args: ArraySlice<String>) -> Bool {
        args.contains("--help") || args.contains("-h")
    }

    private mutating func value(for flag: String) throws(ExitError) -> String {
        guard seen.insert(flag).inserted else {
            throw .usage("\(flag) is given more than once")
        }
        guard let v = args.popFirst(), !v.hasPrefix("--") || v == "-" else {
            throw .usage("\(flag) needs a value")
        }
        return v
    }

    private mutating func number(for flag: String, min: Int) throws(ExitError) -> Int {
        let v = try value(for: flag)
        guard let n = Int(v), n >= min else {
            throw .usage("\(flag) takes a whole number of at least \(min), not '\(v)'")
        }
        return n
    }

    /// `N` (1 ... `Limit.largest`) or `unlimited`.
    private mutating func limit(for flag: String) throws(ExitError) -> Limit {
        let v = try value(for: flag)
        if v == "unlimited" { return .unlimited }
        do {
            guard let n = Int(v) else { throw ExitError.usage("") }
            return try Limit(n)
        } catch {
            throw .usage("\(flag) takes \(Limits.range), not '\(v)'")
        }
    }

    mutating func decodeOptions() throws(ExitError) -> DecodeOptions {
        var o = DecodeOptions()
        while let arg = args.popFirst() {
            // `--flag=value` is accepted as well as `--flag value`.
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                args.insert(String(arg[arg.index(after: eq)...]), at: args.startIndex)
                args.insert(String(arg[..<eq]), at: args.startIndex)
                continue
            }
            switch arg {
            case "--format": o.format = try value(for: arg)
            case "--model": o.model = try value(for: arg)
            case "--tools": o.tools = try value(for: arg)
            case "--validate": o.validate = true
            case "--whole-calls": o.wholeCalls = true
            case "--input":
                o.input = try value(for: arg)
                guard o.input == "text" || o.input == "tokens" else {
                    throw .usage("--input takes 'text' or 'tokens', not '\(o.input)'")
                }
            case "--tokenizer": o.tokenizer = try value(for: arg)
            case "--skip-special": o.skipSpecial = true
            case "--output":
                o.output = try value(for: arg)
                guard o.output == "events" || o.output == "openai" else {
                    throw .usage("--output takes 'events' or 'openai', not '\(o.output)'")
                }
            case "--raw": o.raw = true
            case "--reasoning": o.reasoning = true
            case "--reasoning-open":
                o.reasoningOpen = true
                o.reasoning = true
            case "--max-call-bytes": o.maxCallBytes = try limit(for: arg)
            case "--id-seed":
                let v = try value(for: arg)
                guard let n = UInt64(v) else {
                    throw .usage("--id-seed takes a whole number from 0 to \(UInt64.max), not '\(v)'")
                }
                o.idSeed = n
            case "--chunk-bytes": o.chunkBytes = try number(for: arg, min: 1)
            case "--response-template": o.responseTemplate = try value(for: arg)
            case "--prefix-file": o.prefixFile = try value(for: arg)
            case "--tool-choice":
                let v = try value(for: arg)
                guard let c = ToolChoice(parsing: v) else {
                    throw .usage("--tool-choice takes auto, required, none, a tool's name or an OpenAI tool_choice object, not '\(v)'")
                }
                o.toolChoice = c
            case "--parallel-tool-calls":
                let v = try value(for: arg)
                guard v == "true" || v == "false" else { throw .usage("--parallel-tool-calls takes true or false, not '\(v)'") }
                o.parallelToolCalls = v == "true"
            default:
                throw .usage("unknown option '\(arg)' for decode (see toolcall decode --help)")
            }
        }
        if o.format != nil && o.model != nil { throw .usage("--format and --model cannot be used together") }
        if o.responseTemplate != nil && (o.format != nil || o.model != nil) {
            throw .usage("--response-template cannot be used with --format or --model")
        }
        if o.prefixFile != nil && o.responseTemplate == nil && o.model == nil {
            throw .usage("--prefix-file is used only with --response-template FILE or --model DIR")
        }
        if o.format == nil && o.model == nil && o.responseTemplate == nil {
            throw .usage("decode needs --format NAME or --model DIR (or --response-template FILE; there is no default format)")
        }
        if o.validate && o.tools == nil { throw .usage("--validate needs --tools FILE") }
        if o.raw && o.output == "openai" { throw .usage("--raw cannot be used with --output openai") }
        if o.input == "tokens" && o.tokenizer == nil && o.model == nil {
            throw .usage("--input tokens needs --tokenizer FILE or --model DIR")
        }
        if o.input != "tokens" {
            if o.tokenizer != nil { throw .usage("--tokenizer is used only with --input tokens") }
            if o.skipSpecial { throw .usage("--skip-special is used only with --input tokens") }
        }
        return o
    }
}
