// ToolCallKit — response templates: the streaming grammar that runs a template over a stream.

/// Runs a ``ResponseTemplate`` over the whole stream, as one frame that starts at the first
/// byte (``CallGrammar/ownsStream``): the template, not a start marker, says where regions are.
///
/// The scan follows the template's rules. Outside an explicit region it watches every open
/// anchor and the implicit region's close; inside one, only that region's close. Each watched
/// anchor is searched from the scan position: a literal by a byte scan, a pattern with PCRE2's
/// hard partial matching. A match that the end of the received bytes cuts (or that more bytes
/// could still lengthen: a pattern, or a literal that another literal extends, ending at the
/// last byte) is *pending*, and nothing at or after the earliest pending start is decided. Of
/// the decided matches the earliest wins, then the longest, then opens before closes, then
/// the field name. At the end of the stream every match is decided.
///
/// Three rules keep every pattern linear and the events the same at every chunking:
///
/// - **Reach.** The text is cut into segments of ``segment`` bytes (from the first byte of the
///   prompt's tail). A pattern's attempt that begins in one segment must be decided before the
///   end of the next: an attempt that needs a byte there is *given up*, and so is the rest of
///   its segment for that anchor (the search goes on at the next segment). A pattern that is
///   one lookahead may reach as far as the call cap when tried at the very first byte, so a
///   template can decide which region the output begins in from a close tag far ahead (TRL's
///   DeepSeek-R1 and Nemotron 3 templates open reasoning with `(?=[\s\S]*?</think>)`).
///   Everywhere else a pending match holds back at most two segments. The bytes a pending
///   match holds are searched again only when their count has doubled, so each byte costs a
///   bounded number of steps, however long the stream.
/// - **Context.** Each search is given the bytes before its start that the pattern may read
///   (``ResponseTemplate/Anchor/contextBytes``: lookbehinds, `\b`, a multiline `^`); `^` and
///   `\A` match only at the first byte of the text. Constructs whose result depends on where a
///   search begins (`\G`, `\K`, `(*COMMIT)`) are refused when the template loads.
/// - **Progress.** A zero-width match is not taken at the position where the previous
///   zero-width match was taken (the search there looks for a longer match, or a later one),
///   so every step of the scan consumes a byte or takes a non-empty anchor.
///
/// Text and reasoning regions stream as their bytes are decided; a tool-call (or other) region
/// is held until it closes, then parsed, transformed and typed by the tools' schemas.
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
    /// The segment size of the reach rule (``ResponseTemplate/reach``, or a quarter of the call
    /// cap when that is smaller).
    let segment: Int
    /// How far the attempt at the first byte may reach (the call cap past the prompt's tail).
    let startReach: Int

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
    /// The scan position: prefix bytes first (0 ..< prefix.count), then the stream (a stream
    /// byte at offset k is at position prefix.count + k).
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
    /// Where the last zero-width match was taken (-1: none yet).
    private var zeroWidthAt = -1
    /// The last bytes before the scan position (up to ``contextBytes``): what a pattern may
    /// read before a search's start once the decoder has dropped them.
    private var tail: [UInt8] = []
    /// The most context any watched pattern reads before a search's start.
    private let contextBytes: Int

    /// The anchors that matter outside every explicit region: every open anchor and the
    /// implicit region's close.
    private let outside: [(Kind, Int)]
    /// Inside explicit region `f`: its close (nothing when it has none).
    private let inside: [[(Kind, Int)]]
    /// The bytes the watched literals begin with, outside and inside each region (nil when a
    /// watched anchor is a pattern).
    private let outsideFirst: ByteSet?
    private let insideFirst: [ByteSet?]
    /// Each anchor's search (index field * 2 + kind), kept while it holds.
    private var searches: [Search]
    /// Each pattern anchor's match data (same index), made at its first search.
    private var matchers: [MatcherBox?]
    /// Where a search's bytes are copied when the window does not hold them all (the context
    /// before its start is in ``tail``).
    private var scratch = ScratchBuffer()

    init(template: ResponseTemplate, prefix: [UInt8], callBytes: Int = .max) {
        self.template = template
        self.prefix = prefix
        self.segment = Self.segment(callBytes: callBytes)
        let (sum, overflow) = prefix.count.addingReportingOverflow(callBytes)
        self.startReach = max(overflow ? .max : sum, 2 * segment)
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
        self.searches = Array(repeating: Search(), count: template.fields.count * 2)
        self.matchers = Array(repeating: nil, count: template.fields.count * 2)
        var context = 0
        for field in template.fields {
            context = max(context, field.open?.contextBytes ?? 0, field.close?.contextBytes ?? 0)
        }
        self.contextBytes = context
    }

    /// The segment size for a call cap: ``ResponseTemplate/reach``, or a quarter of a smaller
    /// cap (at least 16 bytes).
    static func segment(callBytes: Int) -> Int {
        max(16, min(ResponseTemplate.reach, callBytes / 4))
    }

    /// The prompt's tail after the last match of the template's start anchor (all of it when
    /// the anchor does not occur). The search keeps the reach rule, so a start anchor costs
    /// the prompt's length, whatever the pattern.
    static func promptTail(_ prompt: [UInt8], template: ResponseTemplate, callBytes: Int = .max) -> [UInt8] {
        let anchor = template.startAnchor
        let w = segment(callBytes: callBytes)
        let m = anchor.regex.makeMatcher()
        var x = 0
        var lastEnd: Int?
        var zeroAt = -1
        while x <= prompt.count {
            var bound = (x / w + 2) * w
            // On a character's first byte (see ``Scan/characterStart(_:after:)``).
            while bound < prompt.count && bound > x && bound > (x / w + 2) * w - 3 && prompt[bound] & 0xC0 == 0x80 { bound -= 1 }
            let end = min(prompt.count, bound)
            let lo = max(0, x - anchor.contextBytes)
            let found = try? unsafe prompt.withUnsafeBufferPointer { all throws(PCRE2Error) in
                try unsafe m.match(
                    UnsafeBufferPointer(rebasing: all[lo..<end]), from: x - lo, partial: end < prompt.count, notBOL: lo > 0,
                    notEmptyAtStart: x == zeroAt)
            }
            guard let found else { break }
            switch found {
            case .match(let g):
                let r = g[0]!
                lastEnd = lo + r.upperBound
                if r.isEmpty { zeroAt = lo + r.lowerBound }
                x = lo + r.upperBound
            case .partial(let at):
                // Given up: the rest of its segment, or (in the next segment) from there on.
                let s = lo + at
                let segmentEnd = (x / w + 1) * w
                x = s < segmentEnd ? segmentEnd : s
            case .noMatch:
                if end == prompt.count { x = prompt.count + 1 } else { x = end }
            }
        }
        guard let lastEnd else { return prompt }
        return Array(prompt[lastEnd...])
    }

    mutating func begin(marker: Int, at: Int, bodyStart: Int, atStart: Bool, context: GrammarContext) {}

    mutating func advance(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) -> GrammarStep {
        preconditionFailure("a template grammar is driven by scanStream")
    }

    mutating func finish(_ w: ByteWindow, context: GrammarContext, actions: inout [GrammarAction]) {}

    // MARK: - Searching

    enum Kind: Int, Sendable { case open = 0, close = 1 }

    /// What an anchor's search has found so far.
    enum Outcome: Sendable {
        /// No match before ``Search/resume``.
        case none
        /// An attempt at this position could still match (or change) with more bytes.
        case pending(Int)
        /// A decided match; `groups` (a pattern's, group 0 first) is nil for a literal.
        case match(Range<Int>, groups: [Range<Int>?]?)
    }

    /// One anchor's search, carried from step to step. It begins where the anchor comes to be
    /// watched with no search that holds, which is always where a match was taken (or the
    /// first byte): so it begins at the same position at every chunking. It holds, and goes on
    /// from ``resume`` as bytes arrive, until the scan passes ``resume``, which only a match
    /// taken past it does. (Positions the scan stops at in between, a chunk's end or another
    /// anchor's pending start, are not new beginnings: which parts of a segment were given up
    /// depends on where the search began.)
    struct Search: Sendable {
        /// The first attempt that did not simply fail: a match, a pending attempt, or one
        /// given up at its reach.
        var first = Int.max
        /// Where the search goes on (-1: not searched).
        var resume = -1
        /// The end of the bytes when it was last searched.
        var seen = -1
        var outcome = Outcome.none
        /// The attempt at the first byte (with its own reach) was decided.
        var startDone = false

        func holds(at p: Int) -> Bool { resume >= 0 && p <= resume }
    }

    /// How far an attempt that begins at `s` (not the first byte) may reach: the end of the
    /// segment after its own.
    @inline(__always)
    private func bound(_ s: Int) -> Int { (s / segment + 2) * segment }

    /// Brings the search of anchor `k` up to date for a scan at `p` with the bytes up to `end`.
    private mutating func update(_ k: Int, _ anchor: ResponseTemplate.Anchor, at p: Int, end: Int, isFinal: Bool, _ s: Scan)
        throws(PCRE2Error)
    {
        if !searches[k].holds(at: p) {
            searches[k] = Search()
            searches[k].resume = p
        } else if !isFinal {
            guard end > searches[k].seen else { return }
            switch searches[k].outcome {
            case .match:
                return
            case .none:
                break
            case .pending(let at):
                // A pattern's pending attempt is tried again once the bytes it has seen have
                // doubled (or it reached its bound): its searches cost at most twice its reach.
                if anchor.literals == nil {
                    let span = end - at
                    let last = searches[k].seen - at
                    let limit = at == 0 && anchor.isLookahead && !searches[k].startDone ? startReach : bound(at)
                    if span > 64 && span < 2 * last && end < limit { return }
                }
            }
        } else if case .match = searches[k].outcome {
            return
        }
        defer { searches[k].seen = end }
        if let lits = anchor.sortedLiterals {
            let x = searches[k].resume
            switch Self.findLiteral(anchor, lits, s, from: x, end: end, partial: !isFinal) {
            case .match(let r, _):
                settle(k, .match(r, groups: nil), at: r.lowerBound)
            case .pending(let at):
                settle(k, .pending(at), at: at)
            case .none:
                searches[k].outcome = .none
                searches[k].resume = end
            }
            return
        }
        var x = searches[k].resume
        search: while x <= end {
            let first = x == 0 && !searches[k].startDone && anchor.isLookahead
            // The reach ends on a character's first byte: a search cut inside a character
            // would meet an invalid sequence there, which stops every attempt short of it.
            let limit = s.characterStart(first ? startReach : bound(x), after: x)
            let subjectEnd = min(end, limit)
            // Hard partial matching, also at the end of the stream: an attempt that reads to
            // the last byte is then tried alone (below), so the search never tries every
            // start of a segment against the end (the square of a segment). The first byte's
            // lookahead, alone already, is matched whole at the end.
            let partial = !(isFinal && first && limit >= end)
            var givenUp: Int
            switch try search(k, anchor, s, from: x, end: subjectEnd, partial: partial, anchored: first) {
            case .match(let r, let g):
                if !isFinal && subjectEnd == end && Self.canGrow(anchor, r, end) {
                    settle(k, .pending(r.lowerBound), at: r.lowerBound)
                } else {
                    settle(k, .match(r, groups: g), at: r.lowerBound)
                }
                return
            case .pending(let at) where subjectEnd == end && end < limit:
                if !isFinal {
                    settle(k, .pending(at), at: at)
                    return
                }
                // The stream has ended: the attempt that read to its end is decided on the
                // whole text; if it fails, the rest of its segment is given up as at the reach.
                if case .match(let r, let g) = try search(k, anchor, s, from: at, end: end, partial: false, anchored: true) {
                    settle(k, .match(r, groups: g), at: r.lowerBound)
                    return
                }
                givenUp = at
            case .pending(let at):
                // The attempt needs a byte past its reach: given up, with the rest of its
                // segment (an attempt in the next segment has a longer reach: it is tried again).
                givenUp = at
            case .none:
                if first {
                    searches[k].startDone = true
                    x = 1
                } else if subjectEnd == end {
                    x = end
                    break search
                } else {
                    x = subjectEnd
                }
                continue search
            }
            searches[k].first = min(searches[k].first, givenUp)
            if first {
                searches[k].startDone = true
                x = 1
            } else {
                let segmentEnd = (x / segment + 1) * segment
                x = givenUp < segmentEnd ? segmentEnd : givenUp
            }
        }
        searches[k].outcome = .none
        searches[k].resume = max(x, end)
    }

    private mutating func settle(_ k: Int, _ outcome: Outcome, at: Int) {
        searches[k].outcome = outcome
        searches[k].first = min(searches[k].first, at)
        searches[k].resume = at
    }

    /// Finds a literal anchor's first match in the bytes `from ..< end` (a match cut by `end`
    /// is pending when `partial`).
    private static func findLiteral(
        _ anchor: ResponseTemplate.Anchor, _ lits: [[UInt8]], _ s: Scan, from: Int, end: Int, partial: Bool
    ) -> Outcome {
        var i = from
        // The stream's bytes in the window are stepped over in its storage until one can begin
        // a literal (the prompt tail's, if any, go through `byte`).
        let storage = s.window.storage
        let shift = -s.p0 - s.window.base
        let streamFrom = s.p0 + s.window.base
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
                            if partial { return .pending(i) }
                            matched = false
                            break
                        }
                        if s.byte(i + k) != lit[k] { matched = false }
                        k += 1
                    }
                    if matched {
                        let r = i..<(i + lit.count)
                        if partial && canGrow(anchor, r, end) { return .pending(i) }
                        return .match(r, groups: nil)
                    }
                }
            }
            i += 1
        }
        return .none
    }

    /// One PCRE2 search of a pattern anchor from `x` over the bytes up to `end`, with the
    /// context bytes before `x` the pattern may read.
    private mutating func search(
        _ k: Int, _ anchor: ResponseTemplate.Anchor, _ s: Scan, from x: Int, end: Int, partial: Bool, anchored: Bool
    ) throws(PCRE2Error) -> Outcome {
        let lo = max(0, x - anchor.contextBytes)
        let notEmpty = x == zeroWidthAt
        // (An anchored attempt runs the pattern compiled anchored, which JIT matching serves,
        // with a match limit that grows with what it may read.) An unanchored search reuses
        // the anchor's match data.
        let regex = anchored ? anchor.anchoredRegex ?? anchor.regex : anchor.regex
        let box: MatcherBox
        if anchored {
            box = MatcherBox(regex.makeMatcher(raisingLimitTo: UInt32(clamping: 4 * (end - lo) + Int(ResponseTemplate.matchLimit))))
        } else {
            if matchers[k] == nil || !isKnownUniquelyReferenced(&matchers[k]) { matchers[k] = MatcherBox(regex.makeMatcher()) }
            box = matchers[k]!
        }
        let matchAnchored = anchored && anchor.anchoredRegex == nil
        if lo < s.p0 + s.window.base && !isKnownUniquelyReferenced(&scratch) { scratch = ScratchBuffer() }
        let found = try unsafe s.withBytes(lo..<end, scratch: scratch) { subject throws(PCRE2Error) in
            try unsafe box.matcher.match(
                subject, from: x - lo, partial: partial, notBOL: lo > 0, anchored: matchAnchored, notEmptyAtStart: notEmpty)
        }
        switch found {
        case .match(let g): return .match((lo + g[0]!.lowerBound)..<(lo + g[0]!.upperBound), groups: g.map { $0.map { (lo + $0.lowerBound)..<(lo + $0.upperBound) } })
        case .partial(let at): return .pending(lo + at)
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
        let streamEnd = isFinal ? w.end : UTF8Boundary.safeEnd(w, start: min(streamFrom, w.end), end: w.end)
        let end = p0 + streamEnd
        // The step owns the context tail (a swap, so that updating it copies nothing).
        var s = Scan(p0: p0, prefix: prefix, window: w, tail: [], tailEnd: pos)
        swap(&s.tail, &tail)
        defer { swap(&tail, &s.tail) }
        if !isFinal, pos >= p0, streamFrom == accounted, streamEnd > streamFrom, plainRun(w, from: streamFrom, to: streamEnd) {
            // Nothing is held and no new byte can begin a watched literal: the bytes go to the
            // current region as they are (what the full step below would decide, cheaper).
            accumulate(pos..<end, &s, &actions)
            moveTo(end, &s)
            return
        }
        let actionsBefore = actions.count
        var p = pos
        loop: while true {
            var best: (start: Int, end: Int, kind: Kind, field: Int, groups: [Range<Int>?]?)?
            var hold = end
            let watch = current.map { $0 == template.implicit ? outside : inside[$0] } ?? outside
            for (kind, f) in watch {
                let field = template.fields[f]
                let anchor = (kind == .open ? field.open : field.close)!
                let key = f * 2 + kind.rawValue
                do {
                    try update(key, anchor, at: p, end: end, isFinal: isFinal, s)
                } catch {
                    let which = kind == .open ? "open" : "close"
                    failure = "field '\(field.name)': the \(which) pattern gave up (\(error.description))"
                    moveTo(p, &s)
                    rejectRest(w, reason: failure!, isFinal: isFinal, actions: &actions)
                    return
                }
                switch searches[key].outcome {
                case .pending(let at):
                    hold = min(hold, at)
                case .match(let r, let g):
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
                if b.start == b.end {
                    // Progress: no zero-width match is taken here again; the searches that
                    // found one here (or were waiting here) look again.
                    zeroWidthAt = b.start
                    for k in searches.indices where searches[k].resume == b.start || searches[k].first == b.start {
                        searches[k] = Search()
                    }
                }
                if b.kind == .open {
                    close(nil, bodyEnd: b.start, &s, context: context, &actions)
                    open(b.field, groups: b.groups ?? [], anchorEnd: b.end, &s, &actions)
                } else {
                    close(b.start..<b.end, bodyEnd: b.start, &s, context: context, &actions)
                }
                continue
            }
            if isFinal {
                accumulate(p..<end, &s, &actions)
                p = end
                close(nil, bodyEnd: end, &s, context: context, &actions)
                break
            }
            accumulate(p..<hold, &s, &actions)
            p = hold
            break
        }
        moveTo(p, &s)
        guard !isFinal, w.end < w.received else { return }
        // The decoder showed only the cap's worth of bytes.
        if let f = current, opened, isHeld(template.fields[f]), !oversized, actions.count == actionsBefore {
            // A held region that has not closed inside the cap is too large. (Bytes of a pending
            // close stay: the scan reads them again.) Only when this step reported nothing: a
            // step that reported text or the call's start moved the decoder's window, which
            // then shows the region the cap's worth of bytes from there, as a later chunk would
            // (else the cap would count the text before the region when the input came whole).
            let capEnd = min(w.end, max(accounted, s.stream(pos)))
            if capEnd > accounted {
                actions.append(.action(.reject(.tooLarge, detail: "the '\(template.fields[f].name)' region is larger than the call cap", end: capEnd)))
                accounted = capEnd
            }
            oversized = true
            started = false
        } else if actions.count == actionsBefore, pos < end, !(current.map { isHeld(template.fields[$0]) } ?? false) {
            // A pending anchor that has held back the cap's worth of bytes is given up: they
            // go to the current region, so memory stays bounded. (The reach rule decides long
            // before this; it is a guard.)
            accumulate(pos..<end, &s, &actions)
            moveTo(end, &s)
        }
    }

    /// Moves the scan position to `p`, keeping the last bytes before it as context (in the
    /// step's tail, in place).
    private mutating func moveTo(_ p: Int, _ s: inout Scan) {
        guard p != pos else { return }
        if contextBytes > 0 {
            let lo = max(0, p - contextBytes)
            let kept = max(lo, pos - s.tail.count)
            if kept >= pos {
                s.tail.removeAll(keepingCapacity: true)
            } else if kept > pos - s.tail.count {
                s.tail.removeFirst(kept - (pos - s.tail.count))
            }
            var i = max(lo, pos)
            while i < p {
                s.tail.append(s.byte(i))
                i += 1
            }
        }
        pos = p
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

    /// The bytes of one step, by scan position: the prompt's tail, then the stream (from the
    /// decoder's window, or, before what it still holds, from the grammar's context tail).
    private struct Scan {
        let p0: Int
        let prefix: [UInt8]
        let window: ByteWindow
        /// The grammar's context tail: the bytes at positions `tailEnd - tail.count ..< tailEnd`.
        var tail: [UInt8]
        let tailEnd: Int

        @inline(__always)
        func byte(_ i: Int) -> UInt8 {
            if i < p0 { return prefix[i] }
            let k = i &- p0
            if k >= window.base { return window[k] }
            return tail[tail.count - (tailEnd - i)]
        }

        /// The bytes at scan positions `r`.
        func bytes(_ r: Range<Int>) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(r.count)
            append(r, to: &out)
            return out
        }

        /// Appends the bytes at scan positions `r` to `out`.
        func append(_ r: Range<Int>, to out: inout [UInt8]) {
            var i = r.lowerBound
            if i < p0 {
                out += prefix[i..<min(p0, r.upperBound)]
                i = min(p0, r.upperBound)
            }
            let windowStart = p0 + window.base
            if i < windowStart && i < r.upperBound {
                let to = min(windowStart, r.upperBound)
                out += tail[(tail.count - (tailEnd - i))..<(tail.count - (tailEnd - to))]
                i = to
            }
            if i < r.upperBound { out += window.slice((i - p0)..<(r.upperBound - p0)) }
        }

        /// Calls `body` with the bytes at scan positions `r`: in place when the window holds
        /// them all, else copied into the grammar's scratch buffer (no allocation per search).
        func withBytes<R>(
            _ r: Range<Int>, scratch: ScratchBuffer, _ body: (UnsafeBufferPointer<UInt8>) throws(PCRE2Error) -> R
        ) throws(PCRE2Error) -> R {
            if r.lowerBound >= p0 + window.base {
                let lo = r.lowerBound - p0 - window.base
                let hi = r.upperBound - p0 - window.base
                return try unsafe window.storage.withUnsafeBufferPointer { all throws(PCRE2Error) in
                    try unsafe body(UnsafeBufferPointer(rebasing: all[lo..<hi]))
                }
            }
            var copy: [UInt8] = []
            swap(&copy, &scratch.bytes)
            defer {
                // A large copy's storage is not kept (the buffer serves the short ones).
                if copy.capacity <= ScratchBuffer.keptCapacity { swap(&copy, &scratch.bytes) }
            }
            copy.removeAll(keepingCapacity: true)
            append(r, to: &copy)
            return try unsafe copy.withUnsafeBufferPointer { buf throws(PCRE2Error) in try unsafe body(buf) }
        }

        /// The stream offset of position `i` (prefix bytes map to 0).
        func stream(_ i: Int) -> Int { max(0, i - p0) }

        /// `i`, or the start of the character it falls in (at most 3 bytes back, not before
        /// `floor`), when the bytes there have been received.
        func characterStart(_ i: Int, after floor: Int) -> Int {
            guard i < p0 + window.end else { return i }
            var k = i
            while k > floor && k > i - 3 && byte(k) & 0xC0 == 0x80 { k -= 1 }
            return k
        }
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
                bodyStart = r.lowerBound
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
                captures.append((name, .string(String(decoding: s.bytes(r), as: UTF8.self))))
            }
        }
        if isHeld(field) {
            regionStart = accounted
            bodyStart = anchorEnd
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
        let body = s.bytes(bodyStart..<bodyEnd)
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

/// A grammar's buffer for the bytes of a search that the decoder's window does not hold in one
/// piece, kept between searches. A reference, replaced (like ``MatcherBox``) when a copied
/// decoder shares it.
final class ScratchBuffer: @unchecked Sendable {
    var bytes: [UInt8] = []
    /// The largest storage kept between searches.
    static let keptCapacity = 64 << 10
}

/// One anchor's PCRE2 match data, kept by a grammar between searches. A reference: a copied
/// decoder shares it until its first search, which makes its own (the grammar checks that it
/// holds the only reference), so two copies never match with one buffer.
final class MatcherBox: @unchecked Sendable {
    let matcher: PCRE2Matcher
    init(_ matcher: consuming PCRE2Matcher) { self.matcher = matcher }
}
