// toolcall-bench — token ids streamed one at a time through TokenStreamDecoder.

import Glibc
import ToolCallKit
import ToolCallKitTestSupport

/// The token layer's throughput: a server that detokenizes as the model samples feeds one id
/// per step, so that is what is measured.
enum TokenBench {
    static func run(tokenizerPath: String, format: ToolCallFormat, ids count: Int, repeats: Int, json: Bool) {
        guard let file = unsafe fopen(tokenizerPath, "rb") else { ToolCallBench.fail("cannot open \(tokenizerPath)") }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = unsafe fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        unsafe fclose(file)
        let tokenizer: Tokenizer
        do { tokenizer = try Tokenizer(json: data, source: tokenizerPath) } catch { ToolCallBench.fail("\(error)") }
        // Ids drawn with a fixed seed from the regular vocabulary.
        var rng = SeededGenerator(state: 0x70_6B_65_6E)
        var ids: [Int] = []
        ids.reserveCapacity(count)
        while ids.count < count {
            let id = Int(rng.next() % UInt64(tokenizer.vocabularySize))
            if tokenizer.contains(id) && !tokenizer.isSpecial(id) { ids.append(id) }
        }
        // The reference: the same ids in one batch.
        var batch = TokenStreamDecoder(tokenizer: tokenizer, format: format, options: .init(idSeed: 1))
        var expected: [ToolCallEvent] = []
        do { expected = try batch.feed(ids[...]) } catch { ToolCallBench.fail("\(error)") }
        expected += batch.finish()
        let clock = ContinuousClock()
        var total: Duration = .zero
        var events: [ToolCallEvent] = []
        for _ in 0..<repeats {
            events.removeAll(keepingCapacity: false)
            events.reserveCapacity(count + 16)
            let start = clock.now
            var decoder = TokenStreamDecoder(tokenizer: tokenizer, format: format, options: .init(idSeed: 1))
            do {
                for id in ids { try decoder.feed(id, into: &events) }
            } catch { ToolCallBench.fail("\(error)") }
            decoder.finish(into: &events)
            total += clock.now - start
            if let problem = differ(events, expected) { ToolCallBench.fail("tokens/\(format.rawValue): wrong result: \(problem)") }
        }
        let c = total.components
        let seconds = Double(c.seconds) + Double(c.attoseconds) * 1e-18
        let idsPerSecond = Double(count * repeats) / seconds
        if json {
            print("{\"workload\":\"tokens\",\"format\":\"\(format.rawValue)\",\"ids\":\(count),\"repeat\":\(repeats),"
                + "\"seconds\":\(ToolCallBench.fmt(seconds, 6)),\"ids_per_s\":\(ToolCallBench.fmt(idsPerSecond, 0)),"
                + "\"ns_per_id\":\(ToolCallBench.fmt(seconds * 1e9 / Double(count * repeats), 1)),\"events\":\(events.count)}")
        } else {
            print("tokens \(format.rawValue): \(count) ids x \(repeats), \(ToolCallBench.fmt(idsPerSecond / 1e6, 2)) M ids/s, "
                + "\(ToolCallBench.fmt(seconds * 1e9 / Double(count * repeats), 1)) ns per id, \(events.count) events")
        }
    }

    /// Where the streamed events differ from the batch's: the same text, the same calls.
    static func differ(_ a: [ToolCallEvent], _ b: [ToolCallEvent]) -> String? {
        func summary(_ events: [ToolCallEvent]) -> (text: [UInt8], calls: [String], rejected: Int) {
            var text: [UInt8] = []
            var calls: [String] = []
            var rejected = 0
            for e in events {
                switch e {
                case .text(let t): text += t.utf8
                case .toolCall(let c): calls.append(c.name)
                case .rejected: rejected += 1
                default: break
                }
            }
            return (text, calls, rejected)
        }
        let (x, y) = (summary(a), summary(b))
        if x.text != y.text { return "text differs (\(x.text.count) vs \(y.text.count) bytes)" }
        if x.calls != y.calls || x.rejected != y.rejected { return "calls differ" }
        return nil
    }
}
