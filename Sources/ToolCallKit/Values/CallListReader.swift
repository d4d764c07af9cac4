// ToolCallKit — reading a JSON list of call objects, `[{call}, {call}, …]`, while it streams.

/// What one format allows in a list of call objects, and how its elements are reported. (A
/// class: a reader takes its rules at every frame, and a reference is one retain.)
final class CallListRules: Sendable {
    /// The call object's key names.
    let keys: CallObjectKeys
    /// Whether calls stream (`start` once the name is known, then the arguments' bytes as they
    /// arrive); otherwise each is reported whole when its object ends.
    let streams: Bool
    /// Whether an object without an arguments key is a zero-argument call (`{}`).
    let nameOnlyIsCall: Bool
    /// Whether a comma may stand right before `]` (`[{…},]`).
    let trailingComma: Bool
    /// Whether two objects may follow each other without a comma (`}{`, `} {`).
    let missingComma: Bool
    /// Whether an element that is a complete JSON value but no object (`"junk"`, `3`), or an
    /// element object that is not JSON (`{"time": 15:30}`, up to its closing bracket), is
    /// `rejected` on its own, its neighbours standing; otherwise it is
    /// ``CallListReader/Step/unexpected(_:at:)`` (or ``CallListReader/Step/error(at:)``).
    let rejectsNonObjectsAlone: Bool
    /// Whether a first element that begins like a name (a letter or `_`) is left to the owner
    /// (``CallListReader/Step/unexpected(_:at:)``): llama3's list of Python calls.
    let leavesNamesToOwner: Bool
    /// Whether an element is settled (a call accepted, a non-call rejected) at the separator
    /// after it, its raw span holding the white space after it, rather than where it ends. A
    /// non-object element's span then begins at its first byte (what precedes it is `markup`);
    /// otherwise every element's span begins where the previous one's ended.
    let acceptsAtSeparator: Bool

    init(
        keys: CallObjectKeys = .standard,
        streams: Bool = true,
        nameOnlyIsCall: Bool = false,
        trailingComma: Bool = false,
        missingComma: Bool = false,
        rejectsNonObjectsAlone: Bool = false,
        leavesNamesToOwner: Bool = false,
        acceptsAtSeparator: Bool = false
    ) {
        self.keys = keys
        self.streams = streams
        self.nameOnlyIsCall = nameOnlyIsCall
        self.trailingComma = trailingComma
        self.missingComma = missingComma
        self.rejectsNonObjectsAlone = rejectsNonObjectsAlone
        self.leavesNamesToOwner = leavesNamesToOwner
        self.acceptsAtSeparator = acceptsAtSeparator
    }
}

/// Reads the elements of a JSON list of call objects, from just after its `[` to its `]`
/// (or one lone call object, for formats that let one stand where the list belongs).
///
/// The reader owns the list's syntax: white space, elements, separators and the rules of
/// ``CallListRules``. Each call object is read by a ``CallObjectReader`` (which streams its
/// arguments when the rules say so).
///
/// Most formats call ``read(_:actions:)``, which also settles every element as the formats
/// agree: an object that holds a call (``call()``) is reported, one that holds none is
/// rejected alone, a too-deep element is rejected as `tooLarge`; what is left to the format is
/// the list's end and a list that turned malformed. A format with rules of its own for
/// elements (llama3: bare candidates, Python spellings) calls ``advance(_:actions:)``, which
/// hands it every element object (``Step/object(end:)``) and every stop.
///
/// A stored property of its grammar (never an enum payload), so that it mutates in place.
struct CallListReader: Sendable {
    /// What ``read(_:actions:)`` leaves to the owner.
    enum Outcome {
        /// Every byte received so far is read.
        case needMore
        /// The list ended: `end` is one past its `]` (or, for a lone object, past its `}`).
        case end(Int)
        /// The list is not list syntax, or not JSON, from `at`: `detail` says why.
        case malformed(String, at: Int)
        /// An element nested past the cap was rejected (`tooLarge`): the decoder skips the rest.
        case skip
    }

    /// What the reader stopped at. After any step but `needMore` the owner may call
    /// ``advance(_:actions:)`` again to go on (after `end`, `unexpected`, `error` and `tooDeep`
    /// the list is over). A step carries no reference (it is returned on every chunk): the
    /// object and an error's message are the reader's ``object`` and ``errorMessage``.
    enum Step {
        /// Every byte received so far is read.
        case needMore
        /// An element that is a complete JSON object (``object``) ended at `end`. If the rules
        /// stream, a call in it may have been started already (``report(_:end:w:actions:)``
        /// then reports only its `accept`).
        case object(end: Int)
        /// The list ended: `end` is one past its `]` (or, for a lone object, past its `}`).
        case end(Int)
        /// A byte at `at` that is not list syntax.
        case unexpected(Expected, at: Int)
        /// Not JSON at `at` inside an element (``errorMessage`` says why).
        case error(at: Int)
        /// An element deeper than the nesting cap.
        case tooDeep(at: Int)
    }

    /// What the list wanted where it found something else.
    enum Expected: Sendable {
        /// An element (or `]`).
        case element
        /// `,` or `]` after an element.
        case separator

        var detail: String {
            switch self {
            case .element: return "expected a call object in the list"
            case .separator: return "expected ',' or ']' in the call list"
            }
        }
    }

    private enum State: Sendable {
        /// Where an element begins: white space, then `{` (or `]` when allowed).
        case element(first: Bool)
        /// Reading a call object (``reader``).
        case object
        /// Reading an element that is not an object (``skipper``), rejected on its own.
        case skipping
        /// An element object that is not JSON (``errorMessage``): finding its end to reject it
        /// alone (``recover(_:actions:)``).
        case recovering
        /// After an element: `,`, `]`, or (when allowed) another object.
        case next
        /// The list (or the lone object) has ended.
        case ended
    }

    /// What is owed for the element before a separator, with ``CallListRules/acceptsAtSeparator``.
    private enum Pending: Sendable {
        case none
        case accept(CanonicalJSON)
        case reject(String)
    }

    private(set) var rules: CallListRules
    /// The cursor: the next byte to read.
    private(set) var pos: Int
    /// How many elements have begun.
    private(set) var count = 0
    /// The end of the last element settled (a call accepted, an element rejected), 0 before.
    private(set) var settledEnd = 0
    private var state: State
    private var maxDepth: Int
    private var lone: Bool
    private var pending = Pending.none
    private var reader: CallObjectReader
    /// The last element that was a complete object.
    private(set) var object = ParsedCallObject(hasArgumentsKey: false)
    /// Why the last ``Step/error(at:)`` was reported.
    private(set) var errorMessage = ""
    private var skipper = JSONTextReader()
    /// Where the current element object began (its `{`).
    private var elementStart = 0
    /// The bracket matcher of ``State/recovering``.
    private var recoverDepth = 0
    private var recoverInString = false
    private var recoverEscaped = false

    /// Reads a list whose `[` ends just before `pos`. (A grammar keeps one reader and begins
    /// it again at every frame: it is reset in place, not rebuilt.)
    mutating func begin(at pos: Int, rules: CallListRules, maxDepth: Int) {
        reset(at: pos, rules: rules, maxDepth: maxDepth, lone: false)
    }

    /// Reads one call object at `pos` (its `{`) where the list belongs; its end ends the "list".
    mutating func begin(loneObjectAt pos: Int, rules: CallListRules, maxDepth: Int) {
        reset(at: pos, rules: rules, maxDepth: maxDepth, lone: true)
    }

    private mutating func reset(at pos: Int, rules: CallListRules, maxDepth: Int, lone: Bool) {
        self.pos = pos
        self.rules = rules
        self.maxDepth = maxDepth
        self.lone = lone
        count = 0
        settledEnd = 0
        pending = .none
        state = .element(first: true)
        // A list's object reader is made at its first element.
        if lone { beginObject() }
    }

    private init() {
        self.pos = 0
        self.rules = CallListRules()
        self.maxDepth = 0
        self.lone = false
        self.state = .element(first: true)
        self.reader = CallObjectReader(at: 0, streaming: false, maxDepth: 0)
    }

    /// An empty reader, for a grammar's stored property before its first frame.
    static let idle = CallListReader()

    /// Whether the reader is between an element and the separator after it.
    var isAfterElement: Bool {
        if case .next = state { return true }
        return false
    }

    /// Whether a call object is being read.
    var isInObject: Bool {
        if case .object = state { return true }
        return false
    }

    /// The name of the object being read, once known.
    var knownName: String? { reader.knownName }

    /// The owner read an element itself (one the list syntax does not know, ending at `end`):
    /// the list goes on after it.
    mutating func resume(after end: Int) {
        pos = end
        state = .next
    }

    @inline(__always)
    mutating func advance(_ w: ByteWindow, actions: inout [GrammarAction]) -> Step {
        while true {
            switch state {
            case .element(let first):
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                if b == UInt8(ascii: "{") {
                    beginObject()
                } else if b == UInt8(ascii: "]") && (first || rules.trailingComma) {
                    pos += 1
                    state = .ended
                    return .end(pos)
                } else if rules.rejectsNonObjectsAlone && b != UInt8(ascii: "]")
                    && !(first && rules.leavesNamesToOwner && PythonCallReader.isNameStart(b))
                {
                    // Not a call object (`"junk"`, a number): rejected on its own; the calls
                    // around it stand.
                    if rules.acceptsAtSeparator { actions.append(.markup(end: pos)) }
                    count += 1
                    skipper = JSONTextReader(maxDepth: maxDepth)
                    state = .skipping
                } else {
                    return .unexpected(.element, at: pos)
                }
            case .object:
                let result = reader.advance(w, actions: &actions)
                pos = reader.pos
                switch result {
                case .needMore:
                    return .needMore
                case .tooDeep(let at):
                    state = .ended
                    return .tooDeep(at: at)
                case .error(let m, let at):
                    errorMessage = m
                    guard rules.rejectsNonObjectsAlone && !lone else {
                        state = .ended
                        return .error(at: at)
                    }
                    // Elements stand alone: this one is rejected, its neighbours stand, once
                    // its end is found.
                    pos = elementStart
                    recoverDepth = 0
                    recoverInString = false
                    recoverEscaped = false
                    state = .recovering
                case .complete(let call, let end):
                    pos = end
                    state = lone ? .ended : .next
                    object = call
                    return .object(end: end)
                }
            case .skipping:
                switch skipper.advance(w, from: &pos, to: w.end) {
                case .needMore:
                    // A top-level number ends only at a delimiter: the byte after it says it did.
                    guard skipper.isInTopLevelNumber, pos < w.end else { return .needMore }
                    _ = skipper.finishTopLevelNumber()
                    rejectAlone(Self.notAnObject, end: pos, actions: &actions)
                    state = .next
                case .complete(_, let end):
                    rejectAlone(Self.notAnObject, end: end, actions: &actions)
                    state = .next
                case .valueStart, .valueEnd:
                    continue
                case .error(let m, _):
                    state = .ended
                    errorMessage = m
                    return .error(at: pos)
                case .tooDeep(let at):
                    state = .ended
                    return .tooDeep(at: at)
                }
            case .recovering:
                switch recover(w) {
                case .some(true):
                    rejectAlone(errorMessage, end: pos, actions: &actions)
                    state = .next
                case .some(false):
                    state = .ended
                    return .error(at: pos)
                case .none:
                    return .needMore
                }
            case .next:
                pos = w.skipSpace(from: pos)
                guard pos < w.end else { return .needMore }
                let b = w[pos]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "]") {
                    settlePending(end: pos, actions: &actions)
                    pos += 1
                    if b == UInt8(ascii: ",") {
                        state = .element(first: false)
                    } else {
                        state = .ended
                        return .end(pos)
                    }
                } else if b == UInt8(ascii: "{") && rules.missingComma {
                    settlePending(end: pos, actions: &actions)
                    beginObject()
                } else {
                    pending = .none
                    state = .ended
                    return .unexpected(.separator, at: pos)
                }
            case .ended:
                return .end(pos)
            }
        }
    }

    /// Finds the end of an element object that is not JSON, from its `{`: the bracket that
    /// closes it, strings (and their escapes) read as strings, every other byte passed over
    /// (`{"time": 15:30}` ends at its `}`). True with `pos` after that bracket; false, `pos` at
    /// the byte, at a `<` outside a string (markup: the list's end marker or the next call
    /// marker, never JSON) or past the nesting cap, where the rest of the frame is malformed;
    /// nil for more bytes. Each byte of the element is read once more here, no more.
    private mutating func recover(_ w: ByteWindow) -> Bool? {
        while pos < w.end {
            let b = w[pos]
            if recoverInString {
                if recoverEscaped {
                    recoverEscaped = false
                } else if b == UInt8(ascii: "\\") {
                    recoverEscaped = true
                } else if b == UInt8(ascii: "\"") {
                    recoverInString = false
                }
            } else {
                switch b {
                case UInt8(ascii: "\""):
                    recoverInString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    recoverDepth += 1
                    if recoverDepth > maxDepth { return false }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    recoverDepth -= 1
                    if recoverDepth <= 0 {
                        pos += 1
                        return true
                    }
                case UInt8(ascii: "<"):
                    return false
                default:
                    break
                }
            }
            pos += 1
        }
        return nil
    }

    private mutating func beginObject() {
        elementStart = pos
        count += 1
        reader = CallObjectReader(at: pos, streaming: rules.streams, maxDepth: maxDepth, keys: rules.keys)
        state = .object
    }

    private mutating func settlePending(end: Int, actions: inout [GrammarAction]) {
        switch pending {
        case .none: break
        case .accept(let arguments): actions.append(.accept(arguments: arguments, end: end))
        case .reject(let detail): actions.append(.reject(.malformed, detail: detail, end: end))
        }
        if case .none = pending {} else { settledEnd = end }
        pending = .none
    }

    /// The call the last object (``object``) holds by the rules: a name, and arguments that are
    /// an object (or `{}` for a name-only object when ``CallListRules/nameOnlyIsCall``); nil
    /// when it holds none.
    func call() -> (name: String, arguments: CanonicalJSON)? {
        guard let name = object.name else { return nil }
        let arguments = object.arguments ?? (object.hasArgumentsKey || !rules.nameOnlyIsCall ? nil : .object([]))
        guard let arguments, arguments.isObject else { return nil }
        return (name, arguments)
    }

    /// Reports the last object's call: `start` and its whole arguments if they did not
    /// stream, then its `accept`, at `end` or, with ``CallListRules/acceptsAtSeparator``, at
    /// the separator that follows.
    mutating func report(_ call: (name: String, arguments: CanonicalJSON), end: Int,
                         w: ByteWindow, actions: inout [GrammarAction]) {
        if !reader.started {
            reader.reportUnstarted(object, name: call.name, arguments: call.arguments, w: w, actions: &actions)
        }
        object = ParsedCallObject(hasArgumentsKey: false)  // not held past its call
        if rules.acceptsAtSeparator {
            pending = .accept(call.arguments)
        } else {
            actions.append(.accept(arguments: call.arguments, end: end))
            settledEnd = end
        }
    }

    /// Reads on, settling elements as the formats agree (see the type's summary), up to what
    /// the owner decides: the end of the bytes, the list's end, a malformed list, a skip.
    @inline(__always)
    mutating func read(_ w: ByteWindow, actions: inout [GrammarAction]) -> Outcome {
        while true {
            switch advance(w, actions: &actions) {
            case .needMore:
                return .needMore
            case .object(let end):
                if let call = call() {
                    report(call, end: end, w: w, actions: &actions)
                } else {
                    rejectAlone(notACallDetail, end: end, actions: &actions)
                }
            case .end(let end):
                return .end(end)
            case .unexpected(let expected, let at):
                return .malformed(expected.detail, at: at)
            case .error(let at):
                return .malformed(errorMessage, at: at)
            case .tooDeep(let at):
                actions.append(.reject(.tooLarge, detail: nestingTooDeep(maxDepth), end: at))
                return .skip
            }
        }
    }

    /// Why the last object holds no call.
    var notACallDetail: String {
        if object.name == nil { return "the call object has no name" }
        return object.hasArgumentsKey ? "the arguments are not a JSON object" : "the call object has no arguments"
    }

    private static let notAnObject = "a list element that is not a call object"

    /// Rejects the element that ended at `end` (`malformed`, `detail`) on its own: its
    /// neighbours stand. With ``CallListRules/acceptsAtSeparator`` the rejection is reported
    /// at the separator that follows.
    mutating func rejectAlone(_ detail: String, end: Int, actions: inout [GrammarAction]) {
        object = ParsedCallObject(hasArgumentsKey: false)
        if rules.acceptsAtSeparator {
            pending = .reject(detail)
        } else {
            actions.append(.reject(.malformed, detail: detail, end: end))
            settledEnd = end
        }
    }

    /// The stream ended after an element whose call is accepted at its separator: it is
    /// accepted at `end`. False when no call was owed (nothing is reported).
    mutating func acceptPending(end: Int, actions: inout [GrammarAction]) -> Bool {
        guard case .accept(let arguments) = pending else { return false }
        actions.append(.accept(arguments: arguments, end: end))
        pending = .none
        return true
    }

    /// Inside a string of a streamed call's arguments: the run the decoder may forward.
    func passThrough(at end: Int) -> PassThrough? {
        guard case .object = state else { return nil }
        return reader.passThrough(at: end)
    }

    mutating func takePassThrough(_ count: Int, _ w: ByteWindow) {
        reader.takePassThrough(count, w)
        pos = reader.pos
    }
}
