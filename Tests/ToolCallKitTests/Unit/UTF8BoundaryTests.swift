import Testing
@testable import ToolCallKit

/// The fast paths' word form of the held-tail rule against the byte-by-byte rule it replaces.
@Suite("UTF-8 boundary")
struct UTF8BoundaryTests {
    /// Bytes that exercise every branch: ASCII, continuation bytes at the edges of the narrow
    /// ranges, every kind of lead (valid, overlong, surrogate, past U+10FFFF), and invalid bytes.
    static let interesting: [UInt8] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
        0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ]

    @Test("the word form agrees with the byte rule on every 1- to 4-byte text of interesting bytes")
    func wordFormAgrees() {
        let b = Self.interesting
        var compared = 0
        for n in 1...4 {
            var digits = [Int](repeating: 0, count: n)
            while true {
                let bytes = digits.map { b[$0] }
                // The last `n` bytes of a word, zero below (a text shorter than four bytes).
                var w: UInt32 = 0
                for (k, x) in bytes.enumerated() { w |= UInt32(x) << UInt32((4 - n + k) * 8) }
                let expected = UTF8Boundary.unfinishedTail(count: n) { bytes[$0] }
                #expect(UTF8Boundary.unfinishedTail(last4: w) == expected, "\(bytes.map { String($0, radix: 16) })")
                compared += 1
                var k = 0
                while k < n && digits[k] == b.count - 1 { digits[k] = 0; k += 1 }
                if k == n { break }
                digits[k] += 1
            }
        }
        #expect(compared == 25 + 625 + 15_625 + 390_625)
    }

    @Test("real characters cut at every byte", arguments: ["é", "東", "😀", "a€b", "𐍈x"])
    func realCharacters(text: String) {
        let bytes = Array(text.utf8)
        for end in 1...bytes.count {
            let prefix = Array(bytes[max(0, end - 4)..<end])
            var w: UInt32 = 0
            for (k, x) in prefix.enumerated() { w |= UInt32(x) << UInt32((4 - prefix.count + k) * 8) }
            #expect(UTF8Boundary.unfinishedTail(last4: w) == UTF8Boundary.unfinishedTail(count: end) { bytes[$0] })
        }
    }
}
