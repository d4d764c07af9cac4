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

    /// The bytes of the regular file at `path`, when it holds at most `limit` bytes.
    ///
    /// A model folder is data a user hands over: a FIFO or a device under a file's name
    /// (`config.json` → `/dev/zero`) must not block or read forever, and a huge file must not
    /// be read into memory. So the file is opened without blocking, refused unless it is a
    /// regular file, refused when it is larger than `limit`, and never read past `limit`
    /// (a file that grows while it is read is refused too).
    ///
    /// The corresponding C functions are `open`, `fstat` and `read`.
    static func read(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        let fd = unsafe open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw ReadError(path: path, reason: message(e), missing: e == ENOENT)
        }
        defer { close(fd) }
        var info = stat()
        guard unsafe fstat(fd, &info) == 0 else {
            throw ReadError(path: path, reason: message(errno), missing: false)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ReadError(path: path, reason: "not a regular file (\(kind(info.st_mode)))", missing: false)
        }
        guard info.st_size <= limit else {
            throw ReadError(path: path, reason: "\(info.st_size) bytes, more than the \(limit) read for it", missing: false)
        }
        var out: [UInt8] = []
        out.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = unsafe buffer.withUnsafeMutableBytes { unsafe Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                guard out.count + n <= limit else {
                    throw ReadError(path: path, reason: "more than the \(limit) bytes read for it", missing: false)
                }
                out.append(contentsOf: buffer[0..<n])
            } else if n == 0 {
                return out
            } else if errno != EINTR {
                throw ReadError(path: path, reason: message(errno), missing: false)
            }
        }
    }

    /// What a file that is not a regular file is, for messages.
    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a folder"
        case S_IFSOCK: return "a socket"
        default: return "not a plain file"
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
