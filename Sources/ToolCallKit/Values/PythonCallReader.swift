// ToolCallKit — an incremental reader for Python calls: `name(key=literal, ...)`.

/// Reads one Python call, `name(key=value, ...)`, whose values are Python literals, a chunk at
/// a time, and streams its arguments as JSON text.
///
/// LFM2 writes its calls this way, and Llama 3 does after `<|python_tag|>`. The reader keeps
/// all of its state (open containers, the string being read) so that ``advance(_:actions:)``
/// resumes where the last chunk ended and never rereads a byte, except a look-ahead of one
/// byte after a string prefix and the white space after a closing quote.
///
/// What it accepts:
/// - A dotted name (`grocery.orderIngredients`; the whole text before `(` is the name), then
///   keyword arguments only. Keyword names may be Python keywords (`from=1`).
/// - Strings in either quote, single or triple (`"""…"""`, where one or two quotes are data),
///   with the prefixes `u` and `r`; the escapes `\\ \' \" \n \r \t
///   \b \f \v \a \0 \xXX \uXXXX \UXXXXXXXX` (an unknown escape is kept verbatim); raw newlines.
///   In a single-quoted string, a quote of its own kind that is not followed by `,` `)` `]` `}` `:` (after white
///   space) is taken as part of the string: models write `'sed -n '1,5p' f'`. For a keyword
///   argument of the call itself, `)` must then be followed by `]`, `,`, `;`, a marker or the
///   end, and `,` by `name=` or `)` (a bounded look-ahead): `-c "f(x, s='\,'))"` stays text.
/// - Integers (`07`, `1_000`, `0x1F`), floats, signs; `True`/`False`/`None` and the JSON
///   `true`/`false`/`null`; lists, tuples and sets (arrays); dicts (objects, scalar keys).
/// - A bare word where a value belongs is a string (models drift: `unit=celsius`).
///
/// Typing against the tool's schema (docs/formats.md): a declared string keeps the literal's
/// source text (`count=5` gives `"5"`); a string literal for a declared non-string type is
/// converted by ``SchemaTyping`` or reported as ``Result/invalid(_:end:)``.
///
/// A single wrapper argument (`properties`, `parameters`, `arguments`, `args`, `kwargs`)
/// holding a dict, whose key the schema does not declare, is unwrapped: LFM2 writes
/// `get_weather(properties={"location": "Tokyo"})`.
///
/// String conventions (``Strings``): with `.python`, every string literal is read with Python's
/// escapes, as above. With `.verbatimArguments` (LFM2.5, whose template writes a string argument
/// as `'` + the value + `'`), a keyword argument's own string has no escapes: a backslash is
/// data (`path='C:\Users\me'` gives `C:\Users\me`), and the string ends at a quote of its kind
/// that the call's syntax shows closes it, as above; strings inside lists, tuples and dicts
/// keep Python's escapes (the template writes those with Python's `repr` and JSON).
///
/// It does not evaluate expressions (`f(x=a+b)` gives the string `"a+b"`, `f(x=g(1))` is an
/// error), does not read positional arguments, bytes or f-strings, and does not know about
/// markers or lists of calls; grammars do.
struct PythonCallReader: Sendable {
    /// What ``advance(_:actions:)`` stopped for.
    enum Result {
        /// Every byte received is consumed; the call is not finished.
        case needMore
        /// The call ended at `end` (one past its `)`), with these arguments.
        case complete(CanonicalJSON, end: Int)
        /// The call ended at `end`, but a value does not fit its schema (one line per value).
        case invalid(String, end: Int)
        /// The bytes are not a Python call; `at` is the offending byte.
        case error(String, at: Int)
        /// Nesting went deeper than the cap.
        case tooDeep(at: Int)
    }

    /// What an open bracket is.
    private enum Kind: Sendable {
        /// The call's own `( ... )`: keyword arguments.
        case call
        case list
        case tuple
        /// `{` whose first element has not told yet whether it is a dict or a set.
        case braces
        case dict
        case set
    }

    /// An open bracket; its text is in ``writer``.
    private struct Container: Sendable {
        var kind: Kind
        /// Elements (or members) so far.
        var count = 0
        /// The first element of a `{` not yet known to be a dict or a set, when a scalar.
        var first: JSONValue? = nil
        /// A dict key waiting for its value.
        var key: String? = nil
    }

    private enum State: Sendable, Equatable {
        /// Reading the name that began at `start`.
        case name(start: Int)
        /// After the name: white space, then `(`.
        case afterName
        /// After `(` or `,` in the call: a keyword or `)`.
        case keyOrClose
        /// Reading a keyword that began at `start`.
        case key(start: Int)
        /// After a keyword: `=`.
        case equals
        /// Expecting a value (or a closer of an empty or trailing-comma container).
        case value
        /// After a value: `,`, `:` (a dict key) or a closer.
        case afterValue
        /// After a dict key: `:`.
        case colon
        /// Reading a bare word or number that began at `start`.
        case bare(start: Int)
        /// Inside a string body.
        case string(quote: UInt8, raw: Bool)
        /// After a backslash in a string.
        case escape(quote: UInt8, raw: Bool)
        /// Inside `\x`, `\u` or `\U`: `count` of `need` hex digits read into `acc`.
        case hex(quote: UInt8, letter: UInt8, need: Int, count: Int, acc: UInt32)
        /// After a quote of the string's kind (at `from`): does the string end here?
        case quoteEnd(quote: UInt8, raw: Bool, from: Int)
        /// In a triple-quoted string, after `count` (1 or 2) quotes of its kind.
        case tripleEnd(quote: UInt8, raw: Bool, count: Int)
        /// The call is complete.
        case done
    }

    /// What a finished value was written as (for schema typing).
    private enum Spelling {
        /// A quoted string.
        case quoted
        /// A bare word that is not a number or a keyword literal.
        case word
        /// A number, `True`/`False`/`None`, or a container.
        case literal
    }

    /// How string literals are read (see the type's doc comment).
    enum Strings: Sendable {
        /// Python's escapes in every string.
        case python
        /// A keyword argument's own string verbatim (a backslash is data); Python's escapes
        /// inside containers.
        case verbatimArguments
    }

    /// Argument names that some models wrap every argument in.
    private static let wrapperKeys: Set<String> = ["properties", "parameters", "arguments", "args", "kwargs"]

    /// The cursor: the next byte to read.
    private(set) var pos: Int
    /// Whether `start` was reported.
    private(set) var started = false
    /// The call's name, once read.
    private(set) var name: String?

    private let tools: ToolSet?
    private let maxDepth: Int
    private let strings: Strings
    /// Whether the string being read is verbatim (no escapes).
    private var verbatim = false
    private var state: State
    private var stack: [Container] = []
    /// The bytes of the string being read, decoded.
    private var scratch: [UInt8] = []
    /// How many bytes of `scratch` were streamed.
    private var emitted = 0
    /// Whether the string being read is a keyword argument's value streamed as it arrives.
    private var streaming = false
    /// Whether the string being read is triple-quoted (`"""` or `'''`).
    private var triple = false
    private var units = UTF16Pairing()
    /// The keyword whose value is being read.
    private var argKey = ""
    /// Where that value began.
    private var valueStart = 0
    /// Whether the arguments' `{` was streamed.
    private var opened = false
    /// A wrapper argument held back until the call shows whether it is the only one.
    private var held: (key: String, value: CanonicalJSON?)?
    /// The arguments' canonical text so far (no tree: see ``CanonicalJSON``).
    private var writer = CanonicalWriter()
    private var mismatches: [String] = []

    /// Creates a reader whose call name begins at `pos`.
    init(at pos: Int, tools: ToolSet?, maxDepth: Int, strings: Strings = .python) {
        self.pos = pos
        self.tools = tools
        self.maxDepth = maxDepth
        self.strings = strings
        self.state = .name(start: pos)
    }

    /// Creates a reader for a grammar: the context's tools and depth cap.
    init(at pos: Int, context: GrammarContext, strings: Strings = .python) {
        self.init(at: pos, tools: context.tools, maxDepth: context.maxDepth, strings: strings)
    }

    /// A standalone Python literal (`{'a': 1, 'b': [True, None]}`), as JSON; nil when the text
    /// is not one. For text values whose schema wants an object or array and whose model wrote
    /// Python instead of JSON.
    static func literal(_ text: String, maxDepth: Int = 512) -> JSONValue? {
        var w = ByteWindow()
        w.append(Array("_(v=".utf8) + Array(text.utf8) + Array(")".utf8))
        var reader = PythonCallReader(at: 0, tools: nil, maxDepth: maxDepth)
        var actions: [GrammarAction] = []
        guard case .complete(let args, let end) = reader.advance(w, actions: &actions, isFinal: true), end == w.end,
            case .object(let members) = args.value, members.count == 1, members[0].key == "v"
        else { return nil }
        return members[0].value
    }

    /// Open brackets, the call's own parenthesis included (0 before it).
    var depth: Int { stack.count }

    /// Whether `b` may be part of a call or keyword name.
    @inline(__always)
    static func isNameByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return b >= 0x80
        }
    }

    /// Whether `b` may begin a call name (a letter, `_` or a non-ASCII byte).
    @inline(__always)
    static func isNameStart(_ b: UInt8) -> Bool {
        isNameByte(b) && !(b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) && b != UInt8(ascii: ".")
            && b != UInt8(ascii: "-")
    }

    /// Whether `b` may be part of a bare word or number.
    @inline(__always)
    private static func isBareByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: ","), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
            UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ":"), UInt8(ascii: "'"), UInt8(ascii: "\""),
            UInt8(ascii: "="):
            return false
        default:
            return !JSONReader.isSpace(b)
        }
    }

    /// Whether a quote followed by `b` closes its string.
    @inline(__always)
    /// Whether the `)` or `,` at `at`, just after a quote, ends a keyword argument of the call:
    /// `)` followed by `]`, `,`, `;`, a marker or the end; `,` followed by `)` or `name=`. Nil
    /// until the bytes that tell have arrived (at most 256 bytes ahead).
    static func argumentEnds(_ w: ByteWindow, at: Int, isFinal: Bool) -> Bool? {
        var i = at + 1
        func skipSpace() { while i < w.end && JSONReader.isSpace(w[i]) && i - at < 256 { i += 1 } }
        skipSpace()
        if i - at >= 256 { return true }
        guard i < w.end else { return isFinal ? true : nil }
        let b = w[i]
        if w[at] == UInt8(ascii: ")") {
            return b == UInt8(ascii: "]") || b == UInt8(ascii: ",") || b == UInt8(ascii: ";") || b == UInt8(ascii: "<")
        }
        if b == UInt8(ascii: ")") { return true }
        guard isNameStart(b) else { return false }
        while i < w.end && isNameByte(w[i]) && i - at < 256 { i += 1 }
        skipSpace()
        if i - at >= 256 { return true }
        guard i + 1 < w.end else { return isFinal ? false : nil }
        return w[i] == UInt8(ascii: "=") && w[i + 1] != UInt8(ascii: "=")
    }

    /// Waiting after a keyword argument's closing quote for the bytes that tell whether the
    /// string ended (``argumentEnds(_:at:isFinal:)``): at the end of the stream, ``advance(_:actions:isFinal:)``
    /// with `isFinal` settles it.
    var isAwaitingArgumentEnd: Bool {
        if case .quoteEnd = state, stack.count == 1 { return true }
        return false
    }

    private static func closesString(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: ")") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}")
            || b == UInt8(ascii: ":")
    }

    // MARK: - Reading

    /// Reads the bytes received since the last call, reporting `start` and `delta`s.
    /// - Parameter isFinal: no more bytes will come (the end of the stream): a look-ahead that
    ///   reaches the end decides with what there is.
    mutating func advance(_ w: ByteWindow, actions: inout [GrammarAction], isFinal: Bool = false) -> Result {
        let end = w.end
        while pos < end {
            let b = w[pos]
            switch state {
            case .name(let start):
                if PythonCallReader.isNameByte(b) {
                    pos += 1
                    continue
                }
                guard pos > start else { return .error("expected a function name", at: pos) }
                name = String(decoding: w.slice(start..<pos), as: UTF8.self)
                state = .afterName
            case .afterName:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                guard b == UInt8(ascii: "(") else { return .error("expected '(' after the function name", at: pos) }
                pos += 1
                stack.append(Container(kind: .call))
                writer.beginObject()
                if stack.count > maxDepth { return .tooDeep(at: pos - 1) }
                actions.append(.start(name: name ?? "", id: nil))
                started = true
                state = .keyOrClose
            case .keyOrClose:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                if b == UInt8(ascii: ")") {
                    pos += 1
                    return closeCall(actions: &actions)
                }
                guard PythonCallReader.isNameStart(b) else {
                    return .error("expected a keyword argument", at: pos)
                }
                state = .key(start: pos)
            case .key(let start):
                if PythonCallReader.isNameByte(b) {
                    pos += 1
                    continue
                }
                argKey = String(decoding: w.slice(start..<pos), as: UTF8.self)
                state = .equals
            case .equals:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                guard b == UInt8(ascii: "=") else { return .error("expected '=' after the argument name", at: pos) }
                pos += 1
                state = .value
            case .value:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                if let r = beginValue(w, b, actions: &actions) {
                    if case .needMore = r { return finishChunk(w, actions: &actions) }
                    return r
                }
            case .afterValue:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                if let r = afterValue(w, b, actions: &actions) { return r }
            case .colon:
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                guard b == UInt8(ascii: ":") else { return .error("expected ':' after a dict key", at: pos) }
                pos += 1
                state = .value
            case .bare(let start):
                if PythonCallReader.isBareByte(b) {
                    pos += 1
                    continue
                }
                let (v, isWord) = PythonCallReader.bareValue(w.slice(start..<pos))
                if case .number(let n) = v, PythonCallReader.overflowsFloat(n) {
                    // Python reads `1e999` as infinity, which JSON cannot carry.
                    return .error("the float literal \(n) overflows to infinity", at: start)
                }
                if let r = finishValue(v, spelling: isWord ? .word : .literal, w, actions: &actions) { return r }
            case .string(let quote, let raw):
                var i = pos
                let stop: UInt8 = verbatim ? quote : UInt8(ascii: "\\")
                while i < end {
                    let c = w[i]
                    if c == quote || c == stop { break }
                    i += 1
                }
                if i > pos {
                    units.flush(into: &scratch)
                    scratch.append(contentsOf: w.slice(pos..<i))
                    pos = i
                    continue
                }
                pos += 1
                if b == UInt8(ascii: "\\") {
                    state = .escape(quote: quote, raw: raw)
                } else if triple {
                    state = .tripleEnd(quote: quote, raw: raw, count: 1)
                } else {
                    state = .quoteEnd(quote: quote, raw: raw, from: pos)
                }
            case .escape(let quote, let raw):
                pos += 1
                state = .string(quote: quote, raw: raw)
                if raw {
                    units.flush(into: &scratch)
                    scratch.append(UInt8(ascii: "\\"))
                    scratch.append(b)
                    continue
                }
                let out: UInt8
                switch b {
                case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""): out = b
                case UInt8(ascii: "n"): out = 0x0A
                case UInt8(ascii: "r"): out = 0x0D
                case UInt8(ascii: "t"): out = 0x09
                case UInt8(ascii: "b"): out = 0x08
                case UInt8(ascii: "f"): out = 0x0C
                case UInt8(ascii: "v"): out = 0x0B
                case UInt8(ascii: "a"): out = 0x07
                case UInt8(ascii: "0"): out = 0x00
                case UInt8(ascii: "x"), UInt8(ascii: "u"), UInt8(ascii: "U"):
                    let need = b == UInt8(ascii: "x") ? 2 : b == UInt8(ascii: "u") ? 4 : 8
                    state = .hex(quote: quote, letter: b, need: need, count: 0, acc: 0)
                    continue
                case 0x0A:
                    // A line continuation: both bytes vanish.
                    continue
                default:
                    // An unknown escape is kept as written.
                    units.flush(into: &scratch)
                    scratch.append(UInt8(ascii: "\\"))
                    scratch.append(b)
                    continue
                }
                units.flush(into: &scratch)
                scratch.append(out)
            case .hex(let quote, let letter, let need, let count, let acc):
                guard let h = JSONReader.hexValue(b) else {
                    // Not an escape after all: keep `\`, the letter and the digits as written.
                    units.flush(into: &scratch)
                    scratch.append(UInt8(ascii: "\\"))
                    scratch.append(letter)
                    scratch.append(contentsOf: w.slice((pos - count)..<pos))
                    state = .string(quote: quote, raw: false)
                    continue
                }
                pos += 1
                let v = acc << 4 | UInt32(h)
                if count + 1 < need {
                    state = .hex(quote: quote, letter: letter, need: need, count: count + 1, acc: v)
                    continue
                }
                units.append(v, pairs: letter == UInt8(ascii: "u"), into: &scratch)
                state = .string(quote: quote, raw: false)
            case .quoteEnd(let quote, let raw, let from):
                if JSONReader.isSpace(b) {
                    pos += 1
                    continue
                }
                var closes = PythonCallReader.closesString(b)
                if closes && stack.count == 1 && (b == UInt8(ascii: ")") || b == UInt8(ascii: ",")) {
                    // A keyword argument's string in the call itself: `)` or `,` after the quote
                    // may still be the string's own text (`-c "f(x, s='\,'))"`); the call's
                    // syntax after them tells.
                    guard let ends = PythonCallReader.argumentEnds(w, at: pos, isFinal: isFinal) else {
                        return finishChunk(w, actions: &actions)
                    }
                    closes = ends
                }
                if closes {
                    if let r = finishString(w, actions: &actions) { return r }
                } else {
                    // A quote inside the string: keep it and the white space after it.
                    units.flush(into: &scratch)
                    scratch.append(quote)
                    scratch.append(contentsOf: w.slice(from..<pos))
                    state = .string(quote: quote, raw: raw)
                }
            case .tripleEnd(let quote, let raw, let count):
                if b == quote {
                    pos += 1
                    if count == 2 {
                        if let r = finishString(w, actions: &actions) { return r }
                    } else {
                        state = .tripleEnd(quote: quote, raw: raw, count: count + 1)
                    }
                } else {
                    // One or two quotes inside the string: data.
                    units.flush(into: &scratch)
                    for _ in 0..<count { scratch.append(quote) }
                    state = .string(quote: quote, raw: raw)
                }
            case .done:
                return .error("the call is already complete", at: pos)
            }
        }
        return finishChunk(w, actions: &actions)
    }

    /// The end of the received bytes: stream what a string value has so far.
    private mutating func finishChunk(_ w: ByteWindow, actions: inout [GrammarAction]) -> Result {
        if streaming { flushString(final: false, actions: &actions) }
        return .needMore
    }

    // MARK: - Values

    private mutating func beginValue(_ w: ByteWindow, _ b: UInt8, actions: inout [GrammarAction]) -> Result? {
        let top = stack.count == 1
        if top { valueStart = pos }
        let kind = stack[stack.count - 1].kind
        switch b {
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            guard let triple = PythonCallReader.opensTriple(w, at: pos) else { return .needMore }
            pos += triple ? 3 : 1
            beginString(quote: b, raw: false, triple: triple, top: top, actions: &actions)
        case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "{"):
            if top && b == UInt8(ascii: "{") && !opened && held == nil && stack[0].count == 0
                && PythonCallReader.wrapperKeys.contains(argKey) && schema(for: argKey) == nil
            {
                held = (argKey, nil)
            }
            // The member's key goes before the container's text (a `{` opens as an array until
            // its first element shows whether it is a dict or a set).
            switch kind {
            case .call: writer.key(argKey)
            case .dict: if let key = stack[stack.count - 1].key { writer.key(key) }
            default: break
            }
            writer.beginArray()
            stack.append(Container(kind: b == UInt8(ascii: "[") ? .list : b == UInt8(ascii: "(") ? .tuple : .braces))
            if stack.count > maxDepth { return .tooDeep(at: pos) }
            pos += 1
        case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "}"):
            // An empty container, or a trailing comma.
            let fits: Bool
            switch kind {
            case .list: fits = b == UInt8(ascii: "]")
            case .tuple: fits = b == UInt8(ascii: ")")
            case .braces, .set: fits = b == UInt8(ascii: "}")
            case .dict: fits = b == UInt8(ascii: "}") && stack[stack.count - 1].key == nil
            case .call: fits = false
            }
            guard fits else { return .error("expected a value", at: pos) }
            pos += 1
            return closeContainer(w, actions: &actions)
        case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "="):
            return .error("expected a value", at: pos)
        case UInt8(ascii: "u"), UInt8(ascii: "U"), UInt8(ascii: "r"), UInt8(ascii: "R"),
            UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "f"), UInt8(ascii: "F"):
            // A string prefix, or a bare word.
            guard pos + 1 < w.end else { return .needMore }
            let q = w[pos + 1]
            guard q == UInt8(ascii: "'") || q == UInt8(ascii: "\"") else {
                state = .bare(start: pos)
                pos += 1
                return nil
            }
            switch b | 0x20 {
            case UInt8(ascii: "b"): return .error("bytes literals are not supported", at: pos)
            case UInt8(ascii: "f"): return .error("f-strings are not literals", at: pos)
            default:
                guard let triple = PythonCallReader.opensTriple(w, at: pos + 1) else { return .needMore }
                pos += triple ? 4 : 2
                beginString(quote: q, raw: b | 0x20 == UInt8(ascii: "r"), triple: triple, top: top, actions: &actions)
            }
        default:
            state = .bare(start: pos)
            pos += 1
        }
        return nil
    }

    /// Inside a streamed string value with everything up to `end` read and emitted: the
    /// decoder may forward bytes that neither end the string nor need JSON escaping.
    func passThrough(at end: Int) -> PassThrough? {
        guard case .string(let quote, _) = state, streaming, pos == end, emitted == scratch.count,
            units.isSettled
        else { return nil }
        return quote == UInt8(ascii: "'") ? Self.singleQuotedRun : Self.doubleQuotedRun
    }

    private static let singleQuotedRun = PassThrough.textValue(tags: [[UInt8(ascii: "'")]])
    private static let doubleQuotedRun = PassThrough.textValue(tags: [])

    /// Takes `count` string bytes that the decoder forwarded as a delta.
    mutating func takeForwarded(_ count: Int, _ w: ByteWindow) {
        scratch.append(contentsOf: w.slice(pos..<(pos + count)))
        pos += count
        emitted = scratch.count
    }

    /// Whether the quote at `at` opens a triple-quoted string; nil until the bytes that tell
    /// have arrived (`""` followed by a third byte is an empty string).
    private static func opensTriple(_ w: ByteWindow, at: Int) -> Bool? {
        let q = w[at]
        guard at + 1 < w.end else { return nil }
        guard w[at + 1] == q else { return false }
        guard at + 2 < w.end else { return nil }
        return w[at + 2] == q
    }

    private mutating func beginString(quote: UInt8, raw: Bool, triple: Bool, top: Bool, actions: inout [GrammarAction]) {
        self.triple = triple
        verbatim = top && strings == .verbatimArguments
        scratch.removeAll(keepingCapacity: true)
        emitted = 0
        units.reset()
        state = .string(quote: quote, raw: raw)
        if top {
            let types = SchemaTyping.types(of: schema(for: argKey))
            if types.isEmpty || types.contains("string") {
                streaming = true
                actions.append(.delta(EventText(prefix(argKey) + "\"")))
            }
        }
    }

    private mutating func finishString(_ w: ByteWindow, actions: inout [GrammarAction]) -> Result? {
        units.flush(into: &scratch)
        let s = String(decoding: scratch, as: UTF8.self)
        if streaming {
            flushString(final: true, actions: &actions)
            actions.append(.delta(EventText("\"")))
        }
        return finishValue(.string(s), spelling: .quoted, w, actions: &actions)
    }

    /// Streams the decoded string bytes not yet emitted, JSON-escaped, never ending inside a
    /// UTF-8 sequence unless `final`.
    private mutating func flushString(final: Bool, actions: inout [GrammarAction]) {
        let end = final ? scratch.count : PythonCallReader.safeEnd(scratch, from: emitted)
        guard end > emitted else { return }
        actions.append(.delta(.jsonStringFragment(scratch[emitted..<end])))
        emitted = end
    }

    /// The largest `e <= bytes.count` that does not cut an unfinished UTF-8 sequence.
    private static func safeEnd(_ bytes: [UInt8], from: Int) -> Int {
        var i = bytes.count - 1
        var back = 0
        while i >= from && back < 4 {
            let b = bytes[i]
            if b & 0xC0 != 0x80 {
                let need = b < 0x80 ? 1 : b & 0xE0 == 0xC0 ? 2 : b & 0xF0 == 0xE0 ? 3 : b & 0xF8 == 0xF0 ? 4 : 1
                return bytes.count - i < need ? i : bytes.count
            }
            i -= 1
            back += 1
        }
        return bytes.count
    }

    private mutating func afterValue(_ w: ByteWindow, _ b: UInt8, actions: inout [GrammarAction]) -> Result? {
        let i = stack.count - 1
        switch (stack[i].kind, b) {
        case (.call, UInt8(ascii: ",")):
            pos += 1
            if let h = held, let v = h.value {
                actions.append(.delta(EventText(prefix(h.key) + v.jsonText)))
                held = nil
            }
            state = .keyOrClose
        case (.call, UInt8(ascii: ")")):
            pos += 1
            return closeCall(actions: &actions)
        case (.list, UInt8(ascii: ",")), (.tuple, UInt8(ascii: ",")), (.set, UInt8(ascii: ",")),
            (.dict, UInt8(ascii: ",")):
            pos += 1
            state = .value
        case (.braces, UInt8(ascii: ",")):
            stack[i].kind = .set
            pos += 1
            state = .value
        case (.braces, UInt8(ascii: ":")):
            guard stack[i].count == 1, let first = stack[i].first, let key = PythonCallReader.keyText(first) else {
                return .error("a dict key must be a string or a number", at: pos)
            }
            stack[i].kind = .dict
            stack[i].key = key
            writer.makeObject()
            pos += 1
            state = .value
        case (.list, UInt8(ascii: "]")), (.tuple, UInt8(ascii: ")")), (.set, UInt8(ascii: "}")),
            (.dict, UInt8(ascii: "}")), (.braces, UInt8(ascii: "}")):
            pos += 1
            return closeContainer(w, actions: &actions)
        default:
            return .error(stack[i].kind == .call ? "expected ',' or ')'" : "expected ',' or a closing bracket", at: pos)
        }
        return nil
    }

    private mutating func closeContainer(_ w: ByteWindow, actions: inout [GrammarAction]) -> Result? {
        let c = stack.removeLast()
        if c.kind == .braces && c.count == 0 { writer.makeObject() }
        writer.end()
        return finishValue(nil, spelling: .literal, w, actions: &actions)
    }

    /// Stores a finished value in its container (`nil`: a container, whose text and key are
    /// written already); a keyword argument's value is typed and streamed.
    private mutating func finishValue(_ v: JSONValue?, spelling: Spelling, _ w: ByteWindow,
                                      actions: inout [GrammarAction]) -> Result? {
        let i = stack.count - 1
        state = .afterValue
        switch stack[i].kind {
        case .call:
            stack[i].count += 1
            let source = w.slice(valueStart..<pos)
            // A scalar is typed by its schema; a container's text is in the writer already.
            var scalar: JSONValue? = nil
            if let v {
                scalar = typed(v, spelling: spelling, source: source)
            } else if SchemaTyping.types(of: schema(for: argKey)) == ["string"] {
                // A declared string keeps the literal's source text.
                _ = writer.detachLastMember()
                scalar = .string(SchemaTyping.trimSpace(String(decoding: source, as: UTF8.self)))
            }
            if let scalar {
                writer.key(argKey)
                writer.value(scalar)
            }
            if held != nil && held?.key == argKey && held?.value == nil {
                held?.value = scalar.map { CanonicalJSON($0) } ?? CanonicalJSON(canonical: Array(writer.lastMemberValue()))
            } else if streaming {
                streaming = false
            } else if let scalar {
                actions.append(.delta(EventText(prefix(argKey) + scalar.jsonText)))
            } else {
                var delta = Array(prefix(argKey).utf8)
                delta.append(contentsOf: writer.lastMemberValue())
                actions.append(.delta(EventText(utf8: delta)))
            }
        case .list, .tuple, .set:
            stack[i].count += 1
            if let v { writer.value(v) }
        case .braces:
            stack[i].count += 1
            if stack[i].count == 1 { stack[i].first = v }
            if let v { writer.value(v) }
        case .dict:
            if let key = stack[i].key {
                if let v {
                    writer.key(key)
                    writer.value(v)
                }
                stack[i].key = nil
            } else {
                guard let v, let key = PythonCallReader.keyText(v) else {
                    return .error("a dict key must be a string or a number", at: pos)
                }
                stack[i].key = key
                state = .colon
            }
        }
        return nil
    }

    private mutating func closeCall(actions: inout [GrammarAction]) -> Result {
        let c = stack.removeLast()
        state = .done
        writer.end()
        var arguments = writer.take()
        if let h = held, let v = h.value {
            held = nil
            if c.count == 1 && v.isObject {
                actions.append(.delta(EventText(utf8: v.bytes)))
                arguments = v
                opened = true
                return result(arguments)
            }
            actions.append(.delta(EventText(prefix(h.key) + v.jsonText)))
        }
        actions.append(.delta(EventText(opened ? "}" : "{}")))
        opened = true
        return result(arguments)
    }

    private func result(_ arguments: CanonicalJSON) -> Result {
        mismatches.isEmpty ? .complete(arguments, end: pos) : .invalid(mismatches.joined(separator: "\n"), end: pos)
    }

    /// The delta that introduces a keyword argument: `{"key":` or `,"key":`.
    private mutating func prefix(_ key: String) -> String {
        var out: [UInt8] = [opened ? UInt8(ascii: ",") : UInt8(ascii: "{")]
        opened = true
        JSONValue.writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        return String(decoding: out, as: UTF8.self)
    }

    private func schema(for key: String) -> JSONValue? {
        guard let name else { return nil }
        return tools?[name]?.typingSchema(forArgument: key)
    }

    /// A keyword argument's value narrowed by its schema (docs/formats.md, Typing).
    private mutating func typed(_ v: JSONValue, spelling: Spelling, source: ArraySlice<UInt8>) -> JSONValue {
        let schema = schema(for: argKey)
        let types = SchemaTyping.types(of: schema)
        guard !types.isEmpty else { return v }
        switch spelling {
        case .quoted, .word:
            guard !types.contains("string"), case .string(let text) = v else { return v }
            switch SchemaTyping.type(text, schema: schema) {
            case .success(let typed): return typed
            case .failure(let m):
                mismatches.append(SchemaTyping.detail(pointer: SchemaTyping.pointer(argKey), m, found: text))
                return v
            }
        case .literal:
            guard types == ["string"] else { return v }
            return .string(SchemaTyping.trimSpace(String(decoding: source, as: UTF8.self)))
        }
    }

    // MARK: - Literals

    /// A dict key's JSON text: strings as they are, numbers and keywords as JSON writes them.
    private static func keyText(_ v: JSONValue) -> String? {
        switch v {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array, .object: return nil
        }
    }

    /// A bare token's value; `isWord` when it is neither a number nor a keyword literal.
    static func bareValue(_ t: ArraySlice<UInt8>) -> (JSONValue, isWord: Bool) {
        switch String(decoding: t, as: UTF8.self) {
        case "True", "true": return (.bool(true), false)
        case "False", "false": return (.bool(false), false)
        case "None", "null": return (.null, false)
        case let text:
            if let n = pythonNumber(t) { return (.number(n), false) }
            return (.string(text), true)
        }
    }

    /// Whether the number text is a float literal (a fraction or an exponent) that Python
    /// reads as infinity. (Integers are exact at any size.)
    static func overflowsFloat(_ n: String) -> Bool {
        guard n.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) else { return false }
        return Double(n).map { $0.isInfinite } ?? false
    }

    /// The canonical JSON text of a Python number literal (`07` → `7`, `1_000` → `1000`,
    /// `.5` → `0.5`, `0x1F` → `31`), or nil when `t` is not one.
    static func pythonNumber(_ t: ArraySlice<UInt8>) -> String? {
        // A short plain integer (`12`, `-3`: a list element, usually) is its own canonical
        // text: no copies (two allocations per element in a list of small numbers).
        if t.count <= 15 {
            var k = t.startIndex
            if k < t.endIndex && t[k] == UInt8(ascii: "-") { k += 1 }
            let digitsStart = k
            while k < t.endIndex && t[k] >= UInt8(ascii: "0") && t[k] <= UInt8(ascii: "9") { k += 1 }
            let n = k - digitsStart
            if k == t.endIndex && n > 0 && (n == 1 || t[digitsStart] != UInt8(ascii: "0")) {
                return String(decoding: t, as: UTF8.self)
            }
        }
        var b = Array(t)
        var negative = false
        if let s = b.first, s == UInt8(ascii: "-") || s == UInt8(ascii: "+") {
            negative = s == UInt8(ascii: "-")
            b.removeFirst()
        }
        guard let first = b.first,
            first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") || first == UInt8(ascii: ".")
        else { return nil }
        if b.count > 2 && b[0] == UInt8(ascii: "0") {
            let radix: Int?
            switch b[1] | 0x20 {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = nil
            }
            if let radix {
                let digits = String(decoding: b[2...].filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
                guard let v = Int64(digits, radix: radix) else { return nil }
                return negative && v != 0 ? "-\(v)" : "\(v)"
            }
        }
        b.removeAll { $0 == UInt8(ascii: "_") }
        var i = 0
        func digits() -> ArraySlice<UInt8> {
            let s = i
            while i < b.count && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
            return b[s..<i]
        }
        var whole = digits()
        var fraction: ArraySlice<UInt8>? = nil
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            fraction = digits()
        }
        var exponent = ""
        if i < b.count && b[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var sign = ""
            if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) {
                sign = b[i] == UInt8(ascii: "-") ? "-" : ""
                i += 1
            }
            let e = digits()
            guard !e.isEmpty else { return nil }
            exponent = "e" + sign + String(decoding: e, as: UTF8.self)
        }
        guard i == b.count, !whole.isEmpty || !(fraction ?? []).isEmpty else { return nil }
        while whole.count > 1 && whole.first == UInt8(ascii: "0") { whole = whole.dropFirst() }
        var out = negative ? "-" : ""
        out += whole.isEmpty ? "0" : String(decoding: whole, as: UTF8.self)
        if let fraction { out += "." + (fraction.isEmpty ? "0" : String(decoding: fraction, as: UTF8.self)) }
        out += exponent
        return JSONReader.isValidNumber(Array(out.utf8)) ? out : nil
    }
}

/// Skips the rest of a Python call that could not be read, so that the calls after it in the
/// same list survive.
///
/// It counts brackets and honours quotes (with backslash escapes), starting at the depth where
/// the reader gave up. It stops after the bracket that closes the call, before a `,` or a
/// closer at depth 0 (the list's), or at a marker (even inside a quote, since a broken call
/// may have an unbalanced one). It does not decide what the skipped bytes were.
struct PythonCallSkipper: Sendable {
    /// Where skipping stopped.
    enum Stop {
        case needMore
        /// The call's bytes end at `at`.
        case at(Int)
        /// One of the stop markers begins at `at`.
        case marker(Int)
    }

    private var depth: Int
    private let closesCall: Bool
    private var quote: UInt8? = nil
    private var escaped = false

    /// - Parameter depth: open brackets at the byte where reading failed.
    init(depth: Int) {
        self.depth = depth
        self.closesCall = depth > 0
    }

    mutating func skip(_ w: ByteWindow, from pos: inout Int, stopAt markers: MarkerSet) -> Stop {
        while pos < w.end {
            let b = w[pos]
            if markers.canBegin(b) {
                switch markers.search(w, from: pos, end: min(w.end, pos + markers.maxLength)) {
                case .found(_, let at) where at == pos: return .marker(pos)
                case .partial(let at) where at == pos: return .needMore
                default: break
                }
            }
            pos += 1
            if let q = quote {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == q {
                    quote = nil
                }
                continue
            }
            switch b {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                quote = b
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == 0 {
                    pos -= 1
                    return .at(pos)
                }
                depth -= 1
                if depth == 0 && closesCall { return .at(pos) }
            case UInt8(ascii: ","):
                if depth == 0 {
                    pos -= 1
                    return .at(pos)
                }
            default:
                break
            }
        }
        return .needMore
    }
}
