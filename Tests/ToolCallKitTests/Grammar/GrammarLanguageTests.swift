import Foundation
import Testing
@testable import ToolCallKit

/// The exported grammar's language, matched in Swift (``GrammarMatcher``) against what the
/// renderer writes: every format, the six policies of the Python tests, the tools typed from the
/// calls of Fixtures/grammar/layout-calls.json. The Python tests (python/tests/grammar) do the
/// same through xgrammar, llguidance and llama.cpp, and walk the grammars; this suite needs
/// none of them.
@Suite("Exported grammars admit what the policy allows")
struct GrammarLanguageTests {
    struct Policy: CustomTestStringConvertible, Sendable {
        let choice: ToolChoice
        let parallel: Bool
        var testDescription: String { "\(choice)/\(parallel ? "parallel" : "single")" }
    }

    static let policies: [Policy] = [
        Policy(choice: .auto, parallel: true), Policy(choice: .auto, parallel: false),
        Policy(choice: .required, parallel: true), Policy(choice: .required, parallel: false),
        Policy(choice: .none, parallel: true), Policy(choice: .function("get_weather"), parallel: true),
    ]

    static func document(_ format: ToolCallFormat, _ tools: ToolSet, _ policy: Policy) throws -> GrammarDocument {
        let layout = try #require(format.definition.layout)
        let options = GrammarOptions(target: .gbnf, toolChoice: policy.choice, parallelToolCalls: policy.parallel)
        var exporter = GrammarExporter(format: format, layout: layout, tools: tools, options: options)
        return try exporter.document()
    }

    @Test("accepts the calls the policy allows and refuses the others", arguments: layoutFormats, policies)
    func policyLanguage(format: ToolCallFormat, policy: Policy) throws {
        let cases = try LayoutCase.all()
        let tools = ToolSet.typing(cases.flatMap(\.calls))
        let doc = try Self.document(format, tools, policy)
        let text = cases[0].text
        let one = try #require(cases.first { $0.calls.count == 1 && $0.calls[0].name == "get_weather" })
        let many = cases.filter { $0.calls.count > 1 }
        var expectations: [(String, [UInt8], Bool)] = []
        func add(_ label: String, _ calls: [RenderedCall], text: String?, _ accept: Bool) throws {
            expectations.append((label, try format.render(calls, text: text), accept))
        }
        let undeclared = RenderedCall(name: "not_declared", arguments: one.calls[0].arguments)
        switch policy.choice {
        case .auto:
            expectations.append(("text only", Array(text.utf8), true))
            for c in cases where policy.parallel || c.calls.count == 1 { try add(c.name, c.calls, text: text, true) }
            if !policy.parallel { for c in many { try add("\(c.name) (parallel calls off)", c.calls, text: text, false) } }
            try add("undeclared name", [undeclared], text: text, false)
        case .required:
            expectations.append(("text only", Array(text.utf8), false))
            expectations.append(("nothing", [], false))
            for c in cases where policy.parallel || c.calls.count == 1 { try add(c.name, c.calls, text: nil, true) }
            if !policy.parallel { for c in many { try add("\(c.name) (parallel calls off)", c.calls, text: nil, false) } }
            try add("undeclared name", [undeclared], text: nil, false)
        case .none:
            expectations.append(("text only", Array(text.utf8), true))
            for c in cases { try add("\(c.name) under none", c.calls, text: text, false) }
        case .function(let name):
            try add(one.name, one.calls, text: nil, true)
            let others = cases.flatMap(\.calls).filter { $0.name != name }
            try #require(!others.isEmpty)
            try add("another tool", [others[0]], text: nil, false)
            expectations.append(("text only", Array(text.utf8), false))
        default:
            Issue.record("no expectations for \(policy.choice)")
        }
        for (label, bytes, accept) in expectations {
            #expect(GrammarMatcher.accepts(doc, bytes) == accept,
                    "\(format.rawValue) \(policy.testDescription) \(label): expected \(accept ? "accepted" : "refused"): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
        #expect(expectations.count >= 3)
    }

    /// Fixtures/grammar/pattern-cases.json against patterns.tools.json, `required`, one call.
    @Test("pattern: matching values are admitted, others refused", arguments: layoutFormats)
    func patterns(format: ToolCallFormat) throws {
        let tools = try ToolSet.load(json: Array(try FixturePaths.data("grammar/patterns.tools.json")))
        let doc = try Self.document(format, tools, Policy(choice: .required, parallel: false))
        let what = "grammar/pattern-cases.json"
        let table = try JSONValue.parse(Array(try FixturePaths.data(what)))
        let tool = try #require(table["tool"]?.stringValue)
        let rows = try FixtureTable.nonEmpty(try #require(table["cases"]?.arrayValue), what)
        for row in rows {
            let name = try #require(row["name"]?.stringValue)
            let expect = try #require(row["expect"]?.stringValue)
            guard ["accept", "reject", "native"].contains(expect) else { throw FixtureError("\(what) \(name): expect \(expect)") }
            let bytes = try format.render([RenderedCall(name: tool, arguments: try #require(row["arguments"]))])
            #expect(GrammarMatcher.accepts(doc, bytes) == (expect != "reject"),
                    "\(format.rawValue) \(name): expected \(expect): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }
}

/// Fixtures/grammar/reports.json: a keyword the target's grammar cannot enforce gives a report
/// line; an expressible one gives none.
@Suite("Grammar reports")
struct GrammarReportTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let format: ToolCallFormat
        let target: GrammarTarget
        let schema: JSONValue
        let report: [String]
        var testDescription: String { "\(format.rawValue)/\(target.rawValue) \(schema.jsonText)" }
    }

    static func rows() throws -> [Row] {
        let what = "grammar/reports.json"
        let doc = try JSONValue.parse(Array(try FixturePaths.data(what)))
        return try FixtureTable.nonEmpty(try (doc["rows"]?.arrayValue ?? []).map { r in
            try FixtureTable.checkKeys(r, known: ["format", "target", "schema", "report"], in: what)
            guard let f = r["format"]?.stringValue.flatMap(ToolCallFormat.init(name:)),
                  let t = r["target"]?.stringValue.flatMap(GrammarTarget.init(rawValue:)),
                  let schema = r["schema"], let report = r["report"]?.arrayValue else { throw FixtureError("\(what): a row needs format, target, schema, report") }
            return Row(format: f, target: t, schema: schema, report: report.compactMap(\.stringValue))
        }, what)
    }

    @Test("each keyword a target cannot enforce is reported", arguments: try rows())
    func report(_ row: Row) throws {
        let tool = JSONValue.object([
            ("name", .string("f")),
            ("parameters", .object([("type", .string("object")), ("properties", .object([("x", row.schema)]))])),
        ])
        var bytes: [UInt8] = []
        JSONValue.array([tool]).write(to: &bytes)
        let tools = try ToolSet.load(json: bytes)
        let g = try row.format.grammar(tools: tools, options: GrammarOptions(target: row.target, toolChoice: .required))
        for needle in row.report {
            #expect(g.report.contains { $0.contains(needle) }, "\(row.testDescription): no report line with \(needle.debugDescription) in \(g.report)")
        }
        if row.report.isEmpty { #expect(g.report.isEmpty, "\(row.testDescription): \(g.report)") }
    }
}
