// ToolCallKitC — tokenizers loaded once per process and shared by every decoder.

import Glibc
import Synchronization
import ToolCallKit

/// The process-wide tokenizer cache behind `tck_decoder_new`.
///
/// A server opens a decoder per stream, and many streams use the same model: parsing its
/// tokenizer.json (megabytes) per stream would cost more than decoding. So each file is
/// loaded once and the read-only ``Tokenizer`` value (whose tables are shared, not copied)
/// is handed to every decoder that names it.
///
/// Files are keyed by their resolved path (`realpath`), so two spellings of one file share an
/// entry. Each entry has its own lock: decoders asking for a file that is being loaded wait
/// for that load, and loads of different files run at the same time. A failed load is not
/// kept (the next decoder tries again); a loaded tokenizer is kept until the process ends.
final class TokenizerCache: Sendable {
    /// A tokenizer that could not be loaded; the message names the file.
    struct LoadError: Error {
        let message: String
    }

    /// One file's entry: nil until loaded.
    private final class Slot: Sendable {
        let tokenizer = Mutex<Tokenizer?>(nil)
    }

    static let shared = TokenizerCache()

    private let slots = Mutex<[String: Slot]>([:])
    private let loads = Atomic<Int>(0)

    /// How many files have been read and parsed (for tests: a cached lookup does not count).
    var loadCount: Int { loads.load(ordering: .relaxed) }

    /// The tokenizer of the file at `path`, loaded on first use.
    func tokenizer(at path: String) throws(LoadError) -> Tokenizer {
        let key = Self.resolve(path)
        let slot = slots.withLock { table in
            if let s = table[key] { return s }
            let s = Slot()
            table[key] = s
            return s
        }
        return try slot.tokenizer.withLock { (cached: inout Tokenizer?) throws(LoadError) -> Tokenizer in
            if let cached { return cached }
            let bytes = try Self.read(path)
            loads.add(1, ordering: .relaxed)
            let t: Tokenizer
            do throws(TokenizerError) {
                t = try Tokenizer(json: bytes, source: path)
            } catch {
                throw LoadError(message: "tokenizer \(error.description)")
            }
            cached = t
            return t
        }
    }

    /// The canonical path, or the path as given when it cannot be resolved.
    private static func resolve(_ path: String) -> String {
        guard let p = unsafe realpath(path, nil) else { return path }
        defer { unsafe free(p) }
        return unsafe String(cString: p)
    }

    /// A whole file. The corresponding C functions are `open` and `read`.
    private static func read(_ path: String) throws(LoadError) -> [UInt8] {
        let fd = unsafe open(path, O_RDONLY)
        guard fd >= 0 else { throw LoadError(message: "tokenizer \(path): \(errorText())") }
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
                throw LoadError(message: "tokenizer \(path): \(errorText())")
            }
        }
    }

    private static func errorText() -> String {
        unsafe String(cString: strerror(errno))
    }
}
