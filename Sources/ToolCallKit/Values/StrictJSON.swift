// ToolCallKit — a strict JSON check (RFC 8259), for the promise that deltas are JSON text.

/// Checks that bytes are one JSON text exactly as RFC 8259 defines it: no raw control
/// characters in strings, only the standard escapes, no lone UTF-16 surrogate escapes, valid
/// UTF-8. The decoder's own readers are lenient where models are; this is what a client's
/// parser (`json.loads`, `JSON.parse`, Foundation) demands of what we send it, used by the
/// chunking verifier and the fuzz target on every call's joined deltas.
package enum StrictJSON {
    /// nil when `bytes` is one strict JSON text, else what is wrong and where.
    package static func problem(in bytes: [UInt8], maxDepth: Int = 10_000) -> String? {
        var i = 0
        let n = bytes.count
        var stack: [Bool] = []  // true: object
        func skipSpace() {
            while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }
        func hex(_ b: UInt8) -> UInt32? {
            switch b {
            case 0x30...0x39: return UInt32(b - 0x30)
            case 0x41...0x46: return UInt32(b - 0x41 + 10)
            case 0x61...0x66: return UInt32(b - 0x61 + 10)
            default: return nil
            }
        }
        func escapeUnit() -> UInt32? {
            // At `\u`; reads four hex digits.
            guard i + 6 <= n, bytes[i + 1] == UInt8(ascii: "u") else { return nil }
            var v: UInt32 = 0
            for k in 2..<6 {
                guard let h = hex(bytes[i + k]) else { return nil }
                v = v << 4 | h
            }
            return v
        }
        func string() -> String? {
            i += 1
            let start = i
            while i < n {
                let b = bytes[i]
                if b == 0x22 {
                    guard UTF8Boundary.isValid(bytes[start..<i]) else { return "invalid UTF-8 in the string at \(start)" }
                    i += 1
                    return nil
                }
                if b < 0x20 { return "raw control byte 0x\(String(b, radix: 16)) in a string at \(i)" }
                if b == 0x5C {
                    guard i + 1 < n else { return "unfinished escape at \(i)" }
                    switch bytes[i + 1] {
                    case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 2
                    case 0x75:
                        guard let u = escapeUnit() else { return "bad \\u escape at \(i)" }
                        if UTF16Unit.isLow(u) { return "lone low surrogate escape at \(i)" }
                        if UTF16Unit.isHigh(u) {
                            i += 6
                            guard i < n, bytes[i] == 0x5C, let low = escapeUnit(), UTF16Unit.isLow(low) else {
                                return "lone high surrogate escape at \(i - 6)"
                            }
                        }
                        i += 6
                    default: return "invalid escape at \(i)"
                    }
                    continue
                }
                i += 1
            }
            return "unterminated string"
        }
        func number() -> String? {
            let start = i
            if i < n && bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < n, bytes[i] >= 0x30 && bytes[i] <= 0x39 else { return "bad number at \(start)" }
            if bytes[i] == 0x30 { i += 1 } else { while i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 } }
            if i < n && bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard i < n, bytes[i] >= 0x30 && bytes[i] <= 0x39 else { return "bad fraction at \(start)" }
                while i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
            }
            if i < n && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
                i += 1
                if i < n && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
                guard i < n, bytes[i] >= 0x30 && bytes[i] <= 0x39 else { return "bad exponent at \(start)" }
                while i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
            }
            return nil
        }
        // One value at a time, iteratively: `expectValue` after `[`, `,` in arrays, `:`.
        var expectValue = true
        while true {
            skipSpace()
            if expectValue {
                guard i < n else { return "unexpected end" }
                switch bytes[i] {
                case UInt8(ascii: "{"):
                    i += 1
                    stack.append(true)
                    guard stack.count <= maxDepth else { return nestingTooDeep(maxDepth) }
                    skipSpace()
                    if i < n && bytes[i] == UInt8(ascii: "}") {
                        i += 1
                        stack.removeLast()
                        expectValue = false
                        continue
                    }
                    guard i < n, bytes[i] == 0x22 else { return "expected a key at \(i)" }
                    if let p = string() { return p }
                    skipSpace()
                    guard i < n, bytes[i] == UInt8(ascii: ":") else { return "expected : at \(i)" }
                    i += 1
                    continue
                case UInt8(ascii: "["):
                    i += 1
                    stack.append(false)
                    guard stack.count <= maxDepth else { return nestingTooDeep(maxDepth) }
                    skipSpace()
                    if i < n && bytes[i] == UInt8(ascii: "]") {
                        i += 1
                        stack.removeLast()
                        expectValue = false
                    }
                    continue
                case 0x22:
                    if let p = string() { return p }
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let word: [UInt8] = bytes[i] == UInt8(ascii: "t") ? Array("true".utf8) : bytes[i] == UInt8(ascii: "f") ? Array("false".utf8) : Array("null".utf8)
                    guard i + word.count <= n, Array(bytes[i..<(i + word.count)]) == word else { return "bad literal at \(i)" }
                    i += word.count
                default:
                    if let p = number() { return p }
                }
                expectValue = false
                continue
            }
            // After a value.
            guard let top = stack.last else {
                return i == n ? nil : "bytes after the value at \(i)"
            }
            guard i < n else { return "unexpected end" }
            let b = bytes[i]
            i += 1
            if b == UInt8(ascii: ",") {
                if top {
                    skipSpace()
                    guard i < n, bytes[i] == 0x22 else { return "expected a key at \(i)" }
                    if let p = string() { return p }
                    skipSpace()
                    guard i < n, bytes[i] == UInt8(ascii: ":") else { return "expected : at \(i)" }
                    i += 1
                }
                expectValue = true
            } else if b == (top ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                stack.removeLast()
            } else {
                return "unexpected byte at \(i - 1)"
            }
        }
    }
}
