import ToolCallKit

/// Decodes a model's output with the response template of `config` (the template object, or a
/// tokenizer_config.json that has one), after the end of the prompt the model continues.
func decodeWithTemplate(config: [UInt8], promptTail: String, output: [[UInt8]]) throws -> [ToolCallEvent] {
    let template = try ResponseTemplate.load(config)
    var decoder = ToolCallDecoder(responseTemplate: template, prompt: Array(promptTail.utf8))
    var events: [ToolCallEvent] = []
    for chunk in output { events += decoder.feed(chunk) }
    return events + decoder.finish()
}
