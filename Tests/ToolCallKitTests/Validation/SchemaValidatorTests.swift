import Testing
@testable import ToolCallKit

/// One row: a keyword, a schema, a value, and the exact violation lines (empty: valid).
struct ValidationCase: CustomTestStringConvertible, Sendable {
    var keyword: String
    var schema: String
    var value: String
    var lines: [String]
    var location: SourceLocation

    init(_ keyword: String, _ schema: String, _ value: String, _ lines: [String] = [],
         location: SourceLocation = #_sourceLocation) {
        self.keyword = keyword
        self.schema = schema
        self.value = value
        self.lines = lines
        self.location = location
    }

    var testDescription: String { "\(keyword): \(value) \(lines.isEmpty ? "valid" : "invalid")" }
}

private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

@Suite("Schema validator")
struct SchemaValidatorTests {
    static let cases: [ValidationCase] = [
        // type
        .init("type", #"{"type": "string"}"#, #""x""#),
        .init("type", #"{"type": "string"}"#, "3", [": expected string, found 3"]),
        .init("type", #"{"type": "integer"}"#, "2.0"),
        .init("type", #"{"type": "integer"}"#, "1e3"),
        .init("type", #"{"type": "integer"}"#, "2.5", [": expected integer, found 2.5"]),
        .init("type", #"{"type": "integer"}"#, "\"2\"", [": expected integer, found \"2\""]),
        .init("type", #"{"type": "number"}"#, "-0.5e-3"),
        .init("type", #"{"type": "boolean"}"#, "null", [": expected boolean, found null"]),
        .init("type", #"{"type": "null"}"#, "null"),
        .init("type", #"{"type": "object"}"#, "[1, 2]", [": expected object, found [1, 2]"]),
        .init("type", #"{"type": "array"}"#, #"{"a": 1}"#, [#": expected array, found {"a": 1}"#]),
        .init("type", #"{"type": ["string", "null"]}"#, "null"),
        .init("type", #"{"type": ["string", "null"]}"#, "true", [": expected one of string, null, found true"]),
        .init("type", #"{"type": "float"}"#, "1.5"),
        // properties
        .init("properties", #"{"properties": {"a": {"type": "string"}}}"#, #"{"a": "x", "b": 1}"#),
        .init("properties", #"{"properties": {"a": {"type": "string"}}}"#, #"{"a": 1}"#, ["/a: expected string, found 1"]),
        .init("properties", #"{"properties": {"a/b~c": {"type": "string"}}}"#, #"{"a/b~c": 1}"#, ["/a~1b~0c: expected string, found 1"]),
        .init("properties", #"{"properties": {"o": {"properties": {"i": {"type": "integer"}}}}}"#, #"{"o": {"i": "x"}}"#,
              [#"/o/i: expected integer, found "x""#]),
        // required
        .init("required", #"{"required": ["a", "b"]}"#, #"{"a": 1, "b": null}"#),
        .init("required", #"{"required": ["a", "b"]}"#, #"{"c": 1}"#,
              ["/a: expected a value (the property is required), found nothing",
               "/b: expected a value (the property is required), found nothing"]),
        .init("required", #"{"required": ["a"]}"#, "[]"),
        // additionalProperties
        .init("additionalProperties", #"{"properties": {"a": {}}, "additionalProperties": false}"#, #"{"a": 1}"#),
        .init("additionalProperties", #"{"properties": {"a": {}, "b": {}}, "additionalProperties": false}"#, #"{"a": 1, "z": [true]}"#,
              ["/z: expected no such property (declared: a, b), found [true]"]),
        .init("additionalProperties", #"{"additionalProperties": false}"#, #"{"z": 1}"#,
              ["/z: expected no such property (declared: none), found 1"]),
        .init("additionalProperties", #"{"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}"#, #"{"a": "s", "n": 3}"#),
        .init("additionalProperties", #"{"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}"#, #"{"n": "3"}"#,
              [#"/n: expected integer, found "3""#]),
        // items
        .init("items", #"{"items": {"type": "integer"}}"#, "[1, 2, 3]"),
        .init("items", #"{"items": {"type": "integer"}}"#, #"[1, "2", 3.5]"#,
              [#"/1: expected integer, found "2""#, "/2: expected integer, found 3.5"]),
        .init("items", #"{"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}"#, #"["a", 1, "b"]"#,
              [#"/2: expected integer, found "b""#]),
        // prefixItems
        .init("prefixItems", #"{"prefixItems": [{"type": "string"}, {"type": "integer"}]}"#, #"["a", 1, null]"#),
        .init("prefixItems", #"{"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}"#, #"["a", 1, null]"#,
              ["/2: expected no value (the schema is false), found null"]),
        .init("prefixItems", #"{"prefixItems": [{"type": "string"}, {"type": "integer"}]}"#, #"[1, "a"]"#,
              ["/0: expected string, found 1", #"/1: expected integer, found "a""#]),
        // enum
        .init("enum", #"{"enum": ["celsius", "fahrenheit"]}"#, #""celsius""#),
        .init("enum", #"{"enum": ["celsius", "fahrenheit"]}"#, #""kelvin""#,
              [#": expected one of ["celsius", "fahrenheit"], found "kelvin""#]),
        .init("enum", #"{"enum": [1, null, {"a": [1]}]}"#, "1.0"),
        .init("enum", #"{"enum": [1, null, {"a": 1, "b": 2}]}"#, #"{"b": 2, "a": 1}"#),
        .init("enum", #"{"enum": [1, 2]}"#, #""1""#, [#": expected one of [1, 2], found "1""#]),
        // const
        .init("const", #"{"const": "v1"}"#, #""v1""#),
        .init("const", #"{"const": "v1"}"#, #""v2""#, [#": expected "v1", found "v2""#]),
        .init("const", #"{"const": 10}"#, "1e1"),
        .init("const", #"{"const": false}"#, "0", [": expected false, found 0"]),
        // minimum / maximum / exclusive / multipleOf
        .init("minimum", #"{"minimum": 1}"#, "1"),
        .init("minimum", #"{"minimum": 1}"#, "0", [": expected at least 1, found 0"]),
        .init("minimum", #"{"minimum": -1.5}"#, "-1.50001", [": expected at least -1.5, found -1.50001"]),
        .init("minimum", #"{"minimum": 1}"#, #""0""#),
        .init("maximum", #"{"maximum": 9}"#, "9.0"),
        .init("maximum", #"{"maximum": 9}"#, "12", [": expected at most 9, found 12"]),
        .init("maximum", #"{"maximum": 9007199254740992}"#, "9007199254740993",
              [": expected at most 9007199254740992, found 9007199254740993"]),
        .init("maximum", #"{"maximum": 1e400}"#, "99999999999999999999999"),
        .init("exclusiveMinimum", #"{"exclusiveMinimum": 0}"#, "0.0001"),
        .init("exclusiveMinimum", #"{"exclusiveMinimum": 0}"#, "0", [": expected more than 0, found 0"]),
        .init("exclusiveMinimum", #"{"minimum": 5, "exclusiveMinimum": true}"#, "5", [": expected more than 5, found 5"]),
        .init("exclusiveMaximum", #"{"exclusiveMaximum": 100}"#, "99.99"),
        .init("exclusiveMaximum", #"{"exclusiveMaximum": 100}"#, "1e2", [": expected less than 100, found 1e2"]),
        .init("multipleOf", #"{"multipleOf": 5}"#, "25"),
        .init("multipleOf", #"{"multipleOf": 5}"#, "12", [": expected a multiple of 5, found 12"]),
        .init("multipleOf", #"{"multipleOf": 0.01}"#, "19.99"),
        .init("multipleOf", #"{"multipleOf": 0.01}"#, "19.999", [": expected a multiple of 0.01, found 19.999"]),
        .init("multipleOf", #"{"multipleOf": 0.1}"#, "0.3"),
        // Beyond Double: 9007199254740995 rounds to ...996 (a multiple), ...993 to ...992 (not one).
        .init("multipleOf", #"{"multipleOf": 3}"#, "9007199254740995", [": expected a multiple of 3, found 9007199254740995"]),
        .init("multipleOf", #"{"multipleOf": 3}"#, "9007199254740993"),
        // minLength / maxLength (Unicode scalars)
        .init("minLength", #"{"minLength": 2}"#, #""é🌍""#),
        .init("minLength", #"{"minLength": 3}"#, #""é🌍""#, [#": expected at least 3 characters, found "é🌍""#]),
        .init("minLength", #"{"minLength": 1}"#, #""""#, [#": expected at least 1 character, found """#]),
        .init("maxLength", #"{"maxLength": 2}"#, #""🌍🌍""#),
        .init("maxLength", #"{"maxLength": 2}"#, #""e\u0301e""#, [#": expected at most 2 characters, found "ée""#]),
        // pattern
        .init("pattern", #"{"pattern": "^[A-Z]{3}$"}"#, #""NRT""#),
        .init("pattern", #"{"pattern": "^[A-Z]{3}$"}"#, #""sfo""#, [#": expected a string matching /^[A-Z]{3}$/, found "sfo""#]),
        .init("pattern", #"{"pattern": "[0-9]"}"#, #""abc1def""#),
        .init("pattern", #"{"pattern": "^.{2}$"}"#, #""é🌍""#),
        .init("pattern", #"{"pattern": "^a"}"#, "42"),
        .init("pattern", #"{"pattern": "^[A-Z]{3}$"}"#, #""SFO\n""#, [#": expected a string matching /^[A-Z]{3}$/, found "SFO\n""#]),
        // minItems / maxItems / uniqueItems
        .init("minItems", #"{"minItems": 2}"#, "[1, 2]"),
        .init("minItems", #"{"minItems": 2}"#, "[1]", [": expected at least 2 items, found [1]"]),
        .init("maxItems", #"{"maxItems": 1}"#, "[]"),
        .init("maxItems", #"{"maxItems": 1}"#, "[1, 2]", [": expected at most 1 item, found [1, 2]"]),
        .init("uniqueItems", #"{"uniqueItems": true}"#, #"[1, "1", [1], {"a": 1}]"#),
        .init("uniqueItems", #"{"uniqueItems": true}"#, #"[1, 2, 1.0, {"a": 1, "b": 2}, {"b": 2, "a": 1}]"#,
              ["/2: expected a unique item (item 0 is the same), found 1.0",
               #"/4: expected a unique item (item 3 is the same), found {"b": 2, "a": 1}"#]),
        .init("uniqueItems", #"{"uniqueItems": false}"#, "[1, 1]"),
        // anyOf / oneOf / allOf / not
        .init("anyOf", #"{"anyOf": [{"type": "string"}, {"type": "null"}]}"#, "null"),
        .init("anyOf", #"{"anyOf": [{"type": "string"}, {"type": "null"}]}"#, "3", [": expected one of string, null, found 3"]),
        .init("anyOf", #"{"anyOf": [{"type": "string", "maxLength": 1}, {"type": "integer", "minimum": 0}]}"#, "-1",
              [": expected a value valid against one of the anyOf alternatives (anyOf[0]: expected string | anyOf[1]: expected at least 0), found -1"]),
        .init("anyOf", #"{"anyOf": [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]}"#, #"{"b": 1}"#,
              [#": expected a value valid against one of the anyOf alternatives (anyOf[0]: /a: expected a value (the property is required), found nothing | anyOf[1]: /b: expected string, found 1), found {"b": 1}"#]),
        .init("oneOf", #"{"oneOf": [{"type": "integer"}, {"type": "string"}]}"#, "1"),
        .init("oneOf", #"{"oneOf": [{"type": "integer"}, {"type": "number"}]}"#, "1",
              [": expected exactly one oneOf alternative to match (oneOf[0], oneOf[1] all match), found 1"]),
        .init("oneOf", #"{"oneOf": [{"type": "integer"}, {"type": "boolean"}]}"#, #""x""#,
              [#": expected one of integer, boolean, found "x""#]),
        .init("allOf", #"{"allOf": [{"minimum": 1}, {"maximum": 3}]}"#, "2"),
        .init("allOf", #"{"allOf": [{"minimum": 1}, {"multipleOf": 2}]}"#, "-1",
              [": expected at least 1, found -1", ": expected a multiple of 2, found -1"]),
        .init("not", #"{"not": {"type": "null"}}"#, "0"),
        .init("not", #"{"not": {"type": "null"}}"#, "null", [#": expected a value not valid against {"type": "null"} ("not"), found null"#]),
        // nullable
        .init("nullable", #"{"type": "string", "nullable": true}"#, "null"),
        .init("nullable", #"{"type": "string", "nullable": true}"#, "1", [": expected one of string, null, found 1"]),
        .init("nullable", #"{"type": "string", "nullable": false}"#, "null", [": expected string, found null"]),
        // $ref
        .init("$ref", ##"{"properties": {"u": {"$ref": "#/$defs/unit"}}, "$defs": {"unit": {"enum": ["c", "f"]}}}"##, ##"{"u": "c"}"##),
        .init("$ref", ##"{"properties": {"u": {"$ref": "#/$defs/unit"}}, "$defs": {"unit": {"enum": ["c", "f"]}}}"##, ##"{"u": "k"}"##,
              [#"/u: expected one of ["c", "f"], found "k""#]),
        .init("$ref", ##"{"properties": {"p": {"$ref": "#/definitions/pt"}}, "definitions": {"pt": {"required": ["x"]}}}"##, ##"{"p": {}}"##,
              ["/p/x: expected a value (the property is required), found nothing"]),
        .init("$ref", ##"{"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}, "v": {"type": "integer"}}}}, "$ref": "#/$defs/node"}"##,
              #"{"v": 1, "next": {"v": 2, "next": {"v": "three"}}}"#,
              [#"/next/next/v: expected integer, found "three""#]),
        // boolean schemas
        .init("false", #"{"properties": {"a": false}}"#, #"{"a": 1}"#, ["/a: expected no value (the schema is false), found 1"]),
        .init("true", #"{"properties": {"a": true}}"#, #"{"a": 1}"#),
    ]

    @Test("each keyword: valid values pass, invalid ones give the exact lines", arguments: cases)
    func keyword(_ c: ValidationCase) throws {
        let v = try SchemaValidator(schema: try json(c.schema))
        let lines = v.validate(try json(c.value)).map(\.description)
        #expect(lines == c.lines, sourceLocation: c.location)
        #expect(v.warnings.isEmpty, sourceLocation: c.location)
    }

    @Test("every violation is listed, in a stable order")
    func manyViolations() throws {
        let schema = try json(#"""
            {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]},
             "days": {"type": "integer", "minimum": 1}, "tags": {"type": "array", "maxItems": 1}},
             "required": ["city", "unit"], "additionalProperties": false}
            """#)
        let value = try json(#"{"tags": ["a", "b"], "days": 0, "x": null, "unit": "kelvin"}"#)
        let v = try SchemaValidator(schema: schema)
        let expected = [
            #"/tags: expected at most 1 item, found ["a", "b"]"#,
            "/days: expected at least 1, found 0",
            "/x: expected no such property (declared: city, unit, days, tags), found null",
            #"/unit: expected one of ["celsius", "fahrenheit"], found "kelvin""#,
            "/city: expected a value (the property is required), found nothing",
        ]
        #expect(v.validate(value).map(\.description) == expected)
        #expect(v.validate(value) == v.validate(value))
    }

    @Test("a long found value is cut at 120 bytes with an ellipsis")
    func longFound() throws {
        let v = try SchemaValidator(schema: try json(#"{"maxLength": 3}"#))
        let lines = v.validate(.string(String(repeating: "é", count: 500)))
        let found = try #require(lines.first?.found)
        #expect(found.hasSuffix("…"))
        #expect(found.utf8.count <= 124)
        #expect(found.hasPrefix("\"éé"))
    }

    @Test("catastrophic backtracking hits the match limit: a violation, not a hang")
    func patternCap() throws {
        let v = try SchemaValidator(schema: try json(#"{"pattern": "^(a+)+$"}"#))
        let subject = String(repeating: "a", count: 5000) + "b"
        let clock = ContinuousClock()
        var lines: [SchemaValidator.Violation] = []
        let took = clock.measure { lines = v.validate(.string(subject)) }
        #expect(lines.count == 1)
        #expect(lines.first?.expected == "a string matching /^(a+)+$/ (the match gave up at its limit)")
        #expect(took < .seconds(5), "took \(took)")
        // A short subject of the same shape is still judged normally.
        #expect(v.validate(.string("aaaa")).isEmpty)
        #expect(v.validate(.string("aab")).map(\.expected) == ["a string matching /^(a+)+$/"])
    }

    @Test("one compiled pattern is shared by properties and by concurrent validations")
    func sharedPattern() async throws {
        let v = try SchemaValidator(schema: try json(#"""
            {"properties": {"a": {"pattern": "^[A-Z]{3}$"}, "b": {"pattern": "^[A-Z]{3}$"}, "c": {"pattern": "x"}}}
            """#))
        #expect(v.patterns.count == 2)
        let good = try json(#"{"a": "ABC", "b": "XYZ", "c": "x"}"#)
        let bad = try json(#"{"a": "abc", "b": "XYZ", "c": "y"}"#)
        let results = await withTaskGroup(of: Int.self) { group in
            for i in 0..<64 {
                group.addTask { v.validate(i % 2 == 0 ? good : bad).count }
            }
            var out: [Int] = []
            for await n in group { out.append(n) }
            return out
        }
        #expect(results.sorted() == Array(repeating: 0, count: 32) + Array(repeating: 2, count: 32))
    }

    @Test("unsupported keywords are listed once at load; annotations are not", arguments: [
        (#"{"type": "object", "description": "d", "title": "t", "default": {}, "examples": [], "$schema": "x", "format": "date", "x-foo": 1}"#, [String]()),
        (#"{"minProperties": 1, "properties": {"a": {"patternProperties": {}, "format": "uri"}}}"#,
         [##"#: keyword "minProperties" is not checked"##, ##"#/properties/a: keyword "patternProperties" is not checked"##]),
        (#"{"if": {}, "then": {}, "$defs": {"unused": {"contains": {}}}}"#,
         [#"#: keyword "if" is not checked"#, #"#: keyword "then" is not checked"#]),
    ])
    func warnings(schema: String, warnings: [String]) throws {
        let v = try SchemaValidator(schema: try json(schema))
        #expect(v.warnings == warnings)
    }

    @Test("an invalid schema is an error at load, naming where and why", arguments: [
        (#"{"properties": {"origin": {"pattern": "^[A-Z"}}}"#,
         ##"#/properties/origin/pattern: pattern "^[A-Z" does not compile: missing terminating ] for character class at offset 5"##),
        (##"{"properties": {"u": {"$ref": "#/$defs/unit"}}}"##, ##"#/properties/u/$ref: $ref "#/$defs/unit" points nowhere"##),
        (##"{"$ref": "other.json#/a"}"##, ##"#/$ref: $ref "other.json#/a" is not local (only #/… references into the same schema are supported)"##),
        (#"{"properties": {"a": {}}, "required": ["a", "b"], "additionalProperties": false}"#,
         ##"#/required: required property "b" is not declared in properties and additionalProperties is false"##),
        (##"{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}"##,
         "#/$defs/a: a $ref cycle that never reaches a value"),
        (##"{"type": "int"}"##, ##"#/type: unknown type "int""##),
        (##"{"minimum": "3"}"##, "#/minimum: minimum must be a number"),
        (##"{"multipleOf": 0}"##, "#/multipleOf: multipleOf must be a number greater than 0"),
        (##"{"maxLength": 1.5}"##, "#/maxLength: maxLength must be a non-negative integer"),
        (##"{"anyOf": []}"##, "#/anyOf: anyOf must be a non-empty list of schemas"),
        ("3", "#: a schema must be an object or a boolean"),
    ])
    func schemaErrors(schema: String, message: String) throws {
        let parsed = try json(schema)
        #expect(throws: SchemaValidator.SchemaError.self) { try SchemaValidator(schema: parsed) }
        do throws(SchemaValidator.SchemaError) {
            _ = try SchemaValidator(schema: parsed)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("required naming an undeclared property is fine when additional properties are allowed")
    func requiredOpen() throws {
        let v = try SchemaValidator(schema: try json(#"{"properties": {"a": {}}, "required": ["b"]}"#))
        #expect(v.validate(try json(#"{"b": 1}"#)).isEmpty)
    }

    @Test("a tools file with a bad schema fails at compile time naming the tool; warnings name it too")
    func toolSetErrors() throws {
        let bad = #"[{"type": "function", "function": {"name": "f", "parameters": {"properties": {"a": {"pattern": "("}}}}}]"#
        let tools = try ToolSet.load(json: Array(bad.utf8))
        #expect(throws: ToolSet.LoadError.self) { try tools.compilingValidators() }
        do throws(ToolSet.LoadError) {
            _ = try tools.compilingValidators()
        } catch {
            #expect(error.message == #"tool "f": #/properties/a/pattern: pattern "(" does not compile: missing closing parenthesis at offset 1"#)
        }
        let warn = #"[{"name": "g", "parameters": {"type": "object", "maxProperties": 3}}]"#
        let ok = try ToolSet.load(json: Array(warn.utf8)).compilingValidators()
        #expect(ok.validationWarnings == [#"tool "g": #: keyword "maxProperties" is not checked"#])
        #expect(try ok.validator(for: "g")?.validate(.object([])) == [])
        #expect(try ok.validator(for: "nope") == nil)
    }

    @Test("exact numbers: comparison, integrality and divisibility", arguments: [
        ("1", "1.0", 0), ("-0", "0", 0), ("1e2", "100", 0), ("0.1", "0.10000000000000001", -1),
        ("-2", "-10", 1), ("123456789012345678901234567890", "123456789012345678901234567891", -1),
        ("1e-400", "0", 1), ("-1e-400", "0", -1),
    ])
    func exactCompare(a: String, b: String, order: Int) throws {
        let x = try #require(ExactNumber(a)), y = try #require(ExactNumber(b))
        #expect(ExactNumber.compare(x, y) == order)
        #expect(ExactNumber.compare(y, x) == -order)
    }
}
