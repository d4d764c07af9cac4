// TEMPORARY: stands in for ToolCallKit's `Limit` until the library change is merged.
struct Limit: Sendable {
    struct Error: Swift.Error, CustomStringConvertible { var description: String }
    static let largest = 1 << 48
    static let unlimited = Limit(value: nil)
    let value: Int?
    private init(value: Int?) { self.value = value }
    init(_ n: Int) throws(Error) {
        guard n >= 1 && n <= Limit.largest else { throw Error(description: "out of range") }
        value = n
    }
}
import ToolCallKit
extension ToolCallDecoder.Options { var wholeCalls: Bool { get { false } nonmutating set {} } }
