// ToolCallKit — call ids, unique within a stream and reproducible under a seed.

/// Makes call ids: `call_` + 24 letters and digits, or 9 for Mistral (its templates demand 9).
///
/// With a seed the sequence is fixed (SplitMix64), so tests, golden files and the README are
/// byte-for-byte reproducible. Without one it is seeded from the system generator. It also
/// remembers every id the stream used, so a model-supplied id is passed through only once.
struct CallIDGenerator: Sendable {
    private var state: UInt64
    private var used: Set<String> = []
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    init(seed: UInt64?) {
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

    private mutating func randomString(_ n: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(n)
        for _ in 0..<n { bytes.append(Self.alphabet[Int(next() % UInt64(Self.alphabet.count))]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The id for a new call: `proposed` when given and unused, otherwise a fresh one.
    mutating func id(for format: ToolCallFormat, proposed: String?) -> String {
        if let p = proposed, !p.isEmpty, !used.contains(p) {
            used.insert(p)
            return p
        }
        while true {
            let fresh = format == .mistral ? randomString(9) : "call_" + randomString(24)
            if used.insert(fresh).inserted { return fresh }
        }
    }

    /// A `chatcmpl-` completion id (24 letters and digits) for OpenAI output.
    mutating func completionID() -> String { "chatcmpl-" + randomString(24) }
}
