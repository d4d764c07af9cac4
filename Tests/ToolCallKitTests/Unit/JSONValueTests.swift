import Testing
@testable import ToolCallKit

@Suite("JSONValue")
struct JSONValueTests {
    @Test("parses and writes compact JSON in wire order")
    func roundTrip() throws {
        let v = try JSONValue.parse(#"{"b": 1, "a": [true, null, "x\n"], "c": {"d": -2.5e3}}"#)
        #expect(v.jsonText == #"{"b":1,"a":[true,null,"x\n"],"c":{"d":-2.5e3}}"#)
    }
}
