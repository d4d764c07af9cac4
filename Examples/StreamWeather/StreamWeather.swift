// stream-weather — a runnable example, built with the package so it cannot rot (`swift run
// stream-weather`).
//
// Streams a model's output through the async API in 5-byte chunks, prints text as it
// arrives, and decodes each call's arguments into a Swift struct. The README shows the same
// loop as a snippet (Examples/ReadmeSnippets/TypedArguments.swift).

import ToolCallKit

/// The arguments of the `get_weather` tool, as the program wants them.
struct Weather: Decodable {
    let city: String
    let days: Int
}

/// A model's output arriving in 5-byte chunks, like a network body.
func modelOutput() -> AsyncStream<[UInt8]> {
    let text = """
        <think>Two cities, so two calls.</think>Let me check both.
        <tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>
        <tool_call>{"name": "get_weather", "arguments": {"city": "東京", "days": "two"}}</tool_call>
        """
    let bytes = Array(text.utf8)
    return AsyncStream { continuation in
        for start in stride(from: 0, to: bytes.count, by: 5) {
            continuation.yield(Array(bytes[start..<min(bytes.count, start + 5)]))
        }
        continuation.finish()
    }
}

@main
struct StreamWeather {
    static func main() async throws {
        let tools = try ToolSet.load(json: Array(#"[{"type": "function", "function": {"name": "get_weather"}}]"#.utf8))
        let events = modelOutput().toolCallEvents(format: .json, tools: tools, options: .init(idSeed: 1, reasoning: true))
        for try await event in events {
            switch event {
            case .reasoning(let thought, _): print("thinking: \(thought)")
            case .text(let text): print("text: \(text.string.debugDescription)")
            case .toolCall(let call):
                do {
                    let w = try call.decodeArguments(as: Weather.self)
                    print("call \(call.index): weather for \(w.city), \(w.days) days")
                } catch {
                    print("call \(call.index): bad arguments at \(error.path): \(error.message)")
                }
            case .end(let calls, let rejected, _): print("end: \(calls) calls, \(rejected) rejected")
            default: break
            }
        }
    }
}
