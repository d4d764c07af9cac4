// ToolCallKit — events as OpenAI `chat.completion.chunk` objects (`--output openai`).

/// Turns the events of one stream into OpenAI streaming chunks (docs/cli.md, Output).
///
/// The first chunk's delta carries `"role": "assistant"`; text goes in `content`, reasoning in
/// `reasoning_content`; a call's first delta carries its `index`, `id`, `"type": "function"`,
/// its name and `"arguments": ""`, and later deltas only `index` and argument fragments. The
/// last chunk has `finish_reason` `"tool_calls"` when any call was accepted, else `"stop"`,
/// and lists started calls that were then rejected in `"x_toolcall_rejected"`. An OpenAI client
/// that concatenates the fragments by index gets exactly the calls and text of the events.
///
/// Rejections are not chunks: ``encode(_:)`` returns them separately (the CLI writes them to
/// standard error). It does not buffer, except that with `wholeCalls` (for a decoder with
/// ``ToolCallDecoder/Options/wholeCalls``, whose accepted calls come as a start, one delta and
/// the call) a call's start waits for its delta, so that the whole call is one chunk.
public struct OpenAIChunkEncoder: Sendable {
    /// The encoded output of one event.
    public struct Output: Sendable {
        /// Chunk lines for standard output (JSON, no newline).
        public var chunks: [String] = []
        /// Lines for standard error (a rejection, as its event JSON).
        public var diagnostics: [String] = []
    }

    public let id: String
    public let created: Int
    public let model: String
    private var sentRole = false
    private var started: Set<Int> = []
    private var rejectedStarted: [(index: Int, reason: String)] = []
    private var accepted = 0
    /// Whether a call's start waits for its delta (one chunk per call).
    public let wholeCalls: Bool
    /// With ``wholeCalls``, the start that waits for its delta.
    private var heldStart: (index: Int, id: String, name: String)?

    /// - Parameters:
    ///   - id: the completion id (`chatcmpl-` + 24 letters and digits; see ``makeID(seed:)``).
    ///   - created: Unix seconds.
    ///   - model: the model folder's name, or `toolcall`.
    ///   - wholeCalls: write each call as one chunk (its id, name and all its arguments), for
    ///     a decoder with ``ToolCallDecoder/Options/wholeCalls``.
    public init(id: String, created: Int, model: String, wholeCalls: Bool = false) {
        self.id = id
        self.created = created
        self.model = model
        self.wholeCalls = wholeCalls
    }

    /// A call's first delta: its index, id, type and name, and `arguments`.
    private static func firstDelta(index: Int, id: String, name: String, arguments: String) -> JSONValue {
        .object([
            (key: "index", value: .number(String(index))),
            (key: "id", value: .string(id)),
            (key: "type", value: .string("function")),
            (key: "function", value: .object([(key: "name", value: .string(name)), (key: "arguments", value: .string(arguments))])),
        ])
    }

    /// A `chatcmpl-` id, reproducible under a seed.
    public static func makeID(seed: UInt64?) -> String {
        var g = CallIDGenerator(seed: seed.map { $0 ^ 0x6F70_656E_6169 })
        return g.completionID()
    }

    /// Encodes one event.
    public mutating func encode(_ event: ToolCallEvent) -> Output {
        var out = Output()
        switch event {
        case .text(let t):
            guard !t.isEmpty else { break }
            out.chunks.append(chunk(delta: [(key: "content", value: .string(t.string))]))
        case .reasoning(let t, _):
            guard !t.isEmpty else { break }
            out.chunks.append(chunk(delta: [(key: "reasoning_content", value: .string(t.string))]))
        case .toolCallStart(let index, let id, let name):
            started.insert(index)
            if wholeCalls {
                heldStart = (index, id, name)
                break
            }
            let call = Self.firstDelta(index: index, id: id, name: name, arguments: "")
            out.chunks.append(chunk(delta: [(key: "tool_calls", value: .array([call]))]))
        case .toolCallDelta(let index, let arguments):
            let call: JSONValue
            if let held = heldStart, held.index == index {
                heldStart = nil
                call = Self.firstDelta(index: index, id: held.id, name: held.name, arguments: arguments.string)
            } else {
                call = .object([
                    (key: "index", value: .number(String(index))),
                    (key: "function", value: .object([(key: "arguments", value: .string(arguments.string))])),
                ])
            }
            out.chunks.append(chunk(delta: [(key: "tool_calls", value: .array([call]))]))
        case .toolCall(let c):
            if let held = heldStart, held.index == c.index {
                // A start without a delta: the call still appears, with its arguments.
                heldStart = nil
                let call = Self.firstDelta(index: held.index, id: held.id, name: held.name, arguments: String(decoding: c.argumentsJSON, as: UTF8.self))
                out.chunks.append(chunk(delta: [(key: "tool_calls", value: .array([call]))]))
            }
            accepted += 1
        case .rejected(let r):
            if let held = heldStart, held.index == r.index {
                // Held back and never shown: the client has nothing to take back.
                heldStart = nil
                started.remove(held.index)
            }
            if let index = r.index, started.contains(index) {
                rejectedStarted.append((index, r.reason.rawValue))
            }
            out.diagnostics.append(EventJSONEncoder.encode(event))
        case .markup:
            break
        case .end:
            if !sentRole { out.chunks.append(chunk(delta: [])) }
            var extra: [(key: String, value: JSONValue)] = []
            if !rejectedStarted.isEmpty {
                extra.append((key: "x_toolcall_rejected", value: .array(rejectedStarted.map {
                    .object([(key: "index", value: .number(String($0.index))), (key: "reason", value: .string($0.reason))])
                })))
            }
            out.chunks.append(chunk(delta: [], finish: accepted > 0 ? "tool_calls" : "stop", extra: extra))
        }
        return out
    }

    private mutating func chunk(delta: [(key: String, value: JSONValue)], finish: String? = nil,
                                extra: [(key: String, value: JSONValue)] = []) -> String {
        var d = delta
        if !sentRole {
            d.insert((key: "role", value: .string("assistant")), at: 0)
            sentRole = true
        }
        let choice: JSONValue = .object([
            (key: "index", value: .number("0")),
            (key: "delta", value: .object(d)),
            (key: "finish_reason", value: finish.map { .string($0) } ?? .null),
        ])
        let object: JSONValue = .object([
            (key: "id", value: .string(id)),
            (key: "object", value: .string("chat.completion.chunk")),
            (key: "created", value: .number(String(created))),
            (key: "model", value: .string(model)),
            (key: "choices", value: .array([choice])),
        ] + extra)
        return object.jsonText
    }
}
