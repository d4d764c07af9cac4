// ToolCallKit — typed JSON values that keep the order the model wrote.

/// A JSON value whose objects keep their keys in wire order.
///
/// Tool-call arguments are shown to users and replayed to models, so the order in which the
/// model wrote the keys is kept (a dictionary would lose it). Numbers keep their JSON text
/// (`3.50` stays `3.50`), so nothing is rounded on the way through.
///
/// This type does not validate against a schema (see ``SchemaValidator`` for that) and does not
/// parse; ``JSONValue/parse(_:)`` and the incremental readers build it.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as canonical JSON number text (for example `-12`, `3.5`, `1e+30`).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// An object; keys are unique and in the order they were first written.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)):
            if a == b { return true }
            if let x = Double(a), let y = Double(b) { return x == y }
            return false
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (l, r) in zip(a, b) where l.key != r.key || l.value != r.value { return false }
            return true
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(Double(n) ?? 0)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let o):
            hasher.combine(o.count)
            for (k, v) in o {
                hasher.combine(k)
                hasher.combine(v)
            }
        }
    }

    /// The value stored under `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [(key: String, value: JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// True for `.object`.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The value as a `Double`, when this is a number.
    public var doubleValue: Double? {
        if case .number(let n) = self { return Double(n) }
        return nil
    }

    /// A JSON object built from members, later duplicates replacing earlier ones in place.
    static func object(uniquing members: [(key: String, value: JSONValue)]) -> JSONValue {
        // Large objects (a tokenizer's 50,000-entry vocabulary) use a hash index: the linear
        // search below is quadratic. Same result either way: first position, last value.
        // Keys are compared by their UTF-8 bytes, not by Swift's canonical equivalence: "ά"
        // (U+03AC) and "ά" (U+03B1 U+0301) are different JSON keys (both are in Llama's vocab).
        if members.count > 32 { return object(uniquingLarge: members) }
        var out: [(key: String, value: JSONValue)] = []
        out.reserveCapacity(members.count)
        for m in members {
            if let i = out.firstIndex(where: { $0.key.utf8.elementsEqual(m.key.utf8) }) {
                out[i].value = m.value
            } else {
                out.append(m)
            }
        }
        return .object(out)
    }

    private static func object(uniquingLarge members: [(key: String, value: JSONValue)]) -> JSONValue {
        var index: [ByteKey: Int] = [:]
        index.reserveCapacity(members.count)
        var out: [(key: String, value: JSONValue)] = []
        out.reserveCapacity(members.count)
        for m in members {
            if let i = index[ByteKey(m.key)] {
                out[i].value = m.value
            } else {
                index[ByteKey(m.key)] = out.count
                out.append(m)
            }
        }
        // No duplicate: hand back the input itself rather than the copy.
        return .object(out.count == members.count ? members : out)
    }

    /// A string compared and hashed by its UTF-8 bytes.
    private struct ByteKey: Hashable {
        let s: String
        init(_ s: String) { self.s = s }
        static func == (a: ByteKey, b: ByteKey) -> Bool { a.s.utf8.elementsEqual(b.s.utf8) }
        func hash(into h: inout Hasher) {
            h.combine(s.utf8.count)
            for b in s.utf8 { h.combine(b) }
        }
    }
}

// MARK: - Serialization

extension JSONValue {
    /// Compact JSON text: no insignificant white space, non-ASCII characters written as they are.
    public var jsonText: String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact JSON text of this value to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                m.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string literal.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        writeEscaped(s.utf8.span, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// The length of ``writeEscaped(_:to:)``'s output for `bytes`: room for a large string can
    /// be made once, at its exact size.
    static func escapedCount(_ bytes: Span<UInt8>) -> Int {
        var n = bytes.count
        for i in 0..<bytes.count {
            let b = bytes[i]
            if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") { continue }
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09, 0x08, 0x0C: n += 1
            default: n += 5
            }
        }
        return n
    }

    /// Appends the bytes of a string body JSON-escaped (without quotes). The bytes must be
    /// valid UTF-8 (callers decode with replacement first).
    static func writeEscaped(_ bytes: Span<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            if runStart < i { appendRun(bytes, runStart, i, to: &out) }
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            }
            i += 1
            runStart = i
        }
        if runStart < n { appendRun(bytes, runStart, n, to: &out) }
    }

    @inline(__always)
    private static func appendRun(_ bytes: Span<UInt8>, _ from: Int, _ to: Int, to out: inout [UInt8]) {
        // Geometric growth only: reserving the exact size before each run would copy the
        // whole output on every run, quadratic in escape-heavy strings.
        let needed = out.count + (to - from)
        if needed > out.capacity { out.reserveCapacity(max(needed, out.capacity * 2)) }
        // One copy of the run (the arguments' strings are escaped while they are read).
        unsafe bytes.extracting(from..<to).withUnsafeBufferPointer { unsafe out.append(contentsOf: $0) }
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonText }
}
