// ToolCallKit — call ids, unique within a stream and reproducible under a seed.

/// Makes call ids: `call_` + 24 letters and digits, or 9 for Mistral (its templates demand 9).
///
/// With a seed the sequence is fixed (SplitMix64), so tests, golden files and the README are
/// byte-for-byte reproducible. Without one it is seeded from the system generator.
///
/// Ids are unique within a stream, in bounded memory. The first ``remembered`` ids a stream
/// uses are remembered exactly, so a model-supplied id is passed through only once and a fresh
/// id never repeats one. After that, fresh ids are unique by construction (their first 9
/// characters encode the call's number through a seeded permutation, so no two are equal
/// and none need remembering), and a model-supplied id is replaced by a fresh one: a stream
/// of millions of calls keeps at most ``remembered`` ids in memory.
struct CallIDGenerator: Sendable {
    /// How many ids a stream remembers exactly.
    static let remembered = 65_536
    private let remembered: Int

    private var state: UInt64
    private var used: Set<String> = []
    /// Fresh ids made after the remembered ones, and the permutation that makes them unique.
    private var counter: UInt64 = 0
    private var multiplier: UInt64 = 0
    private var offset: UInt64 = 0
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    /// 62⁹: the number of 9-character ids.
    private static let space: UInt64 = 13_537_086_546_263_552

    init(seed: UInt64?, remembered: Int = CallIDGenerator.remembered) {
        self.remembered = remembered
        if let seed {
            state = seed
        } else {
            var g = SystemRandomNumberGenerator()
            state = g.next()
        }
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func randomString(_ n: Int) -> String { randomString(n, after: "") }

    /// `prefix` followed by `n` random letters and digits, written once into the string's own
    /// storage (one allocation; the alphabet's size is a constant, so `% 62` is a multiply).
    private mutating func randomString(_ n: Int, after prefix: StaticString) -> String {
        let p = prefix.utf8CodeUnitCount
        return unsafe String(unsafeUninitializedCapacity: p + n) { buffer in
            for k in 0..<p { unsafe buffer[k] = unsafe prefix.utf8Start[k] }
            for k in 0..<n { unsafe buffer[p + k] = Self.alphabet[Int(next() % 62)] }
            return p + n
        }
    }

    /// 9 characters that no other call number gives: `(a·n + b) mod 62⁹` with `a` coprime to
    /// 62⁹ (odd and not a multiple of 31) is a permutation of the 9-character ids.
    private mutating func uniqueString() -> String {
        if multiplier == 0 {
            var a = next() % Self.space
            while a % 2 == 0 || a % 31 == 0 { a = (a &+ 1) % Self.space }
            multiplier = a
            offset = next() % Self.space
        }
        let product = multiplier.multipliedFullWidth(by: counter % Self.space)
        var v = (Self.space.dividingFullWidth((product.high, product.low)).remainder &+ offset) % Self.space
        counter &+= 1
        var bytes = [UInt8](repeating: 0, count: 9)
        for k in (0..<9).reversed() {
            bytes[k] = Self.alphabet[Int(v % 62)]
            v /= 62
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The id for a new call: `proposed` when given and unused, otherwise a fresh one.
    mutating func id(style: CallIDStyle, proposed: String?) -> String {
        let remembering = used.count < remembered
        if remembering, let p = proposed, !p.isEmpty, !used.contains(p) {
            used.insert(p)
            return p
        }
        let short = style == .nineCharacters
        while true {
            if remembering {
                let fresh = short ? randomString(9) : randomString(24, after: "call_")
                if used.insert(fresh).inserted { return fresh }
            } else {
                let unique = uniqueString()
                let fresh = short ? unique : "call_" + unique + randomString(15)
                // Unique among themselves by construction; only the remembered ids can clash.
                if !used.contains(fresh) { return fresh }
            }
        }
    }

    /// A `chatcmpl-` completion id (24 letters and digits) for OpenAI output.
    mutating func completionID() -> String { randomString(24, after: "chatcmpl-") }

    /// `prefix` and 24 random letters and digits: the response, message and item ids of the
    /// Responses and Anthropic encoders (`resp_`, `msg_`, `fc_`, `rs_`).
    mutating func token(after prefix: StaticString) -> String { randomString(24, after: prefix) }
}
