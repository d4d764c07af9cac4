// ToolCallKit — the Gemma-values family (gemma, gemma4): `START call:NAME{key:value,...} END`.

/// The frame logic of the Gemma family: `call:NAME{...}` (or `call:NAME(...)`) after the start
/// marker, then the end marker. The spelling (markers, string delimiter) is a parameter.
struct GemmaFrameParser: CallGrammar {
    private enum State: Sendable {
        /// Reading the name, which began at `start`.
        case name(start: Int)
        /// Reading the arguments.
        case args
        /// The arguments ended at `end`: the end marker may follow.
        case afterArgs(CanonicalJSON, mismatches: [String], end: Int)
        /// Skipping a malformed frame through the end marker.
        case malformed(detail: String)
    }

    /// The longest name read before the frame counts as malformed.
    static let maxNameBytes = 1024

    private let endMarker: [UInt8]
    private let endMarkerText: String
    private let delimiter: String
    /// Whether a bare `None` is null (``GemmaValueReader``).
    private let noneIsNull: Bool
    /// The end marker, then the start marker: where a malformed frame stops.
    private let recovery: MarkerSet
    private var state: State = .malformed(detail: "")
    /// The arguments being read: a stored property, not an enum payload, so it mutates in
    /// place (a payload is copied out and back on every chunk).
    private var reader = GemmaValueReader(at: 0, delimiter: "", stopMarker: "", tool: nil, maxDepth: 0)
    private var pos = 0

    let markers: [Marker]
    let skipRule: SkipRule

    /// - Parameters:
    ///   - start: the start marker; `end`, the end marker (alone, it is markup).
    ///   - delimiter: what quotes a string value (nothing inside it is escaped).
    ///   - strays: other markers that are markup on their own.
    ///   - noneIsNull: a bare `None` is null (the template delimits every string, and writes a
    ///     null with Python's `None`).
    init(start: String, end: String, delimiter: String, strays: [String] = [], noneIsNull: Bool = false) {
        self.endMarker = Array(end.utf8)
        self.endMarkerText = end
        self.delimiter = delimiter
        self.noneIsNull = noneIsNull
        self.recovery = MarkerSet([end, start])
        self.markers = [Marker(start), Marker(end, kind: .stray)] + strays.map { Marker($0, kind: .stray) }
        self.skipRule = .through([Array(end.utf8)])
    }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        state = .name(start: bodyStart)
        pos = bodyStart
    }

    /// The name between the start marker and the opener, or nil when it is not one.
    private static func callName(_ w: ByteWindow, _ r: Range<Int>) -> String? {
        var s = r.lowerBound
        var e = r.upperBound
        (s, e) = w.trimmingSpace(s, e)
        let call = Array("call:".utf8)
        if e - s >= call.count && w.slice(s..<(s + call.count)).elementsEqual(call) {
            s += call.count
            while s < e && JSONReader.isSpace(w[s]) { s += 1 }
        }
        guard s < e else { return nil }
        for i in s..<e {
            let b = w[i]
            if JSONReader.isSpace(b) || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") || b == UInt8(ascii: "<")
                || b == UInt8(ascii: ">")
            {
                return nil
            }
        }
        return String(decoding: w.slice(s..<e), as: UTF8.self)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .name(let start):
                if pos == start {
                    // White space (a newline too) may come before `call:`.
                    pos = w.skipSpace(from: pos)
                    if pos > start {
                        state = .name(start: pos)
                        continue
                    }
                }
                while pos < w.end {
                    let b = w[pos]
                    if b == UInt8(ascii: "{") || b == UInt8(ascii: "(") { break }
                    if b == UInt8(ascii: "<") || b == 0x0A || b == UInt8(ascii: "}") || b == UInt8(ascii: ",")
                        || pos - start >= GemmaFrameParser.maxNameBytes
                    {
                        state = .malformed(detail: "expected call:NAME{...}")
                        break
                    }
                    pos += 1
                }
                if case .malformed = state { continue }
                guard pos < w.end else { return .needMore }
                guard let name = GemmaFrameParser.callName(w, start..<pos) else {
                    state = .malformed(detail: "expected call:NAME{...}")
                    continue
                }
                actions.append(.start(name: name, id: nil))
                reader = GemmaValueReader(
                    at: pos, delimiter: delimiter, stopMarker: endMarkerText, tool: context.tools?[name],
                    maxDepth: context.maxDepth, noneIsNull: noneIsNull)
                state = .args
            case .args:
                let result = reader.advance(w, actions: &actions)
                pos = reader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .complete(let value, let end, let mismatches):
                    state = .afterArgs(value, mismatches: mismatches, end: end)
                case .error(let m, let at):
                    pos = at
                    state = .malformed(detail: m)
                case .tooDeep(let at):
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                case .interrupted(let at):
                    let end = at + endMarker.count
                    actions.append(.reject(.malformed, detail: "the call ended inside its arguments", end: end))
                    return .finished(at: end)
                }
            case .afterArgs(let value, let mismatches, let end):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                var i = 0
                while i < endMarker.count && pos + i < w.end && w[pos + i] == endMarker[i] { i += 1 }
                if i == endMarker.count {
                    let close = pos + i
                    settle(value, mismatches: mismatches, end: close, actions: &actions)
                    return .finished(at: close)
                }
                if pos + i == w.end { return .needMore }
                settle(value, mismatches: mismatches, end: end, actions: &actions)
                return .finished(at: end)
            case .malformed(let detail):
                // Through the end marker (index 0); up to a new start marker.
                return recovery.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { $0 == 0 }
            }
        }
    }

    private func settle(_ value: CanonicalJSON, mismatches: [String], end: Int, actions: inout [GrammarAction]) {
        if mismatches.isEmpty {
            actions.append(.accept(arguments: value, end: end))
        } else {
            actions.append(.reject(.invalidArguments, detail: mismatches.joined(separator: "\n"), end: end))
        }
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .args = state else { return nil }
        return reader.passThrough(at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        reader.takeForwarded(count)
        pos = reader.pos
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        if case .args = state, let r = reader.repairAtEnd(w, actions: &actions),
            case .complete(let value, let end, let mismatches) = r
        {
            // A string whose closing delimiter the model forgot, before `}` and the end marker.
            settle(value, mismatches: mismatches, end: w.end, actions: &actions)
            _ = end
            return
        }
        switch state {
        case .name, .args:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterArgs(let value, let mismatches, let end):
            // The end-of-stream rule shared by every format: a cut-off end marker after a
            // complete call (white space before it) is the call's markup, in its raw; white
            // space alone after it stays text.
            var i = end
            i = w.skipSpace(from: i)
            if i < w.end {
                settle(value, mismatches: mismatches, end: w.end, actions: &actions)
            } else {
                settle(value, mismatches: mismatches, end: end, actions: &actions)
                if w.end > end { actions.append(.text(end: w.end)) }
            }
        case .malformed(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }
}
