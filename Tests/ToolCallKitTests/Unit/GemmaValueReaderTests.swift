import Testing
@testable import ToolCallKit

/// Feeds an argument object to a ``GemmaValueReader`` in chunks of `chunk` bytes.
struct GemmaRun {
    enum Outcome: Equatable, Sendable {
        case complete(String, mismatches: [String])
        case error
        case tooDeep
        case interrupted(at: Int)
        case needMore
    }

    var outcome: Outcome = .needMore
    var deltas = ""

    init(_ text: String, delimiter: String, tool: ToolDefinition? = nil, maxDepth: Int = 512, chunk: Int) {
        let bytes = Array(text.utf8)
        var reader = GemmaValueReader(
            at: 0, delimiter: delimiter, stopMarker: "<end>", tool: tool, maxDepth: maxDepth)
        var w = ByteWindow()
        var i = 0
        var actions: [GrammarAction] = []
        while i < bytes.count {
            let n = min(chunk, bytes.count - i)
            w.append(bytes[i..<(i + n)])
            i += n
            actions.removeAll()
            let r = reader.advance(w, actions: &actions)
            for case .delta(let d) in actions { deltas += d.string }
            switch r {
            case .needMore: continue
            case .complete(let v, _, let m): outcome = .complete(v.jsonText, mismatches: m)
            case .error: outcome = .error
            case .tooDeep: outcome = .tooDeep
            case .interrupted(let at): outcome = .interrupted(at: at)
            }
            return
        }
    }
}

@Suite("Gemma value reader")
struct GemmaValueReaderTests {
    static let esc = "<escape>"
    static let q4 = "<|\"|>"

    /// (delimiter, input, expected arguments as compact JSON)
    static let accepted: [(String, String, String)] = [
        (esc, "{}", "{}"),
        (esc, "{a:<escape>x, {y} \"z\"<escape>,b:2}", #"{"a":"x, {y} \"z\"","b":2}"#),
        (esc, "{a:<escape>line1\nline2<escape>}", #"{"a":"line1\nline2"}"#),
        (esc, "{n:-1.5e3,t:true,f:false,z:null,w:Paris}",
         #"{"n":-1.5e3,"t":true,"f":false,"z":null,"w":"Paris"}"#),
        (esc, "{ city : New York , n : 3 }", #"{"city":"New York","n":3}"#),
        (esc, "{a:<escape>A<escape>b:<escape>B<escape>}", #"{"a":"A","b":"B"}"#),
        (esc, "{o:{k:v,l:[1,<escape>s<escape>,{m:null}]},e:[]}",
         #"{"o":{"k":"v","l":[1,"s",{"m":null}]},"e":[]}"#),
        (esc, "{a:<escape>contains <end> marker<escape>}", #"{"a":"contains <end> marker"}"#),
        (esc, "{a:,b:}", #"{"a":"","b":""}"#),
        (q4, "{q:<|\"|>say \\\"hi\\\" C:\\u<|\"|>}", #"{"q":"say \\\"hi\\\" C:\\u"}"#),
        (q4, "(command=<|\"|>ls -a<|\"|>, n=2)", #"{"command":"ls -a","n":2}"#),
        (q4, "{<|\"|>3<|\"|>:<|\"|>x<|\"|>,\"k\":\"v\\u00e9\",j:'single'}",
         #"{"3":"x","k":"vé","j":"single"}"#),
        (q4, "{left:108.,right:22.8}", #"{"left":108.0,"right":22.8}"#),
        // Found by the fuzzer: only an integer takes the trailing-dot rule.
        (q4, "{left:108.08.,top:1e3.,n:-3.}", #"{"left":"108.08.","top":"1e3.","n":-3.0}"#),
        (q4, "{t:<|\"|>東京 🌧<|\"|>}", #"{"t":"東京 🌧"}"#),
        (q4, "{a:1,a:2}", #"{"a":2}"#),
    ]

    @Test("reads objects whole, byte by byte and in 3-byte chunks; deltas equal the arguments",
          arguments: accepted)
    func reads(_ delimiter: String, _ input: String, _ expected: String) throws {
        for chunk in [input.utf8.count, 1, 3] {
            let run = GemmaRun(input, delimiter: delimiter, chunk: chunk)
            #expect(run.outcome == .complete(expected, mismatches: []), "chunk \(chunk)")
            let fromDeltas = try JSONValue.parse(run.deltas)
            #expect(fromDeltas == (try JSONValue.parse(expected)), "chunk \(chunk): deltas \(run.deltas)")
        }
    }

    @Test("streams a string while it arrives, holding back only a possible delimiter")
    func streamsStrings() {
        var reader = GemmaValueReader(
            at: 0, delimiter: GemmaValueReaderTests.esc, stopMarker: "<end>", tool: nil, maxDepth: 8)
        var w = ByteWindow()
        var actions: [GrammarAction] = []
        w.append(Array("{city:<escape>Par<esc".utf8))
        _ = reader.advance(w, actions: &actions)
        let deltas = actions.compactMap { if case .delta(let d) = $0 { d } else { nil } }
        #expect(deltas == ["{", #""city":""#, "Par"])
    }

    @Test("holds back a bare number until its delimiter arrives")
    func withholdsNumbers() {
        var reader = GemmaValueReader(
            at: 0, delimiter: GemmaValueReaderTests.q4, stopMarker: "<end>", tool: nil, maxDepth: 8)
        var w = ByteWindow()
        var actions: [GrammarAction] = []
        w.append(Array("{left:108.".utf8))
        _ = reader.advance(w, actions: &actions)
        let deltas = actions.compactMap { if case .delta(let d) = $0 { d } else { nil } }
        #expect(deltas == ["{"])
    }

    static let schemaTool = ToolDefinition(
        name: "f",
        parameters: try! JSONValue.parse(
            #"{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"},"#
                + #""b":{"type":"boolean"},"o":{"type":"object"}}}"#))

    /// (input, expected outcome) under the schema `n: integer, s: string, b: boolean, o: object`.
    static let typed: [(String, GemmaRun.Outcome)] = [
        ("{n:<escape>42<escape>,s:7,b:<escape>True<escape>}", .complete(#"{"n":42,"s":"7","b":true}"#, mismatches: [])),
        ("{s:true,o:{k:1}}", .complete(#"{"s":"true","o":{"k":1}}"#, mismatches: [])),
        ("{n:<escape>abc<escape>}", .complete("{}", mismatches: [#"/n: expected integer, found "abc""#])),
        ("{n:many,b:maybe}", .complete("{}", mismatches: [
            #"/n: expected integer, found "many""#, #"/b: expected boolean, found "maybe""#,
        ])),
    ]

    @Test("a schema narrows top-level values", arguments: typed)
    func narrows(_ input: String, _ expected: GemmaRun.Outcome) {
        for chunk in [input.utf8.count, 1] {
            let run = GemmaRun(
                input, delimiter: GemmaValueReaderTests.esc, tool: GemmaValueReaderTests.schemaTool, chunk: chunk)
            #expect(run.outcome == expected, "chunk \(chunk)")
        }
    }

    /// (input, expected outcome) for objects that are not arguments.
    static let refused: [(String, GemmaRun.Outcome)] = [
        ("{a:{b:{c:1}}}", .tooDeep),
        ("{a:1<end>", .interrupted(at: 4)),
        ("{a:<escape>x<escape> <end>", .interrupted(at: 21)),
        ("{[1]}", .error),
        ("{a b}", .error),
    ]

    @Test("depth cap, the end marker outside a string, and errors", arguments: refused)
    func refuses(_ input: String, _ expected: GemmaRun.Outcome) {
        for chunk in [input.utf8.count, 1] {
            let run = GemmaRun(input, delimiter: GemmaValueReaderTests.esc, maxDepth: 2, chunk: chunk)
            #expect(run.outcome == expected, "chunk \(chunk)")
        }
    }
}
