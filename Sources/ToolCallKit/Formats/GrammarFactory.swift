// ToolCallKit — which grammar parses which format.

/// Makes the grammar for a format. The one place that maps ``ToolCallFormat`` to a grammar.
enum GrammarFactory {
    static func make(_ format: ToolCallFormat, context: GrammarContext) -> any CallGrammar {
        switch format {
        case .json: return JSONGrammar()
        case .mistral: return MistralGrammar()
        case .llama3: return Llama3Grammar()
        case .lfm2: return LFM2Grammar()
        case .xmlFunction: return XMLFunctionGrammar()
        case .glm4: return GLM4Grammar()
        case .minimaxM2: return MiniMaxM2Grammar()
        case .gemma: return GemmaGrammar()
        case .gemma4: return Gemma4Grammar()
        case .kimiK2: return KimiK2Grammar()
        }
    }

    static func isImplemented(_ format: ToolCallFormat) -> Bool { true }
}
