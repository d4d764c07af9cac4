// ToolCallKit — events as OpenAI Responses API streaming events (`--output responses`).

/// Turns the events of one stream into the streaming events of OpenAI's Responses API
/// (`/v1/responses` with `stream: true`), one JSON object per line (docs/cli.md, Output).
///
/// The stream opens with `response.created` and `response.in_progress` and ends with
/// `response.completed`, whose `response.output` holds every item of the stream. In between,
/// every output item is opened with `response.output_item.added` and closed with
/// `response.output_item.done`, one item at a time except while a call is open:
///
/// - visible text is a `message` item: `response.content_part.added` (an `output_text`
///   part), `response.output_text.delta` per text event, then `response.output_text.done`
///   and `response.content_part.done` before the item closes;
/// - reasoning is a `reasoning` item, with the same steps on a `reasoning_text` part
///   (`response.reasoning_text.delta`, `response.reasoning_text.done`);
/// - a call is a `function_call` item (`call_id` is the call's id, `id` the item's own
///   `fc_` id), opened at `tool_call_start` with `"arguments": ""`; each fragment is a
///   `response.function_call_arguments.delta`; an accepted call sends
///   `response.function_call_arguments.done` with the fragments joined, then the item as
///   `completed`. A started call that is then rejected is closed as `"status":
///   "incomplete"` with the fragments it had sent, and has no `…arguments.done`: it never
///   appears as a completed call.
///
/// A text or reasoning item closes when something else begins (a call, the other kind of
/// content, the end), so text, a call and more text are three items. Every event carries
/// `sequence_number`, from 0, one per line. Rejections are not events: ``encode(_:)`` returns
/// them separately, as their event JSON (the command-line tool writes them to standard error).
///
/// The encoder keeps the stream's output (text, reasoning, each call's arguments) for the
/// items' `done` events and for `response.completed`, as every Responses server does: its
/// memory grows with the output of one generation.
public struct ResponsesEventEncoder: Sendable {
    /// The encoded output of one event.
    public struct Output: Sendable {
        /// Event lines for standard output (JSON, no newline).
        public var lines: [String] = []
        /// Lines for standard error (a rejection, as its event JSON).
        public var diagnostics: [String] = []
    }

    /// The response id: `resp_` and 24 letters and digits.
    public let id: String
    public let createdAt: Int
    public let model: String
    /// Echoed in the response object: the request's `tool_choice`, `parallel_tool_calls` and
    /// tools (as Responses function tools).
    private let toolChoice: JSONValue
    private let parallelToolCalls: Bool
    private let tools: JSONValue

    private var ids: CallIDGenerator
    private var sequence = 0
    private var opened = false
    private var nextOutputIndex = 0
    /// The text or reasoning item being written.
    private var content: ContentItem?
    /// Started calls not yet accepted or rejected, by the decoder's call index.
    private var calls: [Int: CallItem] = [:]
    /// Finished items, by output index, for `response.completed`.
    private var finished: [Int: JSONValue] = [:]

    private struct ContentItem: Sendable {
        var reasoning: Bool
        var outputIndex: Int
        var id: String
        var text = ""
    }

    private struct CallItem: Sendable {
        var outputIndex: Int
        var id: String
        var callID: String
        var name: String
        var arguments: [UInt8] = []
    }

    /// - Parameters:
    ///   - model: the model folder's name, or `toolcall`.
    ///   - createdAt: Unix seconds.
    ///   - seed: seeds the response and item ids (the decoder's id seed), for reproducible
    ///     output; nil: random.
    ///   - toolChoice, parallelToolCalls, tools: the request's, echoed in the response object.
    public init(model: String, createdAt: Int, seed: UInt64? = nil, toolChoice: ToolChoice = .auto,
                parallelToolCalls: Bool = true, tools: ToolSet? = nil) {
        var g = CallIDGenerator(seed: seed.map { $0 ^ 0x7265_7370_6F6E_7365 })
        id = g.token(after: "resp_")
        ids = g
        self.createdAt = createdAt
        self.model = model
        self.toolChoice = Self.json(toolChoice)
        self.parallelToolCalls = parallelToolCalls
        self.tools = .array((tools?.tools ?? []).map { t in
            .object([
                (key: "type", value: .string("function")),
                (key: "name", value: .string(t.name)),
                (key: "parameters", value: t.parameters),
            ])
        })
    }

    /// A tool choice as the Responses API spells it.
    static func json(_ choice: ToolChoice) -> JSONValue {
        func function(_ name: String) -> JSONValue {
            .object([(key: "type", value: .string("function")), (key: "name", value: .string(name))])
        }
        switch choice {
        case .auto: return .string("auto")
        case .required: return .string("required")
        case .none: return .string("none")
        case .function(let name): return function(name)
        case .allowed(let names, let required):
            return .object([
                (key: "type", value: .string("allowed_tools")),
                (key: "mode", value: .string(required ? "required" : "auto")),
                (key: "tools", value: .array(names.map(function))),
            ])
        }
    }

    /// Encodes one event.
    public mutating func encode(_ event: ToolCallEvent) -> Output {
        var out = Output()
        if !opened {
            opened = true
            let r = response(status: "in_progress", output: [])
            emit("response.created", [(key: "response", value: r)], into: &out)
            emit("response.in_progress", [(key: "response", value: r)], into: &out)
        }
        switch event {
        case .text(let t):
            guard !t.isEmpty else { break }
            write(t.string, reasoning: false, into: &out)
        case .reasoning(let t, _):
            guard !t.isEmpty else { break }
            write(t.string, reasoning: true, into: &out)
        case .toolCallStart(let index, let callID, let name):
            closeContent(into: &out)
            open(index: index, callID: callID, name: name, into: &out)
        case .toolCallDelta(let index, let arguments):
            guard var call = calls[index] else { break }
            let fragment = arguments.string
            call.arguments.append(contentsOf: fragment.utf8)
            calls[index] = call
            emit("response.function_call_arguments.delta", [
                (key: "item_id", value: .string(call.id)),
                (key: "output_index", value: Self.number(call.outputIndex)),
                (key: "delta", value: .string(fragment)),
            ], into: &out)
        case .toolCall(let c):
            if calls[c.index] == nil {
                // A call without a start (not emitted by the decoder): it still appears whole.
                closeContent(into: &out)
                open(index: c.index, callID: c.id, name: c.name, into: &out)
                calls[c.index]?.arguments = c.argumentsJSON
            }
            guard let call = calls.removeValue(forKey: c.index) else { break }
            let arguments = String(decoding: call.arguments, as: UTF8.self)
            emit("response.function_call_arguments.done", [
                (key: "item_id", value: .string(call.id)),
                (key: "output_index", value: Self.number(call.outputIndex)),
                (key: "arguments", value: .string(arguments)),
            ], into: &out)
            done(call.outputIndex, Self.item(call, status: "completed", arguments: arguments), into: &out)
        case .rejected(let r):
            if let index = r.index, let call = calls.removeValue(forKey: index) {
                let arguments = String(decoding: call.arguments, as: UTF8.self)
                done(call.outputIndex, Self.item(call, status: "incomplete", arguments: arguments), into: &out)
            }
            out.diagnostics.append(EventJSONEncoder.encode(event))
        case .markup:
            break
        case .end:
            closeContent(into: &out)
            let output = finished.keys.sorted().compactMap { finished[$0] }
            emit("response.completed", [(key: "response", value: response(status: "completed", output: output))], into: &out)
        }
        return out
    }

    // MARK: - Items

    private mutating func write(_ text: String, reasoning: Bool, into out: inout Output) {
        if let c = content, c.reasoning != reasoning { closeContent(into: &out) }
        if content == nil {
            let item = ContentItem(reasoning: reasoning, outputIndex: nextOutputIndex,
                                   id: ids.token(after: reasoning ? "rs_" : "msg_"))
            nextOutputIndex += 1
            content = item
            emit("response.output_item.added", [
                (key: "output_index", value: Self.number(item.outputIndex)),
                (key: "item", value: Self.item(item, status: "in_progress", text: nil)),
            ], into: &out)
            emit("response.content_part.added", [
                (key: "item_id", value: .string(item.id)),
                (key: "output_index", value: Self.number(item.outputIndex)),
                (key: "content_index", value: .number("0")),
                (key: "part", value: Self.part(reasoning: reasoning, text: "")),
            ], into: &out)
        }
        guard var item = content else { return }
        item.text += text
        content = item
        var fields: [(key: String, value: JSONValue)] = [
            (key: "item_id", value: .string(item.id)),
            (key: "output_index", value: Self.number(item.outputIndex)),
            (key: "content_index", value: .number("0")),
            (key: "delta", value: .string(text)),
        ]
        if !reasoning { fields.append((key: "logprobs", value: .array([]))) }
        emit(reasoning ? "response.reasoning_text.delta" : "response.output_text.delta", fields, into: &out)
    }

    /// Closes the open text or reasoning item, if any.
    private mutating func closeContent(into out: inout Output) {
        guard let item = content else { return }
        content = nil
        var fields: [(key: String, value: JSONValue)] = [
            (key: "item_id", value: .string(item.id)),
            (key: "output_index", value: Self.number(item.outputIndex)),
            (key: "content_index", value: .number("0")),
            (key: "text", value: .string(item.text)),
        ]
        if !item.reasoning { fields.append((key: "logprobs", value: .array([]))) }
        emit(item.reasoning ? "response.reasoning_text.done" : "response.output_text.done", fields, into: &out)
        emit("response.content_part.done", [
            (key: "item_id", value: .string(item.id)),
            (key: "output_index", value: Self.number(item.outputIndex)),
            (key: "content_index", value: .number("0")),
            (key: "part", value: Self.part(reasoning: item.reasoning, text: item.text)),
        ], into: &out)
        done(item.outputIndex, Self.item(item, status: "completed", text: item.text), into: &out)
    }

    private mutating func open(index: Int, callID: String, name: String, into out: inout Output) {
        let call = CallItem(outputIndex: nextOutputIndex, id: ids.token(after: "fc_"), callID: callID, name: name)
        nextOutputIndex += 1
        calls[index] = call
        emit("response.output_item.added", [
            (key: "output_index", value: Self.number(call.outputIndex)),
            (key: "item", value: Self.item(call, status: "in_progress", arguments: "")),
        ], into: &out)
    }

    private mutating func done(_ outputIndex: Int, _ item: JSONValue, into out: inout Output) {
        finished[outputIndex] = item
        emit("response.output_item.done", [
            (key: "output_index", value: Self.number(outputIndex)),
            (key: "item", value: item),
        ], into: &out)
    }

    private static func part(reasoning: Bool, text: String) -> JSONValue {
        if reasoning {
            return .object([(key: "type", value: .string("reasoning_text")), (key: "text", value: .string(text))])
        }
        return .object([
            (key: "type", value: .string("output_text")),
            (key: "annotations", value: .array([])),
            (key: "logprobs", value: .array([])),
            (key: "text", value: .string(text)),
        ])
    }

    /// A message or reasoning item; `text` nil: the item as added (no content yet).
    private static func item(_ c: ContentItem, status: String, text: String?) -> JSONValue {
        let parts: JSONValue = .array(text.map { [part(reasoning: c.reasoning, text: $0)] } ?? [])
        if c.reasoning {
            return .object([
                (key: "id", value: .string(c.id)),
                (key: "type", value: .string("reasoning")),
                (key: "summary", value: .array([])),
                (key: "content", value: parts),
                (key: "status", value: .string(status)),
            ])
        }
        return .object([
            (key: "id", value: .string(c.id)),
            (key: "type", value: .string("message")),
            (key: "status", value: .string(status)),
            (key: "content", value: parts),
            (key: "role", value: .string("assistant")),
        ])
    }

    private static func item(_ c: CallItem, status: String, arguments: String) -> JSONValue {
        .object([
            (key: "id", value: .string(c.id)),
            (key: "type", value: .string("function_call")),
            (key: "status", value: .string(status)),
            (key: "arguments", value: .string(arguments)),
            (key: "call_id", value: .string(c.callID)),
            (key: "name", value: .string(c.name)),
        ])
    }

    // MARK: - Lines

    private func response(status: String, output: [JSONValue]) -> JSONValue {
        .object([
            (key: "id", value: .string(id)),
            (key: "object", value: .string("response")),
            (key: "created_at", value: Self.number(createdAt)),
            (key: "status", value: .string(status)),
            (key: "error", value: .null),
            (key: "incomplete_details", value: .null),
            (key: "model", value: .string(model)),
            (key: "output", value: .array(output)),
            (key: "parallel_tool_calls", value: .bool(parallelToolCalls)),
            (key: "tool_choice", value: toolChoice),
            (key: "tools", value: tools),
            (key: "usage", value: .null),
        ])
    }

    /// Appends one event line: `type` first, the fields, then `sequence_number`.
    private mutating func emit(_ type: String, _ fields: [(key: String, value: JSONValue)], into out: inout Output) {
        let object: JSONValue = .object([(key: "type", value: .string(type))] + fields
            + [(key: "sequence_number", value: Self.number(sequence))])
        sequence += 1
        out.lines.append(object.jsonText)
    }

    private static func number(_ n: Int) -> JSONValue { .number(String(n)) }
}
