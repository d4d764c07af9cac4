// toolcall — argument parsing (no outside package can be fetched, so it is written here, small).

/// A failure that ends the program with a documented exit code and a one-line message.
struct ExitError: Error {
    /// The exit status (DESIGN.md §4).
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
    var input = "text"
    var tokenizer: String?
    var skipSpecial = false
    var output = "events"
    var raw = false
    var reasoning = false
    var reasoningOpen = false
    var maxCallBytes: Int?
    var idSeed: UInt64?
    var chunkBytes: Int?
}

/// Reads `decode`'s flags; every problem is a usage error naming the flag.
struct ArgumentReader {
    private var args: ArraySlice<String>

    init(_ args: ArraySlice<String>) { self.args = args }

    private mutating func value(for flag: String) throws(ExitError) -> String {
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
            case "--max-call-bytes": o.maxCallBytes = try number(for: arg, min: 1)
            case "--id-seed":
                let v = try value(for: arg)
                guard let n = UInt64(v) else { throw .usage("--id-seed takes a whole number, not '\(v)'") }
                o.idSeed = n
            case "--chunk-bytes": o.chunkBytes = try number(for: arg, min: 1)
            default:
                throw .usage("unknown option '\(arg)' for decode (see toolcall --help)")
            }
        }
        if o.format != nil && o.model != nil { throw .usage("--format and --model cannot be used together") }
        if o.format == nil && o.model == nil {
            throw .usage("decode needs --format NAME or --model DIR (there is no default format)")
        }
        if o.validate && o.tools == nil { throw .usage("--validate needs --tools FILE") }
        if o.raw && o.output == "openai" { throw .usage("--raw cannot be used with --output openai") }
        if o.input == "tokens" && o.tokenizer == nil && o.model == nil {
            throw .usage("--input tokens needs --tokenizer FILE or --model DIR")
        }
        return o
    }
}
