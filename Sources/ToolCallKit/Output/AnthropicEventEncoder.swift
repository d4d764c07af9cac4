// ToolCallKit — events as Anthropic Messages API streaming events (`--output anthropic`).

/// Turns the events of one stream into the streaming events of Anthropic's Messages API
/// (`/v1/messages` with `stream: true`), one JSON object per line (docs/cli.md, Output).
///
/// The stream opens with `message_start` (a `msg_` id, the model, empty content, zero usage)
/// and ends with `message_delta` (`stop_reason` `"tool_use"` when a call was accepted, else
/// `"end_turn"`) and `message_stop`. In between, content blocks numbered from 0:
///
/// - visible text is a `text` block: `content_block_start`, a `text_delta` per text event,
///   `content_block_stop`;
/// - reasoning is a `thinking` block (`"signature": ""`: the model's reasoning carries no
///   signature) with `thinking_delta`s;
/// - an accepted call is a `tool_use` block with its id and name and `"input": {}`, then one
///   `input_json_delta` per argument fragment the decoder emitted, then `content_block_stop`.
///
/// A `tool_use` block cannot be withdrawn once started, so a call is **held until it is
/// accepted**: its start and fragments wait in the encoder, and at the call's `tool_call`
/// event its whole block is written at once (fragments as they came). A rejected call writes
/// nothing; its rejection is a diagnostic line, as ``encode(_:)`` returns it (the command-line
/// tool writes it to standard error). Text and reasoning stream as they arrive, and a text or
/// thinking block closes when a call is accepted or the other kind of content begins, so text
/// on both sides of a rejected call stays one block.
///
/// Tool-use ids must match `^[a-zA-Z0-9_-]+$` (the API refuses others when a client sends
/// them back). An id that does not (Kimi's `functions.get_weather:0`) has every other
/// character replaced by `_` (`functions_get_weather_0`); an id that is then already used in
/// this stream gets `_2`, `_3`... appended. The first 65,536 ids of a stream are remembered
/// for this (after that the decoder's own ids are fresh `call_` ids, valid and unique).
public struct AnthropicEventEncoder: Sendable {
    /// The encoded output of one event.
    public struct Output: Sendable {
        /// Event lines for standard output (JSON, no newline).
        public var lines: [String] = []
        /// Lines for standard error (a rejection, as its event JSON).
        public var diagnostics: [String] = []
    }

    /// The message id: `msg_` and 24 letters and digits.
    public let id: String
    public let model: String

    private var opened = false
    private var nextBlock = 0
    /// The open text or thinking block: its index and whether it is thinking.
    private var block: (index: Int, thinking: Bool)?
    /// The call being held: its index, id, name and fragments.
    private var held: (index: Int, id: String, name: String, fragments: [String])?
    private var accepted = 0
    private var usedIDs: Set<String> = []
    private static let remembered = 65_536

    /// - Parameters:
    ///   - model: the model folder's name, or `toolcall`.
    ///   - seed: seeds the message id (the decoder's id seed), for reproducible output; nil:
    ///     random.
    public init(model: String, seed: UInt64? = nil) {
        var g = CallIDGenerator(seed: seed.map { $0 ^ 0x616E_7468_726F_7069 })
        id = g.token(after: "msg_")
        self.model = model
    }

    /// Encodes one event.
    public mutating func encode(_ event: ToolCallEvent) -> Output {
        var out = Output()
        if !opened {
            opened = true
            out.lines.append(Self.line("message_start", [(key: "message", value: .object([
                (key: "id", value: .string(id)),
                (key: "type", value: .string("message")),
                (key: "role", value: .string("assistant")),
                (key: "model", value: .string(model)),
                (key: "content", value: .array([])),
                (key: "stop_reason", value: .null),
                (key: "stop_sequence", value: .null),
                (key: "usage", value: .object([
                    (key: "input_tokens", value: .number("0")), (key: "output_tokens", value: .number("0")),
                ])),
            ]))]))
        }
        switch event {
        case .text(let t):
            guard !t.isEmpty else { break }
            write(t.string, thinking: false, into: &out)
        case .reasoning(let t, _):
            guard !t.isEmpty else { break }
            write(t.string, thinking: true, into: &out)
        case .toolCallStart(let index, let callID, let name):
            held = (index, callID, name, [])
        case .toolCallDelta(let index, let arguments):
            if held?.index == index { held?.fragments.append(arguments.string) }
        case .toolCall(let c):
            var call = held?.index == c.index ? held! : (index: c.index, id: c.id, name: c.name, fragments: [])
            held = nil
            if call.fragments.allSatisfy(\.isEmpty) { call.fragments = [String(decoding: c.argumentsJSON, as: UTF8.self)] }
            closeBlock(into: &out)
            let index = nextBlock
            nextBlock += 1
            out.lines.append(Self.line("content_block_start", [
                (key: "index", value: Self.number(index)),
                (key: "content_block", value: .object([
                    (key: "type", value: .string("tool_use")),
                    (key: "id", value: .string(toolUseID(call.id))),
                    (key: "name", value: .string(call.name)),
                    (key: "input", value: .object([])),
                ])),
            ]))
            for fragment in call.fragments where !fragment.isEmpty {
                out.lines.append(Self.line("content_block_delta", [
                    (key: "index", value: Self.number(index)),
                    (key: "delta", value: .object([
                        (key: "type", value: .string("input_json_delta")), (key: "partial_json", value: .string(fragment)),
                    ])),
                ]))
            }
            out.lines.append(Self.line("content_block_stop", [(key: "index", value: Self.number(index))]))
            accepted += 1
        case .rejected(let r):
            if let index = r.index, held?.index == index { held = nil }
            out.diagnostics.append(EventJSONEncoder.encode(event))
        case .markup:
            break
        case .end:
            closeBlock(into: &out)
            out.lines.append(Self.line("message_delta", [
                (key: "delta", value: .object([
                    (key: "stop_reason", value: .string(accepted > 0 ? "tool_use" : "end_turn")),
                    (key: "stop_sequence", value: .null),
                ])),
                (key: "usage", value: .object([(key: "output_tokens", value: .number("0"))])),
            ]))
            out.lines.append(Self.line("message_stop", []))
        }
        return out
    }

    /// The tool-use id for a call id (see the type's description).
    mutating func toolUseID(_ callID: String) -> String {
        let valid = !callID.isEmpty && callID.utf8.allSatisfy(Self.allowed)
        var candidate = valid ? callID : String(decoding: callID.utf8.map { Self.allowed($0) ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
        if candidate.isEmpty { candidate = "_" }
        guard usedIDs.count < Self.remembered else { return candidate }
        var unique = candidate
        var n = 2
        while usedIDs.contains(unique) {
            unique = candidate + "_" + String(n)
            n += 1
        }
        usedIDs.insert(unique)
        return unique
    }

    private static func allowed(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D
    }

    private mutating func write(_ text: String, thinking: Bool, into out: inout Output) {
        if let b = block, b.thinking != thinking { closeBlock(into: &out) }
        if block == nil {
            block = (nextBlock, thinking)
            out.lines.append(Self.line("content_block_start", [
                (key: "index", value: Self.number(nextBlock)),
                (key: "content_block", value: thinking
                    ? .object([(key: "type", value: .string("thinking")), (key: "thinking", value: .string("")),
                               (key: "signature", value: .string(""))])
                    : .object([(key: "type", value: .string("text")), (key: "text", value: .string(""))])),
            ]))
            nextBlock += 1
        }
        guard let b = block else { return }
        out.lines.append(Self.line("content_block_delta", [
            (key: "index", value: Self.number(b.index)),
            (key: "delta", value: thinking
                ? .object([(key: "type", value: .string("thinking_delta")), (key: "thinking", value: .string(text))])
                : .object([(key: "type", value: .string("text_delta")), (key: "text", value: .string(text))])),
        ]))
    }

    private mutating func closeBlock(into out: inout Output) {
        guard let b = block else { return }
        block = nil
        out.lines.append(Self.line("content_block_stop", [(key: "index", value: Self.number(b.index))]))
    }

    private static func line(_ type: String, _ fields: [(key: String, value: JSONValue)]) -> String {
        JSONValue.object([(key: "type", value: .string(type))] + fields).jsonText
    }

    private static func number(_ n: Int) -> JSONValue { .number(String(n)) }
}
