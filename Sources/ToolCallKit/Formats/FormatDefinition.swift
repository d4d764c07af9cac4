// ToolCallKit — what a wire format is made of, declared in one place.
//
// Each built-in format is one file in this folder that builds a `FormatDefinition`; the one
// list of them is `BuiltInFormats.all`. Nothing else in the package names a format: the
// decoder, inference, rendering, the CLI, the fuzz target and the benchmark read these values.

/// Everything the package knows about one wire format.
///
/// A definition is made once (a built-in's `static let`, or a format defined at run time) and
/// shared by reference: a ``ToolCallFormat`` is a handle on one.
public final class FormatDefinition: Sendable {
    /// The raw name (`kimi_k2`): what the CLI, the events and inference use.
    public let name: String
    /// The Swift spelling of the name (`kimiK2`), derived from `name`.
    public let caseName: String
    /// One line: which models write the format, and what a call looks like.
    public let summary: String

    /// Makes a fresh grammar (one per decoder, and again after a very large frame).
    let makeGrammar: @Sendable (GrammarContext) -> any CallGrammar
    /// How the format's models mark reasoning.
    let reasoning: ReasoningSyntax
    /// The ids the decoder makes for calls the model gave none.
    let ids: CallIDStyle
    /// What identifies the format in a model folder.
    let inference: InferenceDeclaration
    /// Writes calls back as the format's model writes them.
    public let renderer: FormatRenderer
    /// Words for the fuzz dictionary beyond the markers (value keywords, attribute spellings).
    public let fuzzWords: [String]
    /// Model-family names people try as `--format` (`qwen`), and the phrase for the hint
    /// (`Qwen and Hermes models write`).
    public let familyNames: (names: [String], who: String)?
    /// The format this one is a model variant of (``variant(_:summary:grammar:inference:renderer:)``);
    /// nil for a format of its own.
    public let variantOf: FormatDefinition?
    /// The decoders' marker plans, made on first use.
    let plans = MarkerPlanCache()
    /// How the format lays out its calls: what the grammar exporter reads (nil: no grammar can be
    /// exported, as for a response template).
    public let layout: CallLayout?

    init(
        name: String, summary: String,
        grammar: @escaping @Sendable (GrammarContext) -> any CallGrammar,
        reasoning: ReasoningSyntax = .think, ids: CallIDStyle = .openAI,
        inference: InferenceDeclaration, layout: CallLayout? = nil, renderer: FormatRenderer,
        fuzzWords: [String] = [], familyNames: (names: [String], who: String)? = nil,
        variantOf: FormatDefinition? = nil
    ) {
        self.layout = layout
        self.name = name
        self.caseName = Self.camelCase(name)
        self.summary = summary
        self.makeGrammar = grammar
        self.reasoning = reasoning
        self.ids = ids
        self.inference = inference
        self.renderer = renderer
        self.fuzzWords = fuzzWords
        self.familyNames = familyNames
        self.variantOf = variantOf
    }

    /// A model variant of this format: a member of the family whose chat template writes the
    /// same wire format in its own layout (DeepSeek V4's `tool_calls` wrapper where V3.2 writes
    /// `function_calls`, GLM-4.7's calls without newlines), or whose strings follow their own
    /// escaping convention (LFM2.5). It keeps this format's reasoning, ids and fuzz words, and
    /// its grammar unless it gives its own; its renderer, its call layout (what the grammar
    /// exporter reads) and its template signatures are its own. A variant is named after its
    /// model; `toolcall infer` names it when a folder's template shows it, and it is accepted
    /// wherever a format name is.
    func variant(
        _ name: String, summary: String, grammar: (@Sendable (GrammarContext) -> any CallGrammar)? = nil,
        inference: InferenceDeclaration, layout: CallLayout, renderer: FormatRenderer
    ) -> FormatDefinition {
        FormatDefinition(
            name: name, summary: summary, grammar: grammar ?? makeGrammar, reasoning: reasoning, ids: ids,
            inference: inference, layout: layout, renderer: renderer, fuzzWords: fuzzWords, variantOf: self)
    }

    /// The texts of the markers that count only when tools are declared (`json` and `llama3`
    /// read a bare `{` object naming a declared tool as a call).
    public var toolDependentMarkerTexts: [String] {
        makeGrammar(GrammarContext(format: ToolCallFormat(self), tools: nil, maxDepth: 1)).markers.compactMap { m in
            switch m.condition {
            case .always, .atStart: return nil
            case .whenToolsDeclared, .atStartOrWhenToolsDeclared, .atStartWhenToolsDeclared:
                return String(decoding: m.bytes, as: UTF8.self)
            }
        }
    }

    /// The texts of the format's reasoning markers, open and close.
    public var reasoningMarkerTexts: [String] {
        reasoning.pairs.flatMap { [$0.open, $0.close] }
    }

    /// `xml_function` → `xmlFunction`, `kimi_k2` → `kimiK2`.
    static func camelCase(_ name: String) -> String {
        var out = ""
        var upper = false
        for ch in name {
            if ch == "_" {
                upper = true
            } else {
                out += upper ? ch.uppercased() : String(ch)
                upper = false
            }
        }
        return out
    }

    /// The literal texts of the format's call markers (start markers and stray end markers).
    public var markerTexts: [String] {
        makeGrammar(GrammarContext(format: ToolCallFormat(self), tools: nil, maxDepth: 1)).markers.map {
            String(decoding: $0.bytes, as: UTF8.self)
        }
    }
}

/// The ids the decoder makes for calls whose model gave none (or gave one already used).
enum CallIDStyle: Sendable {
    /// `call_` and 24 letters and digits, as OpenAI's API writes them.
    case openAI
    /// Nine letters and digits, the only ids Mistral's templates accept.
    case nineCharacters
}

/// How a format writes calls back, and which ids survive the round trip.
public struct FormatRenderer: Sendable {
    /// Writes the calls after the leading text (already checked: names present, arguments
    /// objects, text free of the format's markers). `format` is the format being rendered (a
    /// renderer may decode what it wrote to check it).
    let render: @Sendable (_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8]
    /// The id decoding gives back for a rendered call: the call's own, one made from its
    /// position, or nil when the decoder makes a fresh one (the format carries no ids).
    public let carriedID: @Sendable (_ id: String?, _ name: String, _ index: Int) -> String?
    /// The order in which the renderer writes argument keys.
    public let keyOrder: KeyOrder

    /// The order of argument keys in rendered calls.
    public enum KeyOrder: Sendable {
        /// As given.
        case given
        /// Sorted as Jinja's `dictsort` sorts them (case-insensitively, then by code point), in
        /// every object: Gemma 4's template does.
        case templateSorted
    }

    init(
        carriedID: @escaping @Sendable (_ id: String?, _ name: String, _ index: Int) -> String? = { _, _, _ in nil },
        keyOrder: KeyOrder = .given,
        render: @escaping @Sendable (_ format: ToolCallFormat, _ calls: [RenderedCall], _ text: String) throws(RenderError) -> [UInt8]
    ) {
        self.render = render
        self.carriedID = carriedID
        self.keyOrder = keyOrder
    }

    /// `arguments` with their keys in the order the renderer writes them: what decoding the
    /// rendered call gives back.
    public func written(_ arguments: JSONValue) -> JSONValue {
        switch keyOrder {
        case .given: return arguments
        case .templateSorted: return CallRenderer.templateSorted(arguments)
        }
    }
}

/// What names a format in a model folder (see ``ToolCallFormat/infer(modelDirectory:)``).
///
/// Each signal carries a rank: lower ranks are more specific and are tried first across all
/// formats, so a template holding two formats' markers (Qwen3-Coder's has Hermes' `<tool_call>`
/// and its own `<function=`) is named by the more specific one.
struct InferenceDeclaration: Sendable {
    /// Parser names a `tokenizer_config.json` may declare (lowercase, `-` read as `_`), beyond
    /// the format's own names.
    var parserNames: [String] = []
    /// Chat-template signatures.
    var templates: [TemplateSignature] = []
    /// Special or added token texts that name the format, with their rank.
    var tokens: [(text: String, rank: Int)] = []
    /// `config.json` rules on `model_type`.
    var modelTypes: [ModelTypeRule] = []
}

/// A chat-template signature: every probe must be found.
struct TemplateSignature: Sendable {
    let rank: Int
    let what: String
    let probes: [TemplateSignatures.Probe]

    init(rank: Int, _ what: String, _ probes: TemplateSignatures.Probe...) {
        self.rank = rank
        self.what = what
        self.probes = probes
    }
}

/// A `config.json` rule: a `model_type` it applies to, and what it concludes.
struct ModelTypeRule: Sendable {
    let rank: Int
    /// Whether the (lowercased) model type is this rule's.
    let matches: @Sendable (String) -> Bool
    /// The evidence after `model_type "X"` (`→ lfm2`), or nil when the rest of the config
    /// shows it is not this format after all (a Llama 2 vocabulary).
    let explain: @Sendable (_ modelType: String, _ config: JSONValue) -> String?

    init(rank: Int, prefix: String, explain: (@Sendable (String, JSONValue) -> String?)? = nil, format: String) {
        self.rank = rank
        self.matches = { $0.hasPrefix(prefix) }
        self.explain = explain ?? { _, _ in "→ \(format)" }
    }

    init(rank: Int, exactly types: Set<String>, explain: @escaping @Sendable (String, JSONValue) -> String?) {
        self.rank = rank
        self.matches = { types.contains($0) }
        self.explain = explain
    }
}
