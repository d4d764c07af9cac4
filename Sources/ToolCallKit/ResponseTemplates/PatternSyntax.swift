// ToolCallKit — response templates: what a pattern's source says about how it can run.

/// A light reading of a pattern's source (PCRE2 syntax, after ``ResponseTemplate/translate(_:)``):
/// the constructs that decide whether a pattern can run over a stream whose chunks are cut
/// anywhere, found without compiling it (PCRE2 reports none of them).
///
/// Escapes (`\x`, `\Q…\E`), character classes (`[…]`, POSIX classes inside them) and comments
/// (`(?#…)`) are stepped over, so a `\G` inside a class or a quoted run does not count. In
/// extended mode (`(?x)`) a `#` comment is read as pattern text: a construct written there is
/// counted (a refusal on the safe side, never a miss).
struct PatternSyntax {
    /// `\G`: matches where the search began, which a stream's scan sets by where it was cut.
    var startOfSearch = false
    /// `\K`: moves the reported start of a match after where its search began.
    var resetsStart = false
    /// `(*COMMIT)`: a failure after it ends the whole search, not only the current attempt, so
    /// what a search finds depends on where it began.
    var commit = false
    /// Lookbehind groups (`(?<=`, `(?<!`, and the `(*plb:`-style spellings).
    var lookbehinds = 0
    /// The whole pattern is one lookahead, `(?=…)` or `(?!…)`: its matches are empty, and
    /// what it decides is what follows.
    var isLookahead = false

    init(_ source: String) {
        let s = Array(source.unicodeScalars)
        var i = 0
        func at(_ k: Int) -> Unicode.Scalar? { k < s.count ? s[k] : nil }
        // Group depth, to see whether a lookahead that opens the pattern closes at its end.
        var depth = 0
        var lookaheadCloses: Int?
        let opensWithLookahead = s.count >= 3 && s[0] == "(" && s[1] == "?" && (s[2] == "=" || s[2] == "!")
        while i < s.count {
            let c = s[i]
            switch c {
            case ")":
                depth -= 1
                if depth == 0 && lookaheadCloses == nil { lookaheadCloses = i }
                i += 1
            case "\\":
                guard let e = at(i + 1) else { return }
                if e == "Q" {
                    // A quoted run: everything up to `\E` (or the end) is literal.
                    i += 2
                    while i < s.count && !(s[i] == "\\" && at(i + 1) == "E") { i += 1 }
                    i += 2
                    continue
                }
                if e == "G" { startOfSearch = true }
                if e == "K" { resetsStart = true }
                i += 2
            case "[":
                i = Self.skipClass(s, from: i)
            case "(":
                if at(i + 1) == "?" {
                    if at(i + 2) == "#" {
                        while i < s.count && s[i] != ")" { i += 1 }
                        i += 1
                        continue
                    }
                    if at(i + 2) == "<", let d = at(i + 3), d == "=" || d == "!" { lookbehinds += 1 }
                    depth += 1
                    i += 2
                } else if at(i + 1) == "*" {
                    var j = i + 2
                    var name = ""
                    while j < s.count, s[j] != ")", s[j] != ":" {
                        name.unicodeScalars.append(s[j])
                        j += 1
                    }
                    switch name.uppercased() {
                    case "COMMIT": commit = true
                    case "PLB", "NLB", "NAPLB", "POSITIVE_LOOKBEHIND", "NEGATIVE_LOOKBEHIND",
                        "NON_ATOMIC_POSITIVE_LOOKBEHIND":
                        lookbehinds += 1
                    default: break
                    }
                    let verbs: Set<String> = ["", "ACCEPT", "FAIL", "F", "MARK", "COMMIT", "PRUNE", "SKIP", "THEN"]
                    if j < s.count && s[j] == ":" && !verbs.contains(name.uppercased()) {
                        // `(*pla:`, `(*atomic:` ...: a group.
                        depth += 1
                        i = j + 1
                    } else {
                        // A verb or a start-of-pattern setting: one item up to its `)`.
                        while j < s.count && s[j] != ")" { j += 1 }
                        i = j + 1
                    }
                } else {
                    depth += 1
                    i += 1
                }
            default:
                i += 1
            }
        }
        isLookahead = opensWithLookahead && lookaheadCloses == s.count - 1
    }

    /// The index after the class that opens at `from` (`[`): a `]` right after `[` or `[^` is a
    /// member, escapes are stepped over, and `[:name:]` is one member.
    static func skipClass(_ s: [Unicode.Scalar], from: Int) -> Int {
        var i = from + 1
        if i < s.count && s[i] == "^" { i += 1 }
        if i < s.count && s[i] == "]" { i += 1 }
        while i < s.count {
            switch s[i] {
            case "\\":
                if i + 1 < s.count && s[i + 1] == "Q" {
                    i += 2
                    while i < s.count && !(s[i] == "\\" && i + 1 < s.count && s[i + 1] == "E") { i += 1 }
                    i += 2
                } else {
                    i += 2
                }
            case "[" where i + 1 < s.count && (s[i + 1] == ":" || s[i + 1] == "." || s[i + 1] == "="):
                let kind = s[i + 1]
                var j = i + 2
                while j + 1 < s.count && !(s[j] == kind && s[j + 1] == "]") { j += 1 }
                i = j + 2
            case "]":
                return i + 1
            default:
                i += 1
            }
        }
        return i
    }

    /// Why an anchor pattern cannot run over a stream with the same result at every chunking,
    /// or nil when it can.
    var anchorProblem: String? {
        if startOfSearch {
            return "uses \\G, which matches where a search begins; over a stream that depends on where the input was cut"
        }
        if resetsStart {
            return "uses \\K, which reports a match starting after where it began; anchors must report their whole match"
        }
        if commit {
            return "uses (*COMMIT), whose failure ends the whole search; over a stream that depends on where the input was cut"
        }
        return nil
    }
}
