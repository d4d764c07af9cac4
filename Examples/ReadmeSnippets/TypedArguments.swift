import ToolCallKit

/// The arguments of the `get_weather` tool, as the program wants them.
struct Weather: Decodable {
    let city: String
    let days: Int
}

/// Streams a model's output through the async adapter and decodes each call's arguments.
func forecast(_ modelOutput: AsyncStream<[UInt8]>, tools: ToolSet) async throws {
    let events = modelOutput.toolCallEvents(format: .json, tools: tools, options: .init(idSeed: 1, reasoning: true))
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
