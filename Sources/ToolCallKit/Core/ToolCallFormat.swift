// ToolCallKit — a wire format, as a value.

/// A tool-call wire format, identified by its raw name (`json`, `xml_function`, …).
///
/// The built-in formats are static members (`.json`, `.xmlFunction`, …; ``allCases`` lists
/// them). The type is open: a format defined at run time is a `ToolCallFormat` like the
/// built-ins. Two formats are equal when their raw names are.
///
/// Each format is a handle on its ``FormatDefinition``, declared in the format's own file.
public struct ToolCallFormat: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Everything about the format.
    public let definition: FormatDefinition

    init(_ definition: FormatDefinition) {
        self.definition = definition
    }

    /// The raw name: what the CLI and the events use.
    public var rawValue: String { definition.name }

    /// The Swift case name (`xmlFunction`).
    public var caseName: String { definition.caseName }

    /// The built-in format or model variant with this raw name (or an alias of one: `lfm25` is
    /// `lfm2`); nil for any other name.
    public init?(rawValue: String) {
        guard let d = BuiltInFormats.named[rawValue] else { return nil }
        self.definition = d
    }

    /// Parses either spelling of a built-in format or model variant: the raw value
    /// (`xml_function`) or the case name (`xmlFunction`).
    public init?(name: String) {
        guard let d = BuiltInFormats.named[name]
            ?? (BuiltInFormats.all + BuiltInFormats.variants).first(where: { $0.caseName == name })
        else {
            return nil
        }
        self.definition = d
    }

    /// The built-in formats, in the order `toolcall formats` lists them (model variants are
    /// ``variants``).
    public static var allCases: [ToolCallFormat] { BuiltInFormats.formats }

    /// The model variants of the built-in formats (`deepseek_v4`, `glm47`, `lfm2_python`, …):
    /// each decodes as its base format does (``variantOf``), unless its model's strings follow
    /// their own convention (`lfm2_python`), and renders in its model's layout. `toolcall infer`
    /// names the base format and, beside it, the variant a folder's template shows
    /// (``FormatInference/variant``). See docs/rendering.md.
    public static var variants: [ToolCallFormat] { BuiltInFormats.variantFormats }

    /// The format this one is a model variant of; nil for a base format.
    public var variantOf: ToolCallFormat? { definition.variantOf.map(ToolCallFormat.init) }

    /// Whether this build parses the format. Every format that exists is implemented.
    public var isImplemented: Bool { true }

    public var description: String { rawValue }

    public static func == (a: ToolCallFormat, b: ToolCallFormat) -> Bool { a.rawValue == b.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
