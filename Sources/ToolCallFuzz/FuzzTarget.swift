// ToolCallFuzz — the libFuzzer entry point: every format, the decoder's invariants checked.
//
// Built only as `swift build -c release --sanitize fuzzer --sanitize address --product
// ToolCallFuzz` (`make fuzz`): libFuzzer supplies `main`. Without sanitizers the target links
// to a binary that does nothing, so a plain `swift build` is unaffected.

import Glibc
import ToolCallKit

/// The fuzz input's layout: a 4-byte header, then the model output.
///
/// - byte 0: the format (`ToolCallFormat.allCases[b % count]`).
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
        let formats = ToolCallFormat.allCases
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

/// A normalized event: what must agree across chunkings (docs/events.md, "Chunking never matters").
enum Normalized: Equatable, CustomStringConvertible {
    case text([UInt8])
    case reasoning([UInt8])
    case start(index: Int, id: String, name: String)
    /// Deltas as bytes: a fragment's bytes, not only its repaired text, must agree.
    case call(index: Int, id: String, name: String, deltas: [UInt8], arguments: JSONValue)
    /// A rejected call's deltas (those of its valid prefix) must agree across chunkings too.
    case rejected(reason: String, index: Int?, id: String?, name: String?, deltas: [UInt8]?, raw: [UInt8])
    case markup([UInt8])
    case end(calls: Int, rejected: Int, bytes: Int)

    var description: String {
        func show(_ raw: [UInt8]) -> String { String(decoding: raw, as: UTF8.self).debugDescription }
        switch self {
        case .text(let t): return "text(\(t.debugDescription))"
        case .reasoning(let t): return "reasoning(\(t.debugDescription))"
        case .start(let i, let id, let n): return "start(\(i), \(id), \(n))"
        case .call(let i, let id, let n, let d, let a): return "call(\(i), \(id), \(n), deltas \(show(d)), \(a.jsonText))"
        case .rejected(let r, let i, _, let n, _, let raw):
            return "rejected(\(r), \(i.map(String.init) ?? "-"), \(n ?? "-"), \(show(raw)))"
        case .markup(let raw): return "markup(\(show(raw)))"
        case .end(let c, let r, let b): return "end(\(c), \(r), \(b))"
        }
    }
}

/// Decodes `input` cut at `cuts` and checks one run's contracts; returns its normalized events.
func run(_ c: FuzzCase, cuts: [Int]) -> [Normalized] {
    var decoder = ToolCallDecoder(format: c.format, tools: c.tools, options: c.options)
    var events: [ToolCallEvent] = []
    var start = 0
    for s in cuts + [c.payload.count] where s > start {
        events += decoder.feed(c.payload[start..<s])
        start = s
    }
    events += decoder.finish()

    var out: [Normalized] = []
    var raw: [UInt8] = []
    raw.reserveCapacity(c.payload.count)
    var open: [Int: (id: String, name: String, deltas: [UInt8], client: String)] = [:]
    var nextIndex = 0
    var accepted = 0
    var rejected = 0
    var ended = false
    for e in events {
        check(!ended, "an event after end")
        if let r = e.rawBytes {
            check(!r.isEmpty, "an event with empty raw bytes")
            raw += r
        }
        switch e {
        case .text(let t):
            check(cutsCleanly(c.payload, at: raw.count), "text ends inside a UTF-8 sequence")
            if case .text(var prev)? = out.last { out.removeLast(); prev += t.utf8; out.append(.text(prev)) } else { out.append(.text(t.utf8)) }
        case .reasoning(let t, let r):
            check(r != nil, "reasoning without raw bytes")
            if case .reasoning(var prev)? = out.last { out.removeLast(); prev += t.utf8; out.append(.reasoning(prev)) } else { out.append(.reasoning(t.utf8)) }
        case .toolCallStart(let index, let id, let name):
            check(index == nextIndex, "start index \(index), expected \(nextIndex)")
            if let tools = c.tools { check(tools.declares(name), "an undeclared name was started") }
            nextIndex += 1
            open[index] = (id, name, [], "")
            out.append(.start(index: index, id: id, name: name))
        case .toolCallDelta(let index, let fragment):
            check(open[index] != nil, "a delta for call \(index), which is not open")
            check(!fragment.isEmpty, "an empty delta")
            open[index]!.deltas += fragment.utf8
            // What a client receives: each fragment repaired on its own, as the encoders do.
            open[index]!.client += fragment.string
        case .toolCall(let call):
            accepted += 1
            guard let o = open.removeValue(forKey: call.index) else {
                fail("tool_call \(call.index) was never started or ended twice")
            }
            check(o.id == call.id && o.name == call.name, "call \(call.index) changed its id or name")
            check(call.arguments.isObject, "arguments are not an object")
            let problem = StrictJSON.problem(in: Array(o.client.utf8), maxDepth: .max)
            check(problem == nil, "joined deltas are not strict JSON (\(problem ?? "")): \(o.client.debugDescription)")
            let parsed = try? JSONValue.parse(Array(o.client.utf8), maxDepth: .max)
            check(
                parsed == call.arguments,
                "deltas \(String(decoding: o.deltas, as: UTF8.self).debugDescription) do not parse to the arguments \(call.arguments.jsonText)")
            out.append(.call(index: call.index, id: call.id, name: call.name, deltas: o.deltas, arguments: call.arguments))
        case .rejected(let r):
            rejected += 1
            var deltas: [UInt8]? = nil
            if let index = r.index {
                let o = open.removeValue(forKey: index)
                check(o != nil, "a rejection for call \(index), which is not open")
                deltas = o?.deltas
            }
            if r.reason == .undeclaredTool { check(r.index == nil, "an undeclared tool was started") }
            out.append(.rejected(reason: r.reason.rawValue, index: r.index, id: r.id, name: r.name, deltas: deltas, raw: r.raw))
        case .markup(let r):
            if case .markup(var prev)? = out.last { out.removeLast(); prev += r; out.append(.markup(prev)) } else { out.append(.markup(r)) }
        case .end(let calls, let rejectedCount, let bytes):
            ended = true
            check(calls == accepted && rejectedCount == rejected && bytes == c.payload.count, "end counts")
            out.append(.end(calls: calls, rejected: rejectedCount, bytes: bytes))
        }
    }
    check(ended, "no end event")
    check(open.isEmpty, "calls never ended: \(open.keys.sorted())")
    check(raw == c.payload, "raw spans do not rebuild the input")
    return out
}

/// Whether `end` does not cut a valid UTF-8 sequence of `input` in two.
func cutsCleanly(_ input: [UInt8], at end: Int) -> Bool {
    var lead = end - 1
    while lead >= 0 && lead > end - 4 && input[lead] & 0xC0 == 0x80 { lead -= 1 }
    guard lead >= 0 else { return true }
    let b0 = input[lead]
    let need = b0 >= 0xC2 && b0 <= 0xDF ? 2 : b0 >= 0xE0 && b0 <= 0xEF ? 3 : b0 >= 0xF0 && b0 <= 0xF4 ? 4 : 1
    guard lead + need > end, lead + need <= input.count else { return true }
    for k in 1..<need where input[lead + k] & 0xC0 != 0x80 { return true }
    let b1 = input[lead + 1]
    switch b0 {
    case 0xE0: return !(b1 >= 0xA0)
    case 0xED: return !(b1 <= 0x9F)
    case 0xF0: return !(b1 >= 0x90)
    case 0xF4: return !(b1 <= 0x8F)
    default: return false
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if size > 0, unsafe data[0] >= 0xC0 {
        let formats = ToolCallFormat.allCases
        let payload = unsafe Array(UnsafeBufferPointer(start: data, count: size).dropFirst())
        renderRoundTrip(format: formats[(Int(unsafe data[0]) - 0xC0) % formats.count], payload: payload)
        return 0
    }
    let c = unsafe FuzzCase(UnsafeBufferPointer(start: data, count: size))
    let whole = run(c, cuts: [])
    if let prefix = unsafe getenv("TOOLCALL_FUZZ_FIXTURE") {
        writeFixture(c, whole, to: unsafe String(cString: prefix))
    }
    let split = run(c, cuts: [c.split])
    if split != whole { fail(difference("split at \(c.split)", split, whole)) }
    let chunked = run(c, cuts: Array(stride(from: c.chunk, to: c.payload.count, by: c.chunk)))
    if chunked != whole { fail(difference("\(c.chunk)-byte chunks", chunked, whole)) }
    return 0
}

/// Stops the run with a message (`precondition` drops its message in optimized builds).
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

func fail(_ message: String) -> Never {
    fatalError("ToolCallFuzz: " + message)
}

/// The first differing events of two runs.
func difference(_ label: String, _ a: [Normalized], _ b: [Normalized]) -> String {
    var i = 0
    while i < min(a.count, b.count) && a[i] == b[i] { i += 1 }
    let left = i < a.count ? "\(a[i])" : "(nothing)"
    let right = i < b.count ? "\(b[i])" : "(nothing)"
    return "\(label) differs from whole at event \(i):\n  \(left)\nvs whole:\n  \(right)"
}

/// Writes the input as a format fixture (`<prefix>.txt` and `<prefix>.expected.json`, events of
/// the whole run) for `Fixtures/formats/<format>/`: `TOOLCALL_FUZZ_FIXTURE=<prefix>
/// ToolCallFuzz crash-file`. Review the events before committing them.
func writeFixture(_ c: FuzzCase, _ events: [Normalized], to prefix: String) {
    var expected: [JSONValue] = []
    for e in events {
        switch e {
        case .text(let t): expected.append(.object([("type", .string("text")), ("text", .string(String(decoding: t, as: UTF8.self)))]))
        case .reasoning(let t): expected.append(.object([("type", .string("reasoning")), ("text", .string(String(decoding: t, as: UTF8.self)))]))
        case .call(_, _, let name, _, let arguments):
            expected.append(.object([("type", .string("tool_call")), ("name", .string(name)), ("arguments", arguments)]))
        case .rejected(let reason, _, _, let name, _, _):
            var fields: [(key: String, value: JSONValue)] = [("type", .string("rejected")), ("reason", .string(reason))]
            if let name { fields.append(("name", .string(name))) }
            expected.append(.object(fields))
        case .end(let calls, let rejected, _):
            expected.append(.object([
                ("type", .string("end")), ("tool_calls", .number("\(calls)")), ("rejected", .number("\(rejected)")),
            ]))
        case .start, .markup: break
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
/// ways (each run checked by ``run(_:cuts:)``) and checks that the calls, their ids where the
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
    var c = unsafe FuzzCase(UnsafeBufferPointer(start: nil, count: 0))
    c.format = format
    c.tools = ToolSet.typing(calls)
    c.payload = rendered
    c.split = rendered.count / 2
    c.chunk = 3
    let whole = run(c, cuts: [])
    let split = run(c, cuts: [c.split])
    if split != whole { fail(difference("rendered, split at \(c.split)", split, whole)) }
    let chunked = run(c, cuts: Array(stride(from: 3, to: rendered.count, by: 3)))
    if chunked != whole { fail(difference("rendered, 3-byte chunks", chunked, whole)) }

    let shown = String(decoding: rendered, as: UTF8.self).debugDescription
    // Where two calls of one name give a key different types, the typed tools keep one of them,
    // and the other call's value is typed by it: only the decoder's contracts hold then.
    var types: [String: String] = [:]
    for call in calls {
        for (key, value) in call.arguments.objectValue ?? [] {
            let t = "\(value.kind)"
            let k = call.name + "\u{0}" + key
            if let seen = types[k], seen != t { return }
            types[k] = t
        }
    }
    // A format with a marker that counts only when tools are declared (json and llama3 read a
    // bare call object in the text as a call) depends on the tools, which rendering does not
    // check: such text is left out.
    if let text, format.definition.toolDependentMarkerTexts.contains(where: { text.utf8.contains($0.utf8.first ?? 0) }) { return }
    var back: [(id: String, name: String, arguments: JSONValue)] = []
    var texts: [UInt8] = []
    for e in whole {
        switch e {
        case .call(_, let id, let name, _, let arguments): back.append((id, name, arguments))
        case .text(let t): texts += t
        case .rejected: fail("rendered calls were rejected: \(e) in \(shown)")
        default: break
        }
    }
    check(back.count == calls.count, "\(back.count) calls back of \(calls.count) from \(shown)")
    for (i, (call, got)) in zip(calls, back).enumerated() {
        check(got.name.utf8.elementsEqual(call.name.utf8), "call \(i): name \(got.name.debugDescription) from \(shown)")
        check(got.arguments == call.arguments, "call \(i): arguments \(got.arguments.jsonText) != \(call.arguments.jsonText) from \(shown)")
        if let expected = format.definition.renderer.carriedID(call.id, call.name, i) {
            check(got.id == expected, "call \(i): id \(got.id), expected \(expected), from \(shown)")
        }
    }
    let given = Array((text ?? "").utf8)
    check(texts.starts(with: given) && texts.dropFirst(given.count).allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 },
          "the text did not come back from \(shown)")
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
