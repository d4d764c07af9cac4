// toolcall-bench — throughput of the decoder per workload, format and chunk size (README.md, Benchmark).

import Glibc
import ToolCallKit
import ToolCallKitTestSupport

@main
struct ToolCallBench {
    static let usage = """
        USAGE: toolcall-bench [--workload NAME|all] [--format NAME|all]
                              [--chunk N] [--size BYTES] [--repeat K] [--json] [--verify]
               toolcall-bench --idle N [--format NAME]
               toolcall-bench --tokens TOKENIZER.json [--format NAME] [--size IDS] [--repeat K] [--json]

        Workloads: prose, agentic, long-argument, escaped-argument (events encoded as JSON
        lines too), many-parameters, near-miss (the format's markers, each one byte off),
        small-values (a list of small integers), nested-arrays, short-strings (lists of nested
        arrays and of short strings), near-cap (one call of small integers just under the call
        cap, which is set to --size), validation (calls checked against hostile
        schemas: anyOf over a shared $ref, a long enum, a catastrophic pattern), template
        (reasoning, prose and calls through a response template; --format does not apply),
        and the response-template shapes that were once quadratic or worse (for these too
        --format does not apply): template-r1-answer (TRL's DeepSeek-R1 template, a long
        answer after </think>), template-r1-unclosed (the same, no </think>),
        template-newlines (serve's Qwen3 on newlines), template-words (Inkling's on words),
        template-open-header (gpt-oss after an unfinished call header), template-name-run
        (TRL's gpt-oss after the recipient prefix `to=functions` and its dot),
        template-a-plus-b (an open pattern a+b on a's), template-xml-spaces (TRL's Nemotron 3,
        xml-inline parameters of white space).
        Each (workload, format, chunk) input is generated once (fixed seed), decoded --repeat
        times from a fresh decoder, and checked; a wrong result exits 1. --verify also runs the
        tests' chunking verifier on each input first, untimed (whole, split in two, and in
        --chunk pieces: the same events, raw spans that rebuild the input, valid deltas).
        --tokens streams --size token ids (default 1,000,000; drawn with a fixed seed from the
        tokenizer's vocabulary, special tokens excluded) through a TokenStreamDecoder one id
        at a time and reports ids per second; the events are checked against the same ids fed
        in one batch.
        Instructions per byte: run under `valgrind --tool=callgrind` at --repeat 3 and
        --repeat 1; (Ir3 - Ir1) / (2 x bytes). `Benchmarks/ir-per-byte.sh WORKLOAD FORMAT
        CHUNK SIZE` does it for one case; `make bench-check` checks every case against the
        committed thresholds.
        """

    struct Settings {
        var workloads = Workloads.names
        var formats = ToolCallFormat.allCases.filter(\.isImplemented)
        var chunks = [4, 64 << 10]
        var size = 1 << 20
        var repeats = 3
        var json = false
        /// `--idle N`: make N decoders and keep them (for measuring an idle decoder's memory).
        var idle: Int?
        /// `--tokens PATH`: stream token ids through this tokenizer, one at a time.
        var tokenizer: String?
        var sizeGiven = false
        /// `--verify`: the chunking verifier on each input before it is timed.
        var verify = false
    }

    static func main() {
        var s = Settings()
        var args = CommandLine.arguments.dropFirst()
        func value(_ flag: String) -> String {
            guard let v = args.popFirst() else { fail("\(flag) needs a value") }
            return v
        }
        while let a = args.popFirst() {
            switch a {
            case "--workload":
                let v = value(a)
                guard v == "all" || Workloads.names.contains(v) else { fail("unknown workload '\(v)'") }
                s.workloads = v == "all" ? Workloads.names : [v]
            case "--format":
                let v = value(a)
                if v == "all" {
                    s.formats = ToolCallFormat.allCases.filter(\.isImplemented)
                } else {
                    guard let f = ToolCallFormat(name: v), f.isImplemented else { fail("unknown or unimplemented format '\(v)'") }
                    s.formats = [f]
                }
            case "--chunk":
                guard let n = Int(value(a)), n > 0 else { fail("--chunk takes a positive number") }
                s.chunks = [n]
            case "--size":
                guard let n = Int(value(a)), n > 0 else { fail("--size takes a positive number") }
                s.size = n
                s.sizeGiven = true
            case "--repeat":
                guard let n = Int(value(a)), n > 0 else { fail("--repeat takes a positive number") }
                s.repeats = n
            case "--json": s.json = true
            case "--verify": s.verify = true
            case "--idle":
                guard let n = Int(value(a)), n > 0 else { fail("--idle takes a positive number") }
                s.idle = n
            case "--tokens": s.tokenizer = value(a)
            case "--help", "-h":
                print(usage)
                return
            default: fail("unknown option '\(a)'")
            }
        }
        if let n = s.idle {
            // What an inference server pays per open stream: the decoders, fed nothing.
            var decoders: [ToolCallDecoder] = []
            decoders.reserveCapacity(n)
            for _ in 0..<n { decoders.append(ToolCallDecoder(format: s.formats[0])) }
            print("idle decoders: \(decoders.count), \(MemoryLayout<ToolCallDecoder>.size) bytes inline each")
            return
        }
        if let path = s.tokenizer {
            TokenBench.run(tokenizerPath: path, format: s.formats[0], ids: s.sizeGiven ? s.size : 1_000_000,
                           repeats: s.repeats, json: s.json)
            return
        }
        if !s.json {
            print(pad("workload", 14) + pad("format", 13) + lpad("chunk", 7) + lpad("bytes", 10) + lpad("MB/s", 9)
                + lpad("ns/chunk", 11) + lpad("calls", 7) + lpad("events", 9))
        }
        for w in s.workloads {
            for f in Workloads.fixedFormat(w).map({ [$0] }) ?? s.formats {
                let workload = Workloads.make(w, format: f, size: s.size)
                for chunk in s.chunks {
                    if s.verify { verifyChunking(workload, chunk: chunk) }
                    let r = run(workload, chunk: chunk, repeats: s.repeats)
                    report(r, workload: workload, chunk: chunk, repeats: s.repeats, json: s.json)
                }
            }
        }
    }

    struct RunResult {
        var seconds: Double
        var calls: Int
        var events: Int
    }

    /// Decodes the input `repeats` times from fresh decoders and checks each result.
    static func run(_ w: Workload, chunk: Int, repeats: Int) -> RunResult {
        let clock = ContinuousClock()
        var total: Duration = .zero
        var calls = 0
        var eventCount = 0
        var encodedBytes = 0
        // The expected argument as the call stores it, made once (checks build no tree).
        let expectedJSON = w.expectedArgument.map { ArgumentChecks.stringArgument("content", $0) }
        for _ in 0..<repeats {
            // Room for the events, as a server's reused array has it: a chunk can end in two
            // text events (around a marker candidate that turns out to be text), so twice the
            // chunks; growing the array inside the timed loop would time its copies.
            var events: [ToolCallEvent] = []
            events.reserveCapacity(2 * (w.input.count / max(1, chunk)) + 16)
            let start = clock.now
            var decoder = ToolCallDecoder(format: w.format, tools: w.tools, options: .init(idSeed: 1, maxCallBytes: w.maxCallBytes ?? .defaultCallBytes, validate: w.tools != nil))
            var i = 0
            let n = w.input.count
            while i < n {
                let e = min(n, i + chunk)
                decoder.feed(w.input[i..<e], into: &events)
                i = e
            }
            decoder.finish(into: &events)
            if w.encodeEvents {
                // The CLI's output path: every event as a JSON line.
                var line: [UInt8] = []
                for e in events {
                    line.removeAll(keepingCapacity: true)
                    EventJSONEncoder.encode(e, into: &line)
                    encodedBytes &+= line.count
                }
            }
            total += clock.now - start
            if w.encodeEvents && encodedBytes <= w.input.count / 2 {
                fail("\(w.name)/\(w.format.rawValue): the encoded events are too short")
            }
            let check = verify(events, w, expectedJSON: expectedJSON)
            if let problem = check.problem {
                fail("\(w.name)/\(w.format.rawValue)/chunk \(chunk): wrong result: \(problem)")
            }
            calls = check.calls
            eventCount = events.count
        }
        let c = total.components
        return RunResult(seconds: Double(c.seconds) + Double(c.attoseconds) * 1e-18, calls: calls, events: eventCount)
    }

    /// The tests' chunking verifier (ToolCallKitTestSupport) on one input: the same events
    /// whole, split in two and in `chunk`-byte pieces, each run's contracts checked.
    static func verifyChunking(_ w: Workload, chunk: Int) {
        let check = ChunkingCheck(
            format: w.format, tools: w.tools,
            options: .init(rawSpans: true, idSeed: 1, maxCallBytes: w.maxCallBytes ?? .defaultCallBytes, validate: w.tools != nil))
        var problems: [String] = []
        check.verify(w.input, chunkings: .sample(split: w.input.count / 2, chunk: chunk)) { problems.append($0) }
        if let first = problems.first {
            fail("\(w.name)/\(w.format.rawValue)/chunk \(chunk): the chunking verifier: \(first)")
        }
    }

    /// The result check: the expected calls came out and the text is intact.
    static func verify(_ events: [ToolCallEvent], _ w: Workload, expectedJSON: [UInt8]?) -> (problem: String?, calls: Int) {
        var textLength = 0
        var textMatches = true
        var calls = CallTally()
        let expected = w.expectedText
        let expectedCount = expected.count
        for e in events {
            if case .text(let t) = e {
                // Compare in place (a few loads, or memcmp), so the check costs little per byte.
                let n = t.utf8Count
                if textMatches {
                    textMatches = textLength &+ n <= expectedCount && Self.equal(t, expected, at: textLength)
                }
                textLength &+= n
            } else if case .toolCallDelta = e {
                // (The most frequent event of a call: nothing to check in it.)
                continue
            } else if let problem = calls.tally(e, w, expectedJSON: expectedJSON) {
                return problem
            }
        }
        if calls.invalid != w.expectedInvalid { return ("\(calls.invalid) calls rejected as invalid, expected \(w.expectedInvalid)", calls.names.count) }
        if calls.names != w.expectedCalls { return ("calls \(calls.names.prefix(3)) != \(w.expectedCalls.prefix(3))", calls.names.count) }
        if !textMatches || textLength != w.expectedText.count {
            return ("text differs (\(textLength) vs \(w.expectedText.count) bytes)", calls.names.count)
        }
        if w.expectedArgument != nil, !calls.argumentMatches { return ("the argument differs", calls.names.count) }
        return (nil, calls.names.count)
    }

    /// What the result check gathers from the events that are not text (out of line: the
    /// loop over text keeps its registers).
    struct CallTally {
        var names: [String] = []
        var argumentMatches = true
        var invalid = 0

        /// Takes one event that is not text; a problem found ends the check.
        @inline(never)
        mutating func tally(_ e: ToolCallEvent, _ w: Workload, expectedJSON: [UInt8]?) -> (problem: String?, calls: Int)? {
            switch e {
            case .toolCall(let c):
                names.append(c.name)
                if let expectedJSON { argumentMatches = c.argumentsJSON == expectedJSON }
                if w.expectedParameters > 0, ArgumentChecks.memberCount(c.argumentsJSON) != w.expectedParameters {
                    return ("\(ArgumentChecks.memberCount(c.argumentsJSON)) parameters, expected \(w.expectedParameters)", names.count + 1)
                }
                if w.name == "small-values" || Workloads.memoryNames.contains(w.name), !ArgumentChecks.isList(c.argumentsJSON, key: "values") {
                    return ("the list was not decoded", names.count + 1)
                }
            case .rejected(let r):
                guard r.reason == .invalidArguments && w.expectedInvalid > 0 else {
                    return ("rejected \(r.reason): \(r.detail)", names.count)
                }
                invalid += 1
            default: break
            }
            return nil
        }
    }

    /// Whether `t`'s bytes equal `expected[offset...]`'s first bytes.
    static func equal(_ t: EventText, _ expected: [UInt8], at offset: Int) -> Bool {
        unsafe t.withUnsafeBytes { a in
            unsafe expected.withUnsafeBytes { b in unsafe equal(a, b.baseAddress! + offset) }
        }
    }

    /// Whether the bytes of `a` are those at `b`: a token-sized text (at most 16 bytes) in two
    /// overlapping loads, a longer one by memcmp (a call costs more than a few bytes).
    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawPointer) -> Bool {
        let n = a.count
        guard n > 0 else { return true }
        let p = a.baseAddress!
        switch n {
        case 1...3:
            let x = unsafe (p.load(as: UInt8.self), p.load(fromByteOffset: n >> 1, as: UInt8.self), p.load(fromByteOffset: n - 1, as: UInt8.self))
            let y = unsafe (b.load(as: UInt8.self), b.load(fromByteOffset: n >> 1, as: UInt8.self), b.load(fromByteOffset: n - 1, as: UInt8.self))
            return x == y
        case 4...8:
            let x = unsafe (p.loadUnaligned(as: UInt32.self), p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            let y = unsafe (b.loadUnaligned(as: UInt32.self), b.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            return x == y
        case 9...16:
            let x = unsafe (p.loadUnaligned(as: UInt64.self), p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
            let y = unsafe (b.loadUnaligned(as: UInt64.self), b.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
            return x == y
        default:
            return unsafe memcmp(p, b, n) == 0
        }
    }

    static func report(_ r: RunResult, workload w: Workload, chunk: Int, repeats: Int, json: Bool) {
        let bytes = w.input.count
        let mbps = Double(bytes * repeats) / r.seconds / 1e6
        let chunksPerRun = (bytes + chunk - 1) / chunk
        let nsPerChunk = r.seconds * 1e9 / Double(repeats * chunksPerRun)
        if json {
            print(
                "{\"workload\":\"\(w.name)\",\"format\":\"\(w.format.rawValue)\",\"chunk\":\(chunk),\"bytes\":\(bytes),"
                    + "\"repeat\":\(repeats),\"seconds\":\(fmt(r.seconds, 6)),\"mb_per_s\":\(fmt(mbps, 2)),"
                    + "\"ns_per_chunk\":\(fmt(nsPerChunk, 1)),\"calls\":\(r.calls),\"events\":\(r.events)}")
        } else {
            print(pad(w.name, 14) + pad(w.format.rawValue, 13) + lpad(String(chunk), 7) + lpad(String(bytes), 10)
                + lpad(fmt(mbps, 1), 9) + lpad(fmt(nsPerChunk, 1), 11) + lpad(String(r.calls), 7) + lpad(String(r.events), 9))
        }
        fflush(nil)
    }

    static func fmt(_ v: Double, _ places: Int) -> String {
        var p = 1.0
        for _ in 0..<places { p *= 10 }
        let scaled = (v * p).rounded()
        let whole = Int(scaled / p)
        let frac = Int(abs(scaled) - abs(Double(whole)) * p)
        if places == 0 { return String(whole) }
        let f = String(frac)
        return "\(whole).\(String(repeating: "0", count: max(0, places - f.count)))\(f)"
    }

    static func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
    static func lpad(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(1, n - s.count)) + s }

    static func fail(_ message: String) -> Never {
        var e = "toolcall-bench: \(message)\n"
        e.withUTF8 { _ = unsafe write(2, $0.baseAddress, $0.count) }
        exit(1)
    }
}
