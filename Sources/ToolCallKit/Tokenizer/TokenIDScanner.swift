// ToolCallKit — whitespace-separated decimal token ids, read from text in any chunking.

/// Reads whitespace-separated decimal ids from text that arrives in pieces of any size (an id
/// may be cut in the middle of its digits; the partial digits are kept).
///
/// It stops at the first token that is not a decimal number, or is too large for `Int`, and
/// reports it with its position; it does not know the vocabulary.
public struct TokenIDScanner: Sendable {
    /// A token that is not a usable id.
    public struct Failure: Error, Sendable, Equatable {
        /// The token's text (at most 64 bytes of it, then `...`).
        public let text: String
        /// Its position in the stream: 1 for the first token.
        public let position: Int
        /// True when it is a decimal number too large for an id (not merely not a number).
        public let isNumber: Bool
    }

    /// How many ids have been completed so far.
    public private(set) var count = 0

    private var value = 0
    private var overflow = false
    private var notANumber = false
    /// The current token's bytes (kept for the message only; capped).
    private var text: [UInt8] = []
    private var failure: Failure?

    public init() {}

    /// Reads `bytes`, appending every completed id to `ids`.
    ///
    /// - Returns: the first bad token, once one is complete; after that, nothing more is read.
    public mutating func scan(_ bytes: some Sequence<UInt8>, into ids: inout [Int]) -> Failure? {
        scan(ArraySlice(bytes), into: &ids)
    }

    /// Reads `bytes` (the concrete form: no generic iteration per byte).
    public mutating func scan(_ bytes: ArraySlice<UInt8>, into ids: inout [Int]) -> Failure? {
        if let failure { return failure }
        for i in bytes.indices {
            let b = bytes[i]
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C:
                if !text.isEmpty, let f = endToken(into: &ids) { return f }
            default:
                if text.count < 65 { text.append(b) }
                if b >= 0x30 && b <= 0x39 {
                    let (m, o1) = value.multipliedReportingOverflow(by: 10)
                    let (a, o2) = m.addingReportingOverflow(Int(b - 0x30))
                    value = a
                    overflow = overflow || o1 || o2
                } else {
                    notANumber = true
                }
            }
        }
        return nil
    }

    /// Ends the input: completes a last token not followed by white space.
    public mutating func finish(into ids: inout [Int]) -> Failure? {
        if let failure { return failure }
        if !text.isEmpty { return endToken(into: &ids) }
        return nil
    }

    private mutating func endToken(into ids: inout [Int]) -> Failure? {
        defer {
            text.removeAll(keepingCapacity: true)
            value = 0
            overflow = false
            notANumber = false
        }
        if notANumber || overflow {
            var shown = String(decoding: text.prefix(64), as: UTF8.self)
            if text.count > 64 { shown += "..." }
            failure = Failure(text: shown, position: count + 1, isNumber: !notANumber)
            return failure
        }
        count += 1
        ids.append(value)
        return nil
    }
}
