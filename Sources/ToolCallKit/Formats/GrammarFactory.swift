// ToolCallKit — which grammar parses which format.

/// Makes the grammar for a format. The one place that maps ``ToolCallFormat`` to a grammar.
enum GrammarFactory {
    static func make(_ format: ToolCallFormat, context: GrammarContext) -> any CallGrammar {
        switch format {
        case .json: return JSONGrammar()
        case .mistral: return MistralGrammar()
        case .llama3: return Llama3Grammar()
        case .gemma: return GemmaGrammar()
        case .gemma4: return Gemma4Grammar()
        case .kimiK2: return KimiK2Grammar()
        case .lfm2, .xmlFunction, .glm4, .minimaxM2:
            return PlannedFormatGrammar()
        }
    }

    static func isImplemented(_ format: ToolCallFormat) -> Bool {
        switch format {
        case .json, .mistral, .llama3, .gemma, .gemma4, .kimiK2: return true
        case .lfm2, .xmlFunction, .glm4, .minimaxM2: return false
        }
    }
}

/// Stands in for a format this build does not parse yet: it finds no markers, so all is text.
struct PlannedFormatGrammar: CallGrammar {
    let markers: [Marker] = []
    let skipRule = SkipRule.before([])
    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {}
    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        .finished(at: w.end)
    }
    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {}
}
