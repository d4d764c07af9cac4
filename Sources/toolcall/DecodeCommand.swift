// toolcall — `decode`: standard input through a ToolCallDecoder, one JSON event per line.

import Glibc
import ToolCallKit

/// Runs `toolcall decode`.
struct DecodeCommand {
    let options: DecodeOptions

    /// The format named by `--format`, or inferred from `--model DIR`.
    func resolveFormat() throws(ExitError) -> ToolCallFormat {
        if let name = options.format {
            guard let format = ToolCallFormat(name: name) else {
                let names = ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage("unknown format '\(name)' (one of: \(names))")
            }
            return format
        }
        let dir = options.model ?? ""
        let inferred: FormatInference
        do {
            inferred = try ToolCallFormat.infer(modelDirectory: dir)
        } catch {
            throw .file("--model: \(error.message)")
        }
        guard let format = inferred.format else {
            throw .usage("--model \(dir): no tool-call format found; evidence: " + inferred.evidence.joined(separator: "; "))
        }
        return format
    }

    func run() throws(ExitError) {
        let format = try resolveFormat()
        guard format.isImplemented else {
            throw .usage("format '\(format.rawValue)' is planned but not implemented in this build")
        }

        var tools: ToolSet?
        if let path = options.tools {
            let bytes = try StandardStreams.readFile(path, what: "--tools")
            do {
                tools = try ToolSet.load(json: bytes)
                // Schemas are compiled (and bad ones refused) once, before any input is read.
                if options.validate { tools = try tools?.compilingValidators() }
            } catch {
                throw .file("--tools \(path): \(error.message)")
            }
            for warning in tools?.validationWarnings ?? [] {
                StandardStreams.writeError("toolcall: warning: --tools \(path): \(warning)\n")
            }
        }
        var decoderOptions = ToolCallDecoder.Options(
            rawSpans: options.raw, idSeed: options.idSeed,
            reasoning: options.reasoning, reasoningOpen: options.reasoningOpen, validate: options.validate)
        if let cap = options.maxCallBytes { decoderOptions.maxCallBytes = (try? Limit(cap)) ?? .unlimited }
        var decoder = ToolCallDecoder(format: format, tools: tools, options: decoderOptions)
        var writer = EventWriter(options: options)

        if options.input == "tokens" {
            let tokenizer = try loadTokenizer()
            var tokens = TokenStreamDecoder(tokenizer: tokenizer, decoder: decoder, skipSpecial: options.skipSpecial)
            try TokenInput(chunkBytes: options.chunkBytes).run(&tokens, writer: &writer)
            return
        }

        var input = StandardInput()
        while let chunk = input.read() {
            var offset = 0
            let piece = options.chunkBytes ?? chunk.count
            while offset < chunk.count {
                let end = min(chunk.count, offset + piece)
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

    init(options: DecodeOptions) {
        if options.output == "openai" {
            let model = options.model.map { ModelName.of(folder: $0) } ?? "toolcall"
            lines = EventLineWriter(.openAI(OpenAIChunkEncoder(
                id: OpenAIChunkEncoder.makeID(seed: options.idSeed), created: Int(time(nil)), model: model)))
        } else {
            lines = EventLineWriter(.events(raw: options.raw))
        }
    }

    /// Writes the events; false when the reader has gone (EPIPE).
    mutating func write(_ events: [ToolCallEvent]) -> Bool {
        guard !events.isEmpty else { return true }
        out.removeAll(keepingCapacity: true)
        diagnostics.removeAll(keepingCapacity: true)
        lines.write(events, lines: &out, diagnostics: &diagnostics)
        if !diagnostics.isEmpty { StandardStreams.writeError(String(decoding: diagnostics, as: UTF8.self)) }
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

    /// Reads a whole file. The corresponding C functions are `open` and `read`.
    static func readFile(_ path: String, what: String) throws(ExitError) -> [UInt8] {
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
                out.append(contentsOf: buf[0..<n])
            } else if n == 0 {
                return out
            } else if errno != EINTR {
                throw .file("\(what) \(path): \(errorText())")
            }
        }
    }
}
