import Foundation
import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

/// The call lists of Fixtures/grammar/layout-calls.json.
struct LayoutCase: CustomTestStringConvertible, Sendable {
    let name: String
    let calls: [RenderedCall]
    let text: String
    var testDescription: String { name }

    static func all() throws -> [LayoutCase] {
        let what = "grammar/layout-calls.json"
        let doc = try JSONValue.parse(Array(try FixturePaths.data(what)))
        try FixtureTable.checkKeys(doc, known: ["description", "text", "cases"], in: what)
        guard let text = doc["text"]?.stringValue, let cases = doc["cases"]?.arrayValue else { throw FixtureError("\(what): text and cases") }
        return try FixtureTable.nonEmpty(try cases.map { c in
            try FixtureTable.checkKeys(c, known: ["name", "calls"], in: what)
            guard let name = c["name"]?.stringValue, let calls = c["calls"]?.arrayValue, !calls.isEmpty else { throw FixtureError("\(what): a case needs name and calls") }
            return LayoutCase(name: name, text: text, calls: try calls.map { call in
                try FixtureTable.checkKeys(call, known: ["name", "arguments", "id"], in: "\(what) \(name)")
                guard let n = call["name"]?.stringValue, let a = call["arguments"], a.isObject else { throw FixtureError("\(what) \(name): a call needs name and arguments") }
                return RenderedCall(name: n, arguments: a, id: call["id"]?.stringValue)
            })
        }, what)
    }

    init(name: String, text: String, calls: [RenderedCall]) {
        self.name = name
        self.text = text
        self.calls = calls
    }
}

/// Every built-in format and model variant with a layout (all of them: the response-template
/// formats are not built in).
let layoutFormats: [ToolCallFormat] = (ToolCallFormat.allCases + ToolCallFormat.variants).filter { $0.definition.layout != nil }

@Suite("CallLayout against the renderer and the parser")
struct CallLayoutTests {
    @Test("every built-in format declares a layout")
    func everyFormatHasALayout() {
        #expect(layoutFormats.count == ToolCallFormat.allCases.count + ToolCallFormat.variants.count)
        #expect(layoutFormats.count >= 27)
    }

    /// The layout's writer gives the renderer's bytes: after the text (if any; before it when
    /// the layout puts the text after the calls, as Gemma 4's template does) and white space,
    /// a format whose blocks each hold one call renders each call as the layout writes it,
    /// separated by white space only; a format with one block renders exactly the layout's
    /// block (Llama 3's without its trigger at the start of the output). Then the parser reads
    /// the layout's bytes back as the calls, through the chunking verifier.
    @Test("the layout writes what the renderer writes, and the parser reads it back", arguments: layoutFormats)
    func layoutMatchesRendererAndParser(format: ToolCallFormat) throws {
        let layout = try #require(format.definition.layout)
        var checked = 0
        for c in try LayoutCase.all() {
            let written = layout.write(c.calls)
            for text in [nil, c.text] {
                var rendered: [UInt8]
                do {
                    rendered = try format.render(c.calls, text: text)
                } catch {
                    Issue.record("\(format.rawValue)/\(c.name): the renderer refused the calls: \(error)")
                    continue
                }
                let label = "\(format.rawValue)/\(c.name)\(text == nil ? "" : " with text")"
                let words = Array((text ?? "").utf8)
                if layout.textAfter {
                    guard rendered.reversed().starts(with: words.reversed()) else {
                        Issue.record("\(label): the rendered output does not end with the text")
                        continue
                    }
                    rendered.removeLast(words.count)
                    while let last = rendered.last, last == 0x20 || last == 0x0A { rendered.removeLast() }
                } else if !rendered.starts(with: words) {
                    Issue.record("\(label): the rendered output does not begin with the text")
                    continue
                }
                var at = layout.textAfter ? 0 : words.count
                // White space between the text and the calls, and between blocks of one call.
                func skipSpace() { while at < rendered.count && (rendered[at] == 0x20 || rendered[at] == 0x0A) { at += 1 } }
                if layout.oneCallPerBlock {
                    for (i, call) in c.calls.enumerated() {
                        skipSpace()
                        let piece = layout.write([call])
                        guard rendered[at...].starts(with: piece) else {
                            Issue.record("\(label): call \(i) as the layout writes it, \(String(decoding: piece, as: UTF8.self).debugDescription), is not what the renderer wrote: \(String(decoding: rendered[at...], as: UTF8.self).debugDescription)")
                            break
                        }
                        at += piece.count
                    }
                } else {
                    skipSpace()
                    var block = written
                    // Llama 3 writes a bare call list at the very start of the output.
                    if layout.bareAtStart && at == 0 && !rendered.starts(with: Array(layout.trigger.utf8)) {
                        block = Array(written.dropFirst(layout.trigger.utf8.count))
                    }
                    #expect(rendered[at...].starts(with: block), "\(label): layout \(String(decoding: block, as: UTF8.self).debugDescription) != renderer \(String(decoding: rendered[at...], as: UTF8.self).debugDescription)")
                    at += block.count
                }
                #expect(at == rendered.count, "\(label): the renderer wrote more after the calls: \(String(decoding: rendered[min(at, rendered.count)...], as: UTF8.self).debugDescription)")
            }
            // The parser reads the layout's bytes back.
            let tools = ToolSet.typing(c.calls)
            let events = ChunkingVerifier(format: format, tools: tools).verify(written, everySplit: false)
            var got: [(String, JSONValue)] = []
            for e in events {
                switch e {
                case .call(_, _, let name, let arguments): got.append((name, arguments))
                case .rejected(let reason, _, let name, _): Issue.record("\(format.rawValue)/\(c.name): rejected \(reason) \(name ?? "-")")
                case .text(let t): #expect(t.allSatisfy { $0 == 0x20 || $0 == 0x0A }, "\(format.rawValue)/\(c.name): text \(String(decoding: t, as: UTF8.self).debugDescription)")
                default: break
                }
            }
            #expect(got.map(\.0) == c.calls.map(\.name), "\(format.rawValue)/\(c.name): names")
            // In the order the renderer writes keys (Gemma 4's template sorts them), which is the
            // layout's order too.
            let renderer = format.definition.renderer
            #expect(got.map(\.1) == c.calls.map { renderer.written($0.arguments) }, "\(format.rawValue)/\(c.name): arguments")
            checked += 1
        }
        #expect(checked >= 4, "\(format.rawValue): \(checked) cases checked")
    }
}
