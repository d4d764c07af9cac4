import ToolCallKit

/// The body of a streaming `/v1/responses` answer (with `anthropic`, of `/v1/messages`): each
/// event line as one server-sent event named by its `type`. Rejections come apart, as event
/// lines: log them, or tell the client in your own way; they never become stream events.
func serverSentEvents(_ chunks: [[UInt8]], format: ToolCallFormat, anthropic: Bool,
                      rejections: inout [UInt8]) -> String {
    var decoder = ToolCallDecoder(format: format, options: .init(idSeed: 1, reasoning: true))
    var writer = EventLineWriter(anthropic
        ? .anthropic(AnthropicEventEncoder(model: "my-model", seed: 1))
        : .responses(ResponsesEventEncoder(model: "my-model", createdAt: 1_767_225_600, seed: 1)))
    var lines: [UInt8] = []
    for chunk in chunks { writer.write(decoder.feed(chunk), lines: &lines, diagnostics: &rejections) }
    writer.write(decoder.finish(), lines: &lines, diagnostics: &rejections)
    var body = ""
    for line in lines.split(separator: 0x0A).map({ String(decoding: $0, as: UTF8.self) }) {
        let name = line.dropFirst(#"{"type":""#.count).prefix { $0 != "\"" }  // every line starts so
        body += "event: \(name)\ndata: \(line)\n\n"
    }
    return body
}
