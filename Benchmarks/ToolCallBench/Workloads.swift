// toolcall-bench — deterministic inputs for each workload and format (README.md, Benchmark).

import ToolCallKit
import ToolCallKitTestSupport

/// SplitMix64 (the tests' generator, from ToolCallKitTestSupport): a fixed seed gives the same
/// inputs on every machine.
typealias SeededGenerator = SeededRandom

extension SeededRandom {
    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
}

/// One generated input and what decoding it must give.
struct Workload {
    var name: String
    var format: ToolCallFormat
    var input: [UInt8]
    /// The visible text the decoder must emit (concatenated text events).
    var expectedText: [UInt8]
    /// The names of the calls, in order.
    var expectedCalls: [String]
    /// For long-argument and escaped-argument: the one string argument's expected value.
    var expectedArgument: String?
    /// Encode every event as a JSON line (the CLI's output path) inside the measured loop.
    var encodeEvents = false
    /// Declared tools, checked with validation on (the validation workload).
    var tools: ToolSet? = nil
    /// How many calls must come out rejected as invalid_arguments (the rest accepted).
    var expectedInvalid = 0
    /// For many-parameters: how many parameters the call has.
    var expectedParameters = 0
    /// The decoder's call cap, when not the default (near-cap).
    var maxCallBytes: Limit? = nil
}

enum Workloads {
    static let names = ["prose", "agentic", "long-argument", "escaped-argument", "many-parameters", "near-miss", "small-values", "validation"] + templateShapes + memoryNames

    /// The validation workload's tool: the schema shapes that once cost a product or an
    /// exponential of the call and the schema (an anyOf over a shared $ref 16 deep, a 250-value
    /// enum, a catastrophic pattern).
    static let validationTools: ToolSet = {
        var defs: [String] = []
        for i in 0..<16 { defs.append("\"d\(i)\": {\"anyOf\": [{\"$ref\": \"#/$defs/d\(i + 1)\"}, {\"$ref\": \"#/$defs/d\(i + 1)\"}]}") }
        defs.append("\"d16\": {\"type\": \"string\", \"minLength\": 5}")
        let values = (0..<250).map { "\"value-\($0)\"" }.joined(separator: ", ")
        let json = """
            [{"name": "check", "parameters": {"type": "object", "$defs": {\(defs.joined(separator: ", "))},
              "properties": {"a": {"$ref": "#/$defs/d0"}, "b": {"enum": [\(values)]},
                             "c": {"type": "string", "pattern": "^(a+)+$"}}}}]
            """
        // The schema is ours and valid: a failure here is a bug in the benchmark.
        return try! ToolSet.load(json: Array(json.utf8)).compilingValidators()
    }()

    /// Chat-style prose: markdown, code, `<`, `[` and `{`, and at least 15 % non-ASCII bytes
    /// (accented Latin, CJK, emoji). It never forms a marker of any format.
    static func prose(bytes: Int, rng: inout SeededGenerator) -> [UInt8] {
        let words = [
            "the", "model", "returns", "a", "value", "when", "streaming", "tokens", "quickly", "and",
            "café", "naïve", "résumé", "Zürich", "señor", "déjà", "vu", "über", "façade", "Ærø",
            "東京", "天気", "こんにちは", "数据", "模型", "서울", "🌍", "🚀", "✓", "—",
            "`x < y`", "a<b", "if (a[i] > b)", "{ key: 1 }", "[link](url)", "**bold**", "- item", "1. step",
            "`let v = [1, 2]`", "x >= 3", "f(x) = {y}", "<br>", "#", "|", "->", "a && b",
        ]
        var out: [UInt8] = []
        out.reserveCapacity(bytes + 64)
        var line = 0
        out.append(contentsOf: "Sure, ".utf8)
        while out.count < bytes {
            let w = rng.pick(words)
            out.append(contentsOf: w.utf8)
            line += w.utf8.count
            if line > 70 {
                out.append(0x0A)
                line = 0
            } else {
                out.append(0x20)
            }
        }
        return out
    }

    /// A file's content for long-argument: no quotes, backslashes, brackets or angle brackets,
    /// so it is a plain string value in every format; about 15 % non-ASCII.
    static func content(bytes: Int, rng: inout SeededGenerator) -> String {
        let words = ["let", "value", "=", "compute", "(", "x", ")", ";", "return", "naïve", "東京", "🚀", "total", "+", "1", "café", "data", "."]
        var out: [UInt8] = []
        out.reserveCapacity(bytes + 16)
        while out.count < bytes {
            out.append(contentsOf: rng.pick(words).utf8)
            out.append(0x20)
        }
        while out.count > bytes {
            // Trim to the size without cutting a character.
            out.removeLast()
            while let last = out.last, last & 0xC0 == 0x80 || (last >= 0xC0) { out.removeLast() }
        }
        if out.last == 0x20 { out[out.count - 1] = UInt8(ascii: "x") }
        return String(decoding: out, as: UTF8.self)
    }

    /// A string argument whose every ~60 bytes hold a character that JSON output escapes (a
    /// quote, a newline or a tab): the shape that made the event encoder quadratic.
    static func escapedContent(bytes: Int, rng: inout SeededGenerator) -> String {
        var out = ""
        let specials = ["\"", "\n", "\t"]
        while out.utf8.count < bytes {
            out += content(bytes: 59, rng: &rng) + rng.pick(specials)
        }
        return out + "x"
    }

    /// `value` as the body of a JSON string.
    static func jsonEscaped(_ value: String) -> String {
        var bytes: [UInt8] = []
        JSONValue.writeString(value, to: &bytes)
        return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    /// `text` followed by one call with string arguments, as the format's model writes a call
    /// after text (the format's own renderer), and the text a decoder gives back: `text` and the
    /// white space the renderer puts between it and the call. With `literal`, each value is
    /// JSON text (a list), not a string.
    static func render(_ format: ToolCallFormat, after text: String, name: String, args: [(String, String)],
                       literal: Bool = false) -> (input: [UInt8], text: [UInt8]) {
        var members: [(key: String, value: JSONValue)] = []
        for (key, value) in args {
            guard literal else {
                members.append((key, .string(value)))
                continue
            }
            do { members.append((key, try JSONValue.parse(value))) } catch { fatalError("bad literal for \(key): \(error)") }
        }
        let bytes: [UInt8]
        do {
            bytes = try format.render([RenderedCall(name: name, arguments: .object(members))], text: text.isEmpty ? nil : text)
        } catch {
            fatalError("\(format.rawValue) cannot render the benchmark's call: \(error)")
        }
        var k = text.utf8.count
        while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x0A { k += 1 }
        return (bytes, Array(bytes[..<k]))
    }

    static func make(_ name: String, format: ToolCallFormat, size: Int) -> Workload {
        if let w = makeMemory(name, format: format, size: size) { return w }
        var rng = SeededGenerator(state: 0x5EED_0000 &+ UInt64(size))
        switch name {
        case _ where name.hasPrefix("template"): return templateShape(name, size: size, rng: &rng)!
        case "prose":
            let p = prose(bytes: size, rng: &rng)
            return Workload(name: name, format: format, input: p, expectedText: p, expectedCalls: [])
        case "agentic":
            var input: [UInt8] = []
            var text: [UInt8] = []
            var calls: [String] = []
            let cities = ["Paris", "東京", "Zürich", "São Paulo", "Oslo"]
            while input.count < size {
                let p = prose(bytes: 2000, rng: &rng) + Array("\n".utf8)
                let call = "get_weather_\(calls.count % 7)"
                calls.append(call)
                let r = render(format, after: String(decoding: p, as: UTF8.self), name: call, args: [("city", rng.pick(cities)), ("unit", "celsius")])
                input += r.input
                text += r.text
            }
            return Workload(name: name, format: format, input: input, expectedText: text, expectedCalls: calls)
        case "escaped-argument":
            let body = escapedContent(bytes: size, rng: &rng)
            let r = render(format, after: "Writing the file.\n", name: "write_file", args: [("content", body)])
            var w = Workload(
                name: name, format: format, input: r.input, expectedText: r.text, expectedCalls: ["write_file"], expectedArgument: body)
            w.encodeEvents = true
            return w
        case "many-parameters":
            // One call with thousands of short parameters (about 30 bytes each).
            var args: [(String, String)] = []
            var bytes = 0
            while bytes < size {
                args.append(("p\(args.count)", "v\(rng.next() % 1000)"))
                bytes += 30
            }
            let r = render(format, after: "Setting them.\n", name: "configure", args: args)
            var w = Workload(name: name, format: format, input: r.input, expectedText: r.text, expectedCalls: ["configure"])
            w.expectedParameters = args.count
            return w
        case "near-miss":
            // Prose flooded with near misses of the format's own markers (each marker with its
            // last byte changed): text, but every one of them is a candidate the scanner checks.
            let probe = ToolCallDecoder(format: format)
            // Only the misses the format reads as text (a format that tolerates a damaged marker,
            // DSML's openers say, reads some of them as markup).
            let misses = probe.markerTexts.filter { $0.utf8.count > 1 }.map { String($0.dropLast()) + "\u{7F}" }.filter { miss in
                var d = ToolCallDecoder(format: format)
                let sample = "see " + miss + " here"
                let events = d.feed(Array(sample.utf8)) + d.finish()
                let text = events.compactMap { e -> String? in if case .text(let t) = e { return t.string } else { return nil } }.joined()
                return text == sample && !events.contains { if case .markup = $0 { return true } else { return false } }
            }
            var input: [UInt8] = []
            while input.count < size {
                input += prose(bytes: 40, rng: &rng)
                if !misses.isEmpty { input += Array(rng.pick(misses).utf8) }
            }
            return Workload(name: name, format: format, input: input, expectedText: input, expectedCalls: [])
        case "validation":
            // Prose with a call every ~2 KB whose arguments break all three hostile schemas.
            var input: [UInt8] = []
            var text: [UInt8] = []
            var calls = 0
            while input.count < size {
                let p = prose(bytes: 2000, rng: &rng) + Array("\n".utf8)
                calls += 1
                let r = render(format, after: String(decoding: p, as: UTF8.self), name: "check",
                               args: [("a", "abc"), ("b", "nope"), ("c", String(repeating: "a", count: 28) + "b")])
                input += r.input
                text += r.text
            }
            var w = Workload(name: name, format: format, input: input, expectedText: text, expectedCalls: [])
            w.tools = validationTools
            w.expectedInvalid = calls
            return w
        case "small-values":
            // One argument holding a list of small integers: the shape whose decoded tree costs
            // the most memory per input byte.
            var list = "["
            while list.utf8.count < size {
                list += "\(rng.next() % 100), "
            }
            list += "0]"
            // Spliced into the rendered call as bytes: rendering the list itself would build its
            // tree, and that, not the decoder, would set the peak heap measured.
            return listCall(name, format: format, intro: "Saving.\n", list: list)
        default:
            let body = content(bytes: size, rng: &rng)
            let r = render(format, after: "Writing the file.\n", name: "write_file", args: [("content", body)])
            return Workload(
                name: name, format: format, input: r.input, expectedText: r.text,
                expectedCalls: ["write_file"], expectedArgument: body)
        }
    }
}
