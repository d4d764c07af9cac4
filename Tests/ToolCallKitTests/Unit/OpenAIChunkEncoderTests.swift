import Testing
@testable import ToolCallKit

@Suite("OpenAI chunk output")
struct OpenAIChunkEncoderTests {
    /// Encodes a stream and reassembles it as an OpenAI client would (fragments by index).
    static func reassemble(_ format: ToolCallFormat, _ input: String, tools: ToolSet? = nil, chunk: Int = 3,
                           reasoning: Bool = false)
        throws -> (chunks: [JSONValue], content: String, reasoning: String, calls: [Int: (id: String, name: String, args: String)], stderr: [String])
    {
        var d = ToolCallDecoder(format: format, tools: tools, options: .init(idSeed: 1, reasoning: reasoning))
        var enc = OpenAIChunkEncoder(id: OpenAIChunkEncoder.makeID(seed: 1), created: 1_700_000_000, model: "m")
        let bytes = Array(input.utf8)
        var events: [ToolCallEvent] = []
        var i = 0
        while i < bytes.count {
            events += d.feed(bytes[i..<min(bytes.count, i + chunk)])
            i += chunk
        }
        events += d.finish()
        var chunks: [JSONValue] = []
        var stderr: [String] = []
        for e in events {
            let out = enc.encode(e)
            chunks += try out.chunks.map { try JSONValue.parse($0) }
            stderr += out.diagnostics
        }
        var content = "", thought = ""
        var calls: [Int: (id: String, name: String, args: String)] = [:]
        for c in chunks {
            let delta = c["choices"]?.arrayValue?.first?["delta"]
            content += delta?["content"]?.stringValue ?? ""
            thought += delta?["reasoning_content"]?.stringValue ?? ""
            for tc in delta?["tool_calls"]?.arrayValue ?? [] {
                let index = Int(tc["index"]?.doubleValue ?? -1)
                var slot = calls[index] ?? ("", "", "")
                if let id = tc["id"]?.stringValue { slot.id = id }
                slot.name += tc["function"]?["name"]?.stringValue ?? ""
                slot.args += tc["function"]?["arguments"]?.stringValue ?? ""
                calls[index] = slot
            }
        }
        return (chunks, content, thought, calls, stderr)
    }

    @Test("the shape of docs/cli.md (--output openai): role first, a call's name and id once, finish_reason last")
    func shape() throws {
        let r = try Self.reassemble(.json, "<think>plan</think>Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": [1, 2]}}</tool_call>", reasoning: true)
        #expect(r.chunks.first?["choices"]?.arrayValue?.first?["delta"]?["role"]?.stringValue == "assistant")
        #expect(r.chunks.allSatisfy { $0["object"]?.stringValue == "chat.completion.chunk" && $0["model"]?.stringValue == "m" })
        #expect(r.chunks.allSatisfy { $0["id"]?.stringValue?.hasPrefix("chatcmpl-") == true && $0["id"]?.stringValue?.count == 33 })
        #expect(r.content == "Hi ")
        #expect(r.reasoning == "plan")
        #expect(r.calls.count == 1)
        #expect(r.calls[0]?.name == "f")
        #expect(try JSONValue.parse(r.calls[0]?.args ?? "") == JSONValue.parse(#"{"a": [1, 2]}"#))
        let withName = r.chunks.filter { c in
            c["choices"]?.arrayValue?.first?["delta"]?["tool_calls"]?.arrayValue?.first?["function"]?["name"] != nil
        }
        #expect(withName.count == 1)
        let first = withName.first?["choices"]?.arrayValue?.first?["delta"]?["tool_calls"]?.arrayValue?.first
        #expect(first?["type"]?.stringValue == "function")
        #expect(first?["function"]?["arguments"]?.stringValue == "")
        let last = r.chunks.last?["choices"]?.arrayValue?.first
        #expect(last?["finish_reason"]?.stringValue == "tool_calls")
        #expect(r.chunks.dropLast().allSatisfy { $0["choices"]?.arrayValue?.first?["finish_reason"] == .null })
    }

    @Test("no call: finish_reason stop")
    func stop() throws {
        let r = try Self.reassemble(.mistral, "just [text]")
        #expect(r.content == "just [text]")
        #expect(r.chunks.last?["choices"]?.arrayValue?.first?["finish_reason"]?.stringValue == "stop")
    }

    @Test("a started call that was rejected is listed in x_toolcall_rejected, and on stderr")
    func rejectedStarted() throws {
        let r = try Self.reassemble(.mistral, "[TOOL_CALLS]f[ARGS]{\"a\": \"cut")
        let listed = r.chunks.last?["x_toolcall_rejected"]?.arrayValue
        #expect(listed?.count == 1)
        #expect(listed?.first?["reason"]?.stringValue == "incomplete")
        #expect(listed?.first?["index"]?.doubleValue == 0)
        #expect(r.stderr.count == 1 && r.stderr[0].contains("\"type\":\"rejected\""))
        #expect(r.chunks.last?["choices"]?.arrayValue?.first?["finish_reason"]?.stringValue == "stop")
    }
}
