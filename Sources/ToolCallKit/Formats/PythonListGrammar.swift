// ToolCallKit — the Python-call-list family: `START[f(a='v', b=1), g()]END` (lfm2), and the
// bare `[f(a=1)]` list with optional `<|python_start|>` … `<|python_end|>` (pythonic).

/// What one format of the Python-call-list family writes around its list.
struct PythonListSyntax: Sendable {
    /// The marker that opens a frame.
    let start: String
    /// The marker that closes it.
    let end: String
    /// Whether a bare `[` in text opens a frame too, when a call follows it (`[` , white space,
    /// a name, `(`); otherwise the `[` is text.
    let bareList: Bool
    /// Whether a repeat of the list right after the end marker, closed by a second end marker,
    /// is markup (LFM2 echoes its list).
    let echo: Bool
    /// Whether a bare list of calls with no markers is a call when it is the whole output and
    /// every name in it is a declared tool (LFM2, whose markers servers may strip): recognised
    /// at the end of the stream, since until then more text may follow.
    let wholeOutputList: Bool
    /// Whether a keyword argument's own string is written verbatim, a backslash being data
    /// (LFM2.5's template writes `'` + the value + `'`); strings inside lists and dicts keep
    /// Python's (and JSON's) escapes (``PythonCallReader/Strings``).
    let verbatimStrings: Bool
    /// The markers and marker sets the grammar matches against, built once per syntax and
    /// shared by every decoder of it (not built per decoder).
    let tables: PythonListTables

    init(start: String, end: String, bareList: Bool = false, echo: Bool = false, wholeOutputList: Bool = false,
         verbatimStrings: Bool = false) {
        self.start = start
        self.end = end
        self.bareList = bareList
        self.echo = echo
        self.wholeOutputList = wholeOutputList
        self.verbatimStrings = verbatimStrings
        tables = PythonListTables(start: start, end: end, bareList: bareList, wholeOutputList: wholeOutputList)
    }

    /// LFM2 and LFM2.5: string arguments verbatim, as LFM2.5's template writes them.
    static let lfm2 = PythonListSyntax(
        start: "<|tool_call_start|>", end: "<|tool_call_end|>", echo: true, wholeOutputList: true, verbatimStrings: true)
    /// `lfm2_python`: every string a Python literal.
    static let lfm2Python = PythonListSyntax(start: "<|tool_call_start|>", end: "<|tool_call_end|>", echo: true, wholeOutputList: true)
    static let pythonic = PythonListSyntax(start: "<|python_start|>", end: "<|python_end|>", bareList: true)
}

/// What ``PythonListGrammar`` matches against for one ``PythonListSyntax``.
final class PythonListTables: Sendable {
    let markers: [Marker]
    let endSet: MarkerSet
    /// Where skipping a broken call or list stops: the end marker, or a new start marker.
    let stops: MarkerSet
    let skipRule: SkipRule

    init(start: String, end: String, bareList: Bool, wholeOutputList: Bool) {
        var markers = [Marker(start), Marker(end, kind: .stray)]
        if bareList || wholeOutputList {
            var bracket = Marker("[", role: .bareList, condition: bareList ? .always : .atStartWhenToolsDeclared)
            bracket.candidate = true
            bracket.follows = PythonListGrammar.bareListRule
            markers.append(bracket)
        }
        self.markers = markers
        endSet = MarkerSet([end])
        stops = MarkerSet([end, start])
        skipRule = SkipRule.through([Array(end.utf8)])
    }
}

/// Grammar for the Python-call-list family (``PythonListSyntax``): LFM2 / LFM2.5 and the
/// Llama 3.2 / Llama 4 / Olmo pythonic lists.
///
/// Frames: the start marker + a Python list of calls + the end marker, or (with ``PythonListSyntax/bareList``)
/// a bare list. Each call is read by ``PythonCallReader`` and reported as soon as its `)`
/// arrives: the first call's raw span starts at the start marker (or the bare `[`), a later
/// one's right after the call before it (its `,` included). Rules (docs/formats.md):
///
/// - White space may follow the start marker and surround the calls; a trailing comma is fine.
/// - `[]` (or `[ ]`) after the start marker is no call: markup. A bare `[` counts only when a
///   call follows it: white space, a name and `(` (at most 256 bytes of look-ahead); any other
///   bracket (`[1]`, `[don't panic]`, `[]`) is text.
/// - One call without brackets after the start marker (`<|tool_call_start|>f(a=1)<|tool_call_end|>`)
///   is accepted, and so are several separated by commas.
/// - A call that cannot be read (positional arguments, `b'..'`, an expression) is rejected as
///   `malformed` up to its closing `)`; the calls around it survive. Skipping stops at the end
///   marker, or at a new start marker (the model began again), which opens a new frame.
/// - The end marker inside a quoted value is data: the list is parsed, not searched.
/// - A missing end marker at end of stream is fine once the list is complete; what follows a
///   list without an end marker is text (another bare list right after opens a new frame). A
///   list cut off inside a call is `incomplete`. In a bare list, anything but `,`, `]` or the
///   end marker after a call ends the frame, and the rest is text.
/// - Orphan end markers are `markup`.
/// - With ``PythonListSyntax/wholeOutputList`` (LFM2) and tools declared, a bare list at the
///   start of the output is held (``maxEchoBytes`` at most): at the end of the stream it is a
///   list of calls when only white space followed it and every name in it is declared; text
///   as soon as anything else follows its closing bracket, or when it does not read.
/// - With ``PythonListSyntax/echo`` (LFM2, which sometimes repeats the list it just wrote right
///   after the end marker and closes the echo with a second end marker): an exact repeat of the
///   list (white space after the first end marker allowed) followed by the end marker is
///   `markup`. Anything else there is text.
struct PythonListGrammar: CallGrammar {
    private enum State: Sendable {
        /// After the start marker: white space, then `[`, a call, or the end marker.
        case open
        /// Inside the list: a call, or `]` (when `closable`: first, or after a comma).
        case element(closable: Bool)
        /// Reading a call.
        case call
        /// Skipping the rest of a call that could not be read.
        case recover(PythonCallSkipper, detail: String)
        /// After a call: `,`, `]`, or the end marker.
        case next
        /// After the list's `]` (at `listEnd`): white space, then the end marker or the end of
        /// the frame.
        case afterList(listEnd: Int)
        /// After the end marker (at `markerEnd`): an echo of the list, or the end of the frame.
        /// `matched` bytes of the echo matched so far; `echoStart` is where the echo began.
        case echo(markerEnd: Int, echoStart: Int?, matched: Int)
        /// After the echo: white space, then the closing end marker.
        case afterEcho(markerEnd: Int)
        /// Not a call list: skipping to the end marker; the frame is rejected as `malformed`.
        case junk(detail: String)
        /// A bare `[` (at `at`): looking ahead for a call before taking it as a list.
        case candidate(at: Int)
        /// A bare `[` (at `at`) at the start of the output, with ``PythonListSyntax/wholeOutputList``:
        /// held until the end of the stream, where it is a list of calls if it is the whole
        /// output; given back as text as soon as it cannot be.
        case whole(at: Int)
    }

    let syntax: PythonListSyntax
    var markers: [Marker] { syntax.tables.markers }
    private var endSet: MarkerSet { syntax.tables.endSet }
    /// Where skipping a broken call or list stops: the end marker, or a new start marker.
    private var stops: MarkerSet { syntax.tables.stops }
    /// The longest list kept to recognize an echo of it.
    static let maxEchoBytes = 64 << 10
    /// How far a bare `[` looks ahead for a call.
    static let maxCandidateBytes = 256
    var skipRule: SkipRule { syntax.tables.skipRule }

    init(_ syntax: PythonListSyntax) {
        self.syntax = syntax
    }

    private var state: State = .open
    /// The call being read: a stored property, not an enum payload, so it mutates in place
    /// (a payload is copied out and back on every chunk).
    private var reader = PythonCallReader(at: 0, context: GrammarContext(format: .lfm2, tools: nil, maxDepth: 0))
    private var pos = 0
    private var inList = false
    /// The frame is a bare list (no start marker).
    private var bare = false
    /// The end of the last action reported.
    private var lastEnd = 0
    /// The list as written (from `[` to `]`), kept to recognize an echo; nil past the cap.
    private var listCopy: [UInt8]? = []
    private var listStart: Int? = nil
    /// One past the list's `]`, once read.
    private var listEnd: Int? = nil
    /// How far `listCopy` has copied.
    private var copied = 0
    /// ``State/whole(at:)``: the brackets open, the quote open (0: none), an escape pending,
    /// and whether the list's bracket closed (only white space may follow).
    private var wholeDepth = 0
    private var wholeQuote: UInt8 = 0
    private var wholeEscaped = false
    private var wholeClosed = false

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        state = .open
        pos = bodyStart
        lastEnd = at
        inList = false
        bare = markers[marker].role == .bareList
        if bare {
            if syntax.wholeOutputList {
                state = .whole(at: at)
                pos = at
                wholeDepth = 0
                wholeQuote = 0
                wholeEscaped = false
                wholeClosed = false
            } else {
                state = .candidate(at: at)
            }
        }
        listCopy = []
        listStart = nil
        listEnd = nil
        copied = 0
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        let step = step(w, context: context, actions: &actions)
        copyList(w)
        return step
    }

    /// Copies the list's bytes read so far (the window may drop them once they are reported).
    private mutating func copyList(_ w: ByteWindow) {
        guard let start = listStart, listCopy != nil else { return }
        let upTo = min(pos, listEnd ?? pos)
        let from = max(copied, start)
        guard upTo > from else { return }
        if upTo - start > PythonListGrammar.maxEchoBytes {
            listCopy = nil
            return
        }
        listCopy!.append(contentsOf: w.slice(from..<upTo))
        copied = upTo
    }

    private mutating func step(_ w: ByteWindow, context: GrammarContext,
                               actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .candidate(let at):
                switch Self.callFollows(w, bracket: at) {
                case nil:
                    return .needMore
                case false?:
                    // Not a call list: the `[` is text, and scanning goes on after it.
                    report(.text(end: at + 1), &actions)
                    return .finished(at: at + 1)
                case true?:
                    inList = true
                    listStart = at
                    copied = at
                    pos = at + 1
                    state = .element(closable: true)
                }
            case .whole(let at):
                if pos == at {
                    switch Self.callFollows(w, bracket: at) {
                    case nil:
                        return .needMore
                    case false?:
                        report(.text(end: at + 1), &actions)
                        return .finished(at: at + 1)
                    case true?:
                        break
                    }
                }
                guard scanWhole(w, from: at) else {
                    // More than white space after the list, or longer than a list is held:
                    // not the whole output. The `[` is text, and scanning goes on after it.
                    report(.text(end: at + 1), &actions)
                    return .finished(at: at + 1)
                }
                return .needMore
            case .open:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                if b == UInt8(ascii: "[") {
                    inList = true
                    listStart = pos
                    copied = pos
                    pos += 1
                    state = .element(closable: true)
                } else if PythonCallReader.isNameStart(b) {
                    reader = PythonCallReader(at: pos, context: context, strings: syntax.verbatimStrings ? .verbatimArguments : .python)
                    state = .call
                } else {
                    switch endMarker(w, at: pos) {
                    case nil: return .needMore
                    case true?:
                        let end = pos + endSet.maxLength
                        report(.markup(end: end), &actions)
                        return .finished(at: end)
                    case false?:
                        state = .junk(detail: "expected a list of calls after \(syntax.start)")
                    }
                }
            case .element(let closable):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                if b == UInt8(ascii: "]") && closable {
                    pos += 1
                    listEnd = pos
                    state = .afterList(listEnd: pos)
                } else if PythonCallReader.isNameStart(b) {
                    reader = PythonCallReader(at: pos, context: context, strings: syntax.verbatimStrings ? .verbatimArguments : .python)
                    state = .call
                } else {
                    state = .recover(PythonCallSkipper(depth: 0), detail: "expected a call")
                }
            case .call:
                let result = reader.advance(w, actions: &actions)
                pos = reader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .complete(let arguments, let end):
                    report(.accept(arguments: arguments, end: end), &actions)
                    state = .next
                case .invalid(let detail, let end):
                    report(.reject(.invalidArguments, detail: detail, end: end), &actions)
                    state = .next
                case .error(let message, let at):
                    pos = at
                    state = .recover(PythonCallSkipper(depth: reader.depth), detail: message)
                case .tooDeep(let at):
                    report(.tooDeep(context, end: at), &actions)
                    return .skip
                }
            case .recover(var skipper, let detail):
                switch skipper.skip(w, from: &pos, stopAt: stops) {
                case .needMore:
                    state = .recover(skipper, detail: detail)
                    return .needMore
                case .at(let end):
                    if end > lastEnd { report(.reject(.malformed, detail: detail, end: end), &actions) }
                    state = .next
                case .marker(let end):
                    if end > lastEnd { report(.reject(.malformed, detail: detail, end: end), &actions) }
                    // The end marker closes the frame (in `.next`); a new start marker begins another.
                    if endMarker(w, at: end) != true { return .finished(at: end) }
                    state = .next
                }
            case .next:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                if b == UInt8(ascii: ",") {
                    pos += 1
                    state = .element(closable: inList)
                } else if b == UInt8(ascii: "]") && inList {
                    pos += 1
                    listEnd = pos
                    state = .afterList(listEnd: pos)
                } else {
                    switch endMarker(w, at: pos) {
                    case nil: return .needMore
                    case true?:
                        // The list's `]` is missing; the end marker closes the frame.
                        let end = pos + endSet.maxLength
                        report(.markup(end: end), &actions)
                        return .finished(at: end)
                    case false?:
                        if !inList || bare { return .finished(at: lastEnd) }
                        state = .junk(detail: "unexpected text after a call")
                    }
                }
            case .afterList(let listEnd):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                switch endMarker(w, at: pos) {
                case nil: return .needMore
                case true?:
                    pos += endSet.maxLength
                    report(.markup(end: pos), &actions)
                    copyList(w)
                    guard syntax.echo, listCopy != nil else { return .finished(at: pos) }
                    state = .echo(markerEnd: pos, echoStart: nil, matched: 0)
                case false?:
                    report(.markup(end: listEnd), &actions)
                    return .finished(at: listEnd)
                }
            case .echo(let markerEnd, let echoStart, var matched):
                guard let copy = listCopy, !copy.isEmpty else { return .finished(at: markerEnd) }
                if echoStart == nil {
                    pos = w.skipSpace(from: pos)
                    guard pos < w.end else { return .needMore }
                }
                let start = echoStart ?? pos
                while pos < w.end && matched < copy.count {
                    guard w[pos] == copy[matched] else { return .finished(at: markerEnd) }
                    pos += 1
                    matched += 1
                }
                if matched < copy.count {
                    state = .echo(markerEnd: markerEnd, echoStart: start, matched: matched)
                    return .needMore
                }
                state = .afterEcho(markerEnd: markerEnd)
            case .afterEcho(let markerEnd):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                switch endMarker(w, at: pos) {
                case nil: return .needMore
                case true?:
                    let end = pos + endSet.maxLength
                    report(.markup(end: end), &actions)
                    return .finished(at: end)
                case false?:
                    return .finished(at: markerEnd)
                }
            case .junk(let detail):
                switch stops.search(w, from: pos, end: w.end) {
                case .found(let k, let at):
                    // Through the end marker, or up to a new start marker.
                    let end = k == 0 ? at + stops.markers[0].count : at
                    if end > lastEnd { report(.reject(.malformed, detail: detail, end: end), &actions) }
                    return .finished(at: end)
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

    /// ``State/whole(at:)``: reads on from `pos` with a bracket matcher (quotes and their
    /// escapes respected); false once the list cannot be the whole output (a byte other than
    /// white space after its closing bracket, or more than ``maxEchoBytes``).
    private mutating func scanWhole(_ w: ByteWindow, from at: Int) -> Bool {
        while pos < w.end {
            let b = w[pos]
            if pos - at > Self.maxEchoBytes { return false }
            if wholeClosed {
                guard JSONReader.isSpace(b) else { return false }
            } else if wholeQuote != 0 {
                if wholeEscaped {
                    wholeEscaped = false
                } else if b == UInt8(ascii: "\\") {
                    wholeEscaped = true
                } else if b == wholeQuote {
                    wholeQuote = 0
                }
            } else {
                switch b {
                case UInt8(ascii: "'"), UInt8(ascii: "\""):
                    wholeQuote = b
                case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "{"):
                    wholeDepth += 1
                case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "}"):
                    wholeDepth -= 1
                    if wholeDepth <= 0 { wholeClosed = true }
                default:
                    break
                }
            }
            pos += 1
        }
        return true
    }

    /// At the end of the stream, the held bare list (``State/whole(at:)``): its calls, when it
    /// is a complete list of calls followed by nothing but white space and every name in it is
    /// a declared tool; otherwise text.
    private mutating func finishWhole(at: Int, _ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        var trial = self
        trial.state = .element(closable: true)
        trial.pos = at + 1
        trial.inList = true
        trial.listStart = at
        trial.copied = at
        var read: [GrammarAction] = []
        let step = trial.step(w, context: context, actions: &read)
        var fits = false
        if case .needMore = step, case .afterList = trial.state, wholeClosed, let tools = context.tools {
            fits = read.allSatisfy { action in
                switch action {
                case .start(let name, _): return tools[name] != nil
                case .delta, .accept, .markup: return true
                case .reject(let reason, _, _): return reason == .invalidArguments
                case .text, .reasoning: return false
                }
            }
        }
        guard fits else {
            report(.text(end: w.end), &actions)
            return
        }
        self = trial
        actions += read
        finish(w, context: context, actions: &actions)
    }

    /// Whether a call follows the bare `[` at `at`: white space, a name, then `(`. Nil while
    /// the bytes so far cannot tell.
    static func callFollows(_ w: ByteWindow, bracket at: Int) -> Bool? {
        bareListRule.check(count: w.end - (at + 1)) { w[at + 1 + $0] }
    }

    /// What makes a bare `[` a list: white space, a name and `(` within
    /// ``maxCandidateBytes`` of it (the bracket's ``Marker/follows``).
    static let bareListRule = FollowRule(
        skip: ByteSet(where: JSONReader.isSpace), first: ByteSet(where: PythonCallReader.isNameStart),
        rest: ByteSet(where: PythonCallReader.isNameByte), then: UInt8(ascii: "("), limit: maxCandidateBytes)

    /// Whether the end marker begins at `at`: nil while the bytes so far are a prefix of it.
    private func endMarker(_ w: ByteWindow, at: Int) -> Bool? {
        let m = endSet.markers[0]
        var i = 0
        while i < m.count {
            guard at + i < w.end else { return nil }
            if w[at + i] != m[i] { return false }
            i += 1
        }
        return true
    }

    private mutating func report(_ action: GrammarAction, _ actions: inout [GrammarAction]) {
        switch action {
        case .accept(_, let end), .reject(_, _, let end), .markup(let end), .text(let end), .reasoning(let end): lastEnd = end
        case .start, .delta: break
        }
        actions.append(action)
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .call = state else { return nil }
        return reader.passThrough(at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        reader.takeForwarded(count, w)
        pos = reader.pos
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .call where reader.isAwaitingArgumentEnd:
            // The last argument's string may have ended just before the end of the stream.
            switch reader.advance(w, actions: &actions, isFinal: true) {
            case .complete(let arguments, let end):
                report(.accept(arguments: arguments, end: end), &actions)
                report(.markup(end: w.end), &actions)
            case .invalid(let detail, let end):
                report(.reject(.invalidArguments, detail: detail, end: end), &actions)
                report(.markup(end: w.end), &actions)
            default:
                report(.reject(.incomplete, detail: "the stream ended inside the call list", end: w.end), &actions)
            }
        case .candidate:
            report(.text(end: w.end), &actions)
        case .whole(let at):
            finishWhole(at: at, w, context: context, actions: &actions)
        case .open, .element, .call:
            report(.reject(.incomplete, detail: "the stream ended inside the call list", end: w.end), &actions)
        case .recover(_, let detail), .junk(let detail):
            report(.reject(.malformed, detail: detail, end: w.end), &actions)
        case .next:
            // The calls so far are complete; the list's end never came.
            report(.markup(end: w.end), &actions)
        case .afterList(let listEnd):
            // A cut-off end marker after the list (white space before it) is markup, as in
            // every format; white space alone stays text.
            var i = listEnd
            i = w.skipSpace(from: i)
            report(.markup(end: i < w.end ? w.end : listEnd), &actions)
            report(.text(end: w.end), &actions)
        case .echo(let markerEnd, _, _), .afterEcho(let markerEnd):
            // Not a closed echo: what follows the end marker is text.
            if markerEnd > lastEnd { report(.markup(end: markerEnd), &actions) }
            report(.text(end: w.end), &actions)
        }
    }
}
