// ToolCallKit — the grammar of DeepSeek's call sections (deepseek_v3, deepseek_v31):
// `<｜tool▁calls▁begin｜>` then calls `<｜tool▁call▁begin｜>HEADER<｜tool▁sep｜>…<｜tool▁call▁end｜>`,
// then `<｜tool▁calls▁end｜>`.

/// Grammar for DeepSeek V3 / R1 and V3.1 call sections.
///
/// A call is `<｜tool▁call▁begin｜>` + a header + `<｜tool▁sep｜>` + a body + `<｜tool▁call▁end｜>`.
/// What follows the separator tells the two shapes apart:
///
/// - a `{` (V3.1): the header is the function name and the JSON object is its arguments;
/// - anything else (V3, R1): the header is the call type (`function`), a name follows up to the
///   end of its line, then the arguments as a JSON object, usually fenced by a line
///   ```` ```json ```` and a closing ```` ``` ```` (either fence may be missing).
///
/// The call starts when its name is known (at the separator in V3.1, at the end of the name's
/// line in V3); the arguments stream as deltas while they arrive. Rules:
///
/// - Every marker is also read with ASCII bars (`<|tool▁calls▁begin|>`), and the section opener
///   also as `<｜tool▁calls｜>`.
/// - Every call of a section is reported; white space between calls and the section's end are
///   markup. Inside a section, `<｜tool▁call▁begin｜>` may be missing (the header follows the
///   section opener or the previous call directly), and so may `<｜tool▁call▁end｜>` (the call
///   ends with its JSON object, or with its closing fence). After complete calls, bytes that
///   cannot begin a call (no separator on their line) end the section: they are text.
/// - A call outside a section (the section opener is missing) is a lone call. A lone
///   `<｜tool▁call▁begin｜>` that no separator follows on its line within 512 bytes is rejected
///   alone as `malformed`, and what follows it is text again.
/// - A header with no separator, an empty name, or a body that is not a JSON object (invalid
///   JSON included) rejects that call (`malformed`) through its `<｜tool▁call▁end｜>` (or up to
///   the next call or the section's end); the calls around it are kept.
/// - End of stream: after complete calls a missing section end is fine; a call cut off before its
///   JSON object is complete is `incomplete`, and so is a section that never held a call.
/// - Orphan `<｜tool▁calls▁end｜>`, `<｜tool▁call▁end｜>` and `<｜tool▁sep｜>` are markup.
struct DeepSeekGrammar: CallGrammar {
    private enum State: Sendable {
        /// Inside a section, between calls.
        case section
        /// Reading the header that began at `start`, up to the separator.
        case header(start: Int)
        /// After the separator: a `{` (V3.1) or a name (V3).
        case afterSeparator(header: String)
        /// V3: the name that began at `start`, up to the end of its line.
        case name(start: Int)
        /// Before the arguments: white space and an optional opening fence.
        case beforeArguments(fenced: Bool)
        case arguments
        /// The arguments (and their closing fence, when `fenceClosed`) ended at `end`.
        case afterArguments(JSONValue, end: Int, fenceClosed: Bool)
        /// Skipping a call that cannot be parsed, to its end.
        case badCall(detail: String)
    }

    /// A marker's two spellings: full-width bars (the tokens' text) and ASCII bars.
    static func spellings(_ body: String) -> [String] { ["<｜\(body)｜>", "<|\(body)|>"] }

    /// The section opener, and the shorter `<｜tool▁calls｜>` some outputs write.
    static let sectionBegin = spellings("tool▁calls▁begin") + spellings("tool▁calls")
    static let sectionEnd = spellings("tool▁calls▁end")
    static let callBegin = spellings("tool▁call▁begin")
    static let callEnd = spellings("tool▁call▁end")
    static let separator = spellings("tool▁sep")

    let markers: [Marker] = DeepSeekGrammar.sectionBegin.map { Marker($0) }
        + DeepSeekGrammar.callBegin.map { Marker($0) }
        + (DeepSeekGrammar.sectionEnd + DeepSeekGrammar.callEnd + DeepSeekGrammar.separator).map { Marker($0, kind: .stray) }
    let skipRule = SkipRule.through((DeepSeekGrammar.callEnd + DeepSeekGrammar.sectionEnd).map { Array($0.utf8) })

    private static func bytes(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }
    /// What a section holds between calls: a call or the section's end.
    private static let sectionTags = bytes(callBegin + sectionEnd)
    /// What ends a header: the separator (0, 1), or a call's end, a call, a section or its end.
    private static let headerMarkers = MarkerSet(bytes(separator + callEnd + callBegin + sectionBegin + sectionEnd))
    /// What ends a call that cannot be parsed: through a call's end (0, 1), before the others.
    private static let badCallMarkers = MarkerSet(bytes(callEnd + callBegin + sectionEnd))
    private static let callEndTags = bytes(callEnd)

    /// The longest header or name read before the call counts as malformed.
    static let maxHeaderBytes = 512
    /// The longest language word after an opening fence.
    static let maxFenceWordBytes = 32

    private var state: State = .section
    // The arguments reader lives in stored properties, so it mutates in place.
    private var argsReader = JSONReader()
    private var streamer = RawDeltaStreamer(from: 0)
    private var pos = 0
    private var inSection = false
    private var callsSeen = 0
    /// The end of the last reported action.
    private var accounted = 0
    /// The first byte after the frame's marker.
    private var bodyStart = 0
    /// Whether the current header began with no call-begin marker (inside a section).
    private var bareHeader = false

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        pos = bodyStart
        self.bodyStart = bodyStart
        accounted = at
        callsSeen = 0
        inSection = marker < DeepSeekGrammar.sectionBegin.count
        state = inSection ? .section : .header(start: bodyStart)
    }

    private static func trimmedText(_ w: ByteWindow, _ r: Range<Int>) -> String {
        SchemaTyping.trimSpace(String(decoding: w.slice(r), as: UTF8.self))
    }

    private mutating func skipSpace(_ w: ByteWindow) {
        pos = w.skipSpace(from: pos)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        typealias D = DeepSeekGrammar
        while true {
            switch state {
            case .section:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, D.sectionTags) {
                case .found(let k) where k < D.callBegin.count:
                    markupBefore(pos, actions: &actions)
                    bareHeader = false
                    pos += D.sectionTags[k].count
                    state = .header(start: pos)
                case .found(let k):
                    let end = pos + D.sectionTags[k].count
                    mark(end, actions: &actions)
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    // The call's begin marker is missing: its header starts here (the white space
                    // before it goes with the call, or back to the text when it is no call).
                    bareHeader = true
                    state = .header(start: pos)
                }
            case .header(let start):
                let limit = min(w.end, start + D.maxHeaderBytes + D.headerMarkers.maxLength)
                // A bound short of the received bytes is no end of the stream: a marker cut by
                // it begins too late for a header anyway.
                let match = D.headerMarkers.search(w, from: pos, end: limit, isFinal: limit < w.end)
                let searched: Int
                switch match {
                case .found(_, let at), .partial(let at): searched = at
                case .none: searched = limit
                }
                // A name never spans lines: a line break inside the header ends the call here.
                if let brk = D.lineBreak(w, start..<searched) {
                    if let step = fail("the call's name holds a line break", at: brk, actions: &actions) { return step }
                    continue
                }
                switch match {
                case .found(let k, let at) where at - start <= D.maxHeaderBytes:
                    if k < D.separator.count {
                        let header = D.trimmedText(w, start..<at)
                        pos = at + D.headerMarkers.markers[k].count
                        if header.isEmpty {
                            if let step = fail("the call has no name before <｜tool▁sep｜>", at: pos, actions: &actions) { return step }
                        } else {
                            state = .afterSeparator(header: header)
                        }
                    } else if let step = fail("expected <｜tool▁sep｜> after the call's name", at: at, actions: &actions) {
                        return step
                    }
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none where limit - start <= D.maxHeaderBytes:
                    pos = limit
                    return .needMore
                case .found, .none:
                    // No separator within the cap: too long, however the bytes came. The search
                    // for the call's end starts where the header began, so every chunking finds
                    // the same end.
                    if let step = fail("the call's name is too long or has no <｜tool▁sep｜>", at: start, actions: &actions) {
                        return step
                    }
                }
            case .afterSeparator(let header):
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: "{") {
                    startCall(header, actions: &actions)
                    beginArguments(context)
                } else {
                    state = .name(start: pos)
                }
            case .name(let start):
                var i = pos
                while i < w.end {
                    let b = w[i]
                    if b == 0x0A || b == 0x0D || b == UInt8(ascii: "`") || b == UInt8(ascii: "{") || b == UInt8(ascii: "<") {
                        break
                    }
                    i += 1
                }
                if i - start > D.maxHeaderBytes {
                    pos = start
                    state = .badCall(detail: "the function name is too long")
                    continue
                }
                guard i < w.end else {
                    pos = i
                    return .needMore
                }
                let name = D.trimmedText(w, start..<i)
                pos = i
                if name.isEmpty || w[i] == UInt8(ascii: "<") {
                    state = .badCall(detail: "expected a function name and JSON arguments after <｜tool▁sep｜>")
                } else {
                    startCall(name, actions: &actions)
                    state = .beforeArguments(fenced: false)
                }
            case .beforeArguments(let fenced):
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: "{") {
                    beginArguments(context)
                } else if !fenced && w[pos] == UInt8(ascii: "`") {
                    // An opening fence: three backticks and a language word (`json`).
                    var i = pos
                    while i < w.end && i - pos < 3 && w[i] == UInt8(ascii: "`") { i += 1 }
                    if i == w.end && i - pos < 3 { return .needMore }
                    guard i - pos == 3 else {
                        state = .badCall(detail: "expected a JSON object of arguments")
                        continue
                    }
                    while i < w.end && i - pos < 3 + D.maxFenceWordBytes && D.isWordByte(w[i]) { i += 1 }
                    if i == w.end { return .needMore }
                    pos = i
                    state = .beforeArguments(fenced: true)
                } else {
                    state = .badCall(detail: "expected a JSON object of arguments")
                }
            case .arguments:
                let event = argsReader.advance(w, from: &pos, to: w.end)
                switch event {
                case .needMore, .valueStart, .valueEnd:
                    streamer.flush(w, upTo: pos, final: false, actions: &actions)
                    if case .needMore = event { return .needMore }
                case .complete(let value, let end):
                    streamer.flush(w, upTo: end, final: true, actions: &actions)
                    pos = end
                    state = .afterArguments(value, end: end, fenceClosed: false)
                case .error(let m, let at):
                    // The deltas of the valid prefix, however the input was chunked.
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    pos = at
                    state = .badCall(detail: m)
                case .tooDeep(let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .afterArguments(let value, let end, let fenceClosed):
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                if !fenceClosed && w[pos] == UInt8(ascii: "`") {
                    var i = pos
                    while i < w.end && i - pos < 3 && w[i] == UInt8(ascii: "`") { i += 1 }
                    if i == w.end && i - pos < 3 { return .needMore }
                    if i - pos == 3 {
                        pos = i
                        state = .afterArguments(value, end: i, fenceClosed: true)
                        continue
                    }
                }
                switch TagMatch.at(w, pos, D.callEndTags) {
                case .found(let k):
                    let close = pos + D.callEndTags[k].count
                    actions.append(.accept(arguments: CanonicalJSON(value), end: close))
                    if let step = callEnded(at: close) { return step }
                case .partial:
                    return .needMore
                case .none:
                    // No call end: the call ends with its arguments.
                    actions.append(.accept(arguments: CanonicalJSON(value), end: end))
                    if let step = callEnded(at: end) { return step }
                }
            case .badCall(let detail):
                switch D.badCallMarkers.search(w, from: pos, end: w.end) {
                case .found(let k, let at):
                    let close = k < D.callEnd.count ? at + D.badCallMarkers.markers[k].count : at
                    actions.append(.reject(.malformed, detail: detail, end: close))
                    if let step = callEnded(at: close) { return step }
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none:
                    pos = w.end
                    return .needMore
                }
            }
        }
    }

    /// The first line break in `r` after its leading white space.
    private static func lineBreak(_ w: ByteWindow, _ r: Range<Int>) -> Int? {
        var i = r.lowerBound
        while i < r.upperBound && JSONReader.isSpace(w[i]) { i += 1 }
        while i < r.upperBound {
            if w[i] == 0x0A || w[i] == 0x0D { return i }
            i += 1
        }
        return nil
    }

    private static func isWordByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "_")
    }

    private func startCall(_ name: String, actions: inout [GrammarAction]) {
        actions.append(.start(name: name, id: nil))
    }

    private mutating func beginArguments(_ context: GrammarContext) {
        argsReader = JSONReader(maxDepth: context.maxDepth)
        streamer = RawDeltaStreamer(from: pos)
        state = .arguments
    }

    /// Markup for the bytes between the previous call and `at` (white space, a section opener).
    private mutating func markupBefore(_ at: Int, actions: inout [GrammarAction]) {
        if callsSeen > 0 && at > accounted { mark(at, actions: &actions) }
    }

    private mutating func mark(_ end: Int, actions: inout [GrammarAction]) {
        actions.append(.markup(end: end))
        accounted = end
    }

    /// A header that cannot be a call: a lone begin marker gives its bytes back as text, a
    /// call of a section is skipped to its end from `at`.
    private mutating func fail(_ detail: String, at: Int, actions: inout [GrammarAction]) -> GrammarStep? {
        if case .header = state, bareHeader && callsSeen > 0 {
            // After complete calls, what is no call is text: the section's end was left out.
            return .finished(at: accounted)
        }
        if !inSection {
            actions.append(.reject(.malformed, detail: "a call-begin marker that no call follows", end: bodyStart))
            return .finished(at: bodyStart)
        }
        pos = at
        state = .badCall(detail: detail)
        return nil
    }

    /// A call of the frame ended at `close`: the section goes on, or a lone call's frame ends.
    private mutating func callEnded(at close: Int) -> GrammarStep? {
        callsSeen += 1
        pos = close
        accounted = close
        guard inSection else { return .finished(at: close) }
        state = .section
        return nil
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .arguments = state else { return nil }
        return streamer.passThrough(argsReader, pos: pos, at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .section:
            if callsSeen > 0 {
                actions.append(.markup(end: w.end))
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside an empty call section", end: w.end))
            }
        case .header where bareHeader && callsSeen > 0:
            // Text after complete calls whose section end was left out.
            actions.append(.text(end: w.end))
        case .header, .afterSeparator, .name:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call's name", end: w.end))
        case .beforeArguments, .arguments:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterArguments(let value, let end, _):
            actions.append(.accept(arguments: CanonicalJSON(value), end: end))
            if w.end > end { actions.append(inSection ? .markup(end: w.end) : .text(end: w.end)) }
        case .badCall(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }
}
