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
/// format `(b - 0xC0) % count`, the rest of the input builds the calls); one from 0xB0 to 0xBF
/// the response-template mode (``TemplateFuzz``). Below 0xB0 the byte picks a built-in format.
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
    if size > 0, unsafe data[0] >= 0xB0 {
        TemplateFuzz.run(unsafe Array(UnsafeBufferPointer(start: data, count: size)))
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
    // Rendering refuses a text that any reader could take for more than text (tools declared or
    // not, reasoning separated or not), so the round trip holds with reasoning separated too.
    let chunkings = Chunkings.sample(split: rendered.count / 2, chunk: 3)
    if !typed {
        ChunkingCheck(format: format, tools: ToolSet.typing(calls)).verify(rendered, chunkings: chunkings) { fail("rendered \(shown): " + $0) }
        return
    }
    _ = RoundTripCheck.check(format, calls, text: text, chunkings: chunkings, reasoning: source.next() & 1 == 1) { fail($0) }
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

// MARK: - Response-template mode
//
// A format defined at run time: one of the templates we ship (read once from
// Fixtures/response_templates/templates, or TOOLCALL_FUZZ_TEMPLATES) or one made from the input,
// with anchors drawn from the shapes that once hung, went quadratic or depended on the chunking
// (empty and zero-width patterns, lookaheads to a far tag, lookbehinds, \b, \A, multiline ^,
// unbounded runs before a tag). The output is shaped to the template: bytes 0xF0-0xFF of the
// payload become samples of its anchors. Every run is checked by ChunkingCheck (whole, split in
// two, in small chunks: the contracts, and equal events), under libFuzzer's time limit, which a
// scan that stops making progress exceeds.

/// The template mode's input: byte 0 is 0xB0 | flags (bit 0: declare tools; bit 1: a small
/// call cap, 256 + 64 x byte 2; bit 2: a prompt, the start anchor then an anchor sample picked
/// by byte 3), byte 1 picks the template (below 0xC0: a shipped one; else one generated from
/// bytes 4-11), bytes 2-3 the split point and the chunk size (1 + byte 3 % 8); the payload
/// follows (from byte 4, or 12 for a generated template).
enum TemplateFuzz {
    struct Entry {
        var template: ResponseTemplate
        /// Texts each anchor can match (literals as written; patterns by ``example(of:)``).
        var samples: [[UInt8]]
        var start: [UInt8]
    }

    static let shipped: [Entry] = {
        let dir = unsafe getenv("TOOLCALL_FUZZ_TEMPLATES").map { unsafe String(cString: $0) }
            ?? "Fixtures/response_templates/templates"
        guard let d = unsafe opendir(dir) else { fail("cannot read \(dir): run from the repository root or set TOOLCALL_FUZZ_TEMPLATES") }
        var names: [String] = []
        while let e = unsafe readdir(d) {
            let name = unsafe withUnsafeBytes(of: e.pointee.d_name) { raw in
                unsafe String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".json") { names.append(name) }
        }
        unsafe closedir(d)
        var out: [Entry] = []
        for name in names.sorted() {
            let bytes = readFile(dir + "/" + name)
            guard let spec = try? JSONValue.parse(bytes), let entry = entry(spec) else { fail("\(name) does not load") }
            out.append(entry)
        }
        check(!out.isEmpty, "no templates in \(dir)")
        return out
    }()

    static func entry(_ spec: JSONValue) -> Entry? {
        guard let template = try? ResponseTemplate(json: spec) else { return nil }
        var samples: [[UInt8]] = []
        func add(_ v: JSONValue?, pattern: Bool) {
            switch v {
            case .string(let s)?: samples.append(Array((pattern ? example(of: s) : s).utf8))
            case .array(let items)?: for case .string(let s) in items { samples.append(Array(s.utf8)) }
            default: break
            }
        }
        for (_, field) in spec["fields"]?.objectValue ?? [] {
            add(field["open"], pattern: false)
            add(field["open_pattern"], pattern: true)
            add(field["close"], pattern: false)
            add(field["close_pattern"], pattern: true)
        }
        var start: [UInt8] = []
        if case .string(let s)? = spec["start_anchor"] { start = Array(s.utf8) }
        if case .string(let s)? = spec["start_anchor"]?.arrayValue?.first { start = Array(s.utf8) }
        if case .string(let s)? = spec["start_anchor_pattern"] { start = Array(example(of: s).utf8) }
        return Entry(template: template, samples: samples, start: start)
    }

    /// A text a pattern may match, roughly: literals kept, escapes and classes replaced by one
    /// member, quantified items written once, the first branch of each alternation taken.
    static func example(of pattern: String) -> String {
        let s = Array(pattern.unicodeScalars)
        var out = ""
        var i = 0
        var depth = 0
        while i < s.count {
            let c = s[i]
            switch c {
            case "\\":
                guard i + 1 < s.count else { return out }
                let e = s[i + 1]
                switch e {
                case "s": out += " "
                case "n": out += "\n"
                case "t": out += "\t"
                case "w", "S": out += "f"
                case "d": out += "1"
                case "b", "B", "A", "z", "Z", "G", "K": break
                default: out.unicodeScalars.append(e)
                }
                i += 2
            case "[":
                let negated = i + 1 < s.count && s[i + 1] == "^"
                var j = i + (negated ? 2 : 1)
                var member: Unicode.Scalar? = nil
                while j < s.count && (s[j] != "]" || j == i + (negated ? 2 : 1)) {
                    if member == nil { member = s[j] == "\\" && j + 1 < s.count ? (s[j + 1] == "s" ? " " : s[j + 1]) : s[j] }
                    j += s[j] == "\\" ? 2 : 1
                }
                if !negated, let member { out.unicodeScalars.append(member) } else { out += "x" }
                i = j + 1
            case "(":
                depth += 1
                i += 1
                if i < s.count && s[i] == "?" {
                    // Skip the group's marker: ?:  ?=  ?!  ?<=  ?<!  ?P<name>  ?<name>
                    i += 1
                    if i < s.count && s[i] == "P" { i += 1 }
                    if i < s.count && s[i] == "<" && i + 1 < s.count && s[i + 1] != "=" && s[i + 1] != "!" {
                        while i < s.count && s[i] != ">" { i += 1 }
                        i += 1
                    } else {
                        while i < s.count && ":=!<".unicodeScalars.contains(s[i]) { i += 1 }
                    }
                }
            case ")":
                depth -= 1
                i += 1
            case "|":
                // Take the first branch: skip to the end of the group.
                var d = 0
                i += 1
                while i < s.count {
                    if s[i] == "\\" { i += 2; continue }
                    if s[i] == "(" { d += 1 }
                    if s[i] == ")" { if d == 0 { break }; d -= 1 }
                    i += 1
                }
            case "*", "+", "?", "^", "$":
                i += 1
            case "{":
                while i < s.count && s[i] != "}" { i += 1 }
                i += 1
            case ".":
                out += "x"
                i += 1
            default:
                out.unicodeScalars.append(c)
                i += 1
            }
        }
        return out
    }

    /// Anchor shapes for generated templates: a source (a literal, or a pattern when it
    /// starts with "re:") and a text it matches.
    static let opens: [(String, String)] = [
        ("<t>", "<t>"), ("<think>", "<think>"), ("<tool_call>", "<tool_call>"), ("<|a|>", "<|a|>"), ("a", "a"),
        ("re:", ""), ("re:x*", "xx"), ("re:(?=a)", "a"), ("re:(?=[\\s\\S]*?</t>)", "</t>"), ("re:a+b", "aab"),
        ("re:\\s*<c>", " \n<c>"), ("re:(?<=a)b", "ab"), ("re:\\bfoo", " foo"), ("re:\\Ab", "b"), ("re:(?m)^k:", "\nk:"),
        ("re:[^<]*<o>", "words<o>"), ("re:<c name=\"(?P<name>\\w+)\">", "<c name=\"f\">"), ("re:(?:^|<t>\\s*)", "<t> "),
        ("re:<f=(?P<name>[^>\\n]+)>\\s*", "<f=g>\n"), ("re:to=(?P<name>\\S+?)<m>", "to=f<m>"), ("re:.*?</x>", "</x>"),
        ("re:(?<=\\n)<t>", "\n<t>"), ("re:$", ""), ("re:(?!z)", "q"), ("re:\\{\"name\":\\s*\"(?P<name>[^\"]+)\",\\s*", "{\"name\": \"f\", "),
    ]
    static let closes: [(String, String)] = [
        ("</t>", "</t>"), ("</think>", "</think>"), ("</tool_call>", "</tool_call>"), ("<|end|>", "<|end|>"), ("\n", "\n"),
        ("re:", ""), ("re:y*", "yy"), ("re:(?=b)", "b"), ("re:</t>\\s*", "</t>\n"), ("re:\\s*</c>", " </c>"), ("re:<e>|$", "<e>"),
        ("re:(?<!x)</c>", "</c>"), ("re:\\z", ""), ("re:\\}<e>\\s*", "}<e>"), ("re:(?m)$", "\n"),
    ]
    static let tags = [
        "<p=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</p>", "(?P<key>\\w+)=(?P<value>[^,)]*)",
        "<(?P<key>[a-z]+)>(?P<value>[^<]*)</[a-z]+>", "(?P<key>[^:\\n]+):(?P<value>.*?)$",
    ]

    /// A template made from eight choice bytes, or nil when it does not load (an invalid
    /// template is refused with a message: that is checked by the tests, not here).
    static func generated(_ b: [UInt8]) -> Entry? {
        func anchor(_ pool: [(String, String)], _ x: UInt8) -> (key: String, value: JSONValue) {
            let (src, _) = pool[Int(x) % pool.count]
            return src.hasPrefix("re:") ? ("pattern", .string(String(src.dropFirst(3)))) : ("literal", .string(src))
        }
        var fields: [(key: String, value: JSONValue)] = []
        let names = ["content", "thinking", "tool_calls", "refusal"]
        var implicitTaken = false
        for k in 0..<(1 + Int(b[0] % 3)) {
            let name = names[(Int(b[0] >> 2) + k) % names.count]
            if fields.contains(where: { $0.key == name }) { continue }
            let choice = b[1 + k]
            var members: [(key: String, value: JSONValue)] = []
            if choice & 0x80 == 0 || implicitTaken {
                let a = anchor(opens, choice)
                members.append((a.key == "pattern" ? "open_pattern" : "open", a.value))
            } else {
                implicitTaken = true
            }
            if b[4 + k] & 0x80 == 0 {
                let a = anchor(closes, b[4 + k])
                members.append((a.key == "pattern" ? "close_pattern" : "close", a.value))
            }
            if name == "tool_calls" {
                let hasName = members.contains { if case .string(let s) = $0.value { return s.contains("?P<name>") } else { return false } }
                let callName: JSONValue = hasName ? .string("{name}") : .string("f")
                switch b[7] % 3 {
                case 0:
                    members.append(("content", .string("json")))
                    members.append(("transform", .object([("type", .string("function")), ("function", .object([("name", callName), ("arguments", .string("{content}"))]))])))
                case 1:
                    members.append(("content", .string("xml-inline")))
                    members.append(("content_args", .object([("tag_pattern", .string(tags[Int(b[7] >> 2) % tags.count]))])))
                    members.append(("transform", .object([("type", .string("function")), ("function", .object([("name", callName), ("arguments", .string("{content}"))]))])))
                default:
                    members.append(("content", .string("kv-lines")))
                    members.append(("transform", .object([("type", .string("function")), ("function", .object([("name", callName), ("arguments", .string("{content}"))]))])))
                }
            } else if members.contains(where: { if case .string(let s) = $0.value { return s.contains("?P<") } else { return false } }) {
                members.append(("transform", .string("{content}")))
            }
            fields.append((name, .object(members)))
        }
        let spec = JSONValue.object([("start_anchor", .string("S")), ("fields", .object(fields))])
        guard var e = entry(spec) else { return nil }
        // Samples by the pools' texts (the example generator does not know them).
        e.samples = (opens + closes).map { Array($0.1.utf8) }.filter { !$0.isEmpty }
        return e
    }

    static func run(_ data: [UInt8]) {
        var header = [UInt8](repeating: 0, count: 12)
        for i in 0..<min(12, data.count) { header[i] = data[i] }
        let generatedTemplate = header[1] >= 0xC0
        let e: Entry
        if generatedTemplate {
            guard let g = generated(Array(header[4..<12])) else { return }
            e = g
        } else {
            e = shipped[Int(header[1]) % shipped.count]
        }
        let raw = Array(data.dropFirst(generatedTemplate ? 12 : 4))
        // Bytes 0xF0-0xFF stand for the template's anchor samples.
        var payload: [UInt8] = []
        for b in raw {
            if b >= 0xF0, !e.samples.isEmpty { payload += e.samples[Int(b - 0xF0) % e.samples.count] } else { payload.append(b) }
            if payload.count > 1 << 16 { break }
        }
        let flags = header[0]
        var options = ToolCallDecoder.Options(rawSpans: true, idSeed: 11)
        if flags & 2 != 0 { options.maxCallBytes = (try? Limit(256 + 64 * Int(header[2]))) ?? .unlimited }
        if flags & 4 != 0 { options.prompt = e.start + (e.samples.isEmpty ? [] : e.samples[Int(header[3]) % e.samples.count]) }
        let format = ToolCallFormat(responseTemplate: e.template)
        let tools = flags & 1 != 0 ? FuzzCase.tools : nil
        let check = ChunkingCheck(format: format, tools: tools, options: options)
        let whole = check.decode(payload, splits: [])
        // A pattern that hits PCRE2's match limit rejects the rest of the stream; where it
        // gives up depends on the bytes searched, so those runs are checked one by one.
        let gaveUp = whole.contains { if case .rejected(let r) = $0 { return r.detail.contains("pattern gave up") } else { return false } }
        if gaveUp {
            _ = check.normalize(whole, input: payload, label: "whole", report: { fail("template: " + $0) })
            return
        }
        let split = (Int(header[2]) << 8 | Int(header[3])) % (payload.count + 1)
        _ = check.verify(payload, chunkings: .sample(split: split, chunk: 1 + Int(header[3] % 8)), report: { fail("template: " + $0) })
    }
}

private func readFile(_ path: String) -> [UInt8] {
    guard let f = unsafe fopen(path, "rb") else { fail("cannot read \(path)") }
    defer { unsafe fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = unsafe buf.withUnsafeMutableBytes { unsafe fread($0.baseAddress, 1, $0.count, f) }
        if n == 0 { break }
        out += buf[0..<n]
    }
    return out
}
