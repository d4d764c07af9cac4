// toolcall — the one place where messages for standard error are made and written.

/// Messages on standard error: each is one line, `toolcall: ` first, and any input it echoes
/// (a flag, a file name, a token's text) shown with its control characters escaped, so a NUL
/// or an escape sequence in the input cannot reach the terminal raw or break the line.
enum Messages {
    /// `s` with control characters written as escapes: `\n`, `\r`, `\t`, and `\u{XX}` for the
    /// other C0 and C1 controls, DEL and the bidirectional overrides (which could make a line
    /// read differently from what it holds). Everything else is kept as it is.
    static func escaped(_ s: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Writes `toolcall: <message>` as one line on standard error.
    static func error(_ message: String) {
        StandardStreams.writeError("toolcall: " + escaped(message) + "\n")
    }

    /// Writes `toolcall: warning: <message>` as one line on standard error.
    static func warning(_ message: String) {
        StandardStreams.writeError("toolcall: warning: " + escaped(message) + "\n")
    }

    /// Writes `toolcall: note: <message>` as one line on standard error.
    static func note(_ message: String) {
        StandardStreams.writeError("toolcall: note: " + escaped(message) + "\n")
    }
}
