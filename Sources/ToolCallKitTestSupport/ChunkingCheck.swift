// ToolCallKitTestSupport — the chunking verifier: one input decoded in several chunkings, every
// run checked against the event contracts (docs/events.md), the runs compared.
//
// The tests, the fuzz target and the benchmark all use this one copy. It reports through a
// closure rather than a test framework, so the fuzz target can stop on the first problem and the
// tests can record every one.

public import ToolCallKit

/// An event reduced to what must agree across chunkings (docs/events.md, "Chunking never
/// matters"): text merged, deltas concatenated, markup merged.
public enum NormalizedEvent: Equatable, Sendable, CustomStringConvertible {
    /// Merged text, as bytes (decoded once, so a merge never changes U+FFFD repair).
    case text([UInt8])
    case reasoning([UInt8])
    case start(index: Int, id: String, name: String)
    /// A call's deltas concatenated, as bytes (so a fragment's bytes, not only its repaired
    /// text, must agree across chunkings). For a rejected call, the deltas of its valid prefix.
    case arguments(index: Int, json: [UInt8])
    case call(index: Int, id: String, name: String, arguments: JSONValue)
    case rejected(reason: String, index: Int?, name: String?, raw: [UInt8])
    case markup([UInt8])
    case end(calls: Int, rejected: Int, bytes: Int)

    public var description: String {
        func show(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self).debugDescription }
        switch self {
        case .text(let t): return "text(\(show(t)))"
        case .reasoning(let t): return "reasoning(\(show(t)))"
        case .start(let i, _, let n): return "start(\(i), \(n))"
        case .arguments(let i, let j): return "deltas(\(i), \(show(j)))"
        case .call(let i, _, let n, let a): return "call(\(i), \(n), \(a.jsonText))"
        case .rejected(let r, let i, let n, let raw): return "rejected(\(r), \(i.map(String.init) ?? "-"), \(n ?? "-"), \(show(raw)))"
        case .markup(let raw): return "markup(\(show(raw)))"
        case .end(let c, let r, let b): return "end(\(c), \(r), \(b))"
        }
    }
}

/// Which chunkings ``ChunkingCheck/verify(_:chunkings:report:)`` runs besides the whole input.
public enum Chunkings: Sendable {
    /// One byte at a time, in token-sized pieces, then (when `everySplit`) split in two at
    /// every offset: the tests. The pieces are ``tokenSized`` with `everySplit`, else
    /// ``tokenSample`` (the many random inputs of one test).
    case exhaustive(everySplit: Bool)
    /// Split in two at `split`, then in `chunk`-byte pieces: the fuzz target's cheaper sample.
    case sample(split: Int, chunk: Int)
}

extension Chunkings {
    /// The piece sizes of the token-sized chunkings, each repeated to the end of the input:
    /// sizes from 2 to 17 bytes, on both sides of the decoder's fast-path bounds (a chunk
    /// packed in one word or two, at most 16 bytes with what it holds back), and mixes of
    /// short and long pieces (bytes the fast path holds back, followed by a chunk too long for
    /// it).
    public static let tokenSized: [[Int]] = [2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17].map { [$0] } + [[1, 16], [5, 12], [3, 1, 9]]
    /// A few of ``tokenSized``: one size, and a mix.
    public static let tokenSample: [[Int]] = [[4], [3, 1, 9]]

    /// The offsets that cut `count` bytes into pieces of the sizes, repeated in turn.
    public static func offsets(cycling sizes: [Int], count: Int) -> [Int] {
        var cuts: [Int] = []
        var at = 0
        var k = 0
        while true {
            at += sizes[k % sizes.count]
            k += 1
            guard at < count else { return cuts }
            cuts.append(at)
        }
    }
}

/// Decodes inputs with fresh decoders of one configuration and checks each run's contracts.
public struct ChunkingCheck {
    public var format: ToolCallFormat
    public var tools: ToolSet?
    public var options: ToolCallDecoder.Options
    /// Makes the decoder (tests swap in a wrapped one); nil: a plain ``ToolCallDecoder``.
    public var makeDecoder: ((ToolCallFormat, ToolSet?, ToolCallDecoder.Options) -> ToolCallDecoder)?

    public init(format: ToolCallFormat, tools: ToolSet? = nil,
                options: ToolCallDecoder.Options = ToolCallDecoder.Options(rawSpans: true, idSeed: 7),
                makeDecoder: ((ToolCallFormat, ToolSet?, ToolCallDecoder.Options) -> ToolCallDecoder)? = nil) {
        self.format = format
        self.tools = tools
        self.options = options
        self.makeDecoder = makeDecoder
    }

    /// Decodes `input` cut at `splits` (offsets, ascending) and returns the raw events.
    public func decode(_ input: [UInt8], splits: [Int]) -> [ToolCallEvent] {
        var decoder = makeDecoder?(format, tools, options) ?? ToolCallDecoder(format: format, tools: tools, options: options)
        var events: [ToolCallEvent] = []
        var start = 0
        for s in splits + [input.count] where s >= start {
            events += decoder.feed(input[start..<s])
            start = s
        }
        events += decoder.finish()
        return events
    }

    /// Checks one run's contracts and returns its normalized events. Every broken contract is
    /// passed to `report`, prefixed with `label`.
    ///
    /// The contracts: raw spans rebuild the input and each is at least one byte (but for
    /// `no_tool_call`, which has none); every started call ends exactly once (accepted or
    /// rejected) with its own index, and indexes count from 0; with tools, only declared names
    /// start; only names the options' `toolChoice` allows start, and with `parallelToolCalls`
    /// false none after an accepted call; an undeclared tool, a tool not chosen and a second
    /// call are rejected without an index; `no_tool_call` comes right before `end`, once, when
    /// the choice requires a call and none was accepted, and never otherwise; no delta is
    /// empty; each accepted call's joined deltas (each fragment repaired as the encoders repair
    /// it) are strict JSON equal to its arguments, which are an object; reasoning carries its
    /// raw bytes; no text event ends inside a UTF-8 sequence; nothing follows `end`, whose
    /// counts are right.
    public func normalize(_ events: [ToolCallEvent], input: [UInt8], label: String,
                          report: (String) -> Void) -> [NormalizedEvent] {
        func check(_ ok: Bool, _ message: @autoclosure () -> String) { if !ok { report("[\(label)] " + message()) } }
        var out: [NormalizedEvent] = []
        var raw: [UInt8] = []
        raw.reserveCapacity(input.count)
        var open: [Int: (id: String, name: String, deltas: [UInt8], client: String)] = [:]
        var nextIndex = 0
        var accepted = 0
        var rejected = 0
        var ended = false
        var noCall = false
        for e in events {
            check(!ended, "an event after end: \(e)")
            if case .rejected(let r) = e, r.reason == .noToolCall {
                check(r.raw.isEmpty && r.index == nil && r.name == nil, "no_tool_call with bytes, an index or a name: \(e)")
                check(!noCall, "no_tool_call twice")
                check(options.toolChoice.requiresCall && accepted == 0,
                      "no_tool_call with tool_choice \(options.toolChoice) and \(accepted) accepted calls")
                noCall = true
            } else if let r = e.rawBytes {
                check(!r.isEmpty, "an event with empty raw bytes: \(e)")
                check(!noCall, "an event after no_tool_call: \(e)")
                raw += r
            }
            switch e {
            case .text(let t):
                check(Self.cutsCleanly(input, at: raw.count), "text ends inside a UTF-8 sequence: \(t.utf8)")
                if case .text(var prev)? = out.last { out.removeLast(); prev += t.utf8; out.append(.text(prev)) } else { out.append(.text(t.utf8)) }
            case .reasoning(let t, let r):
                check(r != nil || !options.rawSpans, "reasoning without raw bytes")
                if case .reasoning(var prev)? = out.last { out.removeLast(); prev += t.utf8; out.append(.reasoning(prev)) } else { out.append(.reasoning(t.utf8)) }
            case .toolCallStart(let index, let id, let name):
                check(index == nextIndex, "start index \(index), expected \(nextIndex)")
                if let tools { check(tools.declares(name), "the undeclared name \(name) was started") }
                check(options.toolChoice.allows(name), "\(name), which tool_choice \(options.toolChoice) does not allow, was started")
                check(options.parallelToolCalls || accepted == 0, "\(name) was started after an accepted call with parallel_tool_calls false")
                nextIndex = index + 1
                open[index] = (id, name, [], "")
                out.append(.start(index: index, id: id, name: name))
            case .toolCallDelta(let index, let fragment):
                check(open[index] != nil, "a delta for call \(index), which is not open")
                check(!fragment.isEmpty, "an empty delta")
                open[index]?.deltas += fragment.utf8
                // What a client receives: each fragment repaired on its own, as the encoders do.
                open[index]?.client += fragment.string
            case .toolCall(let call):
                accepted += 1
                guard let o = open.removeValue(forKey: call.index) else {
                    check(false, "tool_call \(call.index) was never started, or ended twice")
                    continue
                }
                check(o.id == call.id && o.name == call.name, "call \(call.index) changed its id or name")
                check(call.arguments.isObject, "the arguments of call \(call.index) are not an object")
                // The joined fragments are strict JSON text (a client's json.loads / JSON.parse
                // accepts them) and equal the arguments.
                let problem = StrictJSON.problem(in: Array(o.client.utf8), maxDepth: .max)
                check(problem == nil, "joined deltas are not strict JSON (\(problem ?? "")): \(o.client.debugDescription.prefix(400))")
                let parsed = try? JSONValue.parse(Array(o.client.utf8), maxDepth: .max)
                check(parsed == call.arguments, "deltas \(o.client.debugDescription.prefix(400)) != arguments \(call.arguments.jsonText.prefix(400))")
                out.append(.arguments(index: call.index, json: o.deltas))
                out.append(.call(index: call.index, id: call.id, name: call.name, arguments: call.arguments))
            case .rejected(let r):
                rejected += 1
                if let index = r.index {
                    // What a rejected call streamed is compared too: the deltas of its valid
                    // prefix, the same however the input was split.
                    if let o = open.removeValue(forKey: index) {
                        out.append(.arguments(index: index, json: o.deltas))
                    } else {
                        check(false, "a rejection for call \(index), which is not open")
                    }
                }
                if r.reason == .undeclaredTool || r.reason == .toolNotChosen || r.reason == .parallelToolCall {
                    check(r.index == nil, "a call rejected as \(r.reason.rawValue) was started")
                    check(r.name != nil, "a call rejected as \(r.reason.rawValue) has no name")
                }
                out.append(.rejected(reason: r.reason.rawValue, index: r.index, name: r.name, raw: r.raw))
            case .markup(let r):
                if case .markup(var prev)? = out.last { out.removeLast(); prev += r; out.append(.markup(prev)) } else { out.append(.markup(r)) }
            case .end(let c, let r, let b):
                ended = true
                check(c == accepted && r == rejected && b == input.count, "end counts \(c), \(r), \(b): expected \(accepted), \(rejected), \(input.count)")
                out.append(.end(calls: c, rejected: r, bytes: b))
            }
        }
        check(ended, "no end event")
        check(noCall == (options.toolChoice.requiresCall && accepted == 0),
              "tool_choice \(options.toolChoice) with \(accepted) accepted calls, and no_tool_call \(noCall ? "given" : "missing")")
        check(open.isEmpty, "calls never ended: \(open.keys.sorted())")
        check(!options.rawSpans || raw == input, "raw spans do not rebuild the input")
        return out
    }

    /// Decodes `input` whole and in `chunkings`, checks every run and that all runs agree with
    /// the whole one; returns the whole run's normalized events. Only the first differing
    /// chunking of the every-offset splits is reported.
    @discardableResult
    public func verify(_ input: [UInt8], chunkings: Chunkings, report: (String) -> Void) -> [NormalizedEvent] {
        let whole = normalize(decode(input, splits: []), input: input, label: "whole", report: report)
        func compare(_ label: String, _ splits: [Int]) -> Bool {
            let run = normalize(decode(input, splits: splits), input: input, label: label, report: report)
            guard run != whole else { return true }
            report(Self.difference(label, run, whole))
            return false
        }
        switch chunkings {
        case .exhaustive(let everySplit):
            _ = compare("byte by byte", Array(0..<input.count))
            for sizes in everySplit ? Chunkings.tokenSized : Chunkings.tokenSample where sizes.count > 1 || sizes[0] < input.count {
                let label = "in \(sizes.map(String.init).joined(separator: ", "))-byte chunks"
                _ = compare(label, Chunkings.offsets(cycling: sizes, count: input.count))
            }
            if everySplit {
                for s in 0...input.count where !compare("split at \(s)", [s]) { break }
            }
        case .sample(let split, let chunk):
            _ = compare("split at \(split)", [split])
            _ = compare("\(chunk)-byte chunks", Array(stride(from: chunk, to: input.count, by: chunk)))
        }
        return whole
    }

    /// The first differing events of two runs, for a message.
    public static func difference(_ label: String, _ a: [NormalizedEvent], _ b: [NormalizedEvent]) -> String {
        var i = 0
        while i < min(a.count, b.count) && a[i] == b[i] { i += 1 }
        let left = i < a.count ? "\(a[i])" : "(nothing)"
        let right = i < b.count ? "\(b[i])" : "(nothing)"
        return "\(label) differs from whole at event \(i):\n  \(left)\nvs whole:\n  \(right)"
    }

    /// Whether `end` does not cut a valid UTF-8 sequence of `input` in two. (An invalid byte
    /// that only looks like a lead byte may end a text event: it cannot be completed.)
    public static func cutsCleanly(_ input: [UInt8], at end: Int) -> Bool {
        var lead = end - 1
        while lead >= 0 && lead > end - 4 && input[lead] & 0xC0 == 0x80 { lead -= 1 }
        guard lead >= 0 else { return true }
        let b0 = input[lead]
        let need = b0 >= 0xC2 && b0 <= 0xDF ? 2 : b0 >= 0xE0 && b0 <= 0xEF ? 3 : b0 >= 0xF0 && b0 <= 0xF4 ? 4 : 1
        guard lead + need > end, lead + need <= input.count else { return true }
        for k in 1..<need where input[lead + k] & 0xC0 != 0x80 { return true }
        let b1 = input[lead + 1]
        switch b0 {
        case 0xE0: return b1 < 0xA0
        case 0xED: return b1 > 0x9F
        case 0xF0: return b1 < 0x90
        case 0xF4: return b1 > 0x8F
        default: return false
        }
    }
}
