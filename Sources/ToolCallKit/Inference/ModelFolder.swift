// ToolCallKit — reading the files of a model folder (no Foundation: plain POSIX calls).

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reads whole files and checks folders with POSIX calls.
///
/// The library stays free of Foundation; the CLI and servers call it with paths.
enum FileBytes {
    /// Why a file could not be read.
    struct ReadError: Error, CustomStringConvertible, Sendable {
        let path: String
        let reason: String
        /// The file does not exist.
        let missing: Bool
        var description: String { "\(path): \(reason)" }
    }

    /// The bytes of the file at `path`. The corresponding C functions are `open` and `read`.
    static func read(_ path: String) throws(ReadError) -> [UInt8] {
        let fd = unsafe open(path, O_RDONLY)
        guard fd >= 0 else {
            let e = errno
            throw ReadError(path: path, reason: message(e), missing: e == ENOENT)
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = unsafe buffer.withUnsafeMutableBytes { unsafe Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                out.append(contentsOf: buffer[0..<n])
            } else if n == 0 {
                return out
            } else if errno != EINTR {
                throw ReadError(path: path, reason: message(errno), missing: false)
            }
        }
    }

    /// Whether `path` is a folder this process can read.
    static func isReadableDirectory(_ path: String) -> Bool {
        guard let dir = unsafe opendir(path) else { return false }
        unsafe closedir(dir)
        return true
    }

    /// The message for an `errno` value. The corresponding C function is `strerror`.
    static func message(_ code: Int32) -> String {
        unsafe String(cString: strerror(code))
    }
}
