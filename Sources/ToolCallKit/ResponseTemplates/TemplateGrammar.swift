// ToolCallKit — response templates: the streaming grammar that runs a template over a stream.

/// Runs a ``ResponseTemplate`` over the whole stream, as one frame that starts at the first
/// byte (``CallGrammar/ownsStream``): the template, not a start marker, says where regions are.
///
/// The scan follows the template's rules. Outside an explicit region it watches every open
/// anchor and the implicit region's close; inside one, only that region's close. Each watched
/// pattern is searched from the scan position with PCRE2's hard partial matching: a match that
/// the end of the received bytes cuts (or that more bytes could still lengthen: a pattern, or a
/// literal that another literal extends, ending at the last byte) is *pending*, and nothing at
/// or after the earliest pending start is decided. Of the decided matches the earliest wins,
/// then the longest, then opens before closes, then the field name. At the end of the stream
/// every match is decided.
///
/// Because a decision never depends on where the input was cut, the events are the same at
/// every chunking. Text and reasoning regions stream as their bytes are decided; a tool-call
/// (or other) region is held until it closes, then parsed, transformed and typed by the tools'
/// schemas. Only the bytes since the last decided position are searched again when a chunk
/// arrives (plus the bytes of a pending match), never the whole stream.
///
/// Caps: a held region larger than the decoder's call cap is rejected (`too_large`) and the
/// rest of it skipped in 64 KiB pieces; a pattern that hits its match or depth limit rejects
/// the rest of the stream (`malformed`, naming the pattern).
struct TemplateGrammar: CallGrammar {
    let template: ResponseTemplate
    /// The prompt's tail after its last start anchor: scanned before the stream, so the
    /// stream starts in the region the prompt left open. Its bytes are context, not output:
    /// they produce no events.
    let prefix: [UInt8]

    var markers: [Marker] { [] }
    var skipRule: SkipRule { .before([]) }
    var ownsStream: Bool { true }

    /// The field whose region is open (nil: outside every region, with no implicit field).
    private var current: Int?
    /// Whether the current region has begun (an explicit one at its open anchor; the implicit
    /// one at its first byte).
    private var opened = false
    private var captures: [(key: String, value: JSONValue)] = []
    /// Where the held region's body begins (a scan position).
    private var bodyStart = 0
    /// The scan position: prefix bytes first (0 ..< prefix.count), then the stream.
    private var pos = 0
    /// The end of the last reported action (a stream offset).
    private var accounted = 0
    /// Where the current held region's raw bytes began (a stream offset).
    private var regionStart = 0
    /// The current call was announced at its open anchor.
    private var started = false
    /// The current held region went over the cap; its bytes are being skipped.
    private var oversized = false
    /// A pattern hit its limit: the rest of the stream is rejected.
    private var failure: String?

    /// The anchors that matter outside every explicit region: every open anchor and the
    /// implicit region's close.
    private let outside: [(Kind, Int)]
    /// Inside explicit region `f`: its close (nothing when it has none).
    private let inside: [[(Kind, Int)]]
    /// The bytes the watched literals begin with, outside and inside each region (nil when a
    /// watched anchor is a pattern).
    private let outsideFirst: ByteSet?
    private let insideFirst: [ByteSet?]
    private var cacheFrom: [Int]
    private var cacheFound: [Found]

    init(template: ResponseTemplate, prefix: [UInt8]) {
        self.template = template
        self.prefix = prefix
        self.current = template.implicit
        var outside: [(Kind, Int)] = []
        for (k, field) in template.fields.enumerated() where field.open != nil { outside.append((.open, k)) }
        if let i = template.implicit, template.fields[i].close != nil { outside.append((.close, i)) }
        self.outside = outside
        self.inside = template.fields.indices.map { template.fields[$0].close == nil ? [] : [(.close, $0)] }
        func firstBytes(_ watch: [(Kind, Int)]) -> ByteSet? {
            var bytes: [UInt8] = []
            for (kind, f) in watch {
                guard let lits = (kind == .open ? template.fields[f].open : template.fields[f].close)?.literals else { return nil }
                bytes += lits.compactMap(\.first)
            }
            return ByteSet(bytes)
        }
        self.outsideFirst = firstBytes(outside)
        self.insideFirst = self.inside.map(firstBytes)
        self.cacheFrom = Array(repeating: -1, count: template.fields.count * 2)
        self.cacheFound = Array(repeating: .none, count: template.fields.count * 2)
    }

    /// The prompt's tail after the last match of the template's start anchor (all of it when
    /// the anchor does not occur).
    static func promptTail(_ prompt: [UInt8], template: ResponseTemplate) -> [UInt8] {
        let m = template.startAnchor.regex.makeMatcher()
        var from = 0
        var lastEnd: Int?
        while from <= prompt.count {
            guard case .match(let g)? = try? m.match(prompt, from: from), let r = g[0] else { break }
            lastEnd = r.upperBound
            from = r.isEmpty ? r.upperBound + 1 : r.upperBound
        }
        guard let lastEnd else { return prompt }
        return Array(prompt[lastEnd...])
    }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {}

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        preconditionFailure("a template grammar is driven by scanStream")
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {}

    // MARK: - Scanning

    enum Kind: Int, Sendable { case open = 0, close = 1 }

    enum Found: Sendable {
        /// A complete match; `groups` (a pattern's, group 0 first) is nil for a literal.
        case match(Range<Int>, groups: [Range<Int>?]?)
        case partial(Int)
        case none
    }

    /// Searches `anchor` in the step's bytes from `from`: literals directly, patterns with PCRE2
    /// (hard partial matching unless the stream has ended).
    private static func search(_ anchor: ResponseTemplate.Anchor, _ s: inout Scan, from: Int, partial: Bool) throws(PCRE2Error) -> Found {
        if let lits = anchor.sortedLiterals {
            var i = from
            let end = s.end
            // The stream's bytes are stepped over in the window's storage until one can begin
            // a literal (the prompt tail's, if any, go through `byte`).
            let storage = s.window.storage
            let shift = s.base &- s.p0 &- s.window.base
            let streamFrom = max(0, s.p0 &- s.base)
            while i < end {
                if i >= streamFrom {
                    while i < end && !anchor.firstBytes.contains(storage[i &+ shift]) { i &+= 1 }
                    if i == end { break }
                }
                let b = s.byte(i)
                if anchor.firstBytes.contains(b) {
                    for lit in lits {
                        var k = 1
                        var matched = lit[0] == b
                        while matched && k < lit.count {
                            if i + k >= end {
                                // The bytes end inside this literal: more could complete it.
                                if partial { return .partial(i) }
                                matched = false
                                break
                            }
                            if s.byte(i + k) != lit[k] { matched = false }
                            k += 1
                        }
                        if matched { return .match(i..<(i + lit.count), groups: nil) }
                    }
                }
                i += 1
            }
            return .none
        }
        let subject = s.subject()
        switch try anchor.regex.makeMatcher().match(subject, from: from, partial: partial, notBOL: s.base > 0) {
        case .match(let g): return .match(g[0]!, groups: g)
        case .partial(let at): return .partial(at)
        case .noMatch: return .none
        }
    }

    /// The piece in which skipped bytes are reported.
    static let pieceBytes = 64 << 10

    mutating func scanStream(_ w: ByteWindow, context: GrammarContext, isFinal: Bool, actions: inout [StreamAction]) {
        let p0 = prefix.count
        if let failure {
            rejectRest(w, reason: failure, isFinal: isFinal, actions: &actions)
            return
        }
        let streamFrom = max(0, pos - p0)
        let end = isFinal ? w.end : UTF8Boundary.safeEnd(w, start: min(streamFrom, w.end), end: w.end)
        if !isFinal, pos >= p0, streamFrom == accounted, end > streamFrom, plainRun(w, from: streamFrom, to: end) {
            // Nothing is held and no new byte can begin a watched literal: the bytes go to the
            // current region as they are (what the full step below would decide, cheaper).
            var s = Scan(base: pos, p0: p0, end: end - streamFrom, prefix: prefix, window: w)
            accumulate(0..<(end - streamFrom), &s, &actions)
            pos = p0 + end
            return
        }
        let base = pos
        let subjectEnd = max(0, p0 - base) + max(0, end - streamFrom)
        var s = Scan(base: base, p0: p0, end: subjectEnd, prefix: prefix, window: w)
        let actionsBefore = actions.count
        var p = 0
        // The last search of each anchor (field * 2 + kind): where it started and what it
        // found, reused while the scan position has not passed that.
        for k in cacheFrom.indices { cacheFrom[k] = -1 }
        loop: while true {
            var best: (start: Int, end: Int, kind: Kind, field: Int, groups: [Range<Int>?]?)?
            var hold = subjectEnd
            let watch = current.map { $0 == template.implicit ? outside : inside[$0] } ?? outside
            for (kind, f) in watch {
                let field = template.fields[f]
                let anchor = (kind == .open ? field.open : field.close)!
                let key = f * 2 + kind.rawValue
                var found: Found
                if cacheFrom[key] >= 0, cacheFrom[key] <= p, Self.stillValid(cacheFound[key], at: p) {
                    found = cacheFound[key]
                } else {
                    do {
                        found = try Self.search(anchor, &s, from: p, partial: !isFinal)
                    } catch {
                        let which = kind == .open ? "open" : "close"
                        failure = "field '\(field.name)': the \(which) pattern gave up (\(error.description))"
                        pos = base + p
                        rejectRest(w, reason: failure!, isFinal: isFinal, actions: &actions)
                        return
                    }
                    cacheFrom[key] = p
                    cacheFound[key] = found
                }
                switch found {
                case .partial(let at):
                    hold = min(hold, at)
                case .match(let r, let g):
                    if !isFinal && Self.canGrow(anchor, r, subjectEnd) {
                        hold = min(hold, r.lowerBound)
                        continue
                    }
                    if let b = best {
                        let better =
                            r.lowerBound != b.start ? r.lowerBound < b.start
                            : r.count != b.end - b.start ? r.count > b.end - b.start
                            : kind != b.kind ? kind == .open
                            : field.name < template.fields[b.field].name
                        if !better { continue }
                    }
                    best = (r.lowerBound, r.upperBound, kind, f, g)
                case .none:
                    break
                }
            }
            if let b = best, b.start < hold {
                accumulate(p..<b.start, &s, &actions)
                p = b.end
                if b.kind == .open {
                    close(nil, bodyEnd: b.start, &s, context: context, &actions)
                    open(b.field, groups: b.groups ?? [], anchorEnd: b.end, &s, &actions)
                } else {
                    let hadContent = opened
                    close(b.start..<b.end, bodyEnd: b.start, &s, context: context, &actions)
                    if !hadContent && b.start == b.end {
                        // A zero-width close of a region that never began would fire again at
                        // once: the scan stops here (at the end, what is left is outside
                        // every region).
                        if isFinal {
                            let saved = current
                            current = nil
                            accumulate(p..<subjectEnd, &s, &actions)
                            current = saved
                            p = subjectEnd
                        }
                        break loop
                    }
                }
                continue
            }
            if isFinal {
                accumulate(p..<subjectEnd, &s, &actions)
                p = subjectEnd
                close(nil, bodyEnd: subjectEnd, &s, context: context, &actions)
                break
            }
            accumulate(p..<hold, &s, &actions)
            p = hold
            break
        }
        pos = base + p
        guard !isFinal, w.end < w.received else { return }
        // The decoder showed only the cap's worth of bytes.
        if let f = current, opened, isHeld(template.fields[f]), !oversized {
            // A held region that has not closed inside the cap is too large.
            let capEnd = w.end
            if capEnd > accounted {
                actions.append(.action(.reject(.tooLarge, detail: "the '\(template.fields[f].name)' region is larger than the call cap", end: capEnd)))
                accounted = capEnd
            }
            oversized = true
            started = false
        } else if actions.count == actionsBefore, p < subjectEnd, !(current.map { isHeld(template.fields[$0]) } ?? false) {
            // A pending anchor that has held back the cap's worth of bytes is given up: they
            // go to the current region, so memory stays bounded.
            accumulate(p..<subjectEnd, &s, &actions)
            pos = base + subjectEnd
        }
    }

    /// Whether `w[from..<to]` can go to the current region without a search: it is a text,
    /// reasoning or outside region whose watched anchors are all literals, and no byte of the
    /// run begins one of them.
    private func plainRun(_ w: ByteWindow, from: Int, to: Int) -> Bool {
        let first: ByteSet?
        if let f = current, f != template.implicit {
            if isHeld(template.fields[f]) { return false }
            first = insideFirst[f]
        } else {
            if let f = current, isHeld(template.fields[f]) { return false }
            first = outsideFirst
        }
        guard let first else { return false }
        let storage = w.storage
        let shift = w.base
        var i = from
        while i < to {
            if first.contains(storage[i &- shift]) { return false }
            i &+= 1
        }
        return true
    }

    private static func stillValid(_ found: Found, at p: Int) -> Bool {
        switch found {
        case .match(let r, _): return r.lowerBound >= p
        case .partial(let at): return at >= p
        case .none: return true
        }
    }

    /// Whether a complete match could still change as bytes arrive: one that ends at the last
    /// byte received, unless it is a literal that no other literal of its anchor extends.
    private static func canGrow(_ anchor: ResponseTemplate.Anchor, _ r: Range<Int>, _ end: Int) -> Bool {
        guard r.upperBound == end else { return false }
        if r.isEmpty { return true }
        return anchor.literals == nil || anchor.canExtend
    }

    private func isHeld(_ field: ResponseTemplate.Field) -> Bool {
        field.role == .toolCalls || field.role == .other
    }

    /// The bytes of one step: the prompt tail's unscanned part, then the stream's, from the
    /// scan position (`base`) to `end` (positions are relative to `base`).
    private struct Scan {
        let base: Int
        let p0: Int
        let end: Int
        let prefix: [UInt8]
        let window: ByteWindow
        /// The bytes as one array, made only when a pattern is searched.
        private var copy: [UInt8]?

        init(base: Int, p0: Int, end: Int, prefix: [UInt8], window: ByteWindow) {
            self.base = base
            self.p0 = p0
            self.end = end
            self.prefix = prefix
            self.window = window
        }

        @inline(__always)
        func byte(_ i: Int) -> UInt8 {
            let v = base &+ i
            return v < p0 ? prefix[v] : window[v &- p0]
        }

        mutating func subject() -> [UInt8] {
            if let copy { return copy }
            let made = bytes(base..<(base + end))
            copy = made
            return made
        }

        /// The bytes at scan positions `r` (absolute: a held body may begin before this step).
        func bytes(_ r: Range<Int>) -> [UInt8] {
            var out: [UInt8] = []
            if r.lowerBound < p0 { out += prefix[r.lowerBound..<min(p0, r.upperBound)] }
            let from = max(r.lowerBound, p0) - p0
            let to = r.upperBound - p0
            if to > from { out += window.slice(from..<to) }
            return out
        }

        /// The stream offset of position `i` (prefix bytes map to 0).
        func stream(_ i: Int) -> Int { max(0, base + i - p0) }
    }

    // MARK: - Regions

    /// Routes decided bytes into the current region.
    private mutating func accumulate(_ r: Range<Int>, _ s: inout Scan, _ actions: inout [StreamAction]) {
        guard !r.isEmpty else { return }
        let end = s.stream(r.upperBound)
        guard let f = current else {
            markup(upTo: end, &actions)
            return
        }
        let field = template.fields[f]
        if !opened {
            opened = true
            if isHeld(field) {
                regionStart = accounted
                bodyStart = s.base + r.lowerBound
            }
        }
        switch field.role {
        case .text:
            if end > accounted {
                actions.append(.action(.text(end: end)))
                accounted = end
            }
        case .reasoning:
            if end > accounted {
                actions.append(.reasoning(end: end))
                accounted = end
            }
        case .toolCalls, .other:
            if oversized {
                while end - accounted >= Self.pieceBytes {
                    accounted += Self.pieceBytes
                    actions.append(.action(.reject(.tooLarge, detail: "skipped part of an oversized region", end: accounted)))
                }
            }
        }
    }

    private mutating func markup(upTo end: Int, _ actions: inout [StreamAction]) {
        if end > accounted {
            actions.append(.action(.markup(end: end)))
            accounted = end
        }
    }

    private mutating func open(_ f: Int, groups: [Range<Int>?], anchorEnd: Int, _ s: inout Scan, _ actions: inout [StreamAction]) {
        let field = template.fields[f]
        current = f
        opened = true
        started = false
        oversized = false
        captures = []
        for (name, number) in field.open!.groups {
            if number < groups.count, let r = groups[number] {
                captures.append((name, .string(String(decoding: s.bytes((s.base + r.lowerBound)..<(s.base + r.upperBound)), as: UTF8.self))))
            }
        }
        if isHeld(field) {
            regionStart = accounted
            bodyStart = s.base + anchorEnd
            if let key = field.nameCapture, case .string(let name)? = captures.first(where: { $0.key == key })?.value,
                !name.isEmpty
            {
                actions.append(.action(.start(name: name, id: nil)))
                started = true
            }
        } else {
            markup(upTo: s.stream(anchorEnd), &actions)
        }
    }

    /// Closes the current region (at its close anchor `anchor`, or because another region
    /// opens or the stream ended, when nil); its body ends at `bodyEnd`.
    private mutating func close(
        _ anchor: Range<Int>?, bodyEnd: Int, _ s: inout Scan, context: GrammarContext, _ actions: inout [StreamAction]
    ) {
        defer { reset() }
        guard let f = current, opened else {
            if let anchor { markup(upTo: s.stream(anchor.upperBound), &actions) }
            return
        }
        let field = template.fields[f]
        let rawEnd = s.stream(anchor?.upperBound ?? bodyEnd)
        guard isHeld(field) else {
            if anchor != nil { markup(upTo: rawEnd, &actions) }
            return
        }
        if oversized {
            if rawEnd > accounted {
                actions.append(.action(.reject(.tooLarge, detail: "skipped part of an oversized region", end: rawEnd)))
                accounted = rawEnd
            }
            return
        }
        // The body: prefix bytes (when the region opened in the prompt), then stream bytes.
        let body = s.bytes(bodyStart..<(s.base + bodyEnd))
        let value: JSONValue
        do {
            value = try process(field, body)
        } catch {
            reject(.malformed, "field '\(field.name)': \(error.message)", end: rawEnd, &actions)
            return
        }
        guard field.role == .toolCalls else {
            markup(upTo: rawEnd, &actions)
            return
        }
        let entries: [JSONValue]
        if case .array(let items) = value { entries = items } else { entries = [value] }
        if entries.isEmpty {
            if started { reject(.malformed, "field 'tool_calls': the region holds no call", end: rawEnd, &actions) } else { markup(upTo: rawEnd, &actions) }
            return
        }
        let first = regionStart
        for (k, entry) in entries.enumerated() {
            // Several calls from one region: each but the last accounts for one byte of it.
            let end = k == entries.count - 1 ? rawEnd : min(rawEnd, max(accounted + 1, first + k + 1))
            let announced = k == 0 && started
            guard let (name, arguments) = Self.call(entry) else {
                reject(.malformed, "tool_calls entry is not a call (it needs function.name and object arguments): \(Self.short(entry))", end: end, &actions)
                continue
            }
            var args = arguments
            if let tool = context.tools?[announced ? startedName(captures, field) ?? name : name],
                case .object(let props) = tool.parameters["properties"] ?? .null, !props.isEmpty
            {
                args = TemplateCoercion.arguments(args, properties: .object(props))
            }
            if !announced { actions.append(.action(.start(name: name, id: nil))) }
            let json = JSONValue.object(args)
            actions.append(.action(.delta(EventText(json.jsonText))))
            actions.append(.action(.accept(arguments: CanonicalJSON(json), end: end)))
            accounted = max(accounted, end)
        }
        started = false
    }

    private func startedName(_ captures: [(key: String, value: JSONValue)], _ field: ResponseTemplate.Field) -> String? {
        guard let key = field.nameCapture, case .string(let n)? = captures.first(where: { $0.key == key })?.value else { return nil }
        return n
    }

    private mutating func reject(_ reason: RejectedToolCall.Reason, _ detail: String, end: Int, _ actions: inout [StreamAction]) {
        actions.append(.action(.reject(reason, detail: detail, end: end)))
        accounted = max(accounted, end)
        started = false
    }

    private mutating func reset() {
        current = template.implicit
        opened = false
        captures = []
        started = false
        oversized = false
    }

    /// The content parser, then the transform (per element with `transform_each`).
    private func process(_ field: ResponseTemplate.Field, _ body: [UInt8]) throws(TemplateValueError) -> JSONValue {
        let value = try field.content.parse(String(decoding: body, as: UTF8.self))
        guard let transform = field.transform else { return value }
        if field.transformEach {
            guard case .array(let items) = value else {
                throw TemplateValueError("transform_each needs the content to be a list, got \(ResponseTemplate.kind(value))")
            }
            var out: [JSONValue] = []
            for item in items {
                guard case .object(let members) = item else {
                    throw TemplateValueError("transform_each needs every element to be an object, got \(ResponseTemplate.kind(item))")
                }
                out.append(try TemplateTransform.apply(transform, captures + members))
            }
            return .array(out)
        }
        return try TemplateTransform.apply(transform, captures + [("content", value)])
    }

    /// A tool-call entry's name and arguments (missing arguments are `{}`), when it is a call.
    static func call(_ entry: JSONValue) -> (String, [(key: String, value: JSONValue)])? {
        guard case .object? = entry["function"], case .string(let name)? = entry["function"]?["name"], !name.isEmpty else {
            return nil
        }
        switch entry["function"]?["arguments"] {
        case nil: return (name, [])
        case .object(let members)?: return (name, members)
        default: return nil
        }
    }

    static func short(_ v: JSONValue) -> String {
        let t = v.jsonText
        return t.count > 120 ? String(t.prefix(120)) + "…" : t
    }

    /// After a pattern gave up: every byte from here on is rejected, in 64 KiB pieces while
    /// the stream goes on.
    private mutating func rejectRest(_ w: ByteWindow, reason: String, isFinal: Bool, _ actions: inout [StreamAction]) {
        while w.end - accounted >= Self.pieceBytes {
            accounted += Self.pieceBytes
            actions.append(.action(.reject(.malformed, detail: reason, end: accounted)))
        }
        if isFinal, w.end > accounted {
            actions.append(.action(.reject(.malformed, detail: reason, end: w.end)))
            accounted = w.end
        }
    }

    private mutating func rejectRest(_ w: ByteWindow, reason: String, isFinal: Bool, actions: inout [StreamAction]) {
        rejectRest(w, reason: reason, isFinal: isFinal, &actions)
    }
}
