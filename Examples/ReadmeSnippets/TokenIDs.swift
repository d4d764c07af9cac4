import ToolCallKit

/// Decodes token ids as an inference server produces them, a few at a time.
func decodeTokens(_ batches: [[Int]], tokenizerJSON: [UInt8]) throws -> [ToolCallEvent] {
    let tokenizer = try Tokenizer(json: tokenizerJSON, source: "tokenizer.json")
    var decoder = TokenStreamDecoder(tokenizer: tokenizer, format: .json, options: .init(idSeed: 3))
    var events: [ToolCallEvent] = []
    for ids in batches {
        events += try decoder.feed(ids)        // throws for an id outside the vocabulary
    }
    return events + decoder.finish()
}
