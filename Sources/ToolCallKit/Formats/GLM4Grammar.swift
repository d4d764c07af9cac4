// ToolCallKit — the `glm4` format (GLM-4.5 / 4.6 / 4.7 / 5):
// `<tool_call>f<arg_key>a</arg_key><arg_value>v</arg_value></tool_call>`.

/// Grammar for the `glm4` format.
///
/// Values go through ``TextValueScanner`` and ``TextArgumentEmitter`` (shared with the
/// tagged-functions family). Rules (docs/formats.md):
///
/// - The name runs from the opener to a newline or the first tag; it is trimmed and announced
///   as soon as it ends. `<tool_call>get_time</tool_call>` is a call with `{}`; an empty
///   `<tool_call></tool_call>` is `markup`.
/// - Keys are trimmed. Values are kept exactly as written (white space included, no newline
///   stripping, no entity decoding).
/// - Drifts tolerated: no newlines at all (GLM-4.7); a missing `</arg_value>` (the next
///   `<arg_key>` or `</tool_call>` closes the value); a missing `<arg_value>` (the value starts
///   at the first non-space byte after `</arg_key>`); keys grouped before their values (paired
///   in order); a missing `<arg_key>` that fuses name and key (`fkey</arg_key>`), recovered only
///   when a declared tool's name is a prefix, else `malformed`.
/// - `</arg_value>` ends a value only when `<arg_key>`, `<arg_value>`, `</tool_call>` or the end
///   of the stream follows it (after at most 256 bytes of white space).
/// - A `{`/`[` value that is JSON only once `\"` is unescaped (a common GLM drift) is read
///   unescaped.
/// - End of stream: accepted when only `</tool_call>` (or part of it) is missing after at least
///   one closed value; cut inside the name, a key or a value, or a key left without a value,
///   is `incomplete`.
struct GLM4Grammar: CallGrammar {
    private enum State: Sendable {
        case name
        case body
        case key(start: Int)
        case value(TextValueScanner)
        case junk(String)
    }

    private static let open = Array("<tool_call>".utf8)
    private static let close = Array("</tool_call>".utf8)
    private static let keyOpen = Array("<arg_key>".utf8)
    private static let keyClose = Array("</arg_key>".utf8)
    private static let valueOpen = Array("<arg_value>".utf8)
    private static let valueTags = TextValueScanner.Tags(
        close: "</arg_value>", follows: ["<arg_key>", "<arg_value>", "</tool_call>"],
        breaks: ["<arg_key>", "</tool_call>"], stripNewlines: false)
    private static let keyCloseSet = MarkerSet([keyClose])
    private static let closeSet = MarkerSet([close])
    static let maxNameBytes = 512
    static let maxKeyBytes = 1024

    // Tag lists made once, not per decoder or per step.
    private static let bodyTags = [keyOpen, valueOpen, close]
    private static let nameEnds = [keyOpen, keyClose, valueOpen, close]
    private static let closeTags = [close]
    private static let markerList = [Marker("<tool_call>"), Marker("</tool_call>", kind: .stray)]
    private static let skip = SkipRule.through([Array("</tool_call>".utf8)])

    var markers: [Marker] { Self.markerList }
    var skipRule: SkipRule { Self.skip }

    private var state: State = .name
    private var pos = 0
    private var nameStart: Int?
    private var pendingKeys: [String] = []
    private var tool: ToolDefinition?
    private var emitter = TextArgumentEmitter(unescapeQuotedJSON: true)

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {
        state = .name
        pos = bodyStart
        nameStart = nil
        pendingKeys = []
        tool = nil
        emitter = TextArgumentEmitter(maxDepth: context.maxDepth, unescapeQuotedJSON: true)
    }

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        while true {
            switch state {
            case .name:
                if nameStart == nil {
                    skipSpace(w)
                    guard pos < w.end else { return .needMore }
                    nameStart = pos
                }
                guard let step = readName(w, context: context, actions: &actions) else { return .needMore }
                if let step { return step }
            case .body:
                skipSpace(w)
                guard pos < w.end else { return .needMore }
                switch TagMatch.at(w, pos, Self.bodyTags) {
                case .found(0):
                    pos += Self.keyOpen.count
                    state = .key(start: pos)
                case .found(1):
                    guard !pendingKeys.isEmpty else {
                        state = .junk("a value without a key")
                        continue
                    }
                    pos += Self.valueOpen.count
                    beginValue(at: pos, actions: &actions)
                case .found:
                    let end = pos + Self.close.count
                    if !pendingKeys.isEmpty {
                        actions.append(.reject(.malformed, detail: "a key without a value", end: end))
                    } else {
                        settle(end: end, actions: &actions)
                    }
                    return .finished(at: end)
                case .partial:
                    return .needMore
                case .none:
                    guard !pendingKeys.isEmpty else {
                        state = .junk("unexpected text in the call")
                        continue
                    }
                    // `<arg_value>` is missing: the value starts here.
                    beginValue(at: pos, actions: &actions)
                }
            case .key(let start):
                let match = Self.keyCloseSet.search(w, from: pos, end: w.end)
                switch match {
                case .found(_, let at) where at - start <= Self.maxKeyBytes:
                    pendingKeys.append(trimmed(w, start..<at))
                    pos = at + Self.keyClose.count
                    state = .body
                case .found, .partial, .none:
                    // Too long to be a key, whether or not its close came in this chunk: the
                    // frame is junk, and the search for its end starts where the key began (at
                    // most the key cap is read again), so every chunking finds the same end.
                    let scanned: Int
                    switch match {
                    case .found(_, let at), .partial(let at): scanned = at
                    case .none: scanned = w.end
                    }
                    guard scanned - start > Self.maxKeyBytes else {
                        pos = scanned
                        return .needMore
                    }
                    pos = start
                    state = .junk("a key without </arg_key>")
                }
            case .value(var scanner):
                switch scanner.advance(w, tags: Self.valueTags, emitter: &emitter, actions: &actions) {
                case .needMore:
                    state = .value(scanner)
                    return .needMore
                case .ended(let next):
                    pos = next
                    state = .body
                }
            case .junk(let detail):
                return Self.closeSet.rejectMalformed(w, pos: &pos, detail: detail, actions: &actions) { _ in true }
            }
        }
    }

    /// Reads the name; nil: need more bytes; `.some(nil)`: go on; `.some(step)`: return it.
    private mutating func readName(
        _ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]
    ) -> GrammarStep?? {
        guard let nameStart else { return nil }
        var terminator = -1
        while pos < w.end {
            if pos - nameStart > Self.maxNameBytes {
                state = .junk("the function name is too long")
                return .some(nil)
            }
            let b = w[pos]
            if b == 0x0A || b == 0x0D {
                terminator = 9
                break
            }
            if b == UInt8(ascii: "<") {
                switch TagMatch.at(w, pos, Self.nameEnds) {
                case .found(let k):
                    terminator = k
                case .partial:
                    return nil
                case .none:
                    break
                }
                if terminator >= 0 { break }
            }
            pos += 1
        }
        guard terminator >= 0 else { return nil }
        let text = trimmed(w, nameStart..<pos)
        if terminator == 9 { pos += 1 }
        if text.isEmpty {
            if terminator == 3 {
                let end = pos + Self.close.count
                actions.append(.markup(end: end))
                return .some(.finished(at: end))
            }
            if terminator == 9 {
                // A blank line before the name: keep looking for it.
                self.nameStart = nil
                return .some(nil)
            }
            state = .junk("the call has no function name")
            return .some(nil)
        }
        if text.utf8.first == UInt8(ascii: "{") {
            state = .junk("expected a function name")
            return .some(nil)
        }
        var name = text
        if terminator == 1 {
            // `<arg_key>` is missing: the name and the first key are fused.
            guard let tools = context.tools,
                let t = tools.tools.filter({ text.hasPrefix($0.name) && text.utf8.count > $0.name.utf8.count })
                    .max(by: { $0.name.utf8.count < $1.name.utf8.count })
            else {
                state = .junk("the function name and the first key are fused")
                return .some(nil)
            }
            name = t.name
            let key = SchemaTyping.trimSpace(String(text.dropFirst(t.name.count)))
            guard !key.isEmpty else {
                state = .junk("the function name and the first key are fused")
                return .some(nil)
            }
            pendingKeys.append(key)
            pos += Self.keyClose.count
        }
        actions.append(.start(name: name, id: nil))
        tool = context.tools?[name]
        state = .body
        return .some(nil)
    }

    private mutating func beginValue(at start: Int, actions: inout [GrammarAction]) {
        let key = pendingKeys.removeFirst()
        emitter.beginValue(key: key, tool: tool, actions: &actions)
        state = .value(TextValueScanner(start: start))
        pos = start
    }

    func passThrough(at end: Int) -> PassThrough? {
        guard case .value(let scanner) = state, scanner.isCaughtUp(at: end), emitter.streamsString else { return nil }
        return Self.valueTags.passThrough
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        guard case .value(var scanner) = state else { preconditionFailure("takePassThrough outside a value") }
        scanner.takeForwarded(count, w, emitter: &emitter)
        state = .value(scanner)
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {
        switch state {
        case .name:
            actions.append(.reject(.incomplete, detail: "the stream ended inside the function name", end: w.end))
        case .body:
            var rest = TagMatch.none
            if pos < w.end { rest = TagMatch.at(w, pos, Self.closeTags) }
            if pendingKeys.isEmpty && emitter.hasValues && (pos >= w.end || rest == .partial) {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside the call", end: w.end))
            }
        case .key:
            actions.append(.reject(.incomplete, detail: "the stream ended inside a key", end: w.end))
        case .value(var scanner):
            if scanner.finish(w, tags: Self.valueTags, emitter: &emitter, actions: &actions) && pendingKeys.isEmpty {
                settleCutOff(end: w.end, actions: &actions)
            } else {
                actions.append(.reject(.incomplete, detail: "the stream ended inside a value", end: w.end))
            }
        case .junk(let detail):
            actions.append(.reject(.malformed, detail: detail, end: w.end))
        }
    }

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
    }

    private mutating func skipSpace(_ w: ByteWindow) {
        pos = w.skipSpace(from: pos)
    }

    private func trimmed(_ w: ByteWindow, _ r: Range<Int>) -> String {
        SchemaTyping.trimSpace(String(decoding: w.slice(r), as: UTF8.self))
    }
}
