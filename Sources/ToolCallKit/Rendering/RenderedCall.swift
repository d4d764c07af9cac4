// ToolCallKit — the public face of rendering: what a call to render is, what can go wrong, and
// the entry point on the format.

/// A tool call to write back in a format's wire text: what a server keeps of an earlier call.
///
/// Only the name, the arguments and the id matter to rendering; a decoded ``ToolCall`` converts
/// with ``init(_:)``.
public struct RenderedCall: Sendable, Equatable {
    /// The function name.
    public var name: String
    /// The arguments; they must be a JSON object.
    public var arguments: JSONValue
    /// The call id, when the caller has one. Only formats that carry ids write it (see
    /// ``ToolCallFormat/render(_:text:)``).
    public var id: String?

    public init(name: String, arguments: JSONValue, id: String? = nil) {
        self.name = name
        self.arguments = arguments
        self.id = id
    }

    /// The name, arguments and id of a decoded call.
    public init(_ call: ToolCall) {
        self.init(name: call.name, arguments: call.arguments, id: call.id)
    }
}

/// Why a format cannot write a call (or the leading text) so that decoding gives it back.
///
/// Rendering never writes text that would decode as something else: a value the format has no
/// spelling for is this error instead, naming the call and the reason.
public struct RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The position of the call in the list given to ``ToolCallFormat/render(_:text:)``; nil
    /// when the leading text is the problem.
    public let index: Int?
    /// The call's name; nil when the leading text is the problem.
    public let name: String?
    /// What the format cannot express, in one line.
    public let reason: String

    public init(index: Int?, name: String?, reason: String) {
        self.index = index
        self.name = name
        self.reason = reason
    }

    public var description: String {
        guard let index else { return "the text: \(reason)" }
        return "call \(index) (\(JSONValue.string(name ?? "").jsonText)): \(reason)"
    }
}

extension ToolCallFormat {
    /// Writes calls as this format's model writes them, after optional content text.
    ///
    /// The layout is the one the model's own chat template gives an assistant turn with tool
    /// calls (newlines, indentation, wrapper and separators), so the bytes can go back into a
    /// prompt. Decoding the bytes with this format gives back the text and the calls: the same
    /// names, the same arguments as JSON values (keys in order) and, where the format carries
    /// ids, the same ids. For the text-valued formats (the tagged-functions and key/value-tags
    /// families) and for Python calls' wrapper keys, "the same arguments" holds when the decoder is given tools
    /// whose schemas state each argument's type, as a server that renders earlier calls has
    /// them: a string `"3"` is written as `3` in those formats, which reads as a number without
    /// a schema. ``ToolSet/typing(_:)`` builds such tools from the calls.
    ///
    /// Ids: `kimi_k2` writes `functions.NAME:N` (the caller's id when it has that shape for
    /// this call's name, else one made from the call's position); `mistral` writes
    /// `[CALL_ID]` for an id of exactly 9 letters and digits, and no `[CALL_ID]` otherwise; the
    /// other formats carry no ids.
    ///
    /// - Parameters:
    ///   - calls: the calls, in order. An empty list renders the text alone.
    ///   - text: content the model wrote before the calls; nil or empty for none.
    /// - Returns: the assistant output, as UTF-8 bytes.
    /// - Throws: ``RenderError`` naming the first call the format cannot express (or the text,
    ///   when it holds one of the format's markers), and why.
    public func render(_ calls: [RenderedCall], text: String? = nil) throws(RenderError) -> [UInt8] {
        try CallRenderer.render(self, calls, text: text)
    }

    /// Writes decoded calls back (their names, arguments and ids); see ``render(_:text:)``.
    @_disfavoredOverload
    public func render(_ calls: [ToolCall], text: String? = nil) throws(RenderError) -> [UInt8] {
        try CallRenderer.render(self, calls.map(RenderedCall.init), text: text)
    }
}

extension ToolSet {
    /// Tools whose schemas give each argument of `calls` the type of its value.
    ///
    /// Decoding rendered calls with these tools types text-valued arguments as they were
    /// (a string stays a string even when it reads as a number). A name that occurs in
    /// several calls gets the properties of all of them; where two calls give one argument
    /// different types, the later call's type is kept.
    public static func typing(_ calls: [RenderedCall]) -> ToolSet {
        // Names and keys are told apart by their bytes, as the decoder tells them apart.
        var tools: [(name: String, properties: [(key: String, value: JSONValue)], index: [[UInt8]: Int])] = []
        var byName: [[UInt8]: Int] = [:]
        for call in calls {
            let t = byName[Array(call.name.utf8)] ?? tools.count
            if t == tools.count {
                byName[Array(call.name.utf8)] = t
                tools.append((name: call.name, properties: [], index: [:]))
            }
            for (key, value) in call.arguments.objectValue ?? [] {
                let schema = JSONValue.object([(key: "type", value: .string(CallRenderer.schemaType(of: value)))])
                if let i = tools[t].index[Array(key.utf8)] {
                    tools[t].properties[i].value = schema
                } else {
                    tools[t].index[Array(key.utf8)] = tools[t].properties.count
                    tools[t].properties.append((key: key, value: schema))
                }
            }
        }
        return ToolSet(tools.map { tool in
            ToolDefinition(name: tool.name, parameters: .object([
                (key: "type", value: .string("object")),
                (key: "properties", value: .object(tool.properties)),
            ]))
        })
    }

}
