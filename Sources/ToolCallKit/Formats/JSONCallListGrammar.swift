// ToolCallKit — the JSON-call-list family: a marker, then `[{call}, {call}, …]`, then an
// optional end marker (granite, nemotron, phi4_mini, cohere).

/// What one format of the JSON-call-list family writes around and inside its list.
struct JSONCallListSyntax: Sendable {
    /// Markers that open a frame. One ending in `[` (`functools[`) opens the list itself.
    var opens: [String]
    /// The marker that closes the frame after the list, if the format writes one.
    var close: String?
    /// The call object's key names.
    var keys: CallObjectKeys = .standard
    /// Whether a lone call object may stand where the list belongs (`<TOOLCALL>{…}</TOOLCALL>`).
    var singleObject: Bool = false
    /// Whether a complete list whose end marker never came is fine at the end of the stream
    /// (otherwise the frame is `incomplete` there).
    var closeOptionalAtEnd: Bool = true
    /// Framing tokens that are `markup` wherever they appear (Cohere's `<|START_RESPONSE|>`).
    var markup: [String] = []
}

/// Grammar for the JSON-call-list family, configured by a ``JSONCallListSyntax``.
///
/// - After an open marker: white space, then `[` and call objects separated by commas (white
///   space anywhere between). A call object names the call and holds its arguments under the
///   syntax's keys (``CallObjectKeys``); the arguments are an object, or a JSON string that
///   encodes one (decoded once); an object without an arguments key is a zero-argument call
///   (`{}`); keys may come in any order; a model id under the id key is passed through.
/// - Calls stream: `start` once the name is known and the arguments object opens, then the
///   arguments' own bytes as deltas. A call whose name comes after its arguments is reported
///   whole when its object ends. The id is taken when it comes before the arguments (where
///   the templates write it); one written after them comes too late for `start`, and the
///   decoder makes a fresh id.
/// - `[]` is no call: markup. A trailing comma before `]` is fine, and so is a missing comma
///   between two objects (`}{` or `} {`, a drift).
/// - An element that is complete JSON but not a call (not an object, no name, arguments that
///   are no object) is `rejected` as `malformed` alone; its neighbours stand; so is an element
///   object that is not JSON, up to its closing bracket (``CallListReader``). Anything else
///   that is not JSON makes the rest of the frame `malformed`, up to the end marker (included)
///   or the next open marker; without either, up to the end of the stream.
/// - The end marker inside a JSON string is data: the list is parsed, not searched.
/// - After `]`: white space and the end marker are markup. Without an end marker in the
///   syntax, the frame ends at `]` and what follows is text; with one, anything else after `]`
///   ends the frame there too (the marker is missing), and the rest is text.
/// - End of stream: inside a call or the list, `incomplete` (never a truncated call); after
///   a complete list, fine when ``JSONCallListSyntax/closeOptionalAtEnd``.
/// - An orphan end marker and the framing tokens are markup.
struct JSONCallListGrammar: CallGrammar {
    private enum State: Sendable {
        /// After an open marker: white space, then `[` (or `{` when a lone object may stand).
        case open
        /// Reading the list (or the lone object) with ``list``.
        case list
        /// After the list's `]` (or the lone object) at `listEnd`: the end marker, if any.
        case afterList(listEnd: Int)
        /// Not a call list: skipping to the end marker or the next open marker.
        case malformed(detail: String)
    }

    let syntax: JSONCallListSyntax
    let markers: [Marker]
    let skipRule: SkipRule
    /// Where a malformed frame stops: the end marker (index 0, if any), then the open markers.
    private let stops: MarkerSet
    private let closeBytes: [UInt8]?
    private let rules: CallListRules

    private var state: State = .open
    private var pos = 0
    /// The list being read (a stored property, so it mutates in place).
    private var list = CallListReader.idle
    /// The end of the last action that accounted for bytes.
    private var accounted = 0

    init(_ syntax: JSONCallListSyntax) {
        self.syntax = syntax
        var markers = syntax.opens.map { Marker($0) }
        if let close = syntax.close { markers.append(Marker(close, kind: .stray)) }
        markers += syntax.markup.map { Marker($0, kind: .stray) }
        self.markers = markers
        self.closeBytes = syntax.close.map { Array($0.utf8) }
        self.stops = MarkerSet((syntax.close.map { [$0] } ?? []) + syntax.opens)
        if let close = syntax.close {
            self.skipRule = .through([Array(close.utf8)])
        } else {
            self.skipRule = .before(syntax.opens.map { Array($0.utf8) })
        }
        self.rules = CallListRules(keys: syntax.keys, streams: true, nameOnlyIsCall: true, trailingComma: true,
                                   missingComma: true, rejectsNonObjectsAlone: true)
    }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        pos = bodyStart
        accounted = at
        if syntax.opens[marker].hasSuffix("[") {
            beginList(context: context)
        } else {
            state = .open
        }
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .open:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                if w[pos] == UInt8(ascii: "[") {
                    pos += 1
                    beginList(context: context)
                } else if w[pos] == UInt8(ascii: "{") && syntax.singleObject {
                    list.begin(loneObjectAt: pos, rules: rules, maxDepth: context.maxDepth)
                    state = .list
                } else if let close = closeBytes {
                    switch TagMatch.at(w, pos, [close]) {
                    case .found:
                        // An empty frame: markup.
                        pos += close.count
                        actions.append(.markup(end: pos))
                        return .finished(at: pos)
                    case .partial:
                        return .needMore
                    case .none:
                        state = .malformed(detail: "expected a JSON list of calls after the marker")
                    }
                } else {
                    state = .malformed(detail: "expected a JSON list of calls after the marker")
                }
            case .list:
                switch list.read(w, actions: &actions) {
                case .needMore:
                    pos = list.pos
                    return .needMore
                case .end(let end):
                    pos = end
                    accounted = max(accounted, list.settledEnd)
                    state = .afterList(listEnd: end)
                case .malformed(let detail, let at):
                    pos = at
                    state = .malformed(detail: detail)
                case .skip:
                    return .skip
                }
            case .afterList(let listEnd):
                guard let close = closeBytes else {
                    if listEnd > accounted { actions.append(.markup(end: listEnd)) }
                    return .finished(at: listEnd)
                }
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, [close]) {
                case .found:
                    pos += close.count
                    actions.append(.markup(end: pos))
                    return .finished(at: pos)
                case .partial:
                    return .needMore
                case .none:
                    if listEnd > accounted { actions.append(.markup(end: listEnd)) }
                    return .finished(at: listEnd)
                }
            case .malformed(let detail):
                let hasClose = closeBytes != nil
                return stops.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { k in hasClose && k == 0 }
            }
        }
    }

    private mutating func beginList(context: GrammarContext) {
        list.begin(at: pos, rules: rules, maxDepth: context.maxDepth)
        state = .list
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .list = state else { return nil }
        return list.passThrough(at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        list.takePassThrough(count, w)
        pos = list.pos
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .open:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call list", end: w.end))
        case .list:
            let detail = list.isInObject ? "the stream ended inside the call" : "the stream ended inside the call list"
            actions.append(.reject(.incomplete, detail: detail, end: w.end))
        case .afterList(let listEnd):
            guard syntax.closeOptionalAtEnd else {
                actions.append(.reject(.incomplete, detail: "the stream ended before the end marker", end: w.end))
                return
            }
            // A cut-off end marker after the list is markup, as in every format; white space
            // alone stays text.
            var i = listEnd
            i = w.skipSpace(from: i)
            let end = i < w.end ? w.end : listEnd
            if end > accounted { actions.append(.markup(end: end)) }
            if end < w.end { actions.append(.text(end: w.end)) }
        case .malformed(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }
}

extension CallRenderer {
    /// `[{"NAME_KEY": "f", "ARGUMENTS_KEY": {...}}, ...]`: the JSON call list the family's
    /// templates write, with `", "` between members and elements.
    static func writeJSONCallList(_ calls: [RenderedCall], nameKey: String, argumentsKey: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, call) in calls.enumerated() {
            if i > 0 { out += Array(", ".utf8) }
            out.append(UInt8(ascii: "{"))
            JSONValue.writeString(nameKey, to: &out)
            out += Array(": ".utf8)
            JSONValue.writeString(call.name, to: &out)
            out += Array(", ".utf8)
            JSONValue.writeString(argumentsKey, to: &out)
            out += Array(": ".utf8)
            writeTemplateJSON(call.arguments, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }
}
