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
        /// Why, as ``TokenizerError`` says it.
        let kind: TokenizerError.Kind
    }

    /// One file's entry: nil until loaded.
    private final class Slot: Sendable {
        let tokenizer = Mutex<Tokenizer?>(nil)
    }

    static let shared = TokenizerCache()

    private let slots = Mutex<[String: Slot]>([:])
    private let loads = Atomic<Int>(0)

    /// How many loads have been tried (for tests: a cached lookup does not count).
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
            loads.add(1, ordering: .relaxed)
            let t: Tokenizer
            do throws(TokenizerError) {
                // The checks the CLI makes too: a regular file, at most Tokenizer.fileSizeLimit.
                t = try Tokenizer(contentsOfFile: path)
            } catch {
                throw LoadError(message: "tokenizer \(error.description)", kind: error.kind)
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
}
