// ToolCallKit — the one list of built-in formats.

/// The formats this package ships, in the order `toolcall formats` lists them.
///
/// Adding a format: write its file in this folder (a `FormatDefinition` and its `ToolCallFormat`
/// member), add it here, and give it fixtures under `Fixtures/formats/NAME/`.
enum BuiltInFormats {
    static let all: [FormatDefinition] = [
        .json, .lfm2, .xmlFunction, .glm4, .gemma, .gemma4, .kimiK2, .minimaxM2, .mistral, .llama3,
        .pythonic, .granite, .nemotron, .phi4Mini, .cohere, .harmony,
        .deepseekV3, .deepseekV31, .deepseekV32, .seedOss, .kimiK3, .minimaxM3,
    ]

    /// Model variants of the formats above (``FormatDefinition/variant(_:summary:grammar:inference:renderer:)``),
    /// each declared in its base format's file.
    static let variants: [FormatDefinition] = [.deepseekV4, .glm47, .glm45LlamaCpp, .lfm25, .mistral31]

    static let formats: [ToolCallFormat] = all.map(ToolCallFormat.init)

    static let variantFormats: [ToolCallFormat] = variants.map(ToolCallFormat.init)

    static let named: [String: FormatDefinition] = Dictionary(uniqueKeysWithValues: (all + variants).map { ($0.name, $0) })
}
