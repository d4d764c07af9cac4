// ToolCallKit — a response template as a format, run by the streaming decoder.

extension ToolCallFormat {
    /// The raw name of every format defined by a response template.
    public static let responseTemplateName = "response_template"

    /// A format defined at run time by a response template (raw name `response_template`).
    ///
    /// The decoder runs the template over the whole stream (see ``ResponseTemplate``);
    /// ``ToolCallDecoder/Options/prompt`` gives it the end of the prompt. Reasoning is always
    /// separated, whatever ``ToolCallDecoder/Options/reasoning`` says: the template names its
    /// reasoning field. Formats compare by raw name, so two template formats are equal even
    /// when their templates differ. Rendering calls in a template's format is not supported
    /// (a template describes how to read an output, not how to write one).
    public init(responseTemplate template: ResponseTemplate) {
        self.init(
            FormatDefinition(
                name: Self.responseTemplateName,
                summary: "A Hugging Face response template (tokenizer_config.json `response_template`).",
                grammar: { context in
                    TemplateGrammar(
                        template: template,
                        prefix: TemplateGrammar.promptTail(context.prompt, template: template, callBytes: context.callBytes),
                        callBytes: context.callBytes)
                },
                inference: InferenceDeclaration(),
                renderer: FormatRenderer(render: { _, _, _ throws(RenderError) in
                    throw RenderError(index: nil, name: nil, reason: "a response template describes how to read calls, not how to write them")
                })))
    }
}

extension ToolCallDecoder {
    /// A decoder that parses the stream with a response template: the decoder of
    /// ``ToolCallFormat/init(responseTemplate:)`` with `prompt` as ``Options/prompt``.
    ///
    /// - Parameters:
    ///   - responseTemplate: the template.
    ///   - prompt: the end of the prompt the model continues (its last start anchor and what
    ///     follows it, such as a prefilled `<think>`), so the stream starts in the region the
    ///     prompt left open; its bytes produce no events.
    ///   - tools: the declared tools: other names are rejected as `undeclared_tool`, and string
    ///     arguments are typed by the schemas as the template's coercion does.
    ///   - options: raw spans, id seed and caps (`reasoning` and `reasoningOpen` are ignored).
    public init(responseTemplate: ResponseTemplate, prompt: [UInt8] = [], tools: ToolSet? = nil, options: Options = Options()) {
        var options = options
        options.prompt = prompt
        self.init(format: ToolCallFormat(responseTemplate: responseTemplate), tools: tools, options: options)
    }
}
