import Testing
@testable import ToolCallKit

/// Runs a ``PythonCallReader`` over `text` in chunks of `chunk` bytes (0: whole) and returns
/// the outcome, the name and the concatenated deltas.
private func read(_ text: String, chunk: Int = 0, tools: ToolSet? = nil, maxDepth: Int = 512)
    -> (result: PythonCallReader.Result, name: String?, deltas: String, deltaCount: Int)
{
    let bytes = Array(text.utf8)
    var w = ByteWindow()
    var reader = PythonCallReader(at: 0, tools: tools, maxDepth: maxDepth)
    var actions: [GrammarAction] = []
    var result = PythonCallReader.Result.needMore
    var fed = 0
    while fed < bytes.count {
        let n = chunk == 0 ? bytes.count : min(chunk, bytes.count - fed)
        w.append(bytes[fed..<(fed + n)])
        fed += n
        result = reader.advance(w, actions: &actions)
        if case .needMore = result { continue }
        break
    }
    // The end of the input: a look-ahead waiting at the end decides with what there is.
    if case .needMore = result { result = reader.advance(w, actions: &actions, isFinal: true) }
    var name: String?
    var deltas = ""
    var count = 0
    for a in actions {
        switch a {
        case .start(let n, _): name = n
        case .delta(let d):
            deltas += d.string
            count += 1
        default: break
        }
    }
    return (result, name, deltas, count)
}

/// One row: a call, and the arguments JSON it must give.
struct LiteralRow: Sendable, CustomTestStringConvertible {
    var call: String
    var name: String
    var arguments: String
    var sourceLocation: SourceLocation

    init(_ call: String, _ name: String, _ arguments: String, sourceLocation: SourceLocation = #_sourceLocation) {
        self.call = call
        self.name = name
        self.arguments = arguments
        self.sourceLocation = sourceLocation
    }

    var testDescription: String { call }
}

/// One row: an input that is not a Python call, and the offset of the offending byte.
struct ErrorRow: Sendable, CustomTestStringConvertible {
    var call: String
    var at: Int
    var sourceLocation: SourceLocation

    init(_ call: String, at: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        self.call = call
        self.at = at
        self.sourceLocation = sourceLocation
    }

    var testDescription: String { call }
}

@Suite("PythonCallReader")
struct PythonCallReaderTests {
    static let literals: [LiteralRow] = [
        LiteralRow("f()", "f", #"{}"#),
        LiteralRow("f( )", "f", #"{}"#),
        LiteralRow("f(a='v', b=1)", "f", #"{"a":"v","b":1}"#),
        LiteralRow("f(a=\"v\")", "f", #"{"a":"v"}"#),
        LiteralRow("grocery.orderIngredients(x=1)", "grocery.orderIngredients", #"{"x":1}"#),
        LiteralRow(
            "Analytics.Report.generate(from=1, lambda=2)", "Analytics.Report.generate", #"{"from":1,"lambda":2}"#),
        LiteralRow("f(a=True, b=False, c=None)", "f", #"{"a":true,"b":false,"c":null}"#),
        LiteralRow("f(a=true, b=false, c=null)", "f", #"{"a":true,"b":false,"c":null}"#),
        LiteralRow("f(a=07, b=1_000, c=-3, d=+4)", "f", #"{"a":7,"b":1000,"c":-3,"d":4}"#),
        LiteralRow(
            "f(a=2.5, b=-0.25, c=.5, d=5., e=1e3, f=1.5E-2)", "f",
            #"{"a":2.5,"b":-0.25,"c":0.5,"d":5.0,"e":1e3,"f":1.5e-2}"#),
        LiteralRow("f(a=0x1F, b=0o17, c=0b101)", "f", #"{"a":31,"b":15,"c":5}"#),
        LiteralRow("f(a=[1, 2], b=(3, 4), c={5}, d=[])", "f", #"{"a":[1,2],"b":[3,4],"c":[5],"d":[]}"#),
        LiteralRow("f(a={'k': 'v', 'n': {'m': [1, (2,)]}}, b={})", "f", #"{"a":{"k":"v","n":{"m":[1,[2]]}},"b":{}}"#),
        LiteralRow("f(a={1: 'x', 'y': 2})", "f", #"{"a":{"1":"x","y":2}}"#),
        LiteralRow("f(a=[1, 2,], b={'k': 1,},)", "f", #"{"a":[1,2],"b":{"k":1}}"#),
        LiteralRow(
            #"f(a='a\\b', b='it\'s', c="q\"q", d='\n\r\t\b\f')"#, "f",
            #"{"a":"a\\b","b":"it's","c":"q\"q","d":"\n\r\t\b\f"}"#),
        LiteralRow(#"f(a='\u00e9\U0001F600\x41')"#, "f", #"{"a":"é😀A"}"#),
        LiteralRow(#"f(a='\ud83d\ude00')"#, "f", #"{"a":"😀"}"#),
        LiteralRow(#"f(a='\q\u12', b='\xZ')"#, "f", #"{"a":"\\q\\u12","b":"\\xZ"}"#),
        LiteralRow("f(a='line 1\nline 2')", "f", #"{"a":"line 1\nline 2"}"#),
        LiteralRow("f(a='sed -n '360,450p' f')", "f", #"{"a":"sed -n '360,450p' f"}"#),
        LiteralRow("f(a='x' , b='y' )", "f", #"{"a":"x","b":"y"}"#),
        LiteralRow(#"f(a=r'\d+', b=u'x')"#, "f", #"{"a":"\\d+","b":"x"}"#),
        LiteralRow("f(unit=celsius, expr=a+b)", "f", #"{"unit":"celsius","expr":"a+b"}"#),
        LiteralRow("f(a='printf a\u{0}b')", "f", #"{"a":"printf a\u0000b"}"#),
        LiteralRow("f(a='日本語', b=\"😀\")", "f", #"{"a":"日本語","b":"😀"}"#),
        LiteralRow("f(properties={'a': 1})", "f", #"{"a":1}"#),
        LiteralRow("f(properties={'a': 1}, b=2)", "f", #"{"properties":{"a":1},"b":2}"#),
        LiteralRow("f(kwargs=[1])", "f", #"{"kwargs":[1]}"#),
        LiteralRow("f (a=1)", "f", #"{"a":1}"#),
    ]

    @Test("reads literals into JSON, whole and byte by byte", arguments: literals)
    func literal(_ row: LiteralRow) throws {
        let expected = try JSONValue.parse(row.arguments)
        for chunk in [0, 1, 3] {
            let r = read(row.call, chunk: chunk)
            guard case .complete(let arguments, let end) = r.result else {
                Issue.record("chunk \(chunk): \(r.result)", sourceLocation: row.sourceLocation)
                continue
            }
            #expect(end == row.call.utf8.count, sourceLocation: row.sourceLocation)
            #expect(r.name == row.name, sourceLocation: row.sourceLocation)
            #expect(arguments == expected, "chunk \(chunk): \(arguments.jsonText)", sourceLocation: row.sourceLocation)
            let streamed = try? JSONValue.parse(r.deltas)
            #expect(streamed == expected, "chunk \(chunk): deltas \(r.deltas)", sourceLocation: row.sourceLocation)
        }
    }

    static let errors: [ErrorRow] = [
        ErrorRow("f('x')", at: 2),
        ErrorRow("f(x)", at: 3),
        ErrorRow("f(a=b'z')", at: 4),
        ErrorRow("f(a=f'{x}')", at: 4),
        ErrorRow("f(a=g(1))", at: 5),
        ErrorRow("f(a=[1 2])", at: 7),
        ErrorRow("f(a={[1]: 2})", at: 8),
        ErrorRow("(a=1)", at: 0),
        ErrorRow("f x(a=1)", at: 2),
        ErrorRow("f(a=, b=1)", at: 4),
    ]

    @Test("reports the offending byte of what is not a Python call", arguments: errors)
    func error(_ row: ErrorRow) {
        for chunk in [0, 1] {
            let r = read(row.call, chunk: chunk)
            guard case .error(_, let at) = r.result else {
                Issue.record("chunk \(chunk): \(r.result)", sourceLocation: row.sourceLocation)
                continue
            }
            #expect(at == row.at, sourceLocation: row.sourceLocation)
        }
    }

    @Test("a long string streams in many deltas that rebuild the value")
    func streamsLongStrings() throws {
        let body = String(repeating: "ab é😀 ", count: 200)
        let r = read("f(text='\(body)', n=1)", chunk: 7)
        guard case .complete(let arguments, _) = r.result else {
            Issue.record("\(r.result)")
            return
        }
        #expect(r.deltaCount > 100)
        #expect(arguments["text"] == .string(body))
        #expect(try JSONValue.parse(r.deltas) == arguments)
    }

    @Test("the name is reported as soon as the parenthesis opens")
    func startsEarly() {
        let r = read("get_weather(city='Par", chunk: 0)
        guard case .needMore = r.result else {
            Issue.record("\(r.result)")
            return
        }
        #expect(r.name == "get_weather")
        #expect(r.deltas == #"{"city":"Par"#)
    }

    @Test("schema: declared strings keep the source text, quoted numbers convert, misfits are invalid")
    func schemaTyping() throws {
        let tools = try ToolSet.load(json: Array(#"""
            [{"name": "f", "parameters": {"properties": {
              "s": {"type": "string"}, "l": {"type": "string"}, "n": {"type": "integer"},
              "p": {"type": "object"}}}}]
            """#.utf8))
        let ok = read("f(s=True, l=[1, 'a'], n='25', p={'a': 1})", tools: tools)
        guard case .complete(let arguments, _) = ok.result else {
            Issue.record("\(ok.result)")
            return
        }
        #expect(arguments == (try JSONValue.parse(#"{"s":"True","l":"[1, 'a']","n":25,"p":{"a":1}}"#)))
        #expect(try JSONValue.parse(ok.deltas) == arguments)
        let bad = read("f(n='ten')", tools: tools)
        guard case .invalid(let detail, _) = bad.result else {
            Issue.record("\(bad.result)")
            return
        }
        #expect(detail == #"/n: expected integer, found "ten""#)
    }

    @Test("a declared wrapper key is not unwrapped")
    func declaredWrapperStays() throws {
        let tools = try ToolSet.load(
            json: Array(#"[{"name": "f", "parameters": {"properties": {"properties": {"type": "object"}}}}]"#.utf8))
        let r = read("f(properties={'a': 1})", tools: tools)
        guard case .complete(let arguments, _) = r.result else {
            Issue.record("\(r.result)")
            return
        }
        #expect(arguments == (try JSONValue.parse(#"{"properties":{"a":1}}"#)))
    }

    @Test("nesting past the cap is reported")
    func depthCap() {
        let r = read("f(a=[[[1]]])", maxDepth: 3)
        guard case .tooDeep(let at) = r.result else {
            Issue.record("\(r.result)")
            return
        }
        #expect(at == 6)
    }

    @Test("number literals", arguments: [
        ("07", "7"), ("-0", "-0"), ("1_000_000", "1000000"), ("1.", "1.0"), (".25", "0.25"),
        ("1e5", "1e5"), ("2.5e-3", "2.5e-3"), ("-0x10", "-16"), ("00", "0"),
    ])
    func numbers(_ text: String, _ json: String) {
        #expect(PythonCallReader.pythonNumber(Array(text.utf8)[...]) == json)
    }

    @Test("words that are not numbers", arguments: ["inf", "nan", "1e", "1.2.3", "0x", "12abc", "-", "e5"])
    func notNumbers(_ text: String) {
        #expect(PythonCallReader.pythonNumber(Array(text.utf8)[...]) == nil)
    }
}
