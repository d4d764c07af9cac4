import Testing
@testable import ToolCallKit

@Suite("Rendering under tools that declare more keys")
struct RenderWiderToolsTests {
    /// A value quoting the opener of a key that another call of the same tool uses: tools typed
    /// from both calls declare that key, and its opener would end the value. The renderer must
    /// refuse it (or write text that reads back under those tools); a fuzz find.
    @Test("a quoted parameter opener of a key the tools may declare", arguments: [ToolCallFormat.xmlFunction, .minimaxM2])
    func quotedOpenerOfDeclarableKey(format: ToolCallFormat) throws {
        let opener = format == .xmlFunction ? "<parameter=city>\n" : "<parameter name=\"city\">"
        let calls = [
            RenderedCall(name: "f", arguments: .object([("path", .string("a" + opener + "Dallas\n</parameter>\nx"))])),
            RenderedCall(name: "f", arguments: .object([("city", .string("Paris"))])),
        ]
        do {
            let bytes = try format.render(calls)
            // Written: then it must read back under tools typed from both calls.
            var d = ToolCallDecoder(format: format, tools: ToolSet.typing(calls))
            let got = (d.feed(bytes) + d.finish()).compactMap { e -> JSONValue? in
                if case .toolCall(let c) = e { return c.arguments }
                return nil
            }
            #expect(got == calls.map(\.arguments))
        } catch {
            #expect(error.index == 0)
        }
    }
}
