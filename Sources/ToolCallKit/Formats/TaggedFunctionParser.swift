// ToolCallKit — the tagged-functions family: a wrapper around function blocks whose
// parameters are tagged text values (the tags are each format's, ``TaggedFunctionTags``).

/// The tags of one tagged-function format.
///
/// A class, made once per format and shared by every decoder of it: the tag lists and marker
/// sets the grammar matches against are built here, not per decoder or per step (an idle
/// decoder holds one reference).
final class TaggedFunctionTags: Sendable {
    /// The wrapper's openers (several spellings, the well-formed ones first) and closers; any
    /// closer ends a block, and an opener met between function blocks is skipped (DeepSeek V4
    /// repeats a damaged opener).
    let wrapperOpens: [[UInt8]]
    let wrapperCloses: [[UInt8]]
    /// The function opener up to its name (`<function=`, `<invoke name=`).
    let functionOpen: [UInt8]
    let functionClose: [UInt8]
    /// The parameter opener up to its key (`<parameter=`, `<parameter name=`).
    let parameterOpen: [UInt8]
    /// Names and keys may be wrapped in `"` or `'` (stripped).
    let quotedNames: Bool
    /// A JSON call object (`{"name", "arguments"}`) may stand for a function block inside the
    /// wrapper (Qwen 3.5 falls back to the Hermes dialect).
    let jsonCalls: Bool
    /// A function block's body may be its arguments as one JSON object instead of parameters
    /// (DeepSeek V3.2 falls back to it).
    let jsonBody: Bool
    /// A parameter's `string="true"` attribute makes its value a string whatever it looks like
    /// (DeepSeek's DSML); `string="false"` (or none) types it as usual.
    let stringAttribute: Bool
    /// The attribute that holds a name or key when the openers end at the tag's name
    /// (`<function` then ` name="f"`, MiniCPM5): after the opener, white space (or the
    /// byte-level space `Ġ` a tokenizer left undecoded, or none at all where the tokenizer fused
    /// them), then this attribute, then the quoted name. nil: the opener ends at the name.
    let nameAttribute: [UInt8]?
    /// Keys of a first parameter that may wrap all the arguments (``TextArgumentEmitter/wrapperKeys``).
    let wrapperKeys: [String]
    /// Whether the format's template writes a newline on each side of a value
    /// (`<parameter=k>\nV\n</parameter>`, Qwen3-Coder): then exactly one is stripped at each
    /// end. Where the template writes the value flush against its tags (MiniMax M2, DeepSeek
    /// V3.2, Seed-OSS), every byte between the tags is the value's.
    let stripNewlines: Bool
    /// Parameter keys some models wrap every argument in (DeepSeek V3.2 writes one parameter
    /// `arguments` or `input` holding a JSON object): such a first parameter, undeclared by a
    /// declared tool, whose object fits the tool's schema and is the call's only parameter, is
    /// the arguments (``TextArgumentEmitter/beginWrapperCandidate(key:asString:tool:actions:)``).
    let objectWrapperKeys: Set<String>
    /// The token every tag of the format begins with, opening and closing (DSML's `<｜DSML｜` and
    /// `</｜DSML｜`), when the format's markup must never reach the text: a tag it begins that is
    /// none of the format's is a damaged tag (``TaggedFunctionParser``, `damaged`).
    let tagTokens: (open: [UInt8], close: [UInt8])?
    let value: TextValueScanner.Tags
    /// Start markers: the wrapper's openers, then a bare function block; the wrapper's closers
    /// are stray.
    let markers: [Marker]
    /// Between function blocks: the function opener, the wrapper's closers, its openers.
    let frameTags: [[UInt8]]
    /// Between parameters: the parameter opener, the function close, the wrapper's closers.
    let paramTags: [[UInt8]]
    /// After a JSON body: the function close, the wrapper's closers.
    let closeTags: [[UInt8]]
    /// Where a malformed frame ends: inside a wrapper, and in a bare block.
    let wrappedStops: MarkerSet
    let bareStops: MarkerSet
    /// The marker indexes of the damaged openers, and of the two tag tokens (nil without them).
    let damagedOpenerIndexes: Range<Int>
    let tagTokenIndexes: (open: Int, close: Int)?
    /// Where a damaged tag's region ends: the next opening tag token.
    let damagedStops: MarkerSet

    convenience init(
        wrapper: (String, String), function: (String, String), parameter: (String, String),
        quotedNames: Bool, stripNewlines: Bool, jsonCalls: Bool = false
    ) {
        self.init(wrappers: [wrapper], function: function, parameter: parameter, quotedNames: quotedNames,
                  stripNewlines: stripNewlines, jsonCalls: jsonCalls)
    }

    /// `damagedOpeners`: more wrapper openers (a well-formed one's prefix) that open a block too.
    /// `wrappers` may be empty (function blocks are written bare). `stripNewlines`: one newline
    /// at each end of a value is framing (the template writes it), not data. `cdata`: a value
    /// may be a whole `<![CDATA[…]]>` section (``TextValueScanner``).
    init(
        wrappers: [(String, String)], damagedOpeners: [String] = [], function: (String, String),
        parameter: (String, String), quotedNames: Bool, nameAttribute: String? = nil, stripNewlines: Bool,
        jsonCalls: Bool = false, jsonBody: Bool = false, stringAttribute: Bool = false, cdata: Bool = false,
        wrapperKeys: [String] = [], objectWrapperKeys: Set<String> = [], tagTokens: (open: String, close: String)? = nil
    ) {
        wrapperOpens = (wrappers.map(\.0) + damagedOpeners).map { Array($0.utf8) }
        wrapperCloses = wrappers.map { Array($0.1.utf8) }
        functionOpen = Array(function.0.utf8)
        functionClose = Array(function.1.utf8)
        parameterOpen = Array(parameter.0.utf8)
        self.quotedNames = quotedNames
        self.jsonCalls = jsonCalls
        self.jsonBody = jsonBody
        self.stringAttribute = stringAttribute
        self.nameAttribute = nameAttribute.map { Array($0.utf8) }
        self.stripNewlines = stripNewlines
        self.wrapperKeys = wrapperKeys
        self.objectWrapperKeys = objectWrapperKeys
        self.tagTokens = tagTokens.map { (Array($0.open.utf8), Array($0.close.utf8)) }
        value = TextValueScanner.Tags(
            close: parameter.1, follows: [parameter.0, function.1] + wrappers.map(\.1), breaks: [parameter.0, function.1],
            stripNewlines: stripNewlines, cdata: cdata,
            nests: wrappers.map { ($0.0, $0.1, [function.0]) } + [(function.0, function.1, [parameter.0, function.1])])
        let tokenMarkers = tagTokens.map { [Marker($0.open, role: .section), Marker($0.close, role: .section)] } ?? []
        markers = wrapperOpens.map { Marker(String(decoding: $0, as: UTF8.self), role: .section) }
            + [Marker(function.0, role: .call)]
            + tokenMarkers
            + wrapperCloses.map { Marker(String(decoding: $0, as: UTF8.self), kind: .stray) }
        damagedOpenerIndexes = wrappers.count..<(wrappers.count + damagedOpeners.count)
        let firstToken = wrapperOpens.count + 1
        tagTokenIndexes = tagTokens == nil ? nil : (firstToken, firstToken + 1)
        damagedStops = MarkerSet(tagTokens.map { [$0.open] } ?? [])
        frameTags = [functionOpen] + wrapperCloses + wrapperOpens
        paramTags = [parameterOpen, functionClose] + wrapperCloses
        closeTags = [functionClose] + wrapperCloses
        wrappedStops = MarkerSet(wrapperCloses)
        bareStops = MarkerSet([functionClose])
    }

    /// The tags the renderer must check a value for (``CallRenderer/taggedCalls``).
    var rendering: CallRenderer.TextTags {
        CallRenderer.TextTags(
            tags: [value.close, parameterOpen, functionClose, functionOpen] + wrapperOpens + wrapperCloses,
            quotedNames: quotedNames, glm: false)
    }
}

/// The tagged-functions family: the grammar of every format whose tags a ``TaggedFunctionTags`` names.
///
/// Frames: `WRAP (FUNC NAME> (PARAM KEY> value CLOSE)* /FUNC)+ /WRAP`, or a bare
/// `FUNC NAME> ... /FUNC` block (the wrapper was stripped or never written). Rules:
///
/// - `tool_call_start` as soon as the `>` after the name arrives; names and keys are trimmed
///   (and unquoted when the format quotes them); a name or key may contain spaces but not a
///   newline or `<`, and is at most 512 bytes. A bare opener whose name is broken
///   (`<function=name` with no `>`) is text, not a call; inside a wrapper it is `malformed`.
/// - Values: ``TextValueScanner`` (a missing close tag is closed by the next parameter or the
///   function's close, the line break and indentation before it being layout; a close tag
///   inside a value is data unless the next element follows). What surrounds a value is the
///   format's template's (``TaggedFunctionTags/stripNewlines``).
/// - With ``TaggedFunctionTags/tagTokens``: a tag opened by the format's token that is none of
///   its tags (or a damaged opener followed by no block) is `malformed` up to the next opening
///   token; an unknown closing tag is markup through its `>`.
/// - A missing function close before the wrapper's close is tolerated; an orphan wrapper close
///   after a bare block is `markup`.
/// - End of stream: accepted when the last value was closed (only closing tags are missing) or
///   the function was closed; cut inside a name, key or value (or a function with no
///   parameter) is `incomplete`.
struct TaggedFunctionParser: CallGrammar {
    private enum State: Sendable {
        /// Inside the wrapper, between function blocks.
        case frame
        /// After the function opener: the name up to `>`.
        case name
        /// Inside a function, between parameters.
        case params
        /// After the parameter opener: the key up to `>`.
        case key
        /// A value, read by `scanner` (a stored property: the enum stays small, and copying it
        /// at every step costs nothing).
        case value
        /// A JSON call object inside the wrapper (``TaggedFunctionTags/jsonCalls``), read by
        /// `jsonReader`. (Kept out of the enum: a reader with heap state in an enum payload is
        /// copied on every step, which made long objects quadratic.)
        case json
        /// A function block whose body is a JSON object (``TaggedFunctionTags/jsonBody``), read
        /// by `argsReader`.
        case jsonBody
        /// The JSON body ended at `end`: the function's close may follow.
        case afterJSONBody(JSONValue, end: Int)
        /// Skipping to the frame's end; the frame is `malformed`.
        case junk(String)
        /// A damaged or unknown opening tag (``TaggedFunctionTags/tagTokens``) and what follows
        /// it, up to the next opening tag token: `malformed`, and the calls after it stand.
        case damaged
        /// A closing tag token that closes none of the format's tags: markup through its `>`.
        case strayCloser
    }

    /// The longest damaged region kept for its rejection; past it the rest is text again.
    static let maxDamagedBytes = 4096

    static let maxNameBytes = 512

    let tags: TaggedFunctionTags
    private var state: State = .frame
    private var pos = 0
    private var wrapped = true
    /// The frame began with a damaged opener (``TaggedFunctionTags/damagedOpenerIndexes``).
    private var openedDamaged = false
    /// Where the frame's marker began.
    private var markerStart = 0
    private var frameStart = 0
    private var callsInFrame = 0
    private var tool: ToolDefinition?
    private var emitter = TextArgumentEmitter()
    private var scanner = TextValueScanner(start: 0)
    private var jsonReader = CallObjectReader(at: 0, streaming: true, maxDepth: 0)
    private var argsReader = JSONReader()
    private var streamer = RawDeltaStreamer(from: 0)

    init(tags: TaggedFunctionTags) {
        self.tags = tags
    }

    var skipRule: SkipRule {
        .through(wrapped ? tags.wrapperCloses : tags.bareStops.markers)
    }

    var markers: [Marker] { tags.markers }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        frameStart = bodyStart
        pos = bodyStart
        callsInFrame = 0
        wrapped = markers[marker].role == .section
        markerStart = at
        openedDamaged = tags.damagedOpenerIndexes.contains(marker)
        state = wrapped ? .frame : .name
        if let t = tags.tagTokenIndexes {
            if marker == t.open { state = .damaged } else if marker == t.close { state = .strayCloser }
        }
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .frame:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, tags.frameTags) {
                case .found(0):
                    pos += tags.functionOpen.count
                    state = .name
                case .found(let k) where k <= tags.wrapperCloses.count:
                    let end = pos + tags.wrapperCloses[k - 1].count
                    actions.append(.markup(end: end))
                    return .finished(at: end)
                case .found(let k):
                    // A repeated opener (with its `>` when it has one): part of the frame. At the
                    // end of the received bytes a shorter opener waits: a `>` may follow.
                    let next = pos + tags.wrapperOpens[k - 1 - tags.wrapperCloses.count].count
                    guard next < w.end else { return .needMore }
                    pos = w[next] == UInt8(ascii: ">") ? next + 1 : next
                case .partial:
                    return .needMore
                case .none:
                    if tags.jsonCalls && w[pos] == UInt8(ascii: "{") {
                        jsonReader = CallObjectReader(at: pos, streaming: true, maxDepth: context.maxDepth)
                        state = .json
                    } else if openedDamaged && callsInFrame == 0 && tags.tagTokens != nil {
                        // A damaged opener with prose after it (`<｜DSML｜tool_calls-ok Let's…`),
                        // not a block: a damaged tag.
                        state = .damaged
                    } else {
                        state = .junk("expected a function block")
                    }
                }
            case .json:
                let result = jsonReader.advance(w, actions: &actions)
                pos = jsonReader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .tooDeep(let at):
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                case .error(let m, let at):
                    pos = at
                    state = .junk(m)
                case .complete(let call, let end):
                    guard let name = call.name,
                        let arguments = call.arguments ?? (call.hasArgumentsKey ? nil : .object([])),
                        arguments.isObject
                    else {
                        pos = end
                        state = .junk("the call object has no name or no argument object")
                        continue
                    }
                    if !jsonReader.started {
                        jsonReader.reportUnstarted(call, name: name, arguments: arguments, w: w, actions: &actions)
                    }
                    actions.append(.accept(arguments: arguments, end: end))
                    callsInFrame += 1
                    pos = end
                    state = .frame
                }
            case .name:
                switch Self.readName(w, from: pos, tags: tags) {
                case .needMore:
                    return .needMore
                case .invalid:
                    if !wrapped {
                        // Only resembles a call: the opener is text, and scanning goes on after it.
                        actions.append(.text(end: frameStart))
                        return .finished(at: frameStart)
                    }
                    state = .junk("the function name does not end with '>'")
                case .name(let name, let next):
                    pos = next
                    actions.append(.start(name: name, id: nil))
                    tool = context.tools?[name]
                    emitter = TextArgumentEmitter(maxDepth: context.maxDepth, wrapperKeys: tags.wrapperKeys)
                    state = .params
                }
            case .params:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, tags.paramTags) {
                case .found(0):
                    pos += tags.parameterOpen.count
                    state = .key
                case .found(1):
                    let end = pos + tags.functionClose.count
                    settle(end: end, actions: &actions)
                    pos = end
                    if !wrapped { return .finished(at: end) }
                    state = .frame
                case .found(let k):
                    // The function's close is missing; the wrapper's close ends both.
                    let end = pos + tags.wrapperCloses[k - 2].count
                    settle(end: end, actions: &actions)
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    if tags.jsonBody && !emitter.hasValues && w[pos] == UInt8(ascii: "{") {
                        argsReader = JSONReader(maxDepth: context.maxDepth)
                        streamer = RawDeltaStreamer(from: pos)
                        state = .jsonBody
                    } else {
                        state = .junk("unexpected text between parameters")
                    }
                }
            case .jsonBody:
                let event = argsReader.advance(w, from: &pos, to: w.end)
                switch event {
                case .needMore, .valueStart, .valueEnd:
                    streamer.flush(w, upTo: pos, final: false, actions: &actions)
                    if case .needMore = event { return .needMore }
                case .complete(let value, let end):
                    streamer.flush(w, upTo: end, final: true, actions: &actions)
                    pos = end
                    state = .afterJSONBody(value, end: end)
                case .error(let m, let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    pos = at
                    state = .junk(m)
                case .tooDeep(let at):
                    streamer.flush(w, upTo: at, final: false, actions: &actions)
                    actions.append(.tooDeep(context, end: at))
                    return .skip
                }
            case .afterJSONBody(let value, let end):
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, tags.closeTags) {
                case .found(let k):
                    let close = pos + (k == 0 ? tags.functionClose.count : tags.wrapperCloses[k - 1].count)
                    actions.append(.accept(arguments: CanonicalJSON(value), end: close))
                    callsInFrame += 1
                    pos = close
                    if k > 0 || !wrapped { return .finished(at: close) }
                    state = .frame
                case .partial:
                    return .needMore
                case .none:
                    // The function's close is missing: the call ends with its object.
                    actions.append(.accept(arguments: CanonicalJSON(value), end: end))
                    callsInFrame += 1
                    pos = end
                    if !wrapped { return .finished(at: end) }
                    state = .frame
                }
            case .key:
                switch Self.readName(w, from: pos, tags: tags) {
                case .needMore:
                    return .needMore
                case .invalid:
                    state = .junk("the parameter name does not end with '>'")
                case .name(let key, let next):
                    let raw = tags.stringAttribute && Self.hasStringTrue(w, pos..<next)
                    pos = next
                    if !tags.objectWrapperKeys.isEmpty, !emitter.hasValues, let tool, tags.objectWrapperKeys.contains(key),
                        !tool.declares(argument: key)
                    {
                        emitter.beginWrapperCandidate(key: key, asString: raw, tool: tool, actions: &actions)
                    } else {
                        emitter.beginValue(key: key, tool: tool, asString: raw, actions: &actions)
                    }
                    scanner = TextValueScanner(start: next)
                    state = .value
                }
            case .value:
                let outcome = scanner.advance(w, tags: tags.value, emitter: &emitter, actions: &actions, judge: judge)
                switch outcome {
                case .needMore:
                    return .needMore
                case .ended(let next):
                    pos = next
                    state = .params
                }
            case .junk(let detail):
                let stops = wrapped ? tags.wrappedStops : tags.bareStops
                return stops.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in true }
            case .damaged:
                // Up to the next opening tag token (a block, an invoke, or another damaged tag,
                // each read on its own), within the cap.
                var cap = markerStart + Self.maxDamagedBytes
                let limit = min(w.end, cap)
                switch tags.damagedStops.search(w, from: pos, end: limit, isFinal: limit == cap) {
                case .found(_, let at):
                    actions.append(.reject(.malformed, detail: Self.damagedDetail, end: at))
                    return .finished(at: at)
                case .partial(let at):
                    pos = at
                    return .needMore
                case .none:
                    guard limit == cap else {
                        pos = limit
                        return .needMore
                    }
                    // The rest is text again, from a character's first byte.
                    while cap > pos && w[cap] & 0xC0 == 0x80 { cap -= 1 }
                    actions.append(.reject(.malformed, detail: Self.damagedDetail, end: cap))
                    return .finished(at: cap)
                }
            case .strayCloser:
                // Through its `>` on its line (at most a name's length); without one, the token.
                var i = pos
                while i < w.end && i - pos <= Self.maxNameBytes {
                    let b = w[i]
                    if b == UInt8(ascii: ">") {
                        actions.append(.markup(end: i + 1))
                        return .finished(at: i + 1)
                    }
                    if b == 0x0A || b == 0x0D || b == UInt8(ascii: "<") { break }
                    i += 1
                }
                if i == w.end && i - pos <= Self.maxNameBytes { return .needMore }
                actions.append(.markup(end: frameStart))
                return .finished(at: frameStart)
            }
        }
    }

    private static let damagedDetail = "a damaged or unknown DSML tag (the text up to the next tag)"

    func passThrough(at end: Int) -> PassThrough? {
        switch state {
        case .value:
            guard scanner.isCaughtUp(at: end), emitter.streamsString else { return nil }
            return tags.value.passThrough
        case .json:
            return jsonReader.passThrough(at: end)
        case .jsonBody:
            return streamer.passThrough(argsReader, pos: pos, at: end)
        default:
            return nil
        }
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        switch state {
        case .value:
            scanner.takeForwarded(count, w, emitter: &emitter)
        case .json:
            jsonReader.takePassThrough(count, w)
            pos = jsonReader.pos
        case .jsonBody:
            streamer.takeForwarded(count, w, reader: &argsReader, pos: &pos)
        default:
            preconditionFailure("takePassThrough outside a run")
        }
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .frame:
            if callsInFrame == 0 {
                actions.append(.reject(.incomplete, detail: "the stream ended before a function block", end: w.end))
            } else {
                actions.append(.markup(end: w.end))
            }
        case .name:
            // As in every format: a start marker whose name the stream cut off is a call cut off,
            // not text (a bare opener followed by what cannot be a name is text, above).
            actions.append(.reject(.incomplete, detail: "the stream ended inside the function name", end: w.end))
        case .params:
            if emitter.hasValues && TagMatch.at(w, pos, [tags.parameterOpen], isFinal: true) == .none
                && !endsInsideOpener(w)
            {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            }
        case .key, .json, .jsonBody:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
        case .afterJSONBody(let value, let end):
            actions.append(.accept(arguments: CanonicalJSON(value), end: end))
            callsInFrame += 1
            if w.end > end { actions.append(.markup(end: w.end)) }
        case .value:
            if scanner.finish(w, tags: tags.value, emitter: &emitter, actions: &actions, judge: judge) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a value", end: w.end))
            }
        case .junk(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        case .damaged:
            actions.append(.reject(.malformed, detail: Self.damagedDetail, end: w.end))
        case .strayCloser:
            actions.append(.markup(end: w.end))
        }
    }

    /// Between parameters at end of stream: whether the rest is a cut parameter opener.
    private func endsInsideOpener(_ w: ByteWindow) -> Bool {
        guard pos < w.end else { return false }
        if case .partial = TagMatch.at(w, pos, [tags.parameterOpen]) { return true }
        return false
    }

    /// Ends the current call at `end`: accepted, or rejected when a value did not fit its type.
    /// Ends a call whose closing tags never came (the stream ended): accepted only when no
    /// parameter its schema requires is missing, else `incomplete`.
    private mutating func settleCutOff(end: Int, actions: inout [GrammarAction]) {
        if let detail = emitter.cutOffDetail(tool) {
            actions.append(.reject(.incomplete, detail: detail, end: end))
        } else {
            settle(end: end, actions: &actions)
        }
    }

    private mutating func settle(end: Int, actions: inout [GrammarAction]) {
        switch emitter.finishCall(actions: &actions) {
        case .success(let arguments):
            actions.append(.accept(arguments: arguments, end: end))
        case .failure(let m):
            actions.append(.reject(m.reason, detail: m.detail, end: end))
        }
        callsInFrame += 1
    }

    private mutating func skipSpace(_ w: ByteWindow) {
        pos = w.skipSpace(from: pos)
    }

    enum NameRead {
        case needMore
        case invalid
        case name(String, next: Int)
    }

    /// Whether a parameter tag's attributes in `r` (after its opener) say `string="true"`.
    private static let stringTrue = ["string=\"true\"", "string='true'", "string=true"].map { Array($0.utf8) }

    static func hasStringTrue(_ w: ByteWindow, _ r: Range<Int>) -> Bool {
        let needles = stringTrue
        var i = r.lowerBound
        while i < r.upperBound {
            for n in needles where i + n.count <= r.upperBound {
                var j = 0
                while j < n.count && w[i + j] == n[j] { j += 1 }
                if j == n.count { return true }
            }
            i += 1
        }
        return false
    }

    private var judge: TaggedValueJudge { TaggedValueJudge(tags: tags, tool: tool, wrapped: wrapped) }

    /// Reads a name or key from `from` through its `>` (rescans at most ``maxNameBytes``). After
    /// a quoted name, other attributes (`id="1"`) are skipped.
    static func readName(_ w: ByteWindow, from pos: Int, tags: TaggedFunctionTags) -> NameRead {
        var i = pos
        if let attribute = tags.nameAttribute {
            // White space or `Ġ` (C4 A0) between the tag's name and the attribute, or none.
            while i < w.end {
                if i - pos > Self.maxNameBytes { return .invalid }
                if JSONReader.isSpace(w[i]) {
                    i += 1
                } else if w[i] == 0xC4 {
                    guard i + 1 < w.end else { return .needMore }
                    guard w[i + 1] == 0xA0 else { return .invalid }
                    i += 2
                } else {
                    break
                }
            }
            for b in attribute {
                guard i < w.end else { return .needMore }
                guard w[i] == b else { return .invalid }
                i += 1
            }
        }
        var quote: UInt8? = nil
        var closedQuote = false
        if tags.quotedNames {
            i = w.skipSpace(from: i)
            if i < w.end && (w[i] == UInt8(ascii: "\"") || w[i] == UInt8(ascii: "'")) {
                quote = w[i]
                i += 1
            }
        }
        let nameStart = i
        var nameEnd = i
        while i < w.end {
            if i - pos > Self.maxNameBytes { return .invalid }
            let b = w[i]
            if b == 0x0A || b == 0x0D { return .invalid }
            if let q = quote, !closedQuote {
                if b == q {
                    nameEnd = i
                    closedQuote = true
                }
                i += 1
                continue
            }
            if b == UInt8(ascii: ">") {
                if quote == nil { nameEnd = i }
                let raw = String(decoding: w.slice(nameStart..<nameEnd), as: UTF8.self)
                let name = SchemaTyping.trimSpace(raw)
                return name.isEmpty ? .invalid : .name(name, next: i + 1)
            }
            if b == UInt8(ascii: "<") { return .invalid }
            i += 1
        }
        return .needMore
    }
}

/// Judges a tag met inside a value (``TagJudge``): a parameter opener is structure only for a
/// key that may come next (not the current one, not one already set; when it stands for a
/// missing close tag, also declared if the tool declares its parameters), so a value may quote
/// another call's markup; inside a wrapper, a function close that stands for a missing
/// `</parameter>` is structure only when the wrapper's close, another function or the end of
/// the stream follows it (after at most 256 bytes of white space).
struct TaggedValueJudge: TagJudge {
    let tags: TaggedFunctionTags
    let tool: ToolDefinition?
    let wrapped: Bool

    /// A quoted function opener at the end of a value (`… <function=x>`) followed by a parameter
    /// opener is confirmed only when that parameter cannot continue the current call: a key the
    /// tool declares and the call may take next is the call's own next parameter (the value's
    /// close tag is missing), and the opener before it is data.
    func confirmsNest(_ w: ByteWindow, _ tag: [UInt8], _ at: Int, _ isFinal: Bool, _ emitter: TextArgumentEmitter) -> Bool? {
        guard tag == tags.parameterOpen, let tool else { return true }
        switch TaggedFunctionParser.readName(w, from: at + tag.count, tags: tags) {
        case .needMore: return isFinal ? true : nil
        case .invalid: return true
        case .name(let key, _):
            return !(tool.declares(argument: key) && emitter.admitsNextKey(key, tool: tool, declaredOnly: true))
        }
    }

    @inline(__always)
    func verdict(_ w: ByteWindow, _ tag: [UInt8], _ at: Int, _ isFinal: Bool, _ afterClose: Bool,
                 _ emitter: TextArgumentEmitter) -> TextValueScanner.Verdict {
        if tag == tags.parameterOpen {
            switch TaggedFunctionParser.readName(w, from: at + tag.count, tags: tags) {
            case .needMore: return isFinal ? .data : .undecided
            case .invalid: return .data
            case .name(let key, _):
                // After a close tag any new key may follow (undeclared ones are arguments
                // too); standing for a missing close tag, only a declared one.
                return emitter.admitsNextKey(key, tool: tool, declaredOnly: !afterClose) ? .structure : .data
            }
        }
        guard wrapped, !afterClose, tag == tags.functionClose else { return .structure }
        let after = at + tag.count
        var p = after
        while p < w.end && JSONReader.isSpace(w[p]) && p - after < TextValueScanner.maxSpaceAfterClose { p += 1 }
        if p - after >= TextValueScanner.maxSpaceAfterClose { return .data }
        if p == w.end { return isFinal ? .structure : .undecided }
        switch TagMatch.at(w, p, tags.wrapperCloses + [tags.functionOpen], isFinal: isFinal) {
        case .found: return .structure
        case .partial: return .undecided
        case .none: return .data
        }
    }
}
