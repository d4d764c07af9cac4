// ToolCallKit — decoding a call's arguments into the caller's own Decodable type.

internal import FoundationEssentials

/// Why a call's arguments did not decode into the requested type.
///
/// `path` is a JSON Pointer to the failing value (`/location/city`, `/items/2`), so a server
/// can send a precise message back to the model.
public struct ArgumentDecodingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A JSON Pointer to the value that failed ("" for the arguments object itself).
    public let path: String
    /// What was wrong there.
    public let message: String

    public var description: String { "\(path.isEmpty ? "/" : path): \(message)" }
}

extension ToolCall {
    /// Decodes the arguments into `type`.
    ///
    /// The arguments are already typed JSON; this maps them onto your struct with the standard
    /// `Decodable` machinery, so argument names and types are checked where you use them.
    ///
    /// - Parameter type: a `Decodable` type whose coding keys are the argument names.
    /// - Returns: the decoded value.
    /// - Throws: ``ArgumentDecodingError`` naming the key path that failed.
    public func decodeArguments<T: Decodable>(as type: T.Type) throws(ArgumentDecodingError) -> T {
        try arguments.decode(as: type)
    }
}

extension JSONValue {
    /// Decodes this value into `type` (see ``ToolCall/decodeArguments(as:)``).
    public func decode<T: Decodable>(as type: T.Type) throws(ArgumentDecodingError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(jsonText.utf8))
        } catch let error as DecodingError {
            throw ArgumentDecodingError(error)
        } catch {
            throw ArgumentDecodingError(path: "", message: "\(error)")
        }
    }
}

extension ArgumentDecodingError {
    init(_ error: DecodingError) {
        func pointer(_ path: [any CodingKey]) -> String {
            JSONPointer.pointer(path.map { key in key.intValue.map(String.init) ?? key.stringValue })
        }
        switch error {
        case .typeMismatch(let type, let c):
            self.init(path: pointer(c.codingPath), message: "expected \(type), \(c.debugDescription)")
        case .valueNotFound(let type, let c):
            self.init(path: pointer(c.codingPath), message: "expected \(type), found null or nothing")
        case .keyNotFound(let key, let c):
            self.init(path: pointer(c.codingPath + [key]), message: "required key \"\(key.stringValue)\" is missing")
        case .dataCorrupted(let c):
            self.init(path: pointer(c.codingPath), message: c.debugDescription)
        @unknown default:
            self.init(path: "", message: "\(error)")
        }
    }
}
