import Foundation
import ToolCallKit

/// A server's own message type: calls and rejections are `Codable`, with the fields of the
/// command line's `tool_call` and `rejected` events.
struct AssistantTurn: Codable {
    var content: String
    var toolCalls: [ToolCall]
    var rejected: [RejectedToolCall]
}

func turnJSON(_ events: [ToolCallEvent]) throws -> String {
    var turn = AssistantTurn(content: "", toolCalls: [], rejected: [])
    for event in events {
        switch event {
        case .text(let text): turn.content += text.string
        case .toolCall(let call): turn.toolCalls.append(call)
        case .rejected(let r): turn.rejected.append(r)
        default: break
        }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(turn), as: UTF8.self)
}
