// ToolCallKit — what a decoder knows before its first byte: its settings and its marker plan,
// held once on the heap so that an idle decoder is small.

import Synchronization

/// The markers a decoder looks for, and how: built once per format and per combination of the
/// settings they depend on (tools declared or not, reasoning separated or not, the stream
/// starting inside reasoning or not), and shared by every decoder of that combination.
///
/// A format's grammars declare the same markers whatever their context (the contract of
/// ``CallGrammar/markers``), so the plan depends on the format, not on the decoder.
final class MarkerPlan: Sendable {
    /// The grammar parses the whole stream (a response template).
    let ownsStream: Bool
    /// The output begins inside a frame (``CallGrammar/opensAtStart``).
    let opensAtStart: Bool
    /// The grammar's markers, then the reasoning open markers when reasoning is separated.
    let markers: [Marker]
    /// The markers that can match before any visible text (all whose condition can hold), and
    /// after it (those that hold anywhere); each with its indexes into `markers`.
    let startSet: MarkerSet
    let startIndexes: [Int]
    let laterSet: MarkerSet
    let laterIndexes: [Int]
    /// Close markers (index = pair), then the call markers that end a block.
    let reasoningSet: MarkerSet
    let reasoningCloseCount: Int
    /// The open markers; with ``ToolCallDecoder/Options/reasoningOpen``, one the model writes
    /// anyway at the start (after white space) belongs to the block that is already open.
    let reasoningOpeners: MarkerSet

    init(grammarMarkers: [Marker], ownsStream: Bool, opensAtStart: Bool = false, syntax: ReasoningSyntax,
         toolsDeclared: Bool, reasoning: Bool, reasoningOpen: Bool) {
        self.ownsStream = ownsStream
        self.opensAtStart = opensAtStart
        var markers = grammarMarkers
        if reasoning && !ownsStream {
            // Open markers start blocks; an orphan close marker stays text (no tool-call markup).
            for (k, pair) in syntax.pairs.enumerated() {
                markers.append(Marker(pair.open, kind: .reasoningOpen(pair: k)))
            }
            self.reasoningSet = MarkerSet(syntax.pairs.map(\.close) + syntax.endedBy)
        } else {
            self.reasoningSet = MarkerSet([String]())
        }
        self.reasoningCloseCount = syntax.pairs.count
        self.reasoningOpeners = MarkerSet(reasoningOpen && !ownsStream ? syntax.pairs.map(\.open) : [])
        self.markers = markers
        var startIndexes: [Int] = []
        var laterIndexes: [Int] = []
        for (k, m) in markers.enumerated() {
            switch m.condition {
            case .always:
                startIndexes.append(k)
                laterIndexes.append(k)
            case .whenToolsDeclared:
                if toolsDeclared {
                    startIndexes.append(k)
                    laterIndexes.append(k)
                }
            case .atStart:
                startIndexes.append(k)
            case .atStartOrWhenToolsDeclared:
                startIndexes.append(k)
                if toolsDeclared { laterIndexes.append(k) }
            case .atStartWhenToolsDeclared:
                if toolsDeclared { startIndexes.append(k) }
            }
        }
        self.startSet = MarkerSet(startIndexes.map { markers[$0].bytes }, follows: startIndexes.map { markers[$0].follows })
        self.startIndexes = startIndexes
        self.laterSet = MarkerSet(laterIndexes.map { markers[$0].bytes }, follows: laterIndexes.map { markers[$0].follows }, wordTest: true)
        self.laterIndexes = laterIndexes
    }
}

/// The plans of one format, made on first use (a format's decoders may be made on many threads).
final class MarkerPlanCache: Sendable {
    private let plans = Mutex<[MarkerPlan?]>(Array(repeating: nil, count: 8))

    /// The plan for these settings, made with `make` the first time it is asked for.
    func plan(toolsDeclared: Bool, reasoning: Bool, reasoningOpen: Bool, make: () -> MarkerPlan) -> MarkerPlan {
        let key = (toolsDeclared ? 1 : 0) | (reasoning ? 2 : 0) | (reasoningOpen ? 4 : 0)
        if let plan = plans.withLock({ $0[key] }) { return plan }
        // Made outside the lock (it makes a grammar); a racing thread's equal plan may win.
        let made = make()
        return plans.withLock { slots in
            if let plan = slots[key] { return plan }
            slots[key] = made
            return made
        }
    }
}

/// A decoder's settings, fixed when it is made, and its marker plan: one heap object per
/// decoder, shared by its copies, so that the decoder's own storage holds only the stream's
/// state.
final class DecoderSetup: Sendable {
    /// With ``ToolCallDecoder/Options/validate``, the tools in it carry compiled validators.
    let context: GrammarContext
    let options: ToolCallDecoder.Options
    let plan: MarkerPlan

    init(context: GrammarContext, options: ToolCallDecoder.Options, plan: MarkerPlan) {
        self.context = context
        self.options = options
        self.plan = plan
    }
}
