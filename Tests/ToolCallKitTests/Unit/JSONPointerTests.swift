import Testing
@testable import ToolCallKit

@Suite("JSON Pointer steps")
struct JSONPointerTests {
    @Test("escape and unescape are inverse, ~1 read before ~0", arguments: [
        ("a/b~c", "a~1b~0c"), ("plain", "plain"), ("~1", "~01"), ("/", "~1"), ("~", "~0"), ("", ""),
    ])
    func roundTrip(key: String, step: String) {
        #expect(JSONPointer.escape(key) == step)
        #expect(JSONPointer.unescape(step) == key)
    }

    @Test("a ~ before anything else is kept")
    func looseTilde() {
        #expect(JSONPointer.unescape("a~2") == "a~2")
        #expect(JSONPointer.unescape("a~") == "a~")
        #expect(JSONPointer.pointer(["x", "a/b", "0"]) == "/x/a~1b/0")
    }
}
