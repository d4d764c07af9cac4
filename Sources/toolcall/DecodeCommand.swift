// toolcall — `decode`: standard input through a ToolCallDecoder, one JSON event per line.

import Glibc
import ToolCallKit

/// Runs `toolcall decode`.
struct DecodeCommand {
    let options: DecodeOptions

    func run() throws(ExitError) {
        guard let name = options.format else {
            throw .usage("--model is not available in this build yet; use --format")
        }
        guard let format = ToolCallFormat(name: name) else {
            let names = ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw .usage("unknown format '\(name)' (one of: \(names))")
        }
        guard format.isImplemented else {
            throw .usage("format '\(format.rawValue)' is planned but not implemented in this build")
        }
        if options.output == "openai" { throw .usage("--output openai is not available in this build yet") }
        if options.reasoning { throw .usage("--reasoning is not available in this build yet") }
        if options.validate { throw .usage("--validate is not available in this build yet") }

        var tools: ToolSet?
        if let path = options.tools {
            let bytes = try StandardStreams.readFile(path, what: "--tools")
            do {
                tools = try ToolSet.load(json: bytes)
            } catch {
                throw .file("--tools \(path): \(error.message)")
            }
        }
        var decoderOptions = ToolCallDecoder.Options(rawSpans: options.raw, idSeed: options.idSeed)
        if let cap = options.maxCallBytes { decoderOptions.maxCallBytes = cap }
        var decoder = ToolCallDecoder(format: format, tools: tools, options: decoderOptions)

        if options.input == "tokens" {
            let tokenizer = try loadTokenizer()
            var tokens = TokenStreamDecoder(tokenizer: tokenizer, decoder: decoder, skipSpecial: options.skipSpecial)
            try TokenInput(chunkBytes: options.chunkBytes).run(&tokens)
            return
        }

        var input = StandardInput()
        var out: [UInt8] = []
        while let chunk = input.read() {
            var offset = 0
            let piece = options.chunkBytes ?? chunk.count
            while offset < chunk.count {
                let end = min(chunk.count, offset + piece)
                let events = decoder.feed(chunk[offset..<end])
                offset = end
                guard !events.isEmpty else { continue }
                out.removeAll(keepingCapacity: true)
                for e in events {
                    EventJSONEncoder.encode(e, into: &out)
                    out.append(0x0A)
                }
                // One write per batch: every event of a chunk is ready at once.
                if !StandardStreams.writeOut(out) { return }
            }
        }
        out.removeAll(keepingCapacity: true)
        for e in decoder.finish() {
            EventJSONEncoder.encode(e, into: &out)
            out.append(0x0A)
        }
        _ = StandardStreams.writeOut(out)
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
