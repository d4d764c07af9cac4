import ToolCallKit

/// Decodes one generation stream: bytes in as they arrive, events out in source order.
func decodeStream(_ stream: [[UInt8]], toolsJSON: String) throws {
    let tools = try ToolSet.load(json: Array(toolsJSON.utf8))
    var decoder = ToolCallDecoder(format: .mistral, tools: tools, options: .init(idSeed: 42))
    var events: [ToolCallEvent] = []
    for chunk in stream {                          // any chunking: bytes as they arrive
        decoder.feed(chunk, into: &events)         // or `let events = decoder.feed(chunk)`
        events.forEach(show)
        events.removeAll(keepingCapacity: true)
    }
    decoder.finish(into: &events)                  // flushes held-back text, settles open calls
    events.forEach(show)
}

func show(_ event: ToolCallEvent) {
    switch event {
    case .text(let text): print("text:", text.string.debugDescription)
    case .toolCallStart(let index, let id, let name): print("call \(index) \(id) \(name)")
    case .toolCallDelta(_, let fragment): _ = fragment.string   // stream it on to the client
    case .toolCall(let call): print("done:", call.name, call.arguments.jsonText)
    case .rejected(let r): print("rejected:", r.reason, r.detail)
    case .end(let calls, let rejected, _): print("end: \(calls) calls, \(rejected) rejected")
    default: break
    }
}
