import Foundation
import Testing
@testable import ToolCallKit

/// The fixture loaders must fail loudly: a fixture that does not load, an empty table or a
/// misspelt key would otherwise turn its tests into passes that check nothing.
@Suite("Fixture loaders")
struct FixtureLoaderTests {
    @Test("an empty table is an error")
    func emptyTable() {
        #expect(throws: FixtureError.self) { try FixtureTable.nonEmpty([Int](), "nothing") }
        #expect((try? FixtureTable.nonEmpty([1], "one")) == [1])
    }

    @Test("fixture options: unknown keys and wrong types are errors", arguments: [
        #"{"max_call_byte": 10}"#,
        #"{"reasonning": true}"#,
        #"{"validate": "yes"}"#,
        #"{"max_depth": 2.5}"#,
        #"[true]"#,
    ])
    func badOptions(text: String) throws {
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(throws: FixtureError.self) { try FormatFixture.options(value, in: "test") }
    }

    @Test("fixture options that are known are applied")
    func goodOptions() throws {
        let value = try JSONValue.parse(Array(#"{"max_depth": 3, "reasoning_open": true, "validate": true}"#.utf8))
        let o = try FormatFixture.options(value, in: "test")
        #expect(o.maxDepth == (try Limit(3)))
        #expect(o.reasoning && o.reasoningOpen && o.validate)
        #expect(o.rawSpans && o.idSeed == 7)
    }

    @Test("a fixture tools array that does not load is an error")
    func badTools() throws {
        let value = try JSONValue.parse(Array(#"[{"function": {"description": "no name"}}]"#.utf8))
        #expect(throws: FixtureError.self) { try FixtureTable.tools(value, in: "test") }
    }

    @Test("unknown keys in an expected file or a peer vector are errors")
    func unknownKeys() throws {
        let file = try JSONValue.parse(Array(#"{"description": "x", "event": []}"#.utf8))
        #expect(throws: FixtureError.self) {
            try FixtureTable.checkKeys(file, known: FormatFixture.fileKeys, in: "test")
        }
        let vector = try JSONValue.parse(Array(#"{"id": "a", "expected_txt": "b"}"#.utf8))
        #expect(throws: FixtureError.self) {
            try FixtureTable.checkKeys(vector, known: PeerVector.vectorKeys, in: "test")
        }
    }

    @Test("the real tables load and are not empty")
    func realTables() throws {
        #expect(try FormatFixtureTests.fixtures().count >= 150)
        #expect(try PeerVector.all().count >= 650)
        #expect(try TokenizerFixtures.decodes().count > 0)
        #expect(try TokenizerFixtures.samples().count > 0)
    }
}
