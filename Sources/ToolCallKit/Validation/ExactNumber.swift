// ToolCallKit — JSON numbers compared exactly, from their text.

/// A JSON number as an exact decimal: a sign, significant digits and a decimal exponent.
///
/// Schema bounds and arguments keep their JSON text (``JSONValue/number(_:)``), and a `Double`
/// cannot tell `9007199254740993` from `9007199254740992`; this type compares and divides the
/// decimal digits themselves, so `maximum`, `multipleOf` and `type: integer` are exact for any
/// number a model can write. The value is `0.d₁d₂…dₙ × 10^exponent`; zero has no digits.
///
/// It does no arithmetic beyond comparison, integrality and divisibility.
struct ExactNumber: Sendable, Equatable, Hashable, CustomStringConvertible {
    var negative: Bool
    /// Significant digits (0…9), no leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// Where the decimal point sits: the value is `0.digits × 10^exponent`.
    var exponent: Int
    /// The JSON text it was read from (for messages).
    var text: String

    /// Reads JSON number text; nil when `text` is not a JSON number.
    init?(_ text: String) {
        let b = Array(text.utf8)
        var i = 0
        var negative = false
        if i < b.count && b[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var mantissa: [UInt8] = []
        var intDigits = 0
        var sawDigit = false
        while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
            mantissa.append(b[i] - 0x30)
            intDigits += 1
            sawDigit = true
            i += 1
        }
        guard sawDigit else { return nil }
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            var frac = false
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                mantissa.append(b[i] - 0x30)
                frac = true
                i += 1
            }
            guard frac else { return nil }
        }
        var exp = 0
        if i < b.count && (b[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) {
                expNegative = b[i] == UInt8(ascii: "-")
                i += 1
            }
            var any = false
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                // Saturate: 10^(±1e12) is beyond any comparison that matters.
                if exp < 1_000_000_000_000 { exp = exp * 10 + Int(b[i] - 0x30) }
                any = true
                i += 1
            }
            guard any else { return nil }
            if expNegative { exp = -exp }
        }
        guard i == b.count else { return nil }
        var lead = 0
        while lead < mantissa.count && mantissa[lead] == 0 { lead += 1 }
        var trail = mantissa.count
        while trail > lead && mantissa[trail - 1] == 0 { trail -= 1 }
        self.negative = negative && lead < trail
        self.digits = Array(mantissa[lead..<trail])
        self.exponent = lead < trail ? intDigits - lead + exp : 0
        self.text = text
    }

    var isZero: Bool { digits.isEmpty }

    /// Whether the value is a whole number (`2.0` and `1e3` are).
    var isInteger: Bool { digits.isEmpty || exponent >= digits.count }

    var description: String { text }

    /// A text equal for equal values (`1`, `1.0` and `10e-1` alike), for hashing and `enum`.
    var canonical: String {
        if digits.isEmpty { return "0" }
        return (negative ? "-" : "") + "0." + String(decoding: digits.map { $0 + 0x30 }, as: UTF8.self) + "e\(exponent)"
    }

    static func == (a: ExactNumber, b: ExactNumber) -> Bool { compare(a, b) == 0 }

    func hash(into hasher: inout Hasher) { hasher.combine(canonical) }

    /// -1, 0 or 1 as `a` is less than, equal to or greater than `b`.
    static func compare(_ a: ExactNumber, _ b: ExactNumber) -> Int {
        if a.isZero && b.isZero { return 0 }
        let sa = a.isZero ? 0 : (a.negative ? -1 : 1)
        let sb = b.isZero ? 0 : (b.negative ? -1 : 1)
        if sa != sb { return sa < sb ? -1 : 1 }
        // Same sign, both non-zero: compare magnitudes, then flip for negatives.
        var m: Int
        if a.exponent != b.exponent {
            m = a.exponent < b.exponent ? -1 : 1
        } else {
            m = 0
            let n = max(a.digits.count, b.digits.count)
            for k in 0..<n {
                let x = k < a.digits.count ? Int(a.digits[k]) : -1
                let y = k < b.digits.count ? Int(b.digits[k]) : -1
                if x != y {
                    m = x < y ? -1 : 1
                    break
                }
            }
        }
        return sa < 0 ? -m : m
    }

    /// Whether `self` is an integer multiple of `divisor` (which is positive).
    ///
    /// Exact while the divisor has at most 19 significant digits and the two exponents are
    /// within 10,000 of each other; otherwise it falls back to `Double` remainder.
    func isMultiple(of divisor: ExactNumber) -> Bool {
        if isZero { return true }
        if divisor.isZero { return false }
        // self = M1 × 10^E1, divisor = M2 × 10^E2 with M1, M2 free of trailing zeros.
        let e1 = exponent - digits.count
        let e2 = divisor.exponent - divisor.digits.count
        let shift = e1 - e2
        // M1 / (M2 × 10^-shift) needs M1 to end in a zero when shift < 0, and it does not.
        if shift < 0 { return false }
        guard divisor.digits.count <= 19, shift <= 10_000 else {
            guard let x = Double(text), let d = Double(divisor.text), d != 0 else { return false }
            return x.truncatingRemainder(dividingBy: d) == 0
        }
        var m2: UInt64 = 0
        for d in divisor.digits { m2 = m2 &* 10 &+ UInt64(d) }
        var r: UInt64 = 0
        func push(_ digit: UInt8) {
            let (h, l) = r.multipliedFullWidth(by: 10)
            let (l2, carry) = l.addingReportingOverflow(UInt64(digit))
            r = m2.dividingFullWidth((h + (carry ? 1 : 0), l2)).remainder
        }
        for d in digits { push(d) }
        for _ in 0..<shift {
            if r == 0 { break }
            push(0)
        }
        return r == 0
    }
}
