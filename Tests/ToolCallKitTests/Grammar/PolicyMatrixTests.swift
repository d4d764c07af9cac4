import Foundation
import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// Fixtures/grammar/policy-matrix.json: every tool_choice x parallel_tool_calls setting, for
/// every format, through the chunking verifier (which also checks the policy's contracts on
/// every run: ChunkingCheck).
@Suite("tool_choice and parallel_tool_calls in the decoder")
struct PolicyMatrixTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let format: ToolCallFormat
        let choice: ToolChoice
        let parallel: Bool
        var testDescription: String { "\(format.rawValue) \(choice)/\(parallel ? "parallel" : "single")" }
    }

    struct Table {
        let tools: ToolSet
        let text: String
        let arguments: [String: JSONValue]
        let inputs: [(String, [String])]
        let expect: [[String: [String]]]
        let policies: [(ToolChoice, Bool)]
    }

    static let what = "grammar/policy-matrix.json"

    static func table() throws -> Table {
        let doc = try JSONValue.parse(Array(try FixturePaths.data(what)))
        try FixtureTable.checkKeys(doc, known: ["description", "tools", "text", "arguments", "inputs", "policies"], in: what)
        let tools = try FixtureTable.tools(try #require(doc["tools"]), in: what)
        let inputs = try (doc["inputs"]?.objectValue ?? []).map { m -> (String, [String]) in
            guard let names = m.value.arrayValue?.compactMap(\.stringValue) else { throw FixtureError("\(what): input \(m.key)") }
            return (m.key, names)
        }
        var policies: [(ToolChoice, Bool)] = []
        var expect: [[String: [String]]] = []
        for p in try FixtureTable.nonEmpty(doc["policies"]?.arrayValue ?? [], what) {
            try FixtureTable.checkKeys(p, known: ["tool_choice", "parallel_tool_calls", "expect"], in: what)
            guard let c = p["tool_choice"].flatMap(ToolChoice.init(json:)), case .bool(let par)? = p["parallel_tool_calls"],
                  let e = p["expect"]?.objectValue else { throw FixtureError("\(what): a policy needs tool_choice, parallel_tool_calls, expect") }
            var byInput: [String: [String]] = [:]
            for m in e { byInput[m.key] = m.value.arrayValue?.compactMap(\.stringValue) }
            guard Set(byInput.keys) == Set(inputs.map(\.0)) else { throw FixtureError("\(what): policy \(c) must list every input") }
            policies.append((c, par))
            expect.append(byInput)
        }
        var arguments: [String: JSONValue] = [:]
        for m in doc["arguments"]?.objectValue ?? [] { arguments[m.key] = m.value }
        return Table(tools: tools, text: try #require(doc["text"]?.stringValue), arguments: arguments,
                     inputs: try FixtureTable.nonEmpty(inputs, what), expect: expect, policies: policies)
    }

    static func rows() throws -> [Row] {
        let t = try table()
        return layoutFormats.flatMap { f in t.policies.map { Row(format: f, choice: $0.0, parallel: $0.1) } }
    }

    @Test("calls accepted and refused under each policy", arguments: try rows())
    func policy(_ row: Row) throws {
        let t = try Self.table()
        let p = try #require(t.policies.firstIndex { $0.0 == row.choice && $0.1 == row.parallel })
        var options = ToolCallDecoder.Options(rawSpans: true, idSeed: 7)
        options.toolChoice = row.choice
        options.parallelToolCalls = row.parallel
        let verifier = ChunkingVerifier(format: row.format, tools: t.tools, options: options)
        for (input, names) in t.inputs {
            let calls = try names.map { n in RenderedCall(name: n, arguments: try #require(t.arguments[n])) }
            let bytes = try row.format.render(calls, text: t.text)
            let events = verifier.verify(bytes, everySplit: false)
            var outcome: [String] = []
            var end: (Int, Int)? = nil
            for e in events {
                switch e {
                case .call(_, _, let name, _): outcome.append(name)
                case .rejected(let reason, _, let name, _): outcome.append(name.map { "\(reason):\($0)" } ?? reason)
                case .end(let c, let r, _): end = (c, r)
                default: break
                }
            }
            let expected = try #require(t.expect[p][input])
            #expect(outcome == expected, "\(row.testDescription) \(input): \(outcome) != \(expected)")
            let accepted = expected.filter { !$0.contains(":") && $0 != "no_tool_call" }.count
            #expect(end.map { $0 == (accepted, expected.count - accepted) } ?? false, "\(row.testDescription) \(input): end \(String(describing: end))")
        }
    }
}
