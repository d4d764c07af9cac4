// ToolCallKit — the tables behind format inference: declarations, template signatures, tokens, configs.

/// Chat-template signatures: each format declares its own with a rank (``InferenceDeclaration``),
/// and they are tried lowest rank first across all formats.
///
/// Ranks matter: a Qwen3-Coder template contains `<tool_call>` (the json signature) as well as
/// `<function=`, and a Gemma 4 template's `<|tool_call>` must not be read as another format's
/// marker. Formats this package does not parse come before the generic json and llama3
/// signatures, so a Harmony template is named as such, never guessed as one of ours.
///
/// A signature is literal text, searched for byte by byte, plus at most a check of what lies
/// right after it: no regular expression, so nothing can give up at a backtracking limit
/// and turn a template's answer into "no match", and the time is linear in the template
/// whatever it holds (a megabyte of text after a marker, thousands of spaces inside one).
enum TemplateSignatures {
    /// One thing a template must contain.
    enum Probe: Sendable {
        /// One of these texts occurs.
        case literal([String])
        /// `first`, then nothing but white space or the two characters `\n` (a newline
        /// escaped inside a template string), then `second`.
        case adjacent(String, String)
        /// `first`, then the next `>` (the end of the tag `first` opens), then, anywhere
        /// after it, `second`.
        case tagThen(String, String)
    }

    struct Signature: Sendable {
        let rank: Int
        let verdict: Verdict
        /// Every probe must be found.
        let probes: [Probe]
        let what: String
    }

    struct Hit {
        let verdict: Verdict
        let description: String
    }

    /// Every format's signatures, by rank (the order of the formats breaks ties).
    static let table: [Signature] = {
        var all: [Signature] = []
        for f in ToolCallFormat.allCases + ToolCallFormat.variants {
            all += f.definition.inference.templates.map {
                Signature(rank: $0.rank, verdict: .format(f), probes: $0.probes, what: $0.what)
            }
        }
        return stableSorted(all, by: \.rank)
    }()

    /// The first signature every probe of which is found in `text`.
    static func match(_ text: String) -> Hit? {
        let bytes = Array(text.utf8)
        for s in table where s.probes.allSatisfy({ found($0, in: bytes) }) {
            return Hit(verdict: s.verdict, description: "matches \(s.what)")
        }
        return nil
    }

    /// Whether `probe` is found in `text`; linear in `text` for each probe.
    static func found(_ probe: Probe, in text: [UInt8]) -> Bool {
        switch probe {
        case .literal(let options):
            return options.contains { find(Array($0.utf8), in: text, from: 0) != nil }
        case .adjacent(let first, let second):
            let a = Array(first.utf8)
            let b = Array(second.utf8)
            var from = 0
            while let at = find(a, in: text, from: from) {
                var i = at + a.count
                // The gap holds only white space and `\n`, never the start of `first` (`<`),
                // so gaps of different occurrences do not overlap.
                while i < text.count {
                    if isSpace(text[i]) {
                        i += 1
                    } else if text[i] == UInt8(ascii: "\\"), i + 1 < text.count, text[i + 1] == UInt8(ascii: "n") {
                        i += 2
                    } else {
                        break
                    }
                }
                if starts(b, in: text, at: i) { return true }
                from = max(i, at + 1)
            }
            return false
        case .tagThen(let first, let second):
            // The earliest tag is the best candidate: every later one has less text after it.
            guard let at = find(Array(first.utf8), in: text, from: 0),
                let close = text[(at + first.utf8.count)...].firstIndex(of: UInt8(ascii: ">"))
            else { return false }
            return find(Array(second.utf8), in: text, from: close + 1) != nil
        }
    }

    /// White space as PCRE2's `\s` reads it in byte mode.
    private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || (b >= 0x09 && b <= 0x0D)
    }

    private static func starts(_ needle: [UInt8], in text: [UInt8], at i: Int) -> Bool {
        guard i + needle.count <= text.count else { return false }
        for k in needle.indices where text[i + k] != needle[k] { return false }
        return true
    }

    /// The first offset at or after `from` where `needle` starts.
    static func find(_ needle: [UInt8], in text: [UInt8], from: Int) -> Int? {
        guard let head = needle.first, needle.count <= text.count else { return nil }
        var i = from
        let last = text.count - needle.count
        while i <= last {
            guard let at = text[i...last].firstIndex(of: head) else { return nil }
            if starts(needle, in: text, at: at) { return at }
            i = at + 1
        }
        return nil
    }
}

/// Declarations, tokens and config rules.
enum InferenceTables {
    /// Keys under which tokenizer_config.json declares a parser (ours, mlx-lm's, vLLM's and SGLang's spellings).
    static let declarationKeys = ["tool_parser_type", "tool_parser", "tool_call_parser", "tool_call_format"]

    /// A declared parser name (case-insensitive).
    static func declared(_ name: String) -> Verdict? {
        let n = name.lowercased().replacing("-", with: "_")
        if let f = ToolCallFormat(name: name) ?? ToolCallFormat(rawValue: n) { return .format(f) }
        if let f = (ToolCallFormat.allCases + ToolCallFormat.variants).first(where: { $0.definition.inference.parserNames.contains(n) }) {
            return .format(f)
        }
        return nil
    }

    /// Token texts that name a format, most specific first.
    static let tokenTable: [(token: String, verdict: Verdict)] = {
        var all: [(rank: Int, token: String, verdict: Verdict)] = []
        for f in ToolCallFormat.allCases {
            all += f.definition.inference.tokens.map { ($0.rank, $0.text, .format(f)) }
        }
        return stableSorted(all, by: \.rank).map { ($0.token, $0.verdict) }
    }()

    /// Every format's `model_type` rules, by rank.
    static let modelTypeRules: [(rule: ModelTypeRule, format: ToolCallFormat)] = {
        var all: [(rule: ModelTypeRule, format: ToolCallFormat)] = []
        for f in ToolCallFormat.allCases { all += f.definition.inference.modelTypes.map { ($0, f) } }
        return stableSorted(all) { $0.rule.rank }
    }()

    static func tokenVerdict(_ tokens: [(text: String, source: String)]) -> (token: String, source: String, verdict: Verdict)? {
        for entry in tokenTable {
            if let hit = tokens.first(where: { $0.text == entry.token }) {
                return (entry.token, hit.source, entry.verdict)
            }
        }
        return nil
    }

    /// The weakest signal: the architecture.
    static func configVerdict(_ c: JSONValue) -> (verdict: Verdict?, note: String) {
        guard let mt = c["model_type"]?.stringValue else {
            return (nil, "no model_type")
        }
        let t = mt.lowercased()
        let named = "model_type \"\(mt)\""
        for (rule, format) in modelTypeRules where rule.matches(t) {
            if let why = rule.explain(t, c) { return (.format(format), "\(named) \(why)") }
        }
        if t == "llama" {
            return (nil, "\(named) without a Llama 3 vocabulary or rope: Llama 2 / OpenLLaMA, no tool-call format")
        }
        if t == "deepseek_v3" {
            return (nil, "\(named): the architecture of DeepSeek V3, R1 and V3.1 and of Kimi K2, no format by itself (the chat template decides)")
        }
        if t.hasPrefix("gemma") {
            return (nil, "\(named): plain Gemma has no tool-call format (FunctionGemma is told by its tokens)")
        }
        return (nil, "\(named) names no tool-call format")
    }
}

/// `items` sorted by `key`, items with equal keys kept in their order.
func stableSorted<T>(_ items: [T], by key: (T) -> Int) -> [T] {
    items.enumerated().sorted { a, b in
        let (ka, kb) = (key(a.element), key(b.element))
        return ka != kb ? ka < kb : a.offset < b.offset
    }.map(\.element)
}
