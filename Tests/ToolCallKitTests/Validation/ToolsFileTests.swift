import Foundation
import Testing
@testable import ToolCallKit

private func load(_ text: String) throws -> ToolSet { try ToolSet.load(json: Array(text.utf8)) }

private func loadError(_ text: String) -> String? {
    do throws(ToolSet.LoadError) {
        _ = try ToolSet.load(json: Array(text.utf8))
        return nil
    } catch {
        return error.message
    }
}

/// The calls a decoder accepts and rejects for `input`, with validation on.
private func decode(_ format: ToolCallFormat, _ input: String, tools: ToolSet) -> (calls: [ToolCall], rejected: [RejectedToolCall]) {
    var d = ToolCallDecoder(format: format, tools: tools, options: .init(validate: true))
    let events = d.feed(Array(input.utf8)[...]) + d.finish()
    var calls: [ToolCall] = []
    var rejected: [RejectedToolCall] = []
    for e in events {
        if case .toolCall(let c) = e { calls.append(c) }
        if case .rejected(let r) = e { rejected.append(r) }
    }
    return (calls, rejected)
}

@Suite("Tools files: every shape a server receives, and nothing that silently drops a schema")
struct ToolsFileTests {
    static let zipSchema = ##"{"type": "object", "properties": {"zip": {"$ref": "#/$defs/zip"}}, "required": ["zip"], "$defs": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}"##

    @Test("Anthropic's input_schema is the schema: --validate checks it")
    func inputSchema() throws {
        let tools = try load(#"[{"name": "f", "description": "d", "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}]"#)
        #expect(tools.warnings.isEmpty)
        #expect(tools["f"]?.parameters["required"] == .array([.string("n")]))
        let compiled = try tools.compilingValidators()
        #expect(compiled.validationFailure(name: "f", arguments: .object([])) == "/n: expected a value (the property is required), found nothing")
    }

    @Test("a key that is not read is a warning naming the key and the tool", arguments: [
        (#"[{"name": "f", "paramters": {"type": "object"}}]"#,
         [#"tool "f": unknown key "paramters" ignored (read: name, description, parameters or input_schema)"#]),
        (#"[{"type": "function", "function": {"name": "g", "parameters": {}, "strict": true}, "extra": 1}]"#,
         [#"tool "g": unknown key "extra" beside "function" ignored (read: name, description, parameters or input_schema)"#]),
        (#"[{"name": "h", "input_schema": {}, "cache_control": {"type": "ephemeral"}}]"#, []),
    ])
    func unknownKeys(text: String, warnings: [String]) throws {
        #expect(try load(text).warnings == warnings)
    }

    @Test("two tools with one name, or a schema given twice, are errors", arguments: [
        (#"[{"name": "f"}, {"type": "function", "function": {"name": "f"}}]"#, #"tools 0 and 1 are both named "f""#),
        (#"[{"name": "f", "parameters": {}, "input_schema": {}}]"#, #"tool "f": both parameters and input_schema are given"#),
        (#"[{"name": "f", "input_schema": []}]"#, #"tool "f": input_schema is not an object"#),
        (#"{"model": "m", "messages": []}"#, #"expected a JSON array of tools, or a request body with a "tools" array"#),
    ])
    func errors(text: String, message: String) {
        #expect(loadError(text) == message)
    }

    @Test("an OpenAI request body is read for its tools")
    func requestBody() throws {
        let tools = try load(#"{"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}], "tool_choice": "auto"}"#)
        #expect(tools.tools.map(\.name) == ["f"])
        #expect(tools.warnings.isEmpty)
    }

    @Test("an empty list warns that every call will be rejected (and does reject it)")
    func emptyList() throws {
        let tools = try load("[]")
        #expect(tools.warnings == ["the tools list is empty: every call will be rejected as undeclared"])
        let r = decode(.json, #"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#, tools: tools)
        #expect(r.calls.isEmpty)
        #expect(r.rejected.count == 1)
    }

    @Test("ToolSet(_:) keeps the first of two tools with one name and says so")
    func duplicateInit() {
        let set = ToolSet([ToolDefinition(name: "f"), ToolDefinition(name: "f", parameters: .bool(false))])
        #expect(set["f"]?.parameters == ToolDefinition(name: "f").parameters)
        #expect(set.warnings == [#"tool 1: the name "f" is already declared by tool 0; this one is ignored"#])
    }

    // MARK: - Typing reads the compiled schema

    @Test("a $ref to a string types digits as a string, and --validate accepts the call", arguments: [
        ToolCallFormat.xmlFunction, .minimaxM2, .glm4,
    ])
    func refTypedString(format: ToolCallFormat) throws {
        let tools = ToolSet([ToolDefinition(name: "f", parameters: try JSONValue.parse(Array(Self.zipSchema.utf8)))])
        let input: String
        switch format {
        case .xmlFunction: input = "<tool_call>\n<function=f>\n<parameter=zip>\n12345\n</parameter>\n</function>\n</tool_call>"
        case .minimaxM2: input = #"<minimax:tool_call><invoke name="f"><parameter name="zip">12345</parameter></invoke></minimax:tool_call>"#
        default: input = "<tool_call>f<arg_key>zip</arg_key><arg_value>12345</arg_value></tool_call>"
        }
        let r = decode(format, input, tools: tools)
        #expect(r.rejected.isEmpty, "\(r.rejected)")
        #expect(r.calls.first?.arguments == .object([(key: "zip", value: .string("12345"))]))
    }

    @Test("typing follows $ref and allOf, and intersects what they say", arguments: [
        (##"{"properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}}"##, "a", ["integer"]),
        (#"{"properties": {"a": {"allOf": [{"type": ["integer", "string"]}, {"type": "string"}]}}}"#, "a", ["string"]),
        (#"{"properties": {"a": {"type": "number", "allOf": [{"type": "integer"}]}}}"#, "a", ["integer"]),
        (#"{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}"#, "a", ["integer", "null"]),
        (#"{"properties": {"a": {"type": ["integer", "string"], "enum": ["1", "2"]}}}"#, "a", ["string"]),
        (##"{"allOf": [{"$ref": "#/$defs/base"}], "$defs": {"base": {"properties": {"b": {"type": "boolean"}}}}}"##, "b", ["boolean"]),
        (#"{"properties": {"a": {"description": "no type"}}}"#, "a", []),
        // A schema the validator cannot compile: the property as written.
        (##"{"properties": {"a": {"type": "integer", "$ref": "#/nowhere"}}}"##, "a", ["integer"]),
    ])
    func typingSchema(schema: String, key: String, types: [String]) throws {
        let tool = ToolDefinition(name: "f", parameters: try JSONValue.parse(Array(schema.utf8)))
        #expect(SchemaTyping.types(of: tool.typingSchema(forArgument: key)) == types)
    }

    @Test("naming a call by its keys reads the compiled schema too ($ref and allOf)")
    func keysThroughRefs() throws {
        let tools = try load(##"""
            [{"name": "read_file", "parameters": {"$ref": "#/$defs/p", "$defs": {"p": {"properties": {"path": {"type": "string"}}, "required": ["path"]}}}},
             {"name": "get_weather", "parameters": {"allOf": [{"properties": {"city": {"type": "string"}}}], "properties": {"unit": {}}}}]
            """##)
        func names(_ args: String) throws -> [String] {
            tools.tools(admittingKeysOf: try JSONValue.parse(Array(args.utf8))).map(\.name)
        }
        #expect(try names(#"{"city": "Oslo"}"#) == ["get_weather"])
        #expect(try names(#"{"city": "Oslo", "unit": "c"}"#) == ["get_weather"])
        #expect(try names(#"{"path": "/a"}"#) == ["read_file"])
        #expect(try names(#"{"query": "x"}"#) == [])
    }

    @Test("changing a definition's parameters changes its typing")
    func typingFollowsParameters() throws {
        var tool = ToolDefinition(name: "f")
        #expect(tool.typingSchema(forArgument: "a") == nil)
        tool.parameters = try JSONValue.parse(Array(#"{"properties": {"a": {"type": "string"}}}"#.utf8))
        #expect(SchemaTyping.types(of: tool.typingSchema(forArgument: "a")) == ["string"])
    }

    // MARK: - The CLI

    @Test("the CLI prints each load warning on one stderr line, and exits 1 on a duplicate name")
    func cli() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("toolcall-tools-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(#"[{"name": "f", "paramters": {}, "descripton": "x"}]"#.utf8).write(to: url)
        let r = try CLI.run(["decode", "--format", "json", "--tools", url.path], stdin: "hi")
        #expect(r.status == 0)
        #expect(r.stderr == """
            toolcall: warning: --tools \(url.path): tool "f": unknown key "paramters" ignored (read: name, description, parameters or input_schema)
            toolcall: warning: --tools \(url.path): tool "f": unknown key "descripton" ignored (read: name, description, parameters or input_schema)

            """)
        try Data(#"[{"name": "f"}, {"name": "f"}]"#.utf8).write(to: url)
        let dup = try CLI.run(["decode", "--format", "json", "--tools", url.path])
        #expect(dup.status == 1)
        #expect(dup.stderr == "toolcall: --tools \(url.path): tools 0 and 1 are both named \"f\"\n")
    }
}
