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
        .ling3,
        .poolsideV1,
        .minicpm5,
        .museGlimmer,
        .inkling,
        .k2Horizon,
        .gigachat3,
        .hyV3,
        .functionaryV32,
        .cohereXml,
    ]

    /// Model variants of the formats above (``FormatDefinition/variant(_:summary:grammar:inference:renderer:)``),
    /// each declared in its base format's file.
    static let variants: [FormatDefinition] = [.deepseekV4, .glm47, .glm45LlamaCpp, .lfm2Python, .mistral31]

    static let formats: [ToolCallFormat] = all.map(ToolCallFormat.init)

    static let variantFormats: [ToolCallFormat] = variants.map(ToolCallFormat.init)

    /// Other names accepted wherever a format name is, for the format they stand for: `lfm25`
    /// (LFM2.5's string convention, a variant before it became `lfm2`'s own).
    static let aliases: [String: FormatDefinition] = ["lfm25": .lfm2]

    static let named: [String: FormatDefinition] = Dictionary(uniqueKeysWithValues: (all + variants).map { ($0.name, $0) })
        .merging(aliases) { own, _ in own }
}
