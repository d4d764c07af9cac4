// ToolCallKit — running a response template through the streaming decoder.

extension ToolCallDecoder {
    /// A decoder that parses the stream with a response template.
    ///
    /// - Parameters:
    ///   - responseTemplate: the template.
    ///   - prompt: the end of the prompt the model continues (its last start anchor and what
    ///     follows it, such as a prefilled `<think>`), so the stream starts in the region the
    ///     prompt left open; its bytes produce no events.
    ///   - tools: the declared tools: other names are rejected as `undeclared_tool`, and string
    ///     arguments are typed by the schemas as the template's coercion does.
    ///   - options: raw spans, id seed and caps. Reasoning separation is always on (the
    ///     template says what reasoning is); `reasoning` and `reasoningOpen` are ignored.
    public init(responseTemplate: ResponseTemplate, prompt: [UInt8] = [], tools: ToolSet? = nil, options: Options = Options()) {
        let tail = TemplateGrammar.promptTail(prompt, template: responseTemplate)
        // Until formats are values, template calls are attributed to the json format.
        self.init(
            format: .json, grammar: { _ in TemplateGrammar(template: responseTemplate, prefix: tail) }, tools: tools,
            options: options)
    }
}
