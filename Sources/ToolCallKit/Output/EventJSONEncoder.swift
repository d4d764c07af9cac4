// ToolCallKit — events as JSON lines (`--output events`).

/// Writes events as the one-line JSON objects of docs/events.md and docs/cli.md.
///
/// Bytes that are not valid UTF-8 become U+FFFD here; the library's own raw spans keep them.
public enum EventJSONEncoder {
    /// The JSON line for an event (without the newline).
    ///
    /// - Parameter raw: write the `raw` field (`--raw`); a text event's raw is its text.
    public static func encode(_ event: ToolCallEvent, raw: Bool = true) -> String {
        var out: [UInt8] = []
        encode(event, raw: raw, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the JSON line for an event (without the newline) to `out`.
    public static func encode(_ event: ToolCallEvent, raw: Bool = true, into out: inout [UInt8]) {
        var w = ObjectWriter(out: out)
        switch event {
        case .text(let text):
            w.field("type", "text")
            let s = text.string
            w.field("text", s)
            if raw { w.field("raw", s) }
        case .reasoning(let text, let rawBytes):
            w.field("type", "reasoning")
            w.field("text", text.string)
            if let rawBytes { w.field("raw", rawBytes) }
        case .toolCallStart(let index, let id, let name):
            w.field("type", "tool_call_start")
            w.field("index", index)
            w.field("id", id)
            w.field("name", name)
        case .toolCallDelta(let index, let arguments):
            w.field("type", "tool_call_delta")
            w.field("index", index)
            w.field("arguments", arguments.string)
        case .toolCall(let call):
            w.field("type", "tool_call")
            w.field("index", call.index)
            w.field("id", call.id)
            w.field("name", call.name)
            w.field("arguments", call.arguments)
            if let r = call.raw { w.field("raw", r) }
        case .rejected(let r):
            w.field("type", "rejected")
            w.field("reason", r.reason.rawValue)
            w.field("format", r.format.rawValue)
            if let index = r.index { w.field("index", index) }
            if let id = r.id { w.field("id", id) }
            if let name = r.name { w.field("name", name) }
            w.field("detail", r.detail)
            w.field("raw", r.raw)
        case .markup(let raw):
            w.field("type", "markup")
            w.field("raw", raw)
        case .end(let calls, let rejected, let bytes):
            w.field("type", "end")
            w.field("tool_calls", calls)
            w.field("rejected", rejected)
            w.field("bytes", bytes)
        }
        out = w.close()
    }
}

/// Builds one JSON object field by field.
struct ObjectWriter {
    private var out: [UInt8]
    private var first = true

    init(out: [UInt8]) {
        self.out = out
        self.out.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ k: String) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        JSONValue.writeString(k, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    mutating func field(_ k: String, _ v: String) {
        key(k)
        JSONValue.writeString(v, to: &out)
    }

    mutating func field(_ k: String, _ v: Int) {
        key(k)
        out.append(contentsOf: String(v).utf8)
    }

    mutating func field(_ k: String, _ v: JSONValue) {
        key(k)
        v.write(to: &out)
    }

    /// Raw input bytes, as a string (invalid UTF-8 becomes U+FFFD).
    mutating func field(_ k: String, _ v: [UInt8]) {
        key(k)
        JSONValue.writeString(String(decoding: v, as: UTF8.self), to: &out)
    }

    mutating func close() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out
    }
}
