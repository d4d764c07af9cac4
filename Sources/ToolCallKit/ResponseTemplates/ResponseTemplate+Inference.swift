// ToolCallKit — a model folder's response template, as `infer` reads it.

extension ModelFolderSignals {
    /// The format of `tokenizer_config.json`'s `response_template`, when the folder has a valid
    /// one and no built-in format was recognised (`builtIn`, the strongest signal so far); the
    /// evidence says which way it went.
    mutating func responseTemplate(_ tokenizerConfig: JSONValue?, builtIn: (verdict: Verdict, source: String)?) -> ToolCallFormat? {
        guard let spec = tokenizerConfig?["response_template"], spec != .null else { return nil }
        let template: ResponseTemplate
        do {
            template = try ResponseTemplate(json: spec)
        } catch {
            evidence.append("tokenizer_config.json: response_template is not valid (\(error.message)), ignored")
            return nil
        }
        let fields = template.fieldNames.joined(separator: ", ")
        if let builtIn, case .format(let f) = builtIn.verdict {
            evidence.append(
                "tokenizer_config.json: response_template (fields \(fields)) present, but \(builtIn.source) names the built-in \(f.rawValue), which wins")
            return nil
        }
        evidence.append("tokenizer_config.json: response_template (fields \(fields)) → response_template")
        return ToolCallFormat(responseTemplate: template)
    }
}
