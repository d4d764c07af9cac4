// Time per call of SchemaValidator.validate for a 20-property tool schema, in a release build;
// and, by name, the hostile shapes whose cost must stay bounded by the sizes of the schema and
// the call (run `swift run -c release ValidationCost --help` for the list).

import ToolCallKit

@main
struct ValidationCost {
    /// 20 properties, four of each kind: a pattern, an enum, a bounded multiple of 5, a string
    /// with length bounds, a boolean-or-null; half of them required, no others allowed.
    static let schema: String = {
        var props: [String] = []
        for i in 0..<20 {
            switch i % 5 {
            case 0: props.append(#""s\#(i)": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2,4}$"}"#)
            case 1: props.append(#""e\#(i)": {"type": "string", "enum": ["economy", "business", "first", "premium"]}"#)
            case 2: props.append(#""n\#(i)": {"type": "integer", "minimum": 0, "maximum": 1000, "multipleOf": 5}"#)
            case 3: props.append(#""t\#(i)": {"type": "string", "minLength": 1, "maxLength": 64}"#)
            default: props.append(#""b\#(i)": {"type": ["boolean", "null"]}"#)
            }
        }
        let required = (0..<10).map { i in ["\"s\(i)\"", "\"e\(i)\"", "\"n\(i)\"", "\"t\(i)\"", "\"b\(i)\""][i % 5] }
        return #"{"type": "object", "properties": {\#(props.joined(separator: ", "))}, "required": [\#(required.joined(separator: ", "))], "additionalProperties": false}"#
    }()

    static func arguments(seed: Int, valid: Bool) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        for i in 0..<20 {
            let k = (seed &* 31 &+ i) & 0xFFF
            switch i % 5 {
            case 0: members.append(("s\(i)", .string(valid ? "ABC-\(10 + k % 9000)" : "abc")))
            case 1: members.append(("e\(i)", .string(valid ? ["economy", "business", "first"][k % 3] : "kelvin")))
            case 2: members.append(("n\(i)", .number(valid ? String(k % 200 * 5) : "1001")))
            case 3: members.append(("t\(i)", .string("text value número \(k)")))
            default: members.append(("b\(i)", k % 3 == 0 ? .null : .bool(k % 2 == 0)))
            }
        }
        return .object(members)
    }

    static func main() throws {
        let args = Array(CommandLine.arguments.dropFirst())
        if let name = args.first {
            guard let w = Hostile.all.first(where: { $0.name == name }) else {
                print("usage: ValidationCost [WORKLOAD]\n\nWith no workload: the 20-property schema, per call.\nWorkloads (each timed once, with its result checked):")
                for w in Hostile.all { print("  \(w.name.padding(16))\(w.what)") }
                if name != "--help" { throw Hostile.Failure(message: "unknown workload \(name)") }
                return
            }
            try w.run()
            return
        }
        try perCall()
    }

    static func perCall() throws {
        let validator = try SchemaValidator(schema: try JSONValue.parse(schema))
        let valid = (0..<1000).map { arguments(seed: $0, valid: true) }
        let invalid = (0..<1000).map { arguments(seed: $0, valid: false) }
        precondition(valid.allSatisfy { validator.validate($0).isEmpty })
        precondition(invalid.allSatisfy { validator.validate($0).count == 16 })
        let clock = ContinuousClock()
        for (label, inputs) in [("valid", valid), ("invalid, 16 violations", invalid)] {
            var best = Duration.seconds(1_000)
            var sink = 0
            for _ in 0..<7 {
                let t = clock.measure {
                    for _ in 0..<20 { for a in inputs { sink &+= validator.validate(a).count } }
                }
                best = min(best, t)
            }
            let ns = Double(best.components.seconds) * 1e9 + Double(best.components.attoseconds) / 1e9
            print("\(label): \(Double(Int(ns / 20_000 / 10)) / 100) µs per call (best of 7 runs of 20,000 calls; \(sink))")
        }
    }
}

extension String {
    fileprivate func padding(_ n: Int) -> String { count >= n ? self + " " : self + String(repeating: " ", count: n - count) }
}

/// The shapes of the bounded-cost issue, one workload each: a schema and a call built here,
/// compiled and checked once, timed, and the result checked (a fast wrong answer fails).
struct Hostile: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    let name: String
    let what: String
    let body: @Sendable () throws -> String

    func run() throws {
        let clock = ContinuousClock()
        var note = ""
        let t = try clock.measure { note = try body() }
        let ms = Double(t.components.seconds) * 1e3 + Double(t.components.attoseconds) / 1e15
        print("\(name): \(Double(Int(ms * 10)) / 10) ms (\(note))")
    }

    static func check(_ ok: Bool, _ message: @autoclosure () -> String) throws {
        if !ok { throw Failure(message: message()) }
    }

    static func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    /// `$defs` d0 … d<depth-1>, each `keyword` over two `$ref`s to the next, the last a string
    /// of at least 5 characters; the property `a` refers to d0.
    static func shared(_ keyword: String, depth: Int) throws -> SchemaValidator {
        var defs = (0..<depth).map { ##""d\##($0)": {"\##(keyword)": [{"$ref": "#/$defs/d\##($0 + 1)"}, {"$ref": "#/$defs/d\##($0 + 1)"}]}"## }
        defs.append(##""d\##(depth)": {"type": "string", "minLength": 5}"##)
        return try SchemaValidator(schema: parse(##"{"$defs": {\##(defs.joined(separator: ", "))}, "properties": {"a": {"$ref": "#/$defs/d0"}}}"##))
    }

    static let all: [Hostile] = [
        Hostile(name: "enum-250x40k", what: "a 250-value enum against 40,000 failing items (a 320 KB call)") {
            let values = (0..<250).map { "\"value-\($0)\"" }.joined(separator: ", ")
            let v = try SchemaValidator(schema: parse(#"{"items": {"enum": [\#(values)]}}"#))
            let r = v.check(.array(Array(repeating: .string("nope"), count: 40_000)))
            try check(r.violations.count == 100 && r.omitted == 39_900, "\(r.violations.count) + \(r.omitted)")
            return "\(r.detail.utf8.count) bytes of detail"
        },
        Hostile(name: "enum-10kx10k", what: "a 10,000-value enum against 10,000 failing items") {
            let values = (0..<10_000).map { "\"value-\($0)\"" }.joined(separator: ", ")
            let v = try SchemaValidator(schema: parse(#"{"items": {"enum": [\#(values)]}}"#))
            let r = v.check(.array(Array(repeating: .string("nope"), count: 10_000)))
            try check(r.violations.count == 100 && r.omitted == 9_900, "\(r.violations.count) + \(r.omitted)")
            return "\(r.detail.utf8.count) bytes of detail"
        },
        Hostile(name: "anyof-20", what: "anyOf over a shared $ref, 20 levels deep, every branch failing") {
            let r = try shared("anyOf", depth: 20).check(parse(#"{"a": "abc"}"#))
            try check(r.violations.count == 1, "\(r.violations.count)")
            return "\(r.detail.utf8.count) bytes of detail"
        },
        Hostile(name: "allof-25", what: "allOf over a shared $ref, 25 levels deep (2^25 violations counted)") {
            let r = try shared("allOf", depth: 25).check(parse(#"{"a": "abc"}"#))
            try check(r.violations.count == 100 && r.omitted == (1 << 25) - 100, "\(r.violations.count) + \(r.omitted)")
            return "\(r.detail.utf8.count) bytes of detail"
        },
        Hostile(name: "pattern-100k", what: "100,000 items of a catastrophic pattern (each match gives up at its limit)") {
            let v = try SchemaValidator(schema: parse(#"{"items": {"type": "string", "pattern": "^(a+)+$"}}"#))
            let item = JSONValue.string(String(repeating: "a", count: 30) + "b")
            let r = v.check(.array(Array(repeating: item, count: 100_000)))
            try check(r.violations.count == 11 && r.violations[0].expected.contains("gave up at their match limit"), "\(r.violations.count)")
            return "stopped after \(r.violations.count - 1) limit hits"
        },
        Hostile(name: "required-100k", what: "compiling required with 100,000 names (and checking an empty call)") {
            let props = (0..<100_000).map { "\"p\($0)\": {\"type\": \"integer\"}" }.joined(separator: ", ")
            let names = (0..<100_000).map { "\"p\($0)\"" }.joined(separator: ", ")
            let v = try SchemaValidator(schema: parse(#"{"properties": {\#(props)}, "required": [\#(names)]}"#))
            let r = v.check(.object([]))
            try check(r.violations.count + r.omitted == 100_000, "\(r.violations.count) + \(r.omitted)")
            return "100,000 missing, 100 listed"
        },
        Hostile(name: "ref-chain-3500", what: "compiling a $ref chain of 3,500 links (refused at load, no stack overflow)") {
            var defs = (0..<3_500).map { ##""d\##($0)": {"$ref": "#/$defs/d\##($0 + 1)"}"## }
            defs.append(##""d3500": {"type": "string"}"##)
            let schema = try parse(##"{"$defs": {\##(defs.joined(separator: ", "))}, "properties": {"a": {"$ref": "#/$defs/d0"}}}"##)
            let reason: String
            do throws(SchemaValidator.SchemaError) {
                _ = try SchemaValidator(schema: schema)
                reason = ""
            } catch {
                reason = error.reason
            }
            try check(reason.contains("too deep to check"), "the chain was accepted (\(reason))")
            return "refused: \(reason.prefix(40))…"
        },
    ]
}
