// ToolCallKit — Gemma argument objects: bare keys, delimiter strings, bare literals, nesting.

/// Reads the argument object of a Gemma call (`{key:value,...}` or the drift `(key=value,...)`)
/// incrementally, and streams it as JSON text.
///
/// The string delimiter is a parameter: FunctionGemma's `<escape>` or Gemma 4's `<|"|>`. The
/// same delimiter opens and closes a string, and there is no escape processing inside one: its
/// bytes are the value (commas, braces, quotes, newlines, backslashes, even the call's end marker).
///
/// Grammar (lenient where models drift):
///
/// - object: `{` or `(` then pairs, then `}` or `)`. Commas between pairs may be missing (after a
///   delimited string); extra commas are ignored.
/// - key: bare (up to `:` or `=`, trimmed), delimiter-quoted, or a JSON string.
/// - value: a delimited string; a JSON `"..."` or `'...'` string; a nested `{...}` (bare keys) or
///   `[...]`; otherwise a bare word up to `,` or the container's closer: `true`, `false`, `null`, a
///   number (`108.` counts as `108.0`), or else a string (models drift). A bare word that
///   runs into the delimiter (`Tokyo<|"|>`: the opening one was dropped) is a string ended by
///   it; the delimiter is never part of a value. With `noneIsNull` (Gemma 4, whose template
///   delimits every string and writes a null as Python's `None`), a bare `None` is null too,
///   whatever the schema says.
///
/// Typing is by that syntax. With a schema for a top-level key (docs/formats.md) it narrows: a
/// declared string keeps the text, another declared type converts a string's text by
/// ``SchemaTyping``, and a value that fits no declared type is reported as a mismatch line.
///
/// Streaming: the reader emits `{`, then per top-level pair either `"key":"` followed by the
/// string's bytes JSON-escaped as they arrive (when the schema allows only a string, or there is
/// none), or `"key":value` when the value is complete; then `}`. Only a possible delimiter
/// prefix and an unfinished UTF-8 sequence are held back. It never rereads a consumed byte except
/// to slice a finished value's text once. It does not look for the call's start marker or decide
/// what a call is; the grammar does. It stops with `.interrupted` where the call's end marker
/// appears outside a string.
struct GemmaValueReader: Sendable {
    enum Result {
        case needMore
        /// The top object closed; `end` is one past its closer. `mismatches` are `invalid_arguments`
        /// detail lines (empty when every value fits its schema).
        case complete(CanonicalJSON, end: Int, mismatches: [String])
        /// Not a Gemma object at `at`.
        case error(String, at: Int)
        /// Nesting went deeper than the cap.
        case tooDeep(at: Int)
        /// The end marker came at `at` before the object closed.
        case interrupted(at: Int)
    }

    /// An open container; its text is in ``writer``.
    private struct Container: Sendable {
        var isObject: Bool
        var closer: UInt8
        var key: String? = nil
    }

    private enum Mode: Sendable {
        /// Before the opener.
        case open
        /// In an object: a key, a closer or a comma.
        case key
        case bareKey(start: Int)
        case delimitedKey(start: Int)
        case quotedKey(start: Int, escape: Bool)
        /// After a quoted key: `:` or `=`.
        case separator
        /// A value (or, in an array, `]`).
        case value
        /// Inside a delimited string whose content began at `start`.
        case delimited(start: Int)
        /// Inside a JSON string whose opening quote is at `start - 1`.
        case quoted(start: Int, escape: Bool)
        case singleQuoted(start: Int)
        case bare(start: Int)
        /// After a value: `,`, a closer, or (missing comma) the next key or value.
        case afterValue
        case done
    }

    private enum Kind {
        /// A string written with quotes or delimiters: its text.
        case quotedText(String)
        /// A bare word: its trimmed text.
        case bare(String)
        /// A nested object or array.
        case container
    }

    /// What a `<` begins: the string delimiter, the stop marker, a prefix of one, or neither.
    private enum Probe { case delimiter, stop, partial, none }

    private let delimiter: [UInt8]
    private let passThroughRun: PassThrough
    private let stopMarker: [UInt8]
    private let tool: ToolDefinition?
    private let maxDepth: Int
    private let noneIsNull: Bool

    /// The cursor: the next byte to read.
    private(set) var pos: Int
    private var mode: Mode = .open
    private var stack: [Container] = []
    /// The arguments' canonical text so far (no tree: see ``CanonicalJSON``).
    private var writer = CanonicalWriter()
    private var mismatches: [String] = []
    /// Members of the top object written to the deltas so far.
    private var emittedMembers = 0
    /// The next byte of a streamed top-level string to emit; nil when not streaming.
    private var streamFrom: Int?

    /// - Parameters:
    ///   - at: the opener (`{` or `(`).
    ///   - delimiter: the string delimiter.
    ///   - stopMarker: the call's end marker, which ends the call when it appears outside a string.
    ///   - tool: the declared tool, whose schemas narrow top-level values.
    ///   - noneIsNull: a bare `None` is null.
    init(at: Int, delimiter: String, stopMarker: String, tool: ToolDefinition?, maxDepth: Int, noneIsNull: Bool = false) {
        self.noneIsNull = noneIsNull
        self.pos = at
        self.delimiter = Array(delimiter.utf8)
        // `}` too: it may begin the tail that ``repairAtEnd(_:actions:)`` takes off a string.
        self.passThroughRun = .textValue(tags: [self.delimiter, [UInt8(ascii: "}")]])
        self.stopMarker = Array(stopMarker.utf8)
        self.tool = tool
        self.maxDepth = maxDepth
    }

    // MARK: - Byte helpers

    private static let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":"), equals = UInt8(ascii: "=")
    private static let lbrace = UInt8(ascii: "{"), rbrace = UInt8(ascii: "}")
    private static let lparen = UInt8(ascii: "("), rparen = UInt8(ascii: ")")
    private static let lbracket = UInt8(ascii: "["), rbracket = UInt8(ascii: "]")
    private static let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\"), lt = UInt8(ascii: "<")

    @inline(__always)
    private static func isCloser(_ b: UInt8) -> Bool { b == rbrace || b == rparen || b == rbracket }

    /// Whether `m` occurs at `at`: true when whole, false when cut by the end of the data, nil
    /// when not at all.
    static func anchored(_ m: [UInt8], _ w: ByteWindow, _ at: Int) -> Bool? {
        var i = 0
        while i < m.count {
            if at + i >= w.end { return false }
            if w[at + i] != m[i] { return nil }
            i += 1
        }
        return true
    }

    /// What begins at `at` (a `<`): the delimiter, the stop marker, a prefix of either, or neither.
    private func probe(_ w: ByteWindow, _ at: Int, delimiterToo: Bool) -> Probe {
        var partial = false
        if delimiterToo, let whole = GemmaValueReader.anchored(delimiter, w, at) {
            if whole { return .delimiter }
            partial = true
        }
        if let whole = GemmaValueReader.anchored(stopMarker, w, at) {
            if whole { return .stop }
            partial = true
        }
        return partial ? .partial : .none
    }

    /// The first occurrence of the delimiter in `[from, w.end)`, or where a prefix of it begins.
    private func findDelimiter(_ w: ByteWindow, from: Int) -> (at: Int, complete: Bool)? {
        let first = delimiter[0]
        var i = from
        while i < w.end {
            if w[i] == first, let whole = GemmaValueReader.anchored(delimiter, w, i) { return (i, whole) }
            i += 1
        }
        return nil
    }

    private static func trimmed(_ w: ByteWindow, _ r: Range<Int>) -> String {
        var s = r.lowerBound
        var e = r.upperBound
        (s, e) = w.trimmingSpace(s, e)
        return String(decoding: w.slice(s..<e), as: UTF8.self)
    }

    /// A JSON string literal's value (the slice includes both quotes); its body when invalid.
    private static func jsonString(_ w: ByteWindow, _ r: Range<Int>) -> String {
        if let v = try? JSONValue.parse(w.slice(r)), let s = v.stringValue { return s }
        return String(decoding: w.slice((r.lowerBound + 1)..<(r.upperBound - 1)), as: UTF8.self)
    }

    /// A bare word by its syntax: `true`, `false`, `null` (and `None` when `noneIsNull`), a
    /// number, or a string.
    static func bareLiteral(_ text: String, noneIsNull: Bool = false) -> JSONValue {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "None" where noneIsNull: return .null
        default: break
        }
        let b = Array(text.utf8)
        if JSONReader.isValidNumber(b) { return .number(text) }
        // `108.`: an integer with a trailing dot (not `1.5.` nor `1e3.`).
        if b.count >= 2 && b.last == UInt8(ascii: ".") && JSONReader.isValidNumber(b.dropLast())
            && !b.dropLast().contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
        {
            return .number(text + "0")
        }
        return .string(text)
    }

    // MARK: - Reading

    mutating func advance(_ w: ByteWindow, actions: inout [GrammarAction]) -> Result {
        while true {
            switch mode {
            case .open:
                guard pos < w.end else { return .needMore }
                let closer = w[pos] == R.lparen ? R.rparen : R.rbrace
                stack.append(Container(isObject: true, closer: closer))
                writer.beginObject()
                pos += 1
                actions.append(.delta(EventText("{")))
                mode = .key
            case .key:
                while pos < w.end && (JSONReader.isSpace(w[pos]) || w[pos] == R.comma) { pos += 1 }
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                if R.isCloser(b) {
                    pos += 1
                    if let r = closeContainer(actions: &actions) { return r }
                } else if b == R.quote {
                    pos += 1
                    mode = .quotedKey(start: pos, escape: false)
                } else if b == R.lt {
                    switch probe(w, pos, delimiterToo: true) {
                    case .delimiter:
                        pos += delimiter.count
                        mode = .delimitedKey(start: pos)
                    case .stop: return .interrupted(at: pos)
                    case .partial: return .needMore
                    case .none: mode = .bareKey(start: pos)
                    }
                } else if b == R.lbrace || b == R.lbracket || b == R.colon || b == R.equals {
                    return .error("expected a key", at: pos)
                } else {
                    mode = .bareKey(start: pos)
                }
            case .bareKey(let start):
                while pos < w.end {
                    let b = w[pos]
                    if b == R.colon || b == R.equals { break }
                    if b == R.comma || R.isCloser(b) || b == R.lbrace || b == R.lbracket || b == 0x0A {
                        return .error("expected ':' after a key", at: pos)
                    }
                    if b == R.lt {
                        switch probe(w, pos, delimiterToo: false) {
                        case .stop: return .interrupted(at: pos)
                        case .partial: return .needMore
                        default: break
                        }
                    }
                    pos += 1
                }
                guard pos < w.end else { return .needMore }
                stack[stack.count - 1].key = R.trimmed(w, start..<pos)
                pos += 1
                mode = .value
            case .delimitedKey(let start):
                guard let found = findDelimiter(w, from: pos) else {
                    pos = w.end
                    return .needMore
                }
                pos = found.at
                guard found.complete else { return .needMore }
                stack[stack.count - 1].key = String(decoding: w.slice(start..<pos), as: UTF8.self)
                pos += delimiter.count
                mode = .separator
            case .quotedKey(let start, var escape):
                while pos < w.end {
                    let b = w[pos]
                    if escape {
                        escape = false
                    } else if b == R.backslash {
                        escape = true
                    } else if b == R.quote {
                        break
                    }
                    pos += 1
                }
                guard pos < w.end else {
                    mode = .quotedKey(start: start, escape: escape)
                    return .needMore
                }
                pos += 1
                stack[stack.count - 1].key = R.jsonString(w, (start - 1)..<pos)
                mode = .separator
            case .separator:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                guard w[pos] == R.colon || w[pos] == R.equals else {
                    return .error("expected ':' after a key", at: pos)
                }
                pos += 1
                mode = .value
            case .value:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                let top = stack[stack.count - 1]
                if b == R.rbracket && !top.isObject {
                    // `[]`, or a trailing comma.
                    pos += 1
                    if let r = closeContainer(actions: &actions) { return r }
                } else if b == R.comma || R.isCloser(b) {
                    // An empty value.
                    if let r = finishValue(.string(""), kind: .bare(""), actions: &actions) { return r }
                } else if b == R.quote {
                    pos += 1
                    mode = .quoted(start: pos, escape: false)
                } else if b == R.apostrophe {
                    pos += 1
                    mode = .singleQuoted(start: pos)
                } else if b == R.lbrace || b == R.lbracket {
                    let isObject = b == R.lbrace
                    // The member's key goes before the container's text.
                    if top.isObject { writer.key(top.key ?? "") }
                    if isObject { writer.beginObject() } else { writer.beginArray() }
                    stack.append(Container(isObject: isObject, closer: isObject ? R.rbrace : R.rbracket))
                    if stack.count > maxDepth { return .tooDeep(at: pos) }
                    pos += 1
                    mode = b == R.lbrace ? .key : .value
                } else if b == R.lt {
                    switch probe(w, pos, delimiterToo: true) {
                    case .delimiter:
                        pos += delimiter.count
                        beginDelimited(at: pos, actions: &actions)
                    case .stop: return .interrupted(at: pos)
                    case .partial: return .needMore
                    case .none: mode = .bare(start: pos)
                    }
                } else {
                    mode = .bare(start: pos)
                }
            case .delimited(let start):
                let found = findDelimiter(w, from: pos)
                let stop = found?.at ?? w.end
                flushStream(w, upTo: stop, final: found?.complete ?? false, actions: &actions)
                pos = stop
                guard let found, found.complete else { return .needMore }
                pos += delimiter.count
                // The value's bytes are still in the window (the frame is retained until its end).
                let text = String(decoding: w.slice(start..<found.at), as: UTF8.self)
                if let r = finishValue(.string(text), kind: .quotedText(text), actions: &actions) { return r }
            case .quoted(let start, var escape):
                while pos < w.end {
                    let b = w[pos]
                    if escape {
                        escape = false
                    } else if b == R.backslash {
                        escape = true
                    } else if b == R.quote {
                        break
                    }
                    pos += 1
                }
                guard pos < w.end else {
                    mode = .quoted(start: start, escape: escape)
                    return .needMore
                }
                pos += 1
                let text = R.jsonString(w, (start - 1)..<pos)
                if let r = finishValue(.string(text), kind: .quotedText(text), actions: &actions) { return r }
            case .singleQuoted(let start):
                while pos < w.end && w[pos] != R.apostrophe { pos += 1 }
                guard pos < w.end else { return .needMore }
                let text = String(decoding: w.slice(start..<pos), as: UTF8.self)
                pos += 1
                if let r = finishValue(.string(text), kind: .quotedText(text), actions: &actions) { return r }
            case .bare(let start):
                let ownCloser = stack[stack.count - 1].closer
                var closedByDelimiter = false
                scan: while pos < w.end {
                    let b = w[pos]
                    if b == R.comma || b == R.rbrace || b == R.rbracket || b == ownCloser { break }
                    if b == R.lt {
                        switch probe(w, pos, delimiterToo: true) {
                        case .stop: return .interrupted(at: pos)
                        case .partial: return .needMore
                        case .delimiter:
                            // A string whose opening delimiter the model dropped: the delimiter
                            // ends it and is never part of the value.
                            closedByDelimiter = true
                            break scan
                        case .none: break
                        }
                    }
                    pos += 1
                }
                guard pos < w.end else { return .needMore }
                let text = R.trimmed(w, start..<pos)
                if closedByDelimiter {
                    pos += delimiter.count
                    if let r = finishValue(.string(text), kind: .quotedText(text), actions: &actions) { return r }
                } else if let r = finishValue(R.bareLiteral(text, noneIsNull: noneIsNull), kind: .bare(text), actions: &actions) { return r }
            case .afterValue:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                let isObject = stack[stack.count - 1].isObject
                if b == R.comma {
                    pos += 1
                    mode = isObject ? .key : .value
                } else if R.isCloser(b) {
                    pos += 1
                    if let r = closeContainer(actions: &actions) { return r }
                } else {
                    if b == R.lt {
                        switch probe(w, pos, delimiterToo: true) {
                        case .stop: return .interrupted(at: pos)
                        case .partial: return .needMore
                        case .delimiter:
                            // A stray closing delimiter after a finished value: noise.
                            pos += delimiter.count
                            continue
                        case .none: break
                        }
                    }
                    // A missing comma: the next key or element.
                    mode = isObject ? .key : .value
                }
            case .done:
                return .error("the arguments already ended", at: pos)
            }
        }
    }

    // MARK: - Values

    /// Whether a top-level string under `key` may stream: no schema type, or only `string`.
    private func streams(_ key: String) -> Bool {
        let types = SchemaTyping.types(of: tool?.typingSchema(forArgument: key))
        return types.isEmpty || types == ["string"]
    }

    private mutating func memberPrefix(_ key: String) -> String {
        var out: [UInt8] = emittedMembers > 0 ? [R.comma] : []
        JSONValue.writeString(key, to: &out)
        out.append(R.colon)
        emittedMembers += 1
        return String(decoding: out, as: UTF8.self)
    }

    private typealias R = GemmaValueReader

    /// Inside a streamed delimited string with everything up to `end` read and emitted: the
    /// decoder may forward bytes that cannot begin the delimiter and need no escaping.
    func passThrough(at end: Int) -> PassThrough? {
        guard case .delimited = mode, pos == end, streamFrom == end else { return nil }
        return passThroughRun
    }

    /// Takes `count` string bytes that the decoder forwarded as a delta.
    mutating func takeForwarded(_ count: Int) {
        pos += count
        streamFrom = pos
    }

    private mutating func beginDelimited(at start: Int, actions: inout [GrammarAction]) {
        mode = .delimited(start: start)
        guard stack.count == 1, let key = stack[0].key, streams(key) else { return }
        actions.append(.delta(EventText(memberPrefix(key) + "\"")))
        streamFrom = start
    }

    /// Emits a streamed string's bytes up to `upTo`, JSON-escaped.
    private mutating func flushStream(_ w: ByteWindow, upTo: Int, final: Bool, actions: inout [GrammarAction]) {
        guard let from = streamFrom else { return }
        var upTo = upTo
        // `}` and the call's end marker at the end of the bytes so far may be where the model
        // forgot the closing delimiter (``repairAtEnd(_:actions:)``): held until more follows.
        if !final, let b = unclosedTail(w, from: from, complete: false), b < upTo { upTo = b }
        let end = final ? upTo : UTF8Boundary.safeEnd(w, start: from, end: upTo)
        guard end > from else { return }
        actions.append(.delta(.jsonStringFragment(w.slice(from..<end))))
        streamFrom = end
    }

    /// Where `}`, white space and the call's end marker (a prefix of it unless `complete`) end
    /// the bytes received after `from`, or nil.
    private func unclosedTail(_ w: ByteWindow, from: Int, complete: Bool) -> Int? {
        guard !stopMarker.isEmpty else { return nil }
        var i = w.end
        while i > from && JSONReader.isSpace(w[i - 1]) && w.end - i < 64 { i -= 1 }
        // The marker (or a prefix of it) just before the trailing white space.
        var m = i
        while m > from && i - m < stopMarker.count && w[m - 1] != R.rbrace && !JSONReader.isSpace(w[m - 1]) { m -= 1 }
        let piece = i - m
        guard piece <= stopMarker.count, complete ? piece == stopMarker.count : true else { return nil }
        for k in 0..<piece where w[m + k] != stopMarker[k] { return nil }
        var b = m
        while b > from && JSONReader.isSpace(w[b - 1]) && m - b < 64 { b -= 1 }
        guard b > from, w[b - 1] == R.rbrace else { return nil }
        return b - 1
    }

    /// At the end of the stream inside a top-level delimited string that ends with `}` and the
    /// call's end marker: the model forgot the closing delimiter (ollama#15315). The string
    /// ends before the `}`, which closes the arguments. Nil when the bytes do not end so.
    mutating func repairAtEnd(_ w: ByteWindow, actions: inout [GrammarAction]) -> Result? {
        guard case .delimited(let start) = mode, stack.count == 1,
            let brace = unclosedTail(w, from: start, complete: true)
        else { return nil }
        flushStream(w, upTo: brace, final: true, actions: &actions)
        let text = String(decoding: w.slice(start..<brace), as: UTF8.self)
        pos = brace
        if let r = finishValue(.string(text), kind: .quotedText(text), actions: &actions) { return r }
        pos = brace + 1
        return closeContainer(actions: &actions)
    }

    private mutating func closeContainer(actions: inout [GrammarAction]) -> Result? {
        stack.removeLast()
        writer.end()
        if stack.isEmpty {
            mode = .done
            actions.append(.delta(EventText("}")))
            return .complete(writer.take(), end: pos, mismatches: mismatches)
        }
        return finishValue(nil, kind: .container, actions: &actions)
    }

    /// Stores a finished value in its container (`nil`: a container, whose text and key are
    /// written already); a top-level one is typed and emitted.
    private mutating func finishValue(_ v: JSONValue?, kind: Kind, actions: inout [GrammarAction]) -> Result? {
        let i = stack.count - 1
        mode = .afterValue
        guard stack[i].isObject else {
            if let v { writer.value(v) }
            return nil
        }
        let key = stack[i].key ?? ""
        stack[i].key = nil
        guard i == 0 else {
            if let v {
                writer.key(key)
                writer.value(v)
            }
            return nil
        }
        if streamFrom != nil, let v {
            streamFrom = nil
            actions.append(.delta(EventText("\"")))
            writer.key(key)
            writer.value(v)
            return nil
        }
        guard let v else {
            // A container: its text stays in place unless its schema retypes it.
            let schema = tool?.typingSchema(forArgument: key)
            if SchemaTyping.types(of: schema).isEmpty {
                var delta = Array(memberPrefix(key).utf8)
                delta.append(contentsOf: writer.lastMemberValue())
                actions.append(.delta(EventText(utf8: delta)))
                return nil
            }
            let text = writer.detachLastMember()
            emitTyped(text.value, kind: kind, key: key, actions: &actions)
            return nil
        }
        emitTyped(v, kind: kind, key: key, actions: &actions)
        return nil
    }

    /// Types a top-level member by its key's schema and emits it, or records the mismatch.
    private mutating func emitTyped(_ v: JSONValue, kind: Kind, key: String, actions: inout [GrammarAction]) {
        switch narrow(v, kind: kind, key: key) {
        case .success(let typed):
            actions.append(.delta(EventText(memberPrefix(key) + typed.jsonText)))
            writer.key(key)
            writer.value(typed)
        case .failure(let e):
            mismatches.append(e.line)
        }
    }

    /// Types a top-level value by its key's schema (docs/formats.md, Typing).
    private func narrow(_ v: JSONValue, kind: Kind, key: String) -> Swift.Result<JSONValue, MismatchLineError> {
        // A bare `None` (Gemma 4) is null whatever the schema says: nothing else writes it.
        if noneIsNull, case .bare("None") = kind { return .success(.null) }
        let schema = tool?.typingSchema(forArgument: key)
        let types = SchemaTyping.types(of: schema)
        guard !types.isEmpty else { return .success(v) }
        let found: String
        let typed: Swift.Result<JSONValue, SchemaTyping.Mismatch>
        switch kind {
        case .quotedText(let text):
            found = text
            typed = SchemaTyping.type(text, schema: schema)
        case .bare(let text):
            found = text
            if types == ["string"] {
                typed = .success(.string(text))
            } else if case .string = v {
                typed = SchemaTyping.type(text, schema: schema)
            } else {
                typed = SchemaTyping.type(v.jsonText, schema: schema)
            }
        case .container:
            found = v.jsonText
            let t = v.isObject ? "object" : "array"
            if types.contains(t) {
                typed = .success(v)
            } else if types.contains("string") {
                typed = .success(.string(found))
            } else {
                let expected = types.count == 1 ? types[0] : "one of " + types.joined(separator: ", ")
                typed = .failure(SchemaTyping.Mismatch(expected: expected))
            }
        }
        switch typed {
        case .success(let x): return .success(x)
        case .failure(let m):
            let line = SchemaTyping.detail(pointer: SchemaTyping.pointer(key), m, found: found)
            return .failure(MismatchLineError(line: line))
        }
    }
}

/// One `invalid_arguments` line, as an error value.
struct MismatchLineError: Error {
    var line: String
}
