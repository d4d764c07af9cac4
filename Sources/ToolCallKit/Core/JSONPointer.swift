// ToolCallKit — JSON Pointer steps (RFC 6901): the one place `~` and `/` are escaped.

/// Escaping and unescaping of one JSON Pointer reference token.
enum JSONPointer {
    /// `~` written `~0` and `/` written `~1`, so the key is one step of a pointer.
    static func escape(_ key: some StringProtocol) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return String(key) }
        var out = ""
        for c in key.unicodeScalars {
            switch c {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The key a step stands for: `~1` read as `/`, then `~0` as `~` (in that order, so `~01`
    /// is `~1`). A `~` followed by anything else is kept as it is.
    static func unescape(_ step: some StringProtocol) -> String {
        guard step.utf8.contains(UInt8(ascii: "~")) else { return String(step) }
        var out = ""
        var tilde = false
        for c in step.unicodeScalars {
            if tilde {
                tilde = false
                switch c {
                case "0": out += "~"
                case "1": out += "/"
                case "~": out += "~"; tilde = true; continue
                default: out += "~"; out.unicodeScalars.append(c)
                }
            } else if c == "~" {
                tilde = true
            } else {
                out.unicodeScalars.append(c)
            }
        }
        if tilde { out += "~" }
        return out
    }

    /// The pointer of a path: `/` before each step, keys escaped.
    static func pointer(_ steps: some Sequence<String>) -> String {
        var s = ""
        for step in steps { s += "/" + escape(step) }
        return s
    }
}
