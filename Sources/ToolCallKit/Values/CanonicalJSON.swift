// ToolCallKit — JSON values held as their canonical text, and the writer the readers fill.

/// A JSON value held as its canonical text: the bytes ``JSONValue/jsonText`` would give for it.
///
/// Canonical means compact (no white space), object keys unique and in the order they were
/// first written (a later duplicate's value replacing the earlier one in place), strings
/// escaped as ``JSONValue/writeString(_:to:)`` escapes them, numbers spelled as the model wrote
/// them. A call's arguments are kept this way from the moment they are read: one byte array
/// about the size of the model's own text, where a ``JSONValue`` tree costs several times
/// that (an array element alone is a 16-byte enum, before the arrays' spare capacity). The
/// tree is built only when asked for (``value``), in O(n).
struct CanonicalJSON: Sendable, Hashable {
    /// The canonical text (UTF-8).
    var bytes: [UInt8]

    /// Bytes that are canonical JSON text already (the readers' output).
    init(canonical bytes: [UInt8]) { self.bytes = bytes }

    /// The canonical text of a typed value.
    init(_ value: JSONValue) {
        var out: [UInt8] = []
        value.write(to: &out)
        bytes = out
    }

    /// An object of these members (later duplicates replacing earlier ones in place).
    static func object(_ members: [(key: String, value: JSONValue)]) -> CanonicalJSON {
        CanonicalJSON(JSONValue.object(uniquing: members))
    }

    /// The canonical text of a JSON string.
    static func string(_ s: String) -> CanonicalJSON { CanonicalJSON(.string(s)) }

    /// Reads a JSON text (white space around the value allowed) into canonical form; nil when
    /// it is not JSON.
    static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 512) -> CanonicalJSON? {
        try? JSONValue.canonical(bytes, maxDepth: maxDepth)
    }

    /// True when the value is an object.
    var isObject: Bool { bytes.first == UInt8(ascii: "{") }
    /// True when the value is an array.
    var isArray: Bool { bytes.first == UInt8(ascii: "[") }
    /// True when the value is a string.
    var isString: Bool { bytes.first == UInt8(ascii: "\"") }

    /// The typed value, built from the text (O(n)).
    var value: JSONValue { JSONValue(canonical: bytes[...]) }

    /// The string, when the value is a string (without a tree when it has no escape).
    var stringValue: String? {
        guard isString else { return nil }
        let body = bytes[1..<(bytes.count - 1)]
        if !body.contains(UInt8(ascii: "\\")) { return String(decoding: body, as: UTF8.self) }
        return value.stringValue
    }

    /// The text as a `String`.
    var jsonText: String { String(decoding: bytes, as: UTF8.self) }

    /// Equality of the values the texts stand for: the same text, or (rarely: numbers spelled
    /// differently, strings equal under Unicode canonical equivalence) equal typed values.
    static func == (a: CanonicalJSON, b: CanonicalJSON) -> Bool {
        a.bytes == b.bytes || a.value == b.value
    }

    func hash(into h: inout Hasher) { h.combine(value) }

    /// The member under `key`, when the value is an object that has it (builds the tree).
    subscript(key: String) -> JSONValue? { value[key] }

    /// Whether the text stands for `b`.
    static func == (a: CanonicalJSON, b: JSONValue) -> Bool { a.value == b }
    static func == (a: JSONValue, b: CanonicalJSON) -> Bool { a == b.value }
}

// MARK: - Sinks

/// What a ``JSONScanner`` writes a value into, in source order.
protocol JSONSink: Sendable {
    associatedtype Value: Sendable
    init()
    mutating func beginObject()
    mutating func beginArray()
    /// A member's key, from its decoded bytes.
    mutating func key(utf8: ArraySlice<UInt8>)
    /// A string value, from its decoded bytes.
    mutating func string(utf8: ArraySlice<UInt8>)
    /// A number, `true`, `false` or `null`, as written.
    mutating func literal(_ text: [UInt8])
    /// Closes the innermost container.
    @discardableResult mutating func end() -> Int
    /// The value just finished inside the innermost container; with `detach`, a member (an
    /// object's) is taken out of the container.
    mutating func lastValue(detach: Bool) -> Value
    /// The finished top value (the sink is left empty).
    mutating func take() -> Value
}

/// Builds a ``JSONValue`` tree.
struct JSONTreeSink: JSONSink {
    private struct Open: Sendable {
        var isObject: Bool
        var members: [(key: String, value: JSONValue)] = []
        var elements: [JSONValue] = []
        var key = ""
    }

    private var stack: [Open] = []
    private var root: JSONValue = .null

    init() {}

    private mutating func store(_ v: JSONValue) {
        guard let i = stack.indices.last else {
            root = v
            return
        }
        if stack[i].isObject {
            stack[i].members.append((key: stack[i].key, value: v))
        } else {
            stack[i].elements.append(v)
        }
    }

    mutating func beginObject() { stack.append(Open(isObject: true)) }
    mutating func beginArray() { stack.append(Open(isObject: false)) }
    mutating func key(utf8 bytes: ArraySlice<UInt8>) { stack[stack.count - 1].key = String(decoding: bytes, as: UTF8.self) }
    mutating func string(utf8 bytes: ArraySlice<UInt8>) { store(.string(String(decoding: bytes, as: UTF8.self))) }

    mutating func literal(_ text: [UInt8]) {
        switch text.first {
        case UInt8(ascii: "t"): store(.bool(true))
        case UInt8(ascii: "f"): store(.bool(false))
        case UInt8(ascii: "n"): store(.null)
        default: store(.number(String(decoding: text, as: UTF8.self)))
        }
    }

    @discardableResult
    mutating func end() -> Int {
        let o = stack.removeLast()
        store(o.isObject ? JSONValue.object(uniquing: o.members) : .array(o.elements))
        return 0
    }

    mutating func lastValue(detach: Bool) -> JSONValue {
        let o = stack[stack.count - 1]
        return (o.isObject ? o.members.last?.value : o.elements.last) ?? .null
    }

    mutating func take() -> JSONValue {
        let v = root
        root = .null
        stack.removeAll()
        return v
    }
}

// MARK: - Building canonical text

/// Writes canonical JSON text into one byte buffer while a reader validates its input.
///
/// A reader calls ``beginObject()``, ``beginArray()``, ``key(_:)`` and the scalar writers in
/// source order and ``end()`` at each closer; commas and colons are the writer's. The only
/// per-member state is one offset per key of each open object, for the duplicate check when
/// the object closes: an object whose keys repeat (rare) is rewritten in place, first position
/// and last value, as ``JSONValue/object(uniquing:)`` would build it.
struct CanonicalWriter: JSONSink {
    fileprivate struct Frame: Sendable {
        /// Offset of the opening bracket.
        var start: Int
        var isObject: Bool
        /// Members or elements written so far.
        var count = 0
        /// Index in `keyStarts` of this object's second key (the first is at `start + 1`).
        var keyBase: Int
        /// Offset where the last member's text (its comma included) begins.
        var lastMemberStart = 0
    }

    /// The text written so far.
    private(set) var out: [UInt8] = []
    private var frames: [Frame] = []
    /// Offsets of the opening quote of every key but the first (which follows the brace) of
    /// every open object, innermost last: an object with one key stores none.
    private var keyStarts: [Int] = []
    /// The outermost bracket, opened but not written yet (0: none): a reader that opens a
    /// value and then finds it is not JSON (a bare `{` in prose) costs no allocation. Any
    /// other write writes it first (``materialize()``).
    private var pendingRoot: UInt8 = 0

    init() {}

    /// Open containers.
    var depth: Int { frames.count + (pendingRoot == 0 ? 0 : 1) }

    /// Writes the pending outermost bracket.
    @inline(__always)
    private mutating func materialize() {
        guard pendingRoot != 0 else { return }
        let b = pendingRoot
        pendingRoot = 0
        prepare()
        frames.append(Frame(start: out.count, isObject: b == UInt8(ascii: "{"), keyBase: keyStarts.count))
        out.append(b)
    }

    /// Makes room for about `n` more bytes before a large value is written at once (a text
    /// value read whole): the text then takes the value's size, not up to twice it as growth
    /// by doubling would leave. Room grows at least geometrically, so many values still cost
    /// linear time.
    mutating func reserve(_ n: Int) {
        materialize()
        let need = out.count + n + 16
        guard need > out.capacity else { return }
        out.reserveCapacity(max(need, out.capacity * 2))
    }

    /// Before a value: the comma between array elements.
    @inline(__always)
    private mutating func slot() {
        materialize()
        guard let i = frames.indices.last, !frames[i].isObject else { return }
        frames[i].lastMemberStart = out.count
        if frames[i].count > 0 { out.append(UInt8(ascii: ",")) }
        frames[i].count += 1
    }

    /// First use: room for a typical call's text and keys, so they are not grown from a few
    /// bytes (each growth is an allocation and a copy). The text's room stays under 1 KB, the
    /// size the allocator serves from its per-thread cache; a larger text grows geometrically.
    @inline(__always)
    private mutating func prepare() {
        guard frames.capacity == 0 else { return }
        frames.reserveCapacity(4)
        keyStarts.reserveCapacity(32)
        if out.capacity < 960 { out.reserveCapacity(960) }
    }

    mutating func beginObject() { begin(UInt8(ascii: "{"), isObject: true) }

    mutating func beginArray() { begin(UInt8(ascii: "["), isObject: false) }

    /// Opens a container. The outermost one is only noted (`pendingRoot`) and written on first
    /// use, so a value that turns out not to be JSON costs no allocation.
    @inline(__always)
    private mutating func begin(_ bracket: UInt8, isObject: Bool) {
        if frames.isEmpty && out.isEmpty && pendingRoot == 0 {
            pendingRoot = bracket
            return
        }
        prepare()
        slot()
        frames.append(Frame(start: out.count, isObject: isObject, keyBase: keyStarts.count))
        out.append(bracket)
    }

    /// A member's key, from its decoded bytes (valid UTF-8 or not: invalid bytes become
    /// U+FFFD, as a `String` made from them would have them).
    mutating func key(utf8 bytes: ArraySlice<UInt8>) {
        materialize()
        let i = frames.count - 1
        frames[i].lastMemberStart = out.count
        if frames[i].count > 0 {
            out.append(UInt8(ascii: ","))
            keyStarts.append(out.count)
        }
        frames[i].count += 1
        writeString(utf8: bytes)
        out.append(UInt8(ascii: ":"))
    }

    mutating func key(_ s: String) {
        materialize()
        let i = frames.count - 1
        frames[i].lastMemberStart = out.count
        if frames[i].count > 0 {
            out.append(UInt8(ascii: ","))
            keyStarts.append(out.count)
        }
        frames[i].count += 1
        JSONValue.writeString(s, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// A string value from its decoded bytes.
    mutating func string(utf8 bytes: ArraySlice<UInt8>) {
        slot()
        writeString(utf8: bytes)
    }

    /// A number, `true`, `false` or `null`: its text as it is.
    mutating func literal(_ text: [UInt8]) {
        slot()
        out.append(contentsOf: text)
    }

    /// A whole typed value.
    mutating func value(_ v: JSONValue) {
        slot()
        v.write(to: &out)
    }

    /// A whole value given as canonical text.
    mutating func canonical(_ v: CanonicalJSON) {
        slot()
        out.append(contentsOf: v.bytes)
    }

    /// A string value.
    mutating func string(_ s: String) {
        slot()
        JSONValue.writeString(s, to: &out)
    }

    private mutating func writeString(utf8 bytes: ArraySlice<UInt8>) {
        out.append(UInt8(ascii: "\""))
        if Self.isPlainASCII(bytes) {
            // A short printable ASCII string (most keys and names) is its own JSON text.
            out.append(contentsOf: bytes)
        } else if (try? UTF8Span(validating: bytes.span)) != nil {
            JSONValue.writeEscaped(bytes.span, to: &out)
        } else {
            let s = String(decoding: bytes, as: UTF8.self)
            JSONValue.writeEscaped(s.utf8.span, to: &out)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `bytes` are few (at most 64) and all printable ASCII other than `"` and `\`.
    @inline(__always)
    private static func isPlainASCII(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count <= 64 else { return false }
        return unsafe bytes.withUnsafeBufferPointer { p in
            for unsafe b in unsafe p where b < 0x20 || b == 0x22 || b == 0x5C || b >= 0x80 { return false }
            return true
        }
    }

    /// Closes the innermost container; returns the offset of its opening bracket.
    @discardableResult
    mutating func end() -> Int {
        materialize()
        let f = frames.removeLast()
        out.append(f.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        if f.isObject {
            if f.count > 1 { uniqueKeys(f) }
            keyStarts.removeTail(from: f.keyBase)
        }
        return f.start
    }

    /// Makes the innermost container, opened with ``beginArray()``, an empty object: what it
    /// holds so far is dropped (a Python `{` is read as an array until its first element is
    /// followed by `:`, which makes that element the first key, or it closes empty).
    mutating func makeObject() {
        if pendingRoot != 0 {
            pendingRoot = UInt8(ascii: "{")
            return
        }
        let i = frames.count - 1
        out.removeTail(from: frames[i].start + 1)
        out[frames[i].start] = UInt8(ascii: "{")
        frames[i].isObject = true
        frames[i].count = 0
        frames[i].keyBase = keyStarts.count
    }

    /// Takes the innermost object's last member out of the text: its value's canonical text.
    /// The member must be complete (its value written).
    mutating func detachLastMember() -> CanonicalJSON {
        let i = frames.count - 1
        precondition(frames[i].isObject && frames[i].count > 0, "no member to detach")
        let keyStart = frames[i].count == 1 ? frames[i].start + 1 : keyStarts.removeLast()
        var k = keyStart + 1
        var escaped = false
        while escaped || out[k] != UInt8(ascii: "\"") {
            escaped = !escaped && out[k] == UInt8(ascii: "\\")
            k += 1
        }
        let valueStart = k + 2  // past the closing quote and the colon
        let memberStart = frames[i].lastMemberStart
        frames[i].count -= 1
        if out.count - valueStart > out.count / 2 {
            // The value is most of the text (a call object's arguments): move the text before
            // it aside instead of copying the value.
            let head = Array(out[..<memberStart])
            out.removeSubrange(..<valueStart)
            let v = out
            out = head
            return CanonicalJSON(canonical: v)
        }
        let v = Array(out[valueStart...])
        out.removeTail(from: memberStart)
        return CanonicalJSON(canonical: v)
    }

    /// The text of the innermost object's last member's value, in place.
    func lastMemberValue() -> ArraySlice<UInt8> {
        out[(keyEnd(lastKeyStart) + 1)...]
    }

    /// The offset of the innermost object's last key.
    private var lastKeyStart: Int {
        let f = frames[frames.count - 1]
        return f.count == 1 ? f.start + 1 : keyStarts[keyStarts.count - 1]
    }

    /// Drops the innermost object's last member; returns its value when it is a string.
    mutating func dropLastMember() -> String? {
        let v = lastMemberValue()
        var s: String?
        if v.first == UInt8(ascii: "\""), v.count >= 2 {
            let body = v.dropFirst().dropLast()
            s = body.contains(UInt8(ascii: "\\"))
                ? CanonicalJSON(canonical: Array(v)).value.stringValue : String(decoding: body, as: UTF8.self)
        }
        let i = frames.count - 1
        if frames[i].count > 1 { keyStarts.removeLast() }
        frames[i].count -= 1
        out.removeTail(from: frames[i].lastMemberStart)
        return s
    }

    mutating func lastValue(detach: Bool) -> CanonicalJSON {
        let f = frames[frames.count - 1]
        if f.isObject {
            if detach { return detachLastMember() }
            return CanonicalJSON(canonical: Array(lastMemberValue()))
        }
        return CanonicalJSON(canonical: Array(out[(f.lastMemberStart + (f.count > 1 ? 1 : 0))...]))
    }

    /// The text written from `offset` on.
    func text(from offset: Int) -> ArraySlice<UInt8> {
        pendingRoot == 0 ? out[offset...] : [pendingRoot][offset...]
    }

    /// Current length of the text.
    var count: Int { out.count + (pendingRoot == 0 ? 0 : 1) }

    /// Where the text and its open containers stand, to go back to (``restore(_:)``).
    struct Checkpoint: Sendable {
        fileprivate var count: Int
        fileprivate var frames: [Frame]
        fileprivate var keys: Int
        fileprivate var pendingRoot: UInt8
    }

    /// The state now: a value written after it can be taken back.
    func checkpoint() -> Checkpoint {
        Checkpoint(count: out.count, frames: frames, keys: keyStarts.count, pendingRoot: pendingRoot)
    }

    /// Drops everything written since `c`.
    mutating func restore(_ c: Checkpoint) {
        out.removeTail(from: c.count)
        frames = c.frames
        keyStarts.removeTail(from: c.keys)
        pendingRoot = c.pendingRoot
    }

    /// Hands over the text (the writer is left empty).
    mutating func take() -> CanonicalJSON {
        materialize()
        let v = out
        out = []
        frames.removeAll()
        keyStarts.removeAll()
        return CanonicalJSON(canonical: v)
    }

    // MARK: Duplicate keys

    /// The end (one past the closing quote) of the key whose opening quote is at `start`.
    private func keyEnd(_ start: Int) -> Int {
        var k = start + 1
        while out[k] != UInt8(ascii: "\"") {
            k += out[k] == UInt8(ascii: "\\") ? 2 : 1
        }
        return k + 1
    }

    /// Orders two keys by their canonical bytes (equal exactly when the keys are).
    private static func compareKeys(_ out: [UInt8], _ a: Int, _ b: Int) -> Int {
        var i = a + 1
        var j = b + 1
        var escaped = false
        while true {
            let x = out[i]
            let y = out[j]
            if x != y { return x < y ? -1 : 1 }
            if x == UInt8(ascii: "\"") && !escaped { return 0 }
            escaped = !escaped && x == UInt8(ascii: "\\")
            i += 1
            j += 1
        }
    }

    /// Rewrites the object that just closed (`f`) when two of its keys are equal.
    private mutating func uniqueKeys(_ f: Frame) {
        let base = f.keyBase
        let n = keyStarts.count - base + 1
        // Key k's offset: the first follows the brace.
        func start(_ k: Int) -> Int { k == 0 ? f.start + 1 : keyStarts[base + k - 1] }
        var duplicate = false
        if n <= 32 {
            search: for a in 0..<n {
                for b in (a + 1)..<n where Self.compareKeys(out, start(a), start(b)) == 0 {
                    duplicate = true
                    break search
                }
            }
        } else {
            // A large object: keys by their hash (one table, made once), equal hashes compared.
            var seen: [Int: Int] = Dictionary(minimumCapacity: n)
            search: for k in 0..<n {
                let o = start(k)
                var h = Hasher()
                unsafe out[o..<keyEnd(o)].withUnsafeBytes { unsafe h.combine(bytes: $0) }
                // Equal hashes (a duplicate, or rarely a collision) take the rebuild, which
                // compares the keys themselves and gives the same text when none repeats.
                if seen.updateValue(o, forKey: h.finalize()) != nil {
                    duplicate = true
                    break search
                }
            }
        }
        guard duplicate else { return }
        // Member k: key [starts[k], keyEnd), value up to the next member's comma or the `}`.
        let starts = [f.start + 1] + keyStarts[base...]
        let close = out.count - 1
        var members: [(key: ArraySlice<UInt8>, value: Range<Int>)] = []
        members.reserveCapacity(n)
        for k in 0..<n {
            let ke = keyEnd(starts[k])
            let ve = k + 1 < n ? starts[k + 1] - 1 : close
            members.append((out[starts[k]..<ke], (ke + 1)..<ve))
        }
        var last: [ArraySlice<UInt8>: Int] = [:]
        for (k, m) in members.enumerated() { last[m.key] = k }
        var rebuilt: [UInt8] = [UInt8(ascii: "{")]
        rebuilt.reserveCapacity(out.count - f.start)
        var written = Set<ArraySlice<UInt8>>()
        for m in members where !written.contains(m.key) {
            written.insert(m.key)
            if rebuilt.count > 1 { rebuilt.append(UInt8(ascii: ",")) }
            rebuilt.append(contentsOf: m.key)
            rebuilt.append(UInt8(ascii: ":"))
            rebuilt.append(contentsOf: out[members[last[m.key]!].value])
        }
        rebuilt.append(UInt8(ascii: "}"))
        out.replaceSubrange(f.start..., with: rebuilt)
    }
}

// MARK: - Typed values from canonical text

extension JSONValue {
    /// Reads a JSON text into canonical form, with ``parse(_:maxDepth:)``'s errors.
    static func canonical(_ bytes: some Collection<UInt8>, maxDepth: Int = 512) throws(ParseError) -> CanonicalJSON {
        try read(JSONTextReader.self, bytes, maxDepth: maxDepth)
    }

    /// The value of canonical JSON text (compact, valid, unique keys: what ``CanonicalWriter``
    /// writes). Iterative, so any depth is read without deep recursion.
    init(canonical t: ArraySlice<UInt8>) {
        struct Open {
            var isObject: Bool
            var members: [(key: String, value: JSONValue)] = []
            var elements: [JSONValue] = []
            var key = ""
        }
        var stack: [Open] = []
        var i = t.startIndex
        let end = t.endIndex
        var scratch: [UInt8] = []

        func readString() -> String {
            // `i` is at the opening quote.
            i += 1
            scratch.removeAll(keepingCapacity: true)
            var run = i
            while t[i] != UInt8(ascii: "\"") {
                guard t[i] == UInt8(ascii: "\\") else {
                    i += 1
                    continue
                }
                scratch.append(contentsOf: t[run..<i])
                let e = t[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "u"):
                    // Canonical text escapes only control characters this way.
                    var v: UInt32 = 0
                    for k in 0..<4 { v = v << 4 | UInt32(JSONReader.hexValue(t[i + k]) ?? 0) }
                    i += 4
                    scratch.append(contentsOf: UTF8.encode(Unicode.Scalar(v) ?? "\u{FFFD}")!)
                default: scratch.append(e)
                }
                run = i
            }
            let s: String
            if scratch.isEmpty {
                s = String(decoding: t[run..<i], as: UTF8.self)
            } else {
                scratch.append(contentsOf: t[run..<i])
                s = String(decoding: scratch, as: UTF8.self)
            }
            i += 1
            return s
        }

        var result: JSONValue = .null
        while i < end {
            let b = t[i]
            var finished: JSONValue?
            switch b {
            case UInt8(ascii: "{"):
                stack.append(Open(isObject: true))
                i += 1
                if t[i] == UInt8(ascii: "}") {
                    i += 1
                    stack.removeLast()
                    finished = .object([])
                } else {
                    stack[stack.count - 1].key = readString()
                    i += 1  // the colon
                    continue
                }
            case UInt8(ascii: "["):
                stack.append(Open(isObject: false))
                i += 1
                if t[i] == UInt8(ascii: "]") {
                    i += 1
                    stack.removeLast()
                    finished = .array([])
                } else {
                    continue
                }
            case UInt8(ascii: "\""):
                finished = .string(readString())
            case UInt8(ascii: "t"):
                i += 4
                finished = .bool(true)
            case UInt8(ascii: "f"):
                i += 5
                finished = .bool(false)
            case UInt8(ascii: "n"):
                i += 4
                finished = .null
            default:
                let s = i
                while i < end && JSONReader.isNumberByte(t[i]) { i += 1 }
                finished = .number(String(decoding: t[s..<i], as: UTF8.self))
            }
            // Store the value, then close every container that ends right after it.
            var v = finished!
            while true {
                guard !stack.isEmpty else {
                    result = v
                    break
                }
                let k = stack.count - 1
                if stack[k].isObject {
                    stack[k].members.append((key: stack[k].key, value: v))
                } else {
                    stack[k].elements.append(v)
                }
                let c = t[i]
                i += 1
                if c == UInt8(ascii: ",") {
                    if stack[k].isObject {
                        stack[k].key = readString()
                        i += 1
                    }
                    break
                }
                let o = stack.removeLast()
                v = o.isObject ? .object(o.members) : .array(o.elements)
            }
            if stack.isEmpty { break }
        }
        self = result
    }
}

extension Array {
    /// Removes the elements from `offset` to the end (cheaper than a generic range removal).
    @inline(__always)
    mutating func removeTail(from offset: Int) {
        removeLast(count - offset)
    }
}
