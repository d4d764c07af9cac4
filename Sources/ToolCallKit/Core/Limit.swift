// ToolCallKit — a validated cap: a positive count, or no cap at all.

/// A cap on a count (bytes of one call, nesting depth): a positive number, or ``unlimited``.
///
/// A limit is checked when it is made, so a decoder never meets an impossible one: a number
/// goes through ``init(_:)``, which throws for a value below 1 or above ``largest``
/// (`Options(maxCallBytes: try Limit(1 << 20))`), and ``unlimited`` means no cap. There is no
/// unchecked way to make one, so no value of this type can trap a decoder or overflow a
/// position.
public struct Limit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The largest finite limit: 2⁴⁸ (256 TiB), far beyond any memory, small enough that a
    /// position plus a limit never overflows.
    public static let largest = 1 << 48

    /// No cap.
    public static let unlimited = Limit(uncheckedValue: nil)

    /// The cap, or nil for ``unlimited``.
    public let value: Int?

    /// Why a number is not a limit.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The number that was refused.
        public let value: Int
        public var description: String {
            value < 1
                ? "\(value) is not a limit: it must be at least 1 (or unlimited)"
                : "\(value) is larger than the largest limit, \(Limit.largest) (use unlimited for no cap)"
        }
    }

    /// A finite limit; throws for a value below 1 or above ``largest``.
    public init(_ value: Int) throws(Limit.Error) {
        guard value >= 1 && value <= Limit.largest else { throw Limit.Error(value: value) }
        self.value = value
    }

    /// A finite limit, or nil for a value below 1 or above ``largest``.
    public init?(exactly value: Int) {
        guard let limit = try? Limit(value) else { return nil }
        self = limit
    }

    /// The default cap on one call's size: 16 MiB.
    public static let defaultCallBytes = Limit(uncheckedValue: 16 << 20)
    /// The default cap on nesting depth: 512 levels.
    public static let defaultDepth = Limit(uncheckedValue: 512)

    private init(uncheckedValue: Int?) { self.value = uncheckedValue }

    /// The limit as a count, with ``unlimited`` as a number larger than any position or depth
    /// (still safe to add to a position without overflow).
    @inlinable
    public var count: Int { value ?? (1 << 62) }

    public var description: String { value.map(String.init) ?? "unlimited" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .unlimited
        } else if let word = try? c.decode(String.self), word == "unlimited" {
            self = .unlimited
        } else {
            let n = try c.decode(Int.self)
            do { self = try Limit(n) } catch {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: error.description)
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let value { try c.encode(value) } else { try c.encodeNil() }
    }
}
