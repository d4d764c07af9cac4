// Time per call of SchemaValidator.validate for a 20-property tool schema, in a release build.

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
