// ToolCallKit — response templates: a regular-expression matcher that runs in linear time.

/// Why a pattern cannot run in ``LinearRegex``: the construct, in words.
struct LinearRegexError: Error, Sendable {
    let construct: String
}

/// A regular expression matched by simulating all its paths at once (a Pike VM): the first
/// match in PCRE2's order (leftmost, then the preferred alternative and repetition count at
/// each choice), with its capture groups, in time proportional to the bytes read times the
/// program's size, whatever the pattern and the text.
///
/// PCRE2 backtracks, and a pattern such as `\s*(?P<value>.*?)\s*</p>` costs the cube of a
/// run of white space there. xml-inline's `tag_pattern` is matched over a whole region, so it
/// runs here instead, with PCRE2's meaning of every construct it accepts (UTF-8, `.` matching
/// newlines, Unicode classes as PCRE2's UCP option defines them: `\d` is `\p{Nd}`, `\w` is
/// `\p{L}`, `\p{N}` and `_`, `\s` is `\p{Z}`, `\h` and `\v`).
///
/// Accepted: literals and escapes (`\n`, `\t`, `\x{…}`, `\Q…\E`, escaped punctuation),
/// classes (ranges, negation, `\d \w \s \h \v` and their negations), `.`, `\N`, groups
/// (capturing, named, non-capturing, `(?s)`, `(?m)` and their scoped and negated forms),
/// alternation, greedy and lazy quantifiers, `^ $ \A \z \Z \b \B`. Refused (the initializer
/// throws, naming it): lookarounds, back references, atomic groups, possessive quantifiers,
/// recursion, conditionals, verbs, Unicode properties, POSIX classes, `(?i)`, `(?x)` and a
/// repeated capturing group that can match the empty string: constructs a linear-time
/// simulation cannot express (or not with PCRE2's captures), or that we have not written.
struct LinearRegex: Sendable {
    enum Assertion: Sendable {
        case textStart, textEnd, endOrFinalNewline, lineStart, lineEnd, wordBoundary, notWordBoundary
    }

    enum Inst: Sendable {
        case scalar(UInt32)
        case set(Int)
        case any
        case anyButNewline
        case split(Int, Int)
        case jump(Int)
        case save(Int)
        case assert(Assertion)
        case match
    }

    let program: [Inst]
    let sets: [RegexClass]
    /// The bytes a match can begin with, when every match begins with one of a few literal
    /// scalars (nil otherwise): positions that begin with none of them start no match.
    let firstBytes: ByteSet?
    /// Capture groups, group 0 (the whole match) included.
    let groupCount: Int
    /// Named groups: name to number.
    let names: [String: Int]

    /// The most instructions a pattern may compile to (counted repetition is written out).
    static let maxProgram = 20_000

    init(_ source: String) throws(LinearRegexError) {
        var parser = Parser(Array(source.unicodeScalars))
        let node = try parser.parseAll()
        var compiler = Compiler(sets: parser.sets)
        compiler.emit(.save(0))
        try compiler.compile(node)
        compiler.emit(.save(1))
        compiler.emit(.match)
        program = compiler.program
        sets = parser.sets
        firstBytes = Self.firstBytes(compiler.program)
        groupCount = parser.groupCount + 1
        names = parser.names
    }

    /// The first bytes of the scalars every match must begin with, by following the paths
    /// from the start that read nothing; nil when one of them reads a class or any scalar, or
    /// reaches the end (an empty match), or passes an assertion.
    static func firstBytes(_ program: [Inst]) -> ByteSet? {
        var seen = Set<Int>()
        var work = [0]
        var bytes: [UInt8] = []
        while let pc = work.popLast() {
            guard seen.insert(pc).inserted else { continue }
            switch program[pc] {
            case .scalar(let c):
                guard let u = Unicode.Scalar(c) else { return nil }
                bytes.append(Array(String(u).utf8)[0])
            case .split(let a, let b): work += [a, b]
            case .jump(let to): work.append(to)
            case .save: work.append(pc + 1)
            default: return nil
            }
        }
        return ByteSet(bytes)
    }

    // MARK: - Matching

    /// The first match in `text` (well-formed UTF-8) that starts at or after `from`: the byte
    /// ranges of its groups (group 0 first; nil for a group that took no part), or nil.
    /// Each instruction a thread runs costs one unit of `budget`; when it runs out the search
    /// stops and throws.
    func firstMatch(in text: [UInt8], from: Int, budget: inout Int) throws(LinearRegexError) -> [Range<Int>?]? {
        let slots = 2 * groupCount
        var current = Threads(program.count, slots)
        var next = Threads(program.count, slots)
        var scratch = [Int](repeating: -1, count: slots)
        var stack: [(pc: Int, restore: Int, value: Int)] = []
        stack.reserveCapacity(16)
        var best: [Int]?
        var pos = from
        var prev: UInt32? = from > 0 ? Self.scalar(before: from, in: text) : nil
        var (cur, width) = Self.scalar(at: pos, in: text)
        let end = text.count
        while true {
            if best == nil, current.count == 0, let firstBytes, cur != nil {
                // No thread alive: go to the next byte that can begin a match.
                var i = pos
                while i < end && !firstBytes.contains(text[i]) { i += 1 }
                if i == end { return nil }
                if i != pos {
                    pos = i
                    prev = Self.scalar(before: i, in: text)
                    (cur, width) = Self.scalar(at: i, in: text)
                }
            }
            if best == nil {
                for k in 0..<slots { scratch[k] = -1 }
                try add(&current, 0, &scratch, &stack, at: pos, end: end, prev: prev, cur: cur, budget: &budget)
            }
            let nextPos = pos + width
            let (after, afterWidth) = cur == nil ? (nil, 0) : Self.scalar(at: nextPos, in: text)
            if current.count == 0 && best != nil { break }
            next.clear()
            var t = 0
            step: while t < current.count {
                let pc = current.pcs[t]
                budget -= 1
                if budget < 0 { throw LinearRegexError(construct: "more steps than the budget") }
                switch program[pc] {
                case .match:
                    best = Array(current.slots[(t * slots)..<((t + 1) * slots)])
                    // Threads after this one are preferred less: they are dropped.
                    break step
                case .scalar(let c):
                    if let cur, cur == c { try copy(current, t, into: &next, pc + 1, &scratch, &stack, nextPos, end, cur, after, &budget) }
                case .set(let k):
                    if let cur, sets[k].contains(cur) {
                        try copy(current, t, into: &next, pc + 1, &scratch, &stack, nextPos, end, cur, after, &budget)
                    }
                case .any:
                    if let cur { try copy(current, t, into: &next, pc + 1, &scratch, &stack, nextPos, end, cur, after, &budget) }
                case .anyButNewline:
                    if let cur, cur != 0x0A { try copy(current, t, into: &next, pc + 1, &scratch, &stack, nextPos, end, cur, after, &budget) }
                default:
                    break
                }
                t += 1
            }
            swap(&current, &next)
            if cur == nil || (best != nil && current.count == 0) { break }
            prev = cur
            pos = nextPos
            cur = after
            width = afterWidth
        }
        guard let best else { return nil }
        return (0..<groupCount).map { g in best[2 * g] >= 0 && best[2 * g + 1] >= 0 ? best[2 * g]..<best[2 * g + 1] : nil }
    }

    /// Adds the thread of `from`'s slots that moved past a scalar, at `pc`.
    private func copy(
        _ from: Threads, _ t: Int, into list: inout Threads, _ pc: Int, _ scratch: inout [Int],
        _ stack: inout [(pc: Int, restore: Int, value: Int)], _ pos: Int, _ end: Int, _ prev: UInt32?, _ cur: UInt32?,
        _ budget: inout Int
    ) throws(LinearRegexError) {
        let slots = scratch.count
        for k in 0..<slots { scratch[k] = from.slots[t * slots + k] }
        try add(&list, pc, &scratch, &stack, at: pos, end: end, prev: prev, cur: cur, budget: &budget)
    }

    /// Follows every path from `pc` that reads no scalar (jumps, splits in order of
    /// preference, saves, assertions that hold at `pos`) and adds the threads where they
    /// stop, each instruction once per position.
    private func add(
        _ list: inout Threads, _ start: Int, _ caps: inout [Int], _ stack: inout [(pc: Int, restore: Int, value: Int)],
        at pos: Int, end: Int, prev: UInt32?, cur: UInt32?, budget: inout Int
    ) throws(LinearRegexError) {
        // A work list: an instruction to visit, or a slot to restore once the paths after a
        // save are done.
        stack.removeAll(keepingCapacity: true)
        stack.append((start, -1, 0))
        while let top = stack.popLast() {
            if top.restore >= 0 {
                caps[top.restore] = top.value
                continue
            }
            let pc = top.pc
            if list.seen[pc] == list.generation { continue }
            list.seen[pc] = list.generation
            budget -= 1
            if budget < 0 { throw LinearRegexError(construct: "more steps than the budget") }
            switch program[pc] {
            case .jump(let to):
                stack.append((to, -1, 0))
            case .split(let a, let b):
                stack.append((b, -1, 0))
                stack.append((a, -1, 0))
            case .save(let k):
                stack.append((-1, k, caps[k]))
                caps[k] = pos
                stack.append((pc + 1, -1, 0))
            case .assert(let a):
                if holds(a, prev: prev, cur: cur, finalNewline: cur == 0x0A && pos + 1 == end) { stack.append((pc + 1, -1, 0)) }
            default:
                list.append(pc, caps)
            }
        }
    }

    private func holds(_ a: Assertion, prev: UInt32?, cur: UInt32?, finalNewline: Bool) -> Bool {
        switch a {
        case .textStart: return prev == nil
        case .textEnd: return cur == nil
        case .endOrFinalNewline:
            // The end, or a newline that is the last character (PCRE2's `$` and `\Z`).
            return cur == nil || finalNewline
        case .lineStart: return prev == nil || (prev == 0x0A && cur != nil)
        case .lineEnd: return cur == nil || cur == 0x0A
        case .wordBoundary: return Self.isWord(prev) != Self.isWord(cur)
        case .notWordBoundary: return Self.isWord(prev) == Self.isWord(cur)
        }
    }

    static func isWord(_ c: UInt32?) -> Bool {
        guard let c else { return false }
        if c == 0x5F { return true }
        if c < 0x80 { return (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) }
        guard let u = Unicode.Scalar(c) else { return false }
        switch u.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    /// The scalar that starts at `i` and its length in bytes (nil at the end).
    @inline(__always)
    static func scalar(at i: Int, in text: [UInt8]) -> (UInt32?, Int) {
        guard i < text.count else { return (nil, 0) }
        let b0 = UInt32(text[i])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(text[i + 1] & 0x3F), 2) }
        if b0 < 0xF0 { return ((b0 & 0x0F) << 12 | UInt32(text[i + 1] & 0x3F) << 6 | UInt32(text[i + 2] & 0x3F), 3) }
        return (
            (b0 & 0x07) << 18 | UInt32(text[i + 1] & 0x3F) << 12 | UInt32(text[i + 2] & 0x3F) << 6 | UInt32(text[i + 3] & 0x3F), 4
        )
    }

    /// The scalar that ends at `i`.
    static func scalar(before i: Int, in text: [UInt8]) -> UInt32? {
        var j = i - 1
        while j > 0 && text[j] & 0xC0 == 0x80 { j -= 1 }
        return scalar(at: j, in: text).0
    }

    /// A list of threads: their instructions in order of preference and their capture slots.
    struct Threads {
        var pcs: [Int] = []
        var slots: [Int] = []
        var count = 0
        let width: Int
        /// `seen[pc] == generation`: the instruction was visited at this position.
        var seen: [Int]
        var generation = 1

        init(_ programSize: Int, _ width: Int) {
            self.width = width
            seen = [Int](repeating: 0, count: programSize)
        }

        mutating func clear() {
            count = 0
            pcs.removeAll(keepingCapacity: true)
            slots.removeAll(keepingCapacity: true)
            generation += 1
        }

        mutating func append(_ pc: Int, _ caps: [Int]) {
            pcs.append(pc)
            slots.append(contentsOf: caps)
            count += 1
        }
    }
}

/// A character class: ranges of scalars and predefined classes, possibly negated.
struct RegexClass: Sendable {
    enum Named: Sendable { case digit, word, space, horizontal, vertical }
    var ranges: [ClosedRange<UInt32>] = []
    var named: [(Named, negated: Bool)] = []
    var negated = false

    func contains(_ c: UInt32) -> Bool {
        var hit = false
        for r in ranges where r.contains(c) {
            hit = true
            break
        }
        if !hit {
            for (n, neg) in named where Self.isMember(c, n) != neg {
                hit = true
                break
            }
        }
        return hit != negated
    }

    /// PCRE2's UCP classes.
    static func isMember(_ c: UInt32, _ n: Named) -> Bool {
        switch n {
        case .digit:
            if c < 0x80 { return c >= 0x30 && c <= 0x39 }
            return Unicode.Scalar(c)?.properties.generalCategory == .decimalNumber
        case .word:
            return LinearRegex.isWord(c)
        case .horizontal:
            switch c {
            case 0x09, 0x20, 0xA0, 0x1680, 0x180E, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return true
            default: return false
            }
        case .vertical:
            switch c {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
            default: return false
            }
        case .space:
            if isMember(c, .horizontal) || isMember(c, .vertical) { return true }
            guard c >= 0x80, let u = Unicode.Scalar(c) else { return false }
            switch u.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }
}

extension LinearRegex {
    indirect enum Node {
        case empty
        case scalar(UInt32)
        case set(Int)
        case any(dotAll: Bool)
        case assert(Assertion)
        case group(Node, capture: Int?)
        case concat([Node])
        case alternation([Node])
        case repetition(Node, min: Int, max: Int?, greedy: Bool)
    }

    /// Reads PCRE2's syntax (the part ``LinearRegex`` accepts) into a tree.
    struct Parser {
        let s: [Unicode.Scalar]
        var i = 0
        var sets: [RegexClass] = []
        var groupCount = 0
        var names: [String: Int] = [:]
        var dotAll = true
        var multiline = false

        init(_ s: [Unicode.Scalar]) { self.s = s }

        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

        mutating func parseAll() throws(LinearRegexError) -> Node {
            let node = try alternation()
            if i < s.count { throw LinearRegexError(construct: "an unbalanced ')'") }
            return node
        }

        mutating func alternation() throws(LinearRegexError) -> Node {
            var branches = [try sequence()]
            while peek() == "|" {
                i += 1
                branches.append(try sequence())
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func sequence() throws(LinearRegexError) -> Node {
            var items: [Node] = []
            // Inline options last to the end of the group they appear in.
            let (savedDot, savedMulti) = (dotAll, multiline)
            defer { (dotAll, multiline) = (savedDot, savedMulti) }
            while let c = peek(), c != "|", c != ")" {
                var atom: Node
                switch c {
                case "(":
                    guard let a = try group() else { continue }
                    atom = a
                case "[":
                    atom = .set(try classAtom())
                case ".":
                    i += 1
                    atom = .any(dotAll: dotAll)
                case "^":
                    i += 1
                    atom = .assert(multiline ? .lineStart : .textStart)
                case "$":
                    i += 1
                    atom = .assert(multiline ? .lineEnd : .endOrFinalNewline)
                case "\\":
                    if peek(1) == "Q" {
                        i += 2
                        while i < s.count && !(s[i] == "\\" && peek(1) == "E") {
                            items.append(.scalar(s[i].value))
                            i += 1
                        }
                        if i < s.count { i += 2 }
                        continue
                    }
                    if peek(1) == "E" {
                        i += 2
                        continue
                    }
                    atom = try escape()
                case "*", "+", "?":
                    throw LinearRegexError(construct: "a quantifier with nothing to repeat")
                default:
                    i += 1
                    atom = .scalar(c.value)
                }
                atom = try quantified(atom)
                items.append(atom)
            }
            return items.count == 1 ? items[0] : items.isEmpty ? .empty : .concat(items)
        }

        mutating func quantified(_ atom: Node) throws(LinearRegexError) -> Node {
            var node = atom
            while let c = peek() {
                var lo = 0
                var hi: Int?
                switch c {
                case "*": lo = 0; hi = nil; i += 1
                case "+": lo = 1; hi = nil; i += 1
                case "?": lo = 0; hi = 1; i += 1
                case "{":
                    guard let (a, b, length) = counted() else { return node }
                    lo = a
                    hi = b
                    i += length
                default:
                    return node
                }
                var greedy = true
                if peek() == "?" {
                    greedy = false
                    i += 1
                } else if peek() == "+" {
                    throw LinearRegexError(construct: "a possessive quantifier")
                }
                if case .assert = node { throw LinearRegexError(construct: "a quantified assertion") }
                node = .repetition(node, min: lo, max: hi, greedy: greedy)
            }
            return node
        }

        /// `{n}`, `{n,}` or `{n,m}` at `i`: the bounds and the length of the text (nil when
        /// it is not a quantifier, so `{` is a literal).
        func counted() -> (Int, Int?, Int)? {
            var j = i + 1
            func number() -> Int? {
                var v = 0
                var digits = 0
                while j < s.count, let d = Int(String(s[j])), s[j].isASCII {
                    v = min(v * 10 + d, 1_000_000)
                    j += 1
                    digits += 1
                }
                return digits > 0 ? v : nil
            }
            guard let lo = number() else { return nil }
            if j < s.count && s[j] == "}" { return (lo, lo, j + 1 - i) }
            guard j < s.count && s[j] == "," else { return nil }
            j += 1
            let hi = number()
            guard j < s.count && s[j] == "}" else { return nil }
            if let hi, hi < lo { return nil }
            return (lo, hi, j + 1 - i)
        }

        mutating func group() throws(LinearRegexError) -> Node? {
            // At "(".
            if peek(1) == "*" { throw LinearRegexError(construct: "a verb or an assertion written (*...)") }
            if peek(1) != "?" {
                i += 1
                groupCount += 1
                let number = groupCount
                let inner = try alternation()
                try close()
                return .group(inner, capture: number)
            }
            guard let k = peek(2) else { throw LinearRegexError(construct: "an unfinished group") }
            switch k {
            case ":":
                i += 3
                let inner = try alternation()
                try close()
                return .group(inner, capture: nil)
            case "#":
                while i < s.count && s[i] != ")" { i += 1 }
                i += 1
                return nil
            case "P" where peek(3) == "<":
                i += 4
                return try named(until: ">")
            case "<" where peek(3) != "=" && peek(3) != "!":
                i += 3
                return try named(until: ">")
            case "'":
                i += 3
                return try named(until: "'")
            case "=", "!": throw LinearRegexError(construct: "a lookahead")
            case "<": throw LinearRegexError(construct: "a lookbehind")
            case ">": throw LinearRegexError(construct: "an atomic group")
            case "|": throw LinearRegexError(construct: "a branch-reset group")
            case "(": throw LinearRegexError(construct: "a conditional group")
            case "P", "&", "R", "0"..."9", "+":
                throw LinearRegexError(construct: "a back reference or recursion")
            case "-" where peek(3).map({ ("0"..."9").contains($0) }) ?? false:
                throw LinearRegexError(construct: "a back reference or recursion")
            default:
                return try options()
            }
        }

        /// `(?flags)` or `(?flags:...)`; only `s` and `m` (and their negation) are accepted.
        mutating func options() throws(LinearRegexError) -> Node? {
            i += 2
            var on = true
            var dot = dotAll
            var multi = multiline
            while let c = peek(), c != ")", c != ":" {
                switch c {
                case "-": on = false
                case "s": dot = on
                case "m": multi = on
                case "i": throw LinearRegexError(construct: "case-insensitive matching (?i)")
                case "x": throw LinearRegexError(construct: "extended mode (?x)")
                default: throw LinearRegexError(construct: "the option (?\(c))")
                }
                i += 1
            }
            guard let end = peek() else { throw LinearRegexError(construct: "an unfinished group") }
            i += 1
            if end == ")" {
                dotAll = dot
                multiline = multi
                return nil
            }
            let (savedDot, savedMulti) = (dotAll, multiline)
            (dotAll, multiline) = (dot, multi)
            let inner = try alternation()
            (dotAll, multiline) = (savedDot, savedMulti)
            try close()
            return .group(inner, capture: nil)
        }

        mutating func named(until terminator: Unicode.Scalar) throws(LinearRegexError) -> Node {
            var name = ""
            while let c = peek(), c != terminator {
                name.unicodeScalars.append(c)
                i += 1
            }
            i += 1
            groupCount += 1
            let number = groupCount
            names[name] = number
            let inner = try alternation()
            try close()
            return .group(inner, capture: number)
        }

        mutating func close() throws(LinearRegexError) {
            guard peek() == ")" else { throw LinearRegexError(construct: "an unclosed group") }
            i += 1
        }

        /// An escape outside a class, at "\".
        mutating func escape() throws(LinearRegexError) -> Node {
            guard let e = peek(1) else { throw LinearRegexError(construct: "a trailing backslash") }
            switch e {
            case "b": i += 2; return .assert(.wordBoundary)
            case "B": i += 2; return .assert(.notWordBoundary)
            case "A": i += 2; return .assert(.textStart)
            case "z": i += 2; return .assert(.textEnd)
            case "Z": i += 2; return .assert(.endOrFinalNewline)
            case "N" where peek(2) != "{": i += 2; return .any(dotAll: false)
            default:
                if let named = Self.namedClass(e) {
                    i += 2
                    var set = RegexClass()
                    set.named = [named]
                    sets.append(set)
                    return .set(sets.count - 1)
                }
                return .scalar(try literalEscape())
            }
        }

        static func namedClass(_ e: Unicode.Scalar) -> (RegexClass.Named, negated: Bool)? {
            switch e {
            case "d": return (.digit, false)
            case "D": return (.digit, true)
            case "w": return (.word, false)
            case "W": return (.word, true)
            case "s": return (.space, false)
            case "S": return (.space, true)
            case "h": return (.horizontal, false)
            case "H": return (.horizontal, true)
            case "v": return (.vertical, false)
            case "V": return (.vertical, true)
            default: return nil
            }
        }

        /// An escape that stands for one character (at "\"); `inClass` reads `\b` as a backspace.
        mutating func literalEscape(inClass: Bool = false) throws(LinearRegexError) -> UInt32 {
            let e = s[i + 1]
            i += 2
            switch e {
            case "n": return 0x0A
            case "t": return 0x09
            case "r": return 0x0D
            case "f": return 0x0C
            case "a": return 0x07
            case "e": return 0x1B
            case "b" where inClass: return 0x08
            case "0":
                var v: UInt32 = 0
                var n = 0
                while n < 2, let c = peek(), ("0"..."7").contains(c) {
                    v = v * 8 + c.value - 0x30
                    i += 1
                    n += 1
                }
                return v
            case "o" where peek() == "{":
                i += 1
                return try hexOrOctal(radix: 8, until: "}")
            case "x":
                if peek() == "{" {
                    i += 1
                    return try hexOrOctal(radix: 16, until: "}")
                }
                var v: UInt32 = 0
                var n = 0
                while n < 2, let c = peek(), c.isASCII, let d = Int(String(c), radix: 16) {
                    v = v * 16 + UInt32(d)
                    i += 1
                    n += 1
                }
                return v
            default:
                if e.isASCII && (e.properties.isAlphabetic || ("1"..."9").contains(e)) {
                    throw LinearRegexError(construct: "the escape \\\(e)")
                }
                return e.value
            }
        }

        mutating func hexOrOctal(radix: Int, until end: Unicode.Scalar) throws(LinearRegexError) -> UInt32 {
            var text = ""
            while let c = peek(), c != end {
                text.unicodeScalars.append(c)
                i += 1
            }
            i += 1
            guard let v = UInt32(text, radix: radix), Unicode.Scalar(v) != nil else {
                throw LinearRegexError(construct: "the character code \(text)")
            }
            return v
        }

        /// A class, at "[": the index of its set.
        mutating func classAtom() throws(LinearRegexError) -> Int {
            i += 1
            var set = RegexClass()
            if peek() == "^" {
                set.negated = true
                i += 1
            }
            var first = true
            while let c = peek(), c != "]" || first {
                first = false
                if c == "[" && (peek(1) == ":" || peek(1) == "." || peek(1) == "=") {
                    throw LinearRegexError(construct: "a POSIX class")
                }
                var lo: UInt32
                if c == "\\" {
                    guard let e = peek(1) else { throw LinearRegexError(construct: "a trailing backslash") }
                    if let named = Self.namedClass(e) {
                        set.named.append(named)
                        i += 2
                        continue
                    }
                    if e == "Q" {
                        i += 2
                        while i < s.count && !(s[i] == "\\" && peek(1) == "E") {
                            set.ranges.append(s[i].value...s[i].value)
                            i += 1
                        }
                        if i < s.count { i += 2 }
                        continue
                    }
                    if e == "E" {
                        i += 2
                        continue
                    }
                    lo = try literalEscape(inClass: true)
                } else {
                    lo = c.value
                    i += 1
                }
                // A range, unless the `-` ends the class.
                if peek() == "-", let after = peek(1), after != "]" {
                    i += 1
                    var hi: UInt32
                    if after == "\\" {
                        if let e = peek(1), Self.namedClass(e) != nil {
                            throw LinearRegexError(construct: "a range that ends in a class escape")
                        }
                        hi = try literalEscape(inClass: true)
                    } else {
                        hi = after.value
                        i += 1
                    }
                    guard lo <= hi else { throw LinearRegexError(construct: "an inverted range") }
                    set.ranges.append(lo...hi)
                } else {
                    set.ranges.append(lo...lo)
                }
            }
            guard peek() == "]" else { throw LinearRegexError(construct: "an unclosed class") }
            i += 1
            sets.append(set)
            return sets.count - 1
        }
    }

    /// Writes a tree as instructions.
    struct Compiler {
        /// Whether `node` can match the empty string.
        static func nullable(_ node: Node) -> Bool {
            switch node {
            case .empty, .assert: return true
            case .scalar, .set, .any: return false
            case .group(let inner, _): return nullable(inner)
            case .concat(let items): return items.allSatisfy(nullable)
            case .alternation(let branches): return branches.contains(where: nullable)
            case .repetition(let inner, let lo, _, _): return lo == 0 || nullable(inner)
            }
        }

        /// Whether `node` holds a capturing group.
        static func captures(_ node: Node) -> Bool {
            switch node {
            case .empty, .assert, .scalar, .set, .any: return false
            case .group(let inner, let capture): return capture != nil || captures(inner)
            case .concat(let items): return items.contains(where: captures)
            case .alternation(let branches): return branches.contains(where: captures)
            case .repetition(let inner, _, _, _): return captures(inner)
            }
        }

        var program: [Inst] = []
        let sets: [RegexClass]

        init(sets: [RegexClass]) { self.sets = sets }

        mutating func emit(_ inst: Inst) { program.append(inst) }

        mutating func compile(_ node: Node) throws(LinearRegexError) {
            if program.count > LinearRegex.maxProgram {
                throw LinearRegexError(construct: "repetition counts that make it more than \(LinearRegex.maxProgram) steps long")
            }
            switch node {
            case .empty:
                break
            case .scalar(let c):
                emit(.scalar(c))
            case .set(let k):
                emit(.set(k))
            case .any(let dotAll):
                emit(dotAll ? .any : .anyButNewline)
            case .assert(let a):
                emit(.assert(a))
            case .group(let inner, let capture):
                if let n = capture { emit(.save(2 * n)) }
                try compile(inner)
                if let n = capture { emit(.save(2 * n + 1)) }
            case .concat(let items):
                for item in items { try compile(item) }
            case .alternation(let branches):
                // split L1, next; L1: a; jump end; next: split L2, ... ; last branch.
                var jumps: [Int] = []
                for (k, branch) in branches.enumerated() {
                    if k < branches.count - 1 {
                        let split = program.count
                        emit(.split(split + 1, -1))
                        try compile(branch)
                        jumps.append(program.count)
                        emit(.jump(-1))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try compile(branch)
                    }
                }
                for j in jumps { program[j] = .jump(program.count) }
            case .repetition(let inner, let lo, let hi, let greedy):
                if (hi ?? 2) > 1 && Self.nullable(inner) && Self.captures(inner) {
                    // PCRE2 lets such a group match empty once more and keeps that capture; a
                    // simulation that visits each step once per position cannot.
                    throw LinearRegexError(construct: "a repeated capturing group that can match the empty string")
                }
                for _ in 0..<lo { try compile(inner) }
                if let hi {
                    // Up to hi - lo more, each optional: split into the copy or past all.
                    var exits: [Int] = []
                    for _ in lo..<hi {
                        let split = program.count
                        emit(.split(-1, -1))
                        exits.append(split)
                        try compile(inner)
                        if program.count > LinearRegex.maxProgram {
                            throw LinearRegexError(
                                construct: "repetition counts that make it more than \(LinearRegex.maxProgram) steps long")
                        }
                    }
                    for split in exits {
                        program[split] = greedy ? .split(split + 1, program.count) : .split(program.count, split + 1)
                    }
                } else {
                    // L: split body, out; body; jump L; out.
                    let split = program.count
                    emit(.split(-1, -1))
                    try compile(inner)
                    emit(.jump(split))
                    program[split] = greedy ? .split(split + 1, program.count) : .split(program.count, split + 1)
                }
            }
        }
    }
}
