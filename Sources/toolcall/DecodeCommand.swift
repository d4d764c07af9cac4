// toolcall — `decode`: standard input through a ToolCallDecoder, one JSON event per line.

import Glibc
import ToolCallKit

/// Runs `toolcall decode`.
struct DecodeCommand {
    let options: DecodeOptions

    /// The format named by `--format`, or inferred from `--model DIR`; with a note for stderr
    /// when the inferred format is only a family default (written once everything else has
    /// loaded, so that an error stays the one line on stderr).
    func resolveFormat() throws(ExitError) -> (format: ToolCallFormat, note: String?) {
        if let name = options.format {
            guard let format = ToolCallFormat(name: name) else {
                throw .usage(FormatNames.unknown(name))
            }
            return (format, nil)
        }
        let dir = options.model ?? ""
        let inferred: FormatInference
        do {
            inferred = try ToolCallFormat.infer(modelDirectory: dir)
        } catch {
            throw .file("--model: \(error.message)")
        }
        guard let format = inferred.modelFormat else {
            throw .usage("--model \(dir): no tool-call format found; evidence: " + inferred.evidence.joined(separator: "; ")
                + "; name the format with --format NAME instead (toolcall formats lists them), or give --response-template FILE")
        }
        let note = FormatNames.weakEvidence(inferred).map {
            "--model \(dir): decoding as \(format.rawValue), \($0); pass --format NAME to choose"
        }
        return (format, note)
    }

    /// The template of `--response-template FILE` (a template object or a
    /// `tokenizer_config.json` that has one), checked before any input is read.
    func loadTemplate(_ path: String) throws(ExitError) -> ResponseTemplate {
        let bytes = try StandardStreams.readFile(path, what: "--response-template", limit: StandardStreams.toolsFileLimit)
        do {
            return try ResponseTemplate.load(bytes)
        } catch {
            throw .file("--response-template \(path): \(error.message)")
        }
    }

    func run() throws(ExitError) {
        let format: ToolCallFormat
        var note: String?
        if let path = options.responseTemplate {
            format = ToolCallFormat(responseTemplate: try loadTemplate(path))
        } else {
            (format, note) = try resolveFormat()
        }
        guard format.isImplemented else {
            throw .usage("format '\(format.rawValue)' is planned but not implemented in this build")
        }
        var prompt: [UInt8] = []
        if let path = options.prefixFile {
            prompt = try StandardStreams.readFile(path, what: "--prefix-file", limit: StandardStreams.toolsFileLimit)
        }

        var tools: ToolSet?
        if let path = options.tools {
            let bytes = try StandardStreams.readFile(path, what: "--tools", limit: StandardStreams.toolsFileLimit)
            do {
                tools = try ToolSet.load(json: bytes)
                // Schemas are compiled (and bad ones refused) once, before any input is read.
                if options.validate { tools = try tools?.compilingValidators() }
            } catch {
                throw .file("--tools \(path): \(error.message)")
            }
            for warning in (tools?.warnings ?? []) + (tools?.validationWarnings ?? []) {
                Messages.warning("--tools \(path): \(warning)")
            }
        }
        var decoderOptions = ToolCallDecoder.Options(
            rawSpans: options.raw, idSeed: options.idSeed,
            reasoning: options.reasoning, reasoningOpen: options.reasoningOpen, validate: options.validate)
        if let cap = options.maxCallBytes { decoderOptions.maxCallBytes = cap }
        decoderOptions.wholeCalls = options.wholeCalls
        decoderOptions.prompt = prompt
        decoderOptions.toolChoice = options.toolChoice
        decoderOptions.parallelToolCalls = options.parallelToolCalls
        var decoder = ToolCallDecoder(format: format, tools: tools, options: decoderOptions)
        var writer = EventWriter(options: options, tools: tools)
        let tokenizer = options.input == "tokens" ? try loadTokenizer() : nil
        if let note { Messages.note(note) }
        StandardInput.noteIfTerminal(command: "decode", what: options.input == "tokens" ? "token ids" : "the model's output")

        if let tokenizer {
            var tokens = TokenStreamDecoder(tokenizer: tokenizer, decoder: decoder, skipSpecial: options.skipSpecial)
            try TokenInput(chunkBytes: options.chunkBytes).run(&tokens, writer: &writer)
            return
        }

        var input = StandardInput()
        while let chunk = input.read() {
            var offset = 0
            let piece = options.chunkBytes ?? chunk.count
            while offset < chunk.count {
                let end = offset + min(piece, chunk.count - offset)
                let events = decoder.feed(chunk[offset..<end])
                offset = end
                if !writer.write(events) { return }
            }
        }
        _ = writer.write(decoder.finish())
    }
}

/// Writes events in the chosen output mode, one batch per write (every event of a chunk is
/// ready at once, so a batch is as prompt as one write per event).
struct EventWriter {
    private var lines: EventLineWriter
    private var out: [UInt8] = []
    private var diagnostics: [UInt8] = []

    init(options: DecodeOptions, tools: ToolSet? = nil) {
        let model = options.model.map { ModelName.of(folder: $0) } ?? "toolcall"
        if options.output == "openai" {
            lines = EventLineWriter(.openAI(OpenAIChunkEncoder(
                id: OpenAIChunkEncoder.makeID(seed: options.idSeed), created: Int(time(nil)), model: model,
                wholeCalls: options.wholeCalls)))
        } else if options.output == "responses" {
            lines = EventLineWriter(.responses(ResponsesEventEncoder(
                model: model, createdAt: Int(time(nil)), seed: options.idSeed, toolChoice: options.toolChoice,
                parallelToolCalls: options.parallelToolCalls, tools: tools)))
        } else if options.output == "anthropic" {
            lines = EventLineWriter(.anthropic(AnthropicEventEncoder(model: model, seed: options.idSeed)))
        } else {
            lines = EventLineWriter(.events(raw: options.raw))
        }
    }

    /// Writes the events; false when the reader has gone (EPIPE). A batch past 1 MiB (a large
    /// call's lines) is written before the next event is encoded, and its buffer let go, so
    /// output holds about one large line at a time.
    mutating func write(_ events: [ToolCallEvent]) -> Bool {
        guard !events.isEmpty else { return true }
        out.removeAll(keepingCapacity: out.capacity <= 1 << 20)
        diagnostics.removeAll(keepingCapacity: true)
        for e in events {
            lines.write(e, lines: &out, diagnostics: &diagnostics)
            if out.count > 1 << 20 {
                guard flush() else { return false }
                out = []
            }
        }
        return flush()
    }

    private mutating func flush() -> Bool {
        if !diagnostics.isEmpty {
            StandardStreams.writeError(String(decoding: diagnostics, as: UTF8.self))
            diagnostics.removeAll(keepingCapacity: true)
        }
        return out.isEmpty || StandardStreams.writeOut(out)
    }
}

/// The model name OpenAI chunks carry: the folder's last path component.
enum ModelName {
    static func of(folder: String) -> String {
        let parts = folder.split(separator: "/", omittingEmptySubsequences: true)
        return parts.last.map(String.init) ?? "toolcall"
    }
}

/// Standard input read with read(2) as data arrives (it must stream through a pipe).
struct StandardInput {
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    /// When standard input is a terminal (the command was run without `< FILE` or a pipe), says
    /// so on standard error, so that a wait for typed input is not mistaken for a hang. The
    /// corresponding C function is `isatty`.
    static func noteIfTerminal(command: String, what: String) {
        guard isatty(0) == 1 else { return }
        Messages.note("\(command) is reading \(what) from standard input (the terminal); end it with Ctrl-D, or run toolcall \(command) ... < FILE")
    }

    /// The next bytes, or nil at end of input. The corresponding C function is `read`.
    mutating func read() -> ArraySlice<UInt8>? {
        while true {
            let n = unsafe buffer.withUnsafeMutableBytes { unsafe Glibc.read(0, $0.baseAddress, $0.count) }
            if n > 0 { return buffer[0..<n] }
            if n == 0 { return nil }
            if errno == EINTR { continue }
            return nil
        }
    }
}

/// Writing to standard output and error, and reading whole files.
enum StandardStreams {
    /// Writes all of `bytes` to standard output; false when the reader has gone (EPIPE).
    @discardableResult
    static func writeOut(_ bytes: [UInt8]) -> Bool { writeAll(1, bytes) }

    @discardableResult
    static func writeOut(_ s: String) -> Bool { writeAll(1, Array(s.utf8)) }

    static func writeError(_ s: String) { _ = writeAll(2, Array(s.utf8)) }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = unsafe bytes.withUnsafeBytes { raw in
                unsafe Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if n >= 0 {
                offset += n
            } else if errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// The message for the current `errno`. The corresponding C function is `strerror`.
    static func errorText() -> String {
        unsafe String(cString: strerror(errno))
    }

    /// The most a tools, template or prefix file named on the command line may hold: 64 MiB.
    /// (A tokenizer is read by ``Tokenizer/init(contentsOfFile:)``, as the C library reads it.)
    static let toolsFileLimit = 64 << 20

    /// Reads a file named on the command line, up to `limit` bytes (more is an error, so
    /// `/dev/zero` or a runaway pipe cannot exhaust memory). A FIFO is read (`--tools <(...)`
    /// is the user's own choice). The corresponding C functions are `open` and `read`.
    static func readFile(_ path: String, what: String, limit: Int) throws(ExitError) -> [UInt8] {
        let fd = unsafe open(path, O_RDONLY)
        guard fd >= 0 else {
            throw .file("\(what) \(path): \(errorText())")
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = unsafe buf.withUnsafeMutableBytes { unsafe Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                guard out.count + n <= limit else {
                    throw .file("\(what) \(path): larger than \(limit) bytes, the most read for it")
                }
                out.append(contentsOf: buf[0..<n])
            } else if n == 0 {
                return out
            } else if errno != EINTR {
                throw .file("\(what) \(path): \(errorText())")
            }
        }
    }
}

/// Format names in messages: suggestions for names that are not formats, and the evidence
/// behind an inferred format that is only a default.
enum FormatNames {
    /// Names people try that are model families, with the format those models write (each
    /// format declares its own).
    static var families: [(names: [String], format: ToolCallFormat, who: String)] {
        ToolCallFormat.allCases.compactMap { f in f.definition.familyNames.map { ($0.names, f, $0.who) } }
    }

    /// The message for `--format NAME` when NAME is not a format: the formats it may mean,
    /// then the list. Found from the declarations, in three steps: a format's own name in
    /// other case or separators (`JSON`, `xml-function`); else a model family's name and the
    /// formats whose names begin with it (`kimi`: kimi_k2 and kimi_k3; `deepseek`: the three
    /// DeepSeek formats and deepseek_v4); else the close spellings
    /// (``Suggestions/close(to:among:)`` over names, case names and family names: `jsn` →
    /// json). Model variants are names like the formats' (`glm4.7` → glm47).
    static func unknown(_ name: String) -> String {
        let all = ToolCallFormat.allCases + ToolCallFormat.variants
        let names = ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ")
        let variants = ToolCallFormat.variants.map(\.rawValue).joined(separator: ", ")
        let list = "(the formats: \(names); model variants: \(variants); `toolcall infer DIR` names a model folder's format)"
        let key = Suggestions.squashed(name)
        if let f = all.first(where: { Suggestions.squashed($0.rawValue) == key || Suggestions.squashed($0.caseName) == key }) {
            return "unknown format '\(name)': try --format \(f.rawValue) \(list)"
        }
        let named = families.filter { family in family.names.contains { Suggestions.squashed($0) == key } }
        var formats = all.filter { f in
            named.contains { $0.format == f } || (key.count >= 3 && Suggestions.squashed(f.rawValue).hasPrefix(key))
        }
        if formats.isEmpty {
            var spellings: [(spelling: String, format: ToolCallFormat)] = []
            for f in all {
                spellings += [(f.rawValue, f), (f.caseName, f)] + (f.definition.familyNames?.names ?? []).map { ($0, f) }
            }
            for spelling in Suggestions.close(to: name, among: spellings.map(\.spelling)) {
                for s in spellings where s.spelling == spelling && !formats.contains(s.format) { formats.append(s.format) }
            }
        }
        guard !formats.isEmpty else { return "unknown format '\(name)' \(list)" }
        if formats.count == 1 {
            let f = formats[0].rawValue
            if let family = named.first { return "unknown format '\(name)': \(family.who) \(f), so try --format \(f) \(list)" }
            return "unknown format '\(name)': did you mean \(f)? \(list)"
        }
        let who = named.map { "\($0.who) \($0.format.rawValue)" }.joined(separator: "; ")
        return "unknown format '\(name)': did you mean \(Suggestions.list(formats.map(\.rawValue)))?" + (who.isEmpty ? "" : " (\(who))") + " \(list)"
    }

    /// The decisive evidence line when it says the format is a default or ambiguous; nil when
    /// the folder states its format (a declaration, a template or a token).
    ///
    /// The evidence is ordered strongest first, so the first line that names the chosen
    /// format (`→ json`, `declares json`) is the one that decided.
    static func weakEvidence(_ inferred: FormatInference) -> String? {
        guard let format = inferred.format else { return nil }
        let decisive = inferred.evidence.first { names($0, "→ " + format.rawValue) || names($0, "declares " + format.rawValue) }
        guard let line = decisive, line.contains("default") || line.contains("ambiguous") else { return nil }
        return "which is only a default: \(line)"
    }

    /// Whether `line` holds `phrase` as whole words (`→ gemma` is not in `→ gemma4`).
    private static func names(_ line: String, _ phrase: String) -> Bool {
        var rest = line[...]
        while let r = rest.firstRange(of: phrase) {
            let next = rest[r.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "_") }) ?? true { return true }
            rest = rest[r.upperBound...]
        }
        return false
    }
}
