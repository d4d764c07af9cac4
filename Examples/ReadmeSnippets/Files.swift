// readme-snippets — reading a fixture file without Foundation's file APIs.

import Glibc

/// The bytes of the file at `path`, or nil.
func fopenBytes(_ path: String) -> [UInt8]? {
    guard let f = unsafe fopen(path, "rb") else { return nil }
    defer { unsafe fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = unsafe buf.withUnsafeMutableBytes { unsafe fread($0.baseAddress, 1, $0.count, f) }
        if n == 0 { return out }
        out += buf[0..<n]
    }
}
