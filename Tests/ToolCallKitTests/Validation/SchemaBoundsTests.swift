import Testing
@testable import ToolCallKit

private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

private func schemaError(_ schema: JSONValue) -> String? {
    do throws(SchemaValidator.SchemaError) {
        _ = try SchemaValidator(schema: schema)
        return nil
    } catch {
        return error.description
    }
}

/// `$defs` of `count` schemas, `d0` … `d<count-1>`, each made by `body(i)`.
private func defs(_ count: Int, _ body: (Int) -> String) -> String {
    (0..<count).map { "\"d\($0)\": \(body($0))" }.joined(separator: ", ")
}

/// What a schema and a call may cost: bounded by their sizes, never their product or an
/// exponential of them; a schema that could not be checked within bounds is refused at load.
@Suite("Schema validator: bounded cost")
struct SchemaBoundsTests {
    @Test("a $ref chain of 3,500 links is refused at load with a clear error (no stack overflow)")
    func longRefChain() throws {
        let n = 3_500
        let schema = try json(##"{"$defs": {"## + defs(n) { ##"{"$ref": "#/$defs/d\##($0 + 1)"}"## }
            + ##", "d\##(n)": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/d0"}}}"##)
        let m = try #require(schemaError(schema))
        #expect(m.hasSuffix("a chain of more than 64 $ref/allOf/anyOf/oneOf/not steps on one value starts here; it is too deep to check"), "\(m)")
        #expect(m.hasPrefix("#/$defs/d"))
    }

    @Test("a chain of 60 links compiles and is followed to its end")
    func shortRefChain() throws {
        let schema = try json(##"{"$defs": {"## + defs(60) { ##"{"$ref": "#/$defs/d\##($0 + 1)"}"## }
            + ##", "d60": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/d0"}}}"##)
        let v = try SchemaValidator(schema: schema)
        #expect(v.validate(try json(#"{"a": "x"}"#)).isEmpty)
        #expect(v.validate(try json(#"{"a": 1}"#)).map(\.description) == ["/a: expected string, found 1"])
    }

    @Test("3,000 $refs that each descend a level compile without recursion")
    func descendingChain() throws {
        let n = 3_000
        let schema = try json(##"{"$defs": {"## + defs(n) { ##"{"type": "object", "properties": {"x": {"$ref": "#/$defs/d\##($0 + 1)"}}}"## }
            + ##", "d\##(n)": {"type": "integer"}}, "$ref": "#/$defs/d0"}"##)
        let v = try SchemaValidator(schema: schema)
        #expect(v.validate(try json(#"{"x": {"x": {}}}"#)).isEmpty)
        #expect(v.validate(try json(#"{"x": {"x": "deep"}}"#)).map(\.description) == [#"/x/x: expected object, found "deep""#])
    }

    @Test("a value as deep as the parser allows is checked against a recursive schema")
    func deepValue() throws {
        let v = try SchemaValidator(schema: try json(##"{"type": ["array", "integer"], "items": {"$ref": "#"}}"##))
        let depth = 500
        let good = try json(String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth))
        #expect(v.validate(good).isEmpty)
        let bad = try json(String(repeating: "[", count: depth) + "\"x\"" + String(repeating: "]", count: depth))
        let lines = v.validate(bad)
        #expect(lines.count == 1)
        #expect(lines.first?.pointer == String(repeating: "/0", count: depth))
    }

    @Test("an enum violation quotes a bounded part of the enum, made once; at most 100 violations are listed")
    func enumQuotes() throws {
        let values = (0..<10_000).map { "\"value-\($0)\"" }.joined(separator: ", ")
        let v = try SchemaValidator(schema: try json(#"{"items": {"enum": [\#(values)]}}"#))
        let report = v.check(.array(Array(repeating: .string("nope"), count: 2_000)))
        #expect(report.violations.count == 100)
        #expect(report.omitted == 1_900)
        let first = try #require(report.violations.first)
        #expect(first.expected.hasPrefix(#"one of ["value-0", "value-1", "#))
        #expect(first.expected.hasSuffix(" more]"))
        #expect(first.expected.utf8.count <= SchemaValidator.maxQuotedBytes + 40)
        #expect(report.detail.hasSuffix("\nand 1900 more violations"))
        #expect(report.detail.utf8.count < 40_000)
        // A short enum is still quoted whole.
        let small = try SchemaValidator(schema: try json(#"{"enum": ["a", "b"], "const": "a"}"#))
        #expect(small.validate(.string("c")).map(\.expected) == [#"one of ["a", "b"]"#, #""a""#])
    }

    @Test("anyOf over a shared $ref, 30 levels deep: one short violation, worked out once per level")
    func anyOfShared() throws {
        let depth = 30
        let schema = try json(##"{"$defs": {"## + defs(depth) { ##"{"anyOf": [{"$ref": "#/$defs/d\##($0 + 1)"}, {"$ref": "#/$defs/d\##($0 + 1)"}]}"## }
            + ##", "d\##(depth)": {"type": "string", "minLength": 5}}, "properties": {"a": {"$ref": "#/$defs/d0"}}}"##)
        let v = try SchemaValidator(schema: schema)
        #expect(v.validate(try json(#"{"a": "long enough"}"#)).isEmpty)
        let report = v.check(try json(#"{"a": "abc"}"#))
        #expect(report.violations.count == 1)
        #expect(report.omitted == 0)
        #expect(report.detail.hasPrefix("/a: expected a value valid against one of the anyOf alternatives ("))
        #expect(report.detail.utf8.count <= SchemaValidator.maxExpectedBytes + 200)
    }

    @Test("allOf over a shared $ref, 30 levels deep: 2^30 violations counted, 100 listed")
    func allOfShared() throws {
        let depth = 30
        let schema = try json(##"{"$defs": {"## + defs(depth) { ##"{"allOf": [{"$ref": "#/$defs/d\##($0 + 1)"}, {"$ref": "#/$defs/d\##($0 + 1)"}]}"## }
            + ##", "d\##(depth)": {"type": "string", "minLength": 5}}, "properties": {"a": {"$ref": "#/$defs/d0"}}}"##)
        let v = try SchemaValidator(schema: schema)
        #expect(v.validate(try json(#"{"a": "long enough"}"#)).isEmpty)
        let report = v.check(try json(#"{"a": "abc"}"#))
        #expect(report.violations.count == 100)
        #expect(report.omitted == (1 << 30) - 100)
        #expect(report.violations.allSatisfy { $0.description == #"/a: expected at least 5 characters, found "abc""# })
    }

    @Test("pattern matches that give up at their limit are budgeted per call: then the call stops, saying why")
    func patternBudget() throws {
        let schema = try json(#"{"items": {"type": "string", "pattern": "^(a+)+$"}}"#)
        let v = try SchemaValidator(schema: schema, budget: .init(patternLimitHits: 3))
        let item = JSONValue.string(String(repeating: "a", count: 40) + "b")
        let report = v.check(.array(Array(repeating: item, count: 1_000)))
        #expect(report.violations.count == 4)
        #expect(report.omitted == 0)
        let stop = report.violations[0]
        #expect(stop.pointer == "/2")
        #expect(stop.expected.contains("3 matches gave up at their match limit; the rest of the call was not checked"))
        #expect(report.violations.dropFirst().map(\.pointer) == ["/0", "/1", "/2"])
        #expect(report.violations.dropFirst().allSatisfy { $0.expected.hasSuffix("(the match gave up at its limit)") })
        // Patterns that answer normally cost no limit hits.
        #expect(v.check(.array(Array(repeating: .string("aaaa"), count: 1_000))).isValid)
    }

    @Test("once a call's pattern budget is spent, a match gets steps in proportion to its string")
    func patternSteps() throws {
        let budget = SchemaValidator.Budget(patternLimitHits: 1_000, patternSteps: 0, patternStepsPerByte: 100)
        let linear = try SchemaValidator(schema: try json(#"{"items": {"pattern": "^[a-z]+(-[a-z]+)*$"}}"#), budget: budget)
        let long = JSONValue.string(Array(repeating: String(repeating: "x", count: 50), count: 200).joined(separator: "-"))
        #expect(linear.check(.array(Array(repeating: long, count: 50))).isValid)
        #expect(linear.validate(.array([.string("a-"), .string("ok")])).map(\.pointer) == ["/0"])
        let catastrophic = try SchemaValidator(schema: try json(#"{"items": {"pattern": "^(a+)+$"}}"#), budget: budget)
        let item = JSONValue.string(String(repeating: "a", count: 40) + "b")
        let report = catastrophic.check(.array(Array(repeating: item, count: 20)))
        #expect(report.violations.count == 20)
        #expect(report.violations[0].expected == "a string matching /^(a+)+$/ (the match gave up at its limit of 4200 steps, the call's pattern budget being spent)")
    }

    @Test("the number of schema checks per call is budgeted, growing with the call's size")
    func stepBudget() throws {
        // Eight distinct alternatives that all fail: every item costs about ten checks.
        let branches = (0..<8).map { #"{"const": \#($0)}"# }.joined(separator: ", ")
        let schema = try json(#"{"items": {"anyOf": [\#(branches)]}}"#)
        let tight = try SchemaValidator(schema: schema, budget: .init(baseSteps: 50, stepsPerValue: 1))
        let report = tight.check(.array(Array(repeating: .number("9"), count: 100)))
        #expect(report.violations.first?.expected.hasPrefix("a call that can be checked within ") == true)
        // About 150 checks allowed (50 plus one per value): the call stops after some 16 items.
        #expect(report.violations.count > 2 && report.violations.count < 25)
        #expect(!report.violations.contains { $0.pointer == "/99" })
        // The default allowance covers the same call.
        let roomy = try SchemaValidator(schema: schema)
        #expect(roomy.check(.array(Array(repeating: .number("9"), count: 100))).violations.count == 100)
        #expect(roomy.check(.array(Array(repeating: .number("3"), count: 10_000))).isValid)
    }

    @Test("required with 50,000 names compiles in linear time and reports missing names in order")
    func manyRequired() throws {
        let n = 50_000
        let props = (0..<n).map { "\"p\($0)\": {\"type\": \"integer\"}" }.joined(separator: ", ")
        let names = (0..<n).map { "\"p\($0)\"" }.joined(separator: ", ")
        let v = try SchemaValidator(schema: try json(#"{"properties": {\#(props)}, "required": [\#(names), "p0"]}"#))
        let report = v.check(try json(#"{"p1": 1}"#))
        #expect(report.violations.first?.description == "/p0: expected a value (the property is required), found nothing")
        #expect(report.violations.dropFirst().first?.pointer == "/p2")
        #expect(report.violations.count + report.omitted == n - 1)
    }

    @Test("a tool's invalid_arguments detail ends with the count of violations left out")
    func toolSetDetail() throws {
        let tools = try ToolSet.load(json: Array(#"[{"name": "f", "parameters": {"properties": {"a": {"items": {"type": "integer"}}}}}]"#.utf8))
            .compilingValidators()
        let detail = try #require(tools.validationFailure(name: "f", arguments: .object([(key: "a", value: .array(Array(repeating: .string("x"), count: 150)))])))
        let lines = detail.split(separator: "\n")
        #expect(lines.count == 101)
        #expect(lines.first == #"/a/0: expected integer, found "x""#)
        #expect(lines.last == "and 50 more violations")
    }
}
