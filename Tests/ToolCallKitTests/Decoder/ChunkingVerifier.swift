import Testing
@testable import ToolCallKit

/// Feeds one input to fresh decoders in every chunking that matters and checks that the
/// results agree and keep the contracts of docs/events.md.
///
/// Chunkings: whole, one byte at a time, and split in two at every offset. For each run it
/// checks that raw spans rebuild the input, that every started call ends exactly once with its
/// own index, that indexes count from 0, that each accepted call's deltas concatenate to JSON
/// equal to its arguments, that `end` counts what was emitted, and that no text event ends
/// inside a UTF-8 sequence. Across runs the normalized events must be equal (text merged,
/// deltas concatenated; ids compared because a seed is used).
struct ChunkingVerifier {
    /// A normalized event: what must agree across chunkings.
    enum Normalized: Equatable, CustomStringConvertible {
        /// Merged text, as bytes (decoded once, so a merge never changes U+FFFD repair).
        case text([UInt8])
        case reasoning([UInt8])
        case start(index: Int, id: String, name: String)
        /// A call's deltas concatenated, as bytes (so a fragment's bytes, not only its repaired
        /// text, must agree across chunkings).
        case arguments(index: Int, json: [UInt8])
        case call(index: Int, id: String, name: String, arguments: JSONValue)
        case rejected(reason: String, index: Int?, name: String?, raw: [UInt8])
        case markup([UInt8])
        case end(calls: Int, rejected: Int, bytes: Int)

        var description: String {
            switch self {
            case .text(let t): return "text(\(String(decoding: t, as: UTF8.self).debugDescription))"
            case .reasoning(let t): return "reasoning(\(String(decoding: t, as: UTF8.self).debugDescription))"
            case .start(let i, _, let n): return "start(\(i), \(n))"
            case .arguments(let i, let j): return "deltas(\(i), \(String(decoding: j, as: UTF8.self).debugDescription))"
            case .call(let i, _, let n, let a): return "call(\(i), \(n), \(a.jsonText))"
            case .rejected(let r, let i, let n, let raw):
                return "rejected(\(r), \(i.map(String.init) ?? "-"), \(n ?? "-"), \(String(decoding: raw, as: UTF8.self).debugDescription))"
            case .markup(let raw): return "markup(\(String(decoding: raw, as: UTF8.self).debugDescription))"
            case .end(let c, let r, let b): return "end(\(c), \(r), \(b))"
            }
        }
    }

    var format: ToolCallFormat
    var tools: ToolSet?
    var options = ToolCallDecoder.Options(rawSpans: true, idSeed: 7)
    var makeDecoder: ((ToolCallFormat, ToolSet?, ToolCallDecoder.Options) -> ToolCallDecoder)? = nil

    /// Decodes `input` in the given chunks and returns the raw events.
    func decode(_ input: [UInt8], splits: [Int]) -> [ToolCallEvent] {
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

    /// Checks the per-run contracts and returns the normalized events.
    func normalize(_ events: [ToolCallEvent], input: [UInt8], label: String,
                   sourceLocation: SourceLocation = #_sourceLocation) -> [Normalized] {
        var out: [Normalized] = []
        var raw: [UInt8] = []
        var open: [Int: (id: String, name: String, deltas: [UInt8], client: String)] = [:]
        var nextIndex = 0
        var accepted = 0
        var rejected = 0
        var ended = false
        for e in events {
            #expect(!ended, "[\(label)] event after end", sourceLocation: sourceLocation)
            if let r = e.rawBytes { raw += r }
            switch e {
            case .text(let t):
                do {
                    #expect(UTF8Boundary.cutsCleanly(input, at: raw.count), "[\(label)] text ends inside UTF-8: \(t.utf8)", sourceLocation: sourceLocation)
                }
                if case .text(var prev)? = out.last { out.removeLast(); prev += t.utf8; out.append(.text(prev)) } else { out.append(.text(t.utf8)) }
            case .reasoning(let t, _):
                if case .reasoning(var prev)? = out.last { out.removeLast(); prev += t.utf8; out.append(.reasoning(prev)) } else { out.append(.reasoning(t.utf8)) }
            case .toolCallStart(let index, let id, let name):
                #expect(index == nextIndex, "[\(label)] start index \(index), expected \(nextIndex)", sourceLocation: sourceLocation)
                nextIndex = index + 1
                open[index] = (id, name, [], "")
                out.append(.start(index: index, id: id, name: name))
            case .toolCallDelta(let index, let fragment):
                #expect(open[index] != nil, "[\(label)] delta for a call that is not open: \(index)", sourceLocation: sourceLocation)
                open[index]?.deltas += fragment.utf8
                // What a client receives: each fragment on its own as a JSON string (invalid
                // UTF-8 repaired per fragment, as the event encoders do).
                open[index]?.client += fragment.string
            case .toolCall(let call):
                accepted += 1
                guard let o = open.removeValue(forKey: call.index) else {
                    Issue.record("[\(label)] tool_call \(call.index) was never started", sourceLocation: sourceLocation)
                    continue
                }
                #expect(o.id == call.id && o.name == call.name, "[\(label)] call \(call.index) changed id or name", sourceLocation: sourceLocation)
                // The joined fragments are strict JSON text (a client's json.loads / JSON.parse
                // accepts them) and equal the arguments.
                let problem = StrictJSON.problem(in: Array(o.client.utf8))
                #expect(problem == nil, "[\(label)] joined deltas are not strict JSON (\(problem ?? "")): \(o.client.debugDescription)", sourceLocation: sourceLocation)
                let parsed = try? JSONValue.parse(o.client)
                #expect(parsed == call.arguments, "[\(label)] deltas \(o.client.debugDescription) != arguments \(call.arguments.jsonText)", sourceLocation: sourceLocation)
                #expect(call.arguments.isObject, "[\(label)] arguments not an object", sourceLocation: sourceLocation)
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
                        Issue.record("[\(label)] rejection for call \(index) that is not open", sourceLocation: sourceLocation)
                    }
                }
                out.append(.rejected(reason: r.reason.rawValue, index: r.index, name: r.name, raw: r.raw))
            case .markup(let r):
                if case .markup(var prev)? = out.last { out.removeLast(); prev += r; out.append(.markup(prev)) } else { out.append(.markup(r)) }
            case .end(let c, let r, let b):
                ended = true
                #expect(c == accepted && r == rejected && b == input.count, "[\(label)] end counts", sourceLocation: sourceLocation)
                out.append(.end(calls: c, rejected: r, bytes: b))
            }
        }
        #expect(ended, "[\(label)] no end event", sourceLocation: sourceLocation)
        #expect(open.isEmpty, "[\(label)] calls never closed: \(open.keys.sorted())", sourceLocation: sourceLocation)
        #expect(raw == input, "[\(label)] raw spans do not rebuild the input", sourceLocation: sourceLocation)
        return out
    }

    /// Runs every chunking and checks they agree; returns the normalized events of the whole run.
    @discardableResult
    func verify(_ input: [UInt8], everySplit: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) -> [Normalized] {
        let whole = normalize(decode(input, splits: []), input: input, label: "whole", sourceLocation: sourceLocation)
        let bytewise = normalize(decode(input, splits: Array(0..<input.count)), input: input, label: "byte by byte", sourceLocation: sourceLocation)
        #expect(bytewise == whole, "byte-by-byte differs from whole:\n  \(bytewise)\nvs\n  \(whole)", sourceLocation: sourceLocation)
        if everySplit {
            for s in 0...input.count {
                let split = normalize(decode(input, splits: [s]), input: input, label: "split at \(s)", sourceLocation: sourceLocation)
                if split != whole {
                    Issue.record("split at \(s) differs from whole:\n  \(split)\nvs\n  \(whole)", sourceLocation: sourceLocation)
                    break
                }
            }
        }
        return whole
    }
}

extension UTF8Boundary {
    /// Whether `end` does not cut a valid UTF-8 sequence of `input` in two. (An invalid byte
    /// that only looks like a lead byte may end a text event: it cannot be completed.)
    static func cutsCleanly(_ input: [UInt8], at end: Int) -> Bool {
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
