// ToolCallKit — Codable conformances, so a server can embed calls and values in its own types.

internal import FoundationEssentials

/// A JSON value encodes as itself: `null`, `true`, a number, a string, an array or an object.
///
/// Numbers: an integer that fits `Int64` or `UInt64` is coded as that integer, a longer
/// integer (up to 38 digits) as `Decimal`, so that `123456789012345678901234567890` survives
/// a round trip through `JSONEncoder` and `JSONDecoder`, and anything else as `Double` (`3.50`
/// comes back as `3.5`). A number with no finite `Double` value (`1e400`) does not encode.
///
/// Key order: the value keeps its keys in order, but a coder's keyed container need not.
/// Foundation's `JSONEncoder` and `JSONDecoder` do not keep it (they may reorder keys, or sort
/// them with `.sortedKeys`); ``jsonText`` and ``parse(_:)`` always keep the wire order.
extension JSONValue: Codable {
    /// A key of an object member (any string).
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let text):
            var c = encoder.singleValueContainer()
            if let i = Int64(text) {
                try c.encode(i)
            } else if let u = UInt64(text) {
                try c.encode(u)
            } else if let d = Self.longInteger(text) {
                try c.encode(d)
            } else if let d = Double(text), d.isFinite {
                try c.encode(d)
            } else {
                throw EncodingError.invalidValue(
                    self, .init(codingPath: encoder.codingPath, debugDescription: "the number \(text) has no finite value"))
            }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .object(let members):
            var c = encoder.container(keyedBy: MemberKey.self)
            for (key, value) in members { try c.encode(value, forKey: MemberKey(stringValue: key)) }
        }
    }

    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.singleValueContainer() {
            if c.decodeNil() {
                self = .null
                return
            }
            if let b = try? c.decode(Bool.self) {
                self = .bool(b)
                return
            }
            if let i = try? c.decode(Int64.self) {
                self = .number(String(i))
                return
            }
            if let u = try? c.decode(UInt64.self) {
                self = .number(String(u))
                return
            }
            if let d = try? c.decode(Double.self), d.isFinite {
                // An integer beyond 64 bits: its digits, when the coder has them as a Decimal.
                if abs(d) >= 0x1p63, d == d.rounded(), let exact = try? c.decode(Decimal.self),
                    let digits = Self.longInteger(exact.description)
                {
                    self = .number(digits.description)
                } else {
                    self = .number(String(d))
                }
                return
            }
            if let s = try? c.decode(String.self) {
                self = .string(s)
                return
            }
        }
        if var c = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            if let n = c.count { items.reserveCapacity(n) }
            while !c.isAtEnd { items.append(try c.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        let c = try decoder.container(keyedBy: MemberKey.self)
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(c.allKeys.count)
        for key in c.allKeys { members.append((key.stringValue, try c.decode(JSONValue.self, forKey: key))) }
        self = .object(members)
    }

    /// `text` as a `Decimal` when it is an integer of 20 to 38 digits (too long for 64 bits,
    /// short enough for `Decimal` to hold exactly).
    private static func longInteger(_ text: String) -> Decimal? {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard (1...38).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Decimal(string: text)
    }
}

/// A call encodes with the fields of the CLI's `tool_call` event: `index`, `id`, `name`,
/// `arguments` (a JSON object) and, when raw spans were kept, `raw` as a string (bytes that
/// are not valid UTF-8 become U+FFFD, as in the CLI's output).
extension ToolCall: Codable {
    private enum CodingKeys: String, CodingKey {
        case index, id, name, arguments, raw
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(arguments, forKey: .arguments)
        if let raw { try c.encode(String(decoding: raw, as: UTF8.self), forKey: .raw) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            index: try c.decode(Int.self, forKey: .index),
            id: try c.decode(String.self, forKey: .id),
            name: try c.decode(String.self, forKey: .name),
            arguments: try c.decode(JSONValue.self, forKey: .arguments),
            raw: try c.decodeIfPresent(String.self, forKey: .raw).map { Array($0.utf8) })
    }
}

/// A rejection encodes with the fields of the CLI's `rejected` event: `reason`, `format` (the
/// raw value), `index`, `id` and `name` when the call had started, `detail` and `raw` (a
/// string; bytes that are not valid UTF-8 become U+FFFD).
extension RejectedToolCall: Codable {
    private enum CodingKeys: String, CodingKey {
        case reason, format, index, id, name, detail, raw
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reason.rawValue, forKey: .reason)
        try c.encode(format, forKey: .format)
        try c.encodeIfPresent(index, forKey: .index)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encode(detail, forKey: .detail)
        try c.encode(String(decoding: raw, as: UTF8.self), forKey: .raw)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            reason: Reason(rawValue: try c.decode(String.self, forKey: .reason)),
            format: try c.decode(ToolCallFormat.self, forKey: .format),
            raw: Array(try c.decode(String.self, forKey: .raw).utf8),
            detail: try c.decode(String.self, forKey: .detail),
            index: try c.decodeIfPresent(Int.self, forKey: .index),
            id: try c.decodeIfPresent(String.self, forKey: .id),
            name: try c.decodeIfPresent(String.self, forKey: .name))
    }
}

extension RejectedToolCall.Reason: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

extension ToolCallFormat: Codable {
    /// A format is coded as its raw name. Decoding accepts a built-in format's name only: a
    /// format defined at run time cannot be rebuilt from its name.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let name = try c.decode(String.self)
        guard let f = ToolCallFormat(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown format \(JSONValue.string(name).jsonText)")
        }
        self = f
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
