import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// The Responses and Anthropic encoders (`--output responses`, `--output anthropic`): their
/// shape, withdrawn and held calls, tool-use ids, and the same reassembled output at every
/// chunking of every format fixture. (python/tests/test_stream_apis.py reads the same streams
/// back with the official openai and anthropic clients.)
@Suite("Responses and Anthropic stream output")
struct StreamAPIEncoderTests {
    /// The events of `input` decoded in pieces cut at `splits`.
    static func events(_ format: ToolCallFormat, _ input: [UInt8], splits: [Int] = [], tools: ToolSet? = nil,
                       options: ToolCallDecoder.Options = .init(idSeed: 1, reasoning: true)) -> [ToolCallEvent] {
        ChunkingCheck(format: format, tools: tools, options: options).decode(input, splits: splits)
    }

    static func responses(_ events: [ToolCallEvent]) throws -> (lines: [JSONValue], diagnostics: [String]) {
        var enc = ResponsesEventEncoder(model: "m", createdAt: 1_700_000_000, seed: 1)
        var lines: [JSONValue] = []
        var diagnostics: [String] = []
        for e in events {
            let out = enc.encode(e)
            lines += try out.lines.map { try JSONValue.parse($0) }
            diagnostics += out.diagnostics
        }
        return (lines, diagnostics)
    }

    static func anthropic(_ events: [ToolCallEvent]) throws -> (lines: [JSONValue], diagnostics: [String]) {
        var enc = AnthropicEventEncoder(model: "m", seed: 1)
        var lines: [JSONValue] = []
        var diagnostics: [String] = []
        for e in events {
            let out = enc.encode(e)
            lines += try out.lines.map { try JSONValue.parse($0) }
            diagnostics += out.diagnostics
        }
        return (lines, diagnostics)
    }

    /// What a Responses client assembles, checked on the way: sequence numbers 0, 1, 2...;
    /// every item added once and done once; each item's deltas join to its done text or
    /// arguments; `response.completed` last, its output the done items in order. Returns the
    /// completed response's output.
    static func reassembleResponses(_ lines: [JSONValue], label: String) -> [JSONValue] {
        #expect(lines.enumerated().allSatisfy { Int($1["sequence_number"]?.doubleValue ?? -1) == $0 }, "[\(label)] sequence numbers")
        #expect(lines.prefix(2).map { $0["type"]?.stringValue } == ["response.created", "response.in_progress"], "[\(label)]")
        var joined: [Int: String] = [:]
        var done: [Int: JSONValue] = [:]
        var added: Set<Int> = []
        for l in lines {
            let index = Int(l["output_index"]?.doubleValue ?? -1)
            switch l["type"]?.stringValue ?? "" {
            case "response.output_item.added":
                #expect(added.insert(index).inserted, "[\(label)] item \(index) added twice")
            case "response.output_text.delta", "response.reasoning_text.delta", "response.function_call_arguments.delta":
                #expect(added.contains(index) && done[index] == nil, "[\(label)] a delta outside its item")
                joined[index, default: ""] += l["delta"]?.stringValue ?? ""
            case "response.output_item.done":
                #expect(done[index] == nil, "[\(label)] item \(index) done twice")
                done[index] = l["item"]
            default: break
            }
        }
        #expect(added == Set(done.keys), "[\(label)] every item added is done")
        for (index, item) in done {
            let final = item["arguments"]?.stringValue ?? item["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
            #expect(joined[index, default: ""] == final, "[\(label)] item \(index): deltas join to the item")
        }
        let last = lines.last
        #expect(last?["type"]?.stringValue == "response.completed", "[\(label)]")
        let output = last?["response"]?["output"]?.arrayValue ?? []
        #expect(output == done.keys.sorted().compactMap { done[$0] }, "[\(label)] completed output")
        return output
    }

    /// What an Anthropic client assembles: the message's blocks, with each block's deltas
    /// joined (`input` kept as the joined JSON text), and the stop reason.
    static func reassembleAnthropic(_ lines: [JSONValue], label: String) -> (blocks: [JSONValue], stop: String?) {
        #expect(lines.first?["type"]?.stringValue == "message_start", "[\(label)]")
        #expect(lines.last?["type"]?.stringValue == "message_stop", "[\(label)]")
        var blocks: [(start: JSONValue, text: String, open: Bool)] = []
        var stop: String?
        for l in lines {
            let index = Int(l["index"]?.doubleValue ?? -1)
            switch l["type"]?.stringValue ?? "" {
            case "content_block_start":
                #expect(index == blocks.count && !(blocks.last?.open ?? false), "[\(label)] blocks in order, one open at a time")
                blocks.append((l["content_block"] ?? .null, "", true))
            case "content_block_delta":
                guard index == blocks.count - 1, blocks[index].open else {
                    Issue.record("[\(label)] a delta outside its block")
                    continue
                }
                let d = l["delta"]
                blocks[index].text += d?["text"]?.stringValue ?? d?["thinking"]?.stringValue ?? d?["partial_json"]?.stringValue ?? ""
            case "content_block_stop":
                #expect(index == blocks.count - 1 && blocks[index].open, "[\(label)] stop of the open block")
                if index >= 0 && index < blocks.count { blocks[index].open = false }
            case "message_delta":
                stop = l["delta"]?["stop_reason"]?.stringValue
            default: break
            }
        }
        #expect(blocks.allSatisfy { !$0.open }, "[\(label)] every block stopped")
        return (blocks.map { b in
            .object([(key: "start", value: b.start), (key: "text", value: .string(b.text))])
        }, stop)
    }

    @Test("the Responses shape: reasoning, message and function_call items, response.completed with the whole output")
    func responsesShape() throws {
        let input = Array("<think>plan</think>Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": [1, 2]}}</tool_call>".utf8)
        let r = try Self.responses(Self.events(.json, input, splits: Chunkings.offsets(cycling: [3], count: input.count)))
        let output = Self.reassembleResponses(r.lines, label: "shape")
        #expect(output.map { $0["type"]?.stringValue } == ["reasoning", "message", "function_call"])
        #expect(output[0]["content"]?.arrayValue?.first?["text"]?.stringValue == "plan")
        #expect(output[1]["content"]?.arrayValue?.first?["text"]?.stringValue == "Hi ")
        let call = output[2]
        #expect(call["status"]?.stringValue == "completed")
        #expect(call["name"]?.stringValue == "f")
        #expect(call["call_id"]?.stringValue?.hasPrefix("call_") == true)
        #expect(call["id"]?.stringValue?.hasPrefix("fc_") == true)
        #expect(try JSONValue.parse(call["arguments"]?.stringValue ?? "") == JSONValue.parse(#"{"a": [1, 2]}"#))
        let kinds = r.lines.map { $0["type"]?.stringValue ?? "" }
        #expect(kinds.filter { $0 == "response.function_call_arguments.done" }.count == 1)
        #expect(kinds.contains("response.content_part.added") && kinds.contains("response.output_text.done"))
        #expect(kinds.contains("response.reasoning_text.delta") && kinds.contains("response.reasoning_text.done"))
        let response = r.lines.last?["response"]
        #expect(response?["id"]?.stringValue?.hasPrefix("resp_") == true)
        #expect(response?["status"]?.stringValue == "completed")
        #expect(r.diagnostics.isEmpty)
    }

    @Test("Responses: a started call that is rejected is closed as incomplete, without arguments.done, and reported")
    func responsesWithdrawn() throws {
        let input = Array("A<tool_call>{\"name\": \"g\", \"arguments\": {\"x\": </tool_call>B".utf8)
        let r = try Self.responses(Self.events(.json, input))
        let output = Self.reassembleResponses(r.lines, label: "withdrawn")
        #expect(output.map { $0["status"]?.stringValue } == ["completed", "incomplete", "completed"])
        #expect(output[1]["arguments"]?.stringValue == "{\"x\": ")
        #expect(!r.lines.contains { $0["type"]?.stringValue == "response.function_call_arguments.done" })
        #expect(r.diagnostics.count == 1 && r.diagnostics[0].contains("\"reason\":\"malformed\""))
    }

    @Test("Anthropic: a call is held until accepted; a rejected one leaves no block and the text around it is one block")
    func anthropicHeld() throws {
        let input = Array("A<tool_call>{\"name\": \"g\", \"arguments\": {\"x\": </tool_call>B<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>".utf8)
        let events = Self.events(.json, input, splits: Array(1..<input.count))
        var enc = AnthropicEventEncoder(model: "m", seed: 1)
        // Nothing of a call is written before its tool_call event.
        var sawCall = false
        for e in events {
            let lines = enc.encode(e).lines
            if case .toolCall = e { sawCall = true; #expect(lines.contains { $0.contains("tool_use") }) }
            else if lines.contains(where: { $0.contains("tool_use\",\"id") }) { Issue.record("a tool_use block before the call was accepted") }
        }
        #expect(sawCall)
        let r = try Self.anthropic(events)
        let m = Self.reassembleAnthropic(r.lines, label: "held")
        #expect(m.blocks.map { $0["start"]?["type"]?.stringValue } == ["text", "tool_use"])
        #expect(m.blocks[0]["text"]?.stringValue == "AB")
        #expect(try JSONValue.parse(m.blocks[1]["text"]?.stringValue ?? "") == JSONValue.parse(#"{"a": 1}"#))
        #expect(m.stop == "tool_use")
        #expect(r.diagnostics.count == 1)
    }

    @Test("Anthropic: stop_reason end_turn without a call, thinking blocks with an empty signature")
    func anthropicEndTurn() throws {
        let r = try Self.anthropic(Self.events(.json, Array("<think>hm</think>just text".utf8)))
        let m = Self.reassembleAnthropic(r.lines, label: "end_turn")
        #expect(m.stop == "end_turn")
        #expect(m.blocks.map { $0["start"]?["type"]?.stringValue } == ["thinking", "text"])
        #expect(m.blocks[0]["start"]?["signature"]?.stringValue == "")
        #expect(m.blocks.map { $0["text"]?.stringValue } == ["hm", "just text"])
    }

    @Test("tool_use ids: others mapped to ^[a-zA-Z0-9_-]+$, unique within the stream", arguments: [
        (["functions.get_weather:0", "functions.get_weather:1"], ["functions_get_weather_0", "functions_get_weather_1"]),
        (["a.b", "a_b", "a:b"], ["a_b", "a_b_2", "a_b_3"]),
        (["call_ok-1", "call_ok-1"], ["call_ok-1", "call_ok-1_2"]),
        (["é"], ["__"]),
    ])
    func toolUseIDs(ids: [String], expected: [String]) {
        var enc = AnthropicEventEncoder(model: "m")
        #expect(ids.map { enc.toolUseID($0) } == expected)
    }

    @Test("the request's tool_choice and parallel_tool_calls are echoed as the Responses API spells them")
    func responsesEcho() throws {
        var enc = ResponsesEventEncoder(model: "m", createdAt: 0, seed: 1, toolChoice: .function("f"), parallelToolCalls: false,
                                        tools: ToolSet([ToolDefinition(name: "f")]))
        let first = try JSONValue.parse(enc.encode(.end(toolCalls: 0, rejected: 0, bytes: 0)).lines[0])
        let response = first["response"]
        let choice: JSONValue = .object([(key: "type", value: .string("function")), (key: "name", value: .string("f"))])
        #expect(response?["tool_choice"] == choice)
        #expect(response?["parallel_tool_calls"] == JSONValue.bool(false))
        #expect(response?["tools"]?.arrayValue?.first?["name"]?.stringValue == "f")
        #expect(ResponsesEventEncoder.json(.allowed(["a"], required: true))["mode"]?.stringValue == "required")
    }

    @Test("every format fixture: the same Responses output and Anthropic message at every chunking, holding exactly the decoder's calls, text and reasoning",
          arguments: try FormatFixtureTests.fixtures())
    func fixtures(_ f: FormatFixture) throws {
        let check = ChunkingCheck(format: f.format, tools: f.tools, options: f.options)
        let whole = check.decode(f.input, splits: [])
        var calls: [JSONValue] = []
        var text = "", reasoning = ""
        for e in whole {
            switch e {
            case .toolCall(let c):
                calls.append(.array([.string(c.id), .string(c.name), c.arguments]))
            case .text(let t): text += t.string
            case .reasoning(let t, _): reasoning += t.string
            default: break
            }
        }
        var firstResponses: [JSONValue]?
        var firstAnthropic: [JSONValue]?
        let chunkings: [(String, [Int])] = [("whole", []), ("1-byte", Array(1..<max(1, f.input.count)))]
            + Chunkings.tokenSample.map { ("pieces \($0)", Chunkings.offsets(cycling: $0, count: f.input.count)) }
        for (name, splits) in chunkings {
            let label = "\(f.testDescription) \(name)"
            let events = name == "whole" ? whole : check.decode(f.input, splits: splits)
            let output = Self.reassembleResponses(try Self.responses(events).lines, label: label)
            if let firstResponses { #expect(output == firstResponses, "[\(label)] Responses output") } else { firstResponses = output }
            let m = Self.reassembleAnthropic(try Self.anthropic(events).lines, label: label)
            if let firstAnthropic { #expect(m.blocks == firstAnthropic, "[\(label)] Anthropic message") } else { firstAnthropic = m.blocks }
            #expect(m.stop == (calls.isEmpty ? "end_turn" : "tool_use"), "[\(label)]")
        }
        // What the clients get back is what the decoder emitted.
        let output = firstResponses ?? []
        let completed = try output.filter { $0["type"]?.stringValue == "function_call" && $0["status"]?.stringValue == "completed" }.map {
            JSONValue.array([$0["call_id"] ?? .null, $0["name"] ?? .null, try JSONValue.parse($0["arguments"]?.stringValue ?? "")])
        }
        #expect(completed == calls, "[\(f.testDescription)] Responses calls")
        func joined(_ type: String) -> String {
            output.filter { $0["type"]?.stringValue == type }.compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }.joined()
        }
        #expect(joined("message") == text && joined("reasoning") == reasoning, "[\(f.testDescription)] Responses text")
        let blocks = firstAnthropic ?? []
        var enc = AnthropicEventEncoder(model: "m")
        let uses = try blocks.filter { $0["start"]?["type"]?.stringValue == "tool_use" }.map {
            JSONValue.array([$0["start"]?["id"] ?? .null, $0["start"]?["name"] ?? .null, try JSONValue.parse($0["text"]?.stringValue ?? "")])
        }
        let mapped = calls.map { c -> JSONValue in
            guard case .array(let parts) = c, case .string(let id) = parts[0] else { return c }
            return .array([.string(enc.toolUseID(id)), parts[1], parts[2]])
        }
        #expect(uses == mapped, "[\(f.testDescription)] Anthropic calls")
        func blockText(_ type: String) -> String {
            blocks.filter { $0["start"]?["type"]?.stringValue == type }.compactMap { $0["text"]?.stringValue }.joined()
        }
        #expect(blockText("text") == text && blockText("thinking") == reasoning, "[\(f.testDescription)] Anthropic text")
    }
}
