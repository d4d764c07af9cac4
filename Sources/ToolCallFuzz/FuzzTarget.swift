// ToolCallFuzz — the libFuzzer entry point: every format, the decoder's invariants checked.
//
// Built only as `swift build -c release --sanitize fuzzer --sanitize address --product
// ToolCallFuzz` (`make fuzz`): libFuzzer supplies `main`. Without sanitizers the target links
// to a binary that does nothing, so a plain `swift build` is unaffected.

import Glibc
import ToolCallKit
import ToolCallKitTestSupport

/// The fuzz input's layout: a 4-byte header, then the model output.
///
/// - byte 0: the format (`(ToolCallFormat.allCases + ToolCallFormat.variants)[b % count]`: the
///   order `toolcall formats` lists them in).
/// - byte 1: options. Bit 0: declare tools. Bit 1: reasoning separation. Bit 2: a small size cap
///   (64…1087 bytes, from byte 2). Bit 3: a small depth cap (1…16, from byte 3). Bit 4: start
///   inside reasoning. Bits 5–7: the size of the third run's chunks (1…8 bytes).
/// - bytes 2–3: the split point of the second run (big endian, modulo the payload's length + 1).
///
/// A first byte of 0xC0 or more selects the rendering mode instead (``renderRoundTrip(format:payload:)``,
/// format `(b - 0xC0) % count`, the rest of the input builds the calls).
///
/// Shorter inputs are padded with zeros. Every input is decoded three times — whole, split in
/// two, and in small chunks — and each run must keep the contracts of docs/events.md; the runs must be
/// equivalent.
struct FuzzCase {
    var format: ToolCallFormat
    var tools: ToolSet?
    var options: ToolCallDecoder.Options
    var split: Int
    var chunk: Int
    var payload: [UInt8]

    init(_ data: UnsafeBufferPointer<UInt8>) {
        var header: [UInt8] = [0, 0, 0, 0]
        for i in 0..<min(4, data.count) { header[i] = unsafe data[i] }
        payload = data.count > 4 ? unsafe Array(data[4...]) : []
        let formats = ToolCallFormat.allCases + ToolCallFormat.variants
        format = formats[Int(header[0]) % formats.count]
        let flags = header[1]
        tools = flags & 1 != 0 ? Self.tools : nil
        options = ToolCallDecoder.Options(
            rawSpans: true, idSeed: 11,
            reasoning: flags & 2 != 0, reasoningOpen: flags & 16 != 0)
        if flags & 4 != 0 { options.maxCallBytes = (try? Limit(64 + Int(header[2]) * 4)) ?? .unlimited }
        if flags & 8 != 0 { options.maxDepth = (try? Limit(1 + Int(header[3] % 16))) ?? .unlimited }
        split = (Int(header[2]) << 8 | Int(header[3])) % (payload.count + 1)
        chunk = 1 + Int(flags >> 5)
    }

    /// Names that the fixtures use, with schemas of every kind so that text values get typed.
    static let tools: ToolSet = (try? ToolSet.load(json: Array(toolsJSON.utf8))) ?? ToolSet([])

    static let toolsJSON = """
            [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
              "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"enum": ["c", "f"]}}}}},
             {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
              "properties": {"a": {"type": "number"}, "b": {"type": "boolean"}, "c": {"type": "array"},
                             "d": {"type": "object"}, "s": {"type": "string"}, "n": {"type": ["integer", "null"]}}}}},
             {"name": "search", "parameters": {"properties": {"query": {"type": "string"}}}},
             {"name": "g"}, {"name": "write"}, {"name": "calc"}, {"name": "a"}, {"name": "b"}]
            """
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if size > 0, unsafe data[0] >= 0xC0 {
        let formats = ToolCallFormat.allCases + ToolCallFormat.variants
        let payload = unsafe Array(UnsafeBufferPointer(start: data, count: size).dropFirst())
        renderRoundTrip(format: formats[(Int(unsafe data[0]) - 0xC0) % formats.count], payload: payload)
        return 0
    }
    let c = unsafe FuzzCase(UnsafeBufferPointer(start: data, count: size))
    // Whole, split in two, and in small chunks: every run checked, all runs equal.
    let whole = ChunkingCheck(format: c.format, tools: c.tools, options: c.options)
        .verify(c.payload, chunkings: .sample(split: c.split, chunk: c.chunk), report: { fail($0) })
    if let prefix = unsafe getenv("TOOLCALL_FUZZ_FIXTURE") {
        writeFixture(c, whole, to: unsafe String(cString: prefix))
    }
    return 0
}

/// Stops the run with a message (`precondition` drops its message in optimized builds).
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

func fail(_ message: String) -> Never {
    fatalError("ToolCallFuzz: " + message)
}

/// Writes the input as a format fixture (`<prefix>.txt` and `<prefix>.expected.json`, events of
/// the whole run) for `Fixtures/formats/<format>/`: `TOOLCALL_FUZZ_FIXTURE=<prefix>
/// ToolCallFuzz crash-file`. Review the events before committing them.
func writeFixture(_ c: FuzzCase, _ events: [NormalizedEvent], to prefix: String) {
    var expected: [JSONValue] = []
    for e in events {
        switch e {
        case .text(let t): expected.append(.object([("type", .string("text")), ("text", .string(String(decoding: t, as: UTF8.self)))]))
        case .reasoning(let t): expected.append(.object([("type", .string("reasoning")), ("text", .string(String(decoding: t, as: UTF8.self)))]))
        case .call(_, _, let name, let arguments):
            expected.append(.object([("type", .string("tool_call")), ("name", .string(name)), ("arguments", arguments)]))
        case .rejected(let reason, _, let name, _):
            var fields: [(key: String, value: JSONValue)] = [("type", .string("rejected")), ("reason", .string(reason))]
            if let name { fields.append(("name", .string(name))) }
            expected.append(.object(fields))
        case .end(let calls, let rejected, _):
            expected.append(.object([
                ("type", .string("end")), ("tool_calls", .number("\(calls)")), ("rejected", .number("\(rejected)")),
            ]))
        case .start, .arguments, .markup: break
        }
    }
    var options: [(key: String, value: JSONValue)] = []
    let defaults = ToolCallDecoder.Options()
    if c.options.maxCallBytes != defaults.maxCallBytes { options.append(("max_call_bytes", .number("\(c.options.maxCallBytes)"))) }
    if c.options.maxDepth != defaults.maxDepth { options.append(("max_depth", .number("\(c.options.maxDepth)"))) }
    if c.options.reasoning { options.append(("reasoning", .bool(true))) }
    if c.options.reasoningOpen { options.append(("reasoning_open", .bool(true))) }
    var root: [(key: String, value: JSONValue)] = [("description", .string("Found by the fuzzer (make fuzz)."))]
    if c.tools != nil, let tools = try? JSONValue.parse(Array(FuzzCase.toolsJSON.utf8)) { root.append(("tools", tools)) }
    if !options.isEmpty { root.append(("options", .object(options))) }
    root.append(("events", .array(expected)))
    writeFile(prefix + ".txt", c.payload)
    writeFile(prefix + ".expected.json", Array((JSONValue.object(root).jsonText + "\n").utf8))
}

private func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let f = unsafe fopen(path, "wb") else { fail("cannot write \(path)") }
    _ = unsafe bytes.withUnsafeBytes { unsafe fwrite($0.baseAddress, 1, $0.count, f) }
    unsafe fclose(f)
}

// MARK: - Rendering mode
//
// Calls built from the fuzz input are rendered in a format, and decoding the rendered bytes
// must give them back (whole, split in two, in small chunks). It lives in this file because a
// second file would make SwiftPM build the target as a library without `main` (the plain
// `swift build` link fails).

/// Builds calls from the fuzz payload, one choice per byte (zeros once the bytes run out), so
/// libFuzzer's mutations reach names, keys, values and text: strings are slices of the input
/// (invalid UTF-8 repaired), where the dictionary's markers land.
struct CallSource {
    var bytes: [UInt8]
    var pos = 0

    static let names = ["get_weather", "write_file", "f", "search.web", "天気"]
    static let keys = ["city", "days", "content", "path", "a", "b_c", "ключ"]
    static let numbers = ["0", "-1", "2.5", "1e+30", "12345678901234567890"]

    mutating func next() -> UInt8 {
        guard pos < bytes.count else { return 0 }
        defer { pos += 1 }
        return bytes[pos]
    }

    mutating func text(max: Int) -> String {
        let n = Int(next()) % (max + 1)
        let end = min(bytes.count, pos + n)
        defer { pos = end }
        return String(decoding: bytes[pos..<end], as: UTF8.self)
    }

    mutating func word(_ pool: [String]) -> String {
        let b = next()
        return b & 0xE0 == 0xE0 ? text(max: 8) : pool[Int(b) % pool.count]
    }

    mutating func value(depth: Int) -> JSONValue {
        switch next() % 8 {
        case 0, 1, 2: return .string(text(max: 48))
        case 3: return .number(Self.numbers[Int(next()) % Self.numbers.count])
        case 4: return next() & 1 == 0 ? .bool(next() & 1 == 0) : .null
        case 5 where depth < 4: return .array((0..<Int(next() % 4)).map { _ in value(depth: depth + 1) })
        case 6 where depth < 4: return object(depth: depth + 1)
        default: return .string(text(max: 8))
        }
    }

    mutating func object(depth: Int) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        for _ in 0..<Int(next() % 5) {
            let key = word(Self.keys)
            if members.contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) { continue }
            members.append((key: key, value: value(depth: depth)))
        }
        return .object(members)
    }

    /// One to three calls. Ids: none, `functions.NAME:1xx` (Kimi carries it) or 9 letters and
    /// digits (Mistral carries it), unique within the list.
    mutating func calls() -> [RenderedCall] {
        (0..<(1 + Int(next() % 3))).map { i in
            let name = word(Self.names)
            let id: String?
            switch next() % 3 {
            case 0: id = nil
            case 1: id = "functions.\(name):\(100 + i)"
            default: id = "fuzzId\(i)00"
            }
            return RenderedCall(name: name, arguments: object(depth: 0), id: id)
        }
    }
}

/// Renders calls made from `payload` in `format`; when that succeeds, decodes the bytes three
/// ways (``RoundTripCheck``, each run checked by ``ChunkingCheck``) and checks that the calls, their ids where the
/// format carries them, and the text come back. A ``RenderError`` is a valid outcome (a call the
/// format cannot express) but must name a call of the list, or the text.
func renderRoundTrip(format: ToolCallFormat, payload: [UInt8]) {
    var source = CallSource(bytes: payload)
    let calls = source.calls()
    let text: String? = source.next() & 1 == 1 ? source.text(max: 24) : nil
    let rendered: [UInt8]
    do {
        rendered = try format.render(calls, text: text)
    } catch {
        if let i = error.index { check(i < calls.count && error.name == calls[i].name, "a RenderError naming no call: \(error)") }
        check(!error.reason.isEmpty, "a RenderError without a reason")
        return
    }
    let shown = String(decoding: rendered, as: UTF8.self).debugDescription
    // Where two calls of one name give a key different types, the typed tools keep one of them,
    // and the other call's value is typed by it: only the decoder's contracts hold then.
    var types: [String: String] = [:]
    var typed = true
    for call in calls {
        for (key, value) in call.arguments.objectValue ?? [] {
            let t = "\(value.kind)"
            let k = call.name + "\u{0}" + key
            if let seen = types[k], seen != t { typed = false }
            types[k] = t
        }
    }
    // A format with a marker that counts only when tools are declared (json and llama3 read a
    // bare call object in the text as a call) depends on the tools, which rendering does not
    // check: such text is left out of the round trip.
    let toolDependent = text.map { t in
        format.definition.toolDependentMarkerTexts.contains { m in t.utf8.contains(m.utf8.first ?? 0) }
    } ?? false
    let chunkings = Chunkings.sample(split: rendered.count / 2, chunk: 3)
    if !typed || toolDependent {
        ChunkingCheck(format: format, tools: ToolSet.typing(calls)).verify(rendered, chunkings: chunkings) { fail("rendered \(shown): " + $0) }
        return
    }
    _ = RoundTripCheck.check(format, calls, text: text, chunkings: chunkings) { fail($0) }
}

extension JSONValue {
    /// The value's kind, for telling argument types apart.
    fileprivate var kind: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .number: return 2
        case .string: return 3
        case .array: return 4
        case .object: return 5
        }
    }
}
