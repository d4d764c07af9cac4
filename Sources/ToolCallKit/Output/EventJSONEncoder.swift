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
        // The writer takes the buffer over (a copy would be copied again on its first append).
        var buffer: [UInt8] = []
        swap(&buffer, &out)
        var w = ObjectWriter(out: consume buffer)
        switch event {
        case .text(let text):
            w.type("text")
            w.field("text", text)
            if raw { w.field("raw", text) }
        case .reasoning(let text, let rawBytes):
            w.type("reasoning")
            w.field("text", text.string)
            if let rawBytes { w.field("raw", rawBytes) }
        case .toolCallStart(let index, let id, let name):
            w.type("tool_call_start")
            w.field("index", index)
            w.field("id", id)
            w.field("name", name)
        case .toolCallDelta(let index, let arguments):
            w.type("tool_call_delta")
            w.field("index", index)
            w.field("arguments", arguments)
        case .toolCall(let call):
            w.type("tool_call")
            w.field("index", call.index)
            w.field("id", call.id)
            w.field("name", call.name)
            w.rawField("arguments", call.argumentsJSON)
            if let r = call.raw { w.field("raw", r) }
        case .rejected(let r):
            w.type("rejected")
            w.field("reason", r.reason.rawValue)
            w.field("format", r.format.rawValue)
            if let index = r.index { w.field("index", index) }
            if let id = r.id { w.field("id", id) }
            if let name = r.name { w.field("name", name) }
            w.field("detail", r.detail)
            w.field("raw", r.raw)
        case .markup(let raw):
            w.type("markup")
            w.field("raw", raw)
        case .end(let calls, let rejected, let bytes):
            w.type("end")
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

    /// Keys are literals that need no escaping: their bytes are copied as they are.
    private mutating func key(_ k: StaticString) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        appendLiteral(k)
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    private mutating func appendLiteral(_ s: StaticString) {
        s.withUTF8Buffer { unsafe out.append(contentsOf: $0) }
    }

    /// The `type` field, first; its value is a literal too.
    mutating func type(_ v: StaticString) {
        key("type")
        out.append(UInt8(ascii: "\""))
        appendLiteral(v)
        out.append(UInt8(ascii: "\""))
    }

    mutating func field(_ k: StaticString, _ v: String) {
        key(k)
        JSONValue.writeString(v, to: &out)
    }

    mutating func field(_ k: StaticString, _ v: Int) {
        key(k)
        out.append(contentsOf: String(v).utf8)
    }

    mutating func field(_ k: StaticString, _ v: JSONValue) {
        key(k)
        v.write(to: &out)
    }

    /// A value given as JSON text already (a call's stored arguments): copied as it is.
    mutating func rawField(_ k: StaticString, _ json: [UInt8]) {
        key(k)
        // Room for the rest of the line at once: a large call's line is not grown by doubling.
        if json.count > 4096 && out.count + json.count > out.capacity { out.reserveCapacity(out.count + json.count + 64) }
        out.append(contentsOf: json)
    }

    /// Event text, as a string (invalid UTF-8 becomes U+FFFD). Short ASCII text, the usual
    /// piece of a stream fed a few bytes at a time, is escaped straight from its inline bytes,
    /// without making a `String`.
    mutating func field(_ k: StaticString, _ v: EventText) {
        if case .inline(let lo, let hi, let count) = v.storage, (lo | hi) & 0x8080_8080_8080_8080 == 0 {
            key(k)
            var bytes = InlineArray<16, UInt8>(repeating: 0)
            for i in 0..<16 { bytes[i] = UInt8(truncatingIfNeeded: (i < 8 ? lo : hi) >> UInt64((i & 7) &* 8)) }
            out.append(UInt8(ascii: "\""))
            JSONValue.writeEscaped(bytes.span.extracting(0..<Int(count)), to: &out)
            out.append(UInt8(ascii: "\""))
            return
        }
        if case .bytes(let b) = v.storage, b.count > 4096, UTF8Boundary.isValid(b[...]) {
            // A large fragment (a value sent whole) is escaped from its own bytes, into room
            // made once at its escaped size (growth by doubling would hold the line twice),
            // without a `String` copy.
            key(k)
            let need = out.count + JSONValue.escapedCount(b.span) + 64
            if need > out.capacity { out.reserveCapacity(need) }
            out.append(UInt8(ascii: "\""))
            JSONValue.writeEscaped(b.span, to: &out)
            out.append(UInt8(ascii: "\""))
            return
        }
        field(k, v.string)
    }

    /// Raw input bytes, as a string (invalid UTF-8 becomes U+FFFD).
    mutating func field(_ k: StaticString, _ v: [UInt8]) {
        key(k)
        JSONValue.writeString(String(decoding: v, as: UTF8.self), to: &out)
    }

    mutating func close() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out
    }
}
