// ToolCallKit — the tables behind format inference: declarations, template signatures, tokens, configs.

/// Chat-template signatures, most specific first.
///
/// Order matters: a Qwen3-Coder template contains `<tool_call>` (the json signature) as well as
/// `<function=`, and a Gemma 4 template's `<|tool_call>` must not be read as another format's
/// marker. Formats outside the ten come before the generic json and llama3 signatures, so a
/// DeepSeek or Harmony template is named as such, never guessed as one of ours.
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
        let verdict: Verdict
        /// Every probe must be found.
        let probes: [Probe]
        let what: String
    }

    struct Hit {
        let verdict: Verdict
        let description: String
    }

    private static func sig(_ verdict: Verdict, _ what: String, _ probes: Probe...) -> Signature {
        Signature(verdict: verdict, probes: probes, what: what)
    }

    static let table: [Signature] = [
        sig(.format(.minimaxM2), "<minimax:tool_call>", .literal(["<minimax:tool_call>"])),
        sig(.format(.gemma4), "<|tool_call> and <tool_call|>", .literal(["<|tool_call>"]), .literal(["<tool_call|>"])),
        sig(.format(.gemma), "<start_function_call>", .literal(["<start_function_call>"])),
        sig(.format(.glm4), "<arg_key>", .literal(["<arg_key>"])),
        sig(.format(.lfm2), "<|tool_call_start|> or <|tool_list_start|>", .literal(["<|tool_call_start|>", "<|tool_list_start|>"])),
        sig(.format(.xmlFunction), "<tool_call> then <function= (a real or escaped newline between)",
            .adjacent("<tool_call>", "<function=")),
        sig(.format(.xmlFunction), "<function=NAME> with <parameter=", .tagThen("<function=", "<parameter=")),
        sig(.format(.kimiK2), "<|tool_calls_section_begin|>", .literal(["<|tool_calls_section_begin|>", "<|tool_call_argument_begin|>"])),
        sig(.format(.mistral), "[TOOL_CALLS] with [ARGS] (name[ARGS]{json} syntax)", .literal(["[TOOL_CALLS]"]), .literal(["[ARGS]"])),
        sig(.format(.mistral), "[TOOL_CALLS] without [ARGS] (JSON-list syntax)", .literal(["[TOOL_CALLS]"])),
        sig(.foreign("DeepSeek <｜tool▁calls▁begin｜>"), "<｜tool▁calls▁begin｜>", .literal(["<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"])),
        sig(.foreign("Nemotron <TOOLCALL>"), "<TOOLCALL>", .literal(["<TOOLCALL>"])),
        sig(.foreign("gpt-oss Harmony"), "Harmony channels (<|channel|> / <|call|>)", .literal(["<|channel|>", "<|call|>"])),
        sig(.format(.json), "<tool_call> (Hermes JSON)", .literal(["<tool_call>"])),
        sig(.format(.kimiK2), "Kimi chat tokens <|im_middle|> (the original K2 template renders no call markers)",
            .literal(["<|im_middle|>"])),
        sig(.format(.llama3), "<|python_tag|> or the ipython environment", .literal(["<|python_tag|>", "Environment: ipython"])),
        sig(.format(.llama3), "Llama 3 turns with a bare {\"name\", \"parameters\"} call",
            .literal(["<|start_header_id|>"]), .literal(["\"parameters\""])),
    ]

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
        switch n {
        case "minimax", "minimax_m2": return .format(.minimaxM2)
        case "gemma4": return .format(.gemma4)
        case "function_gemma", "functiongemma", "gemma": return .format(.gemma)
        case "glm4", "glm45", "glm47", "glm4_moe", "glm4.5": return .format(.glm4)
        case "pythonic", "lfm2": return .format(.lfm2)
        case "qwen3_coder", "qwen3_xml", "xml_function", "qwen35", "qwen3_5": return .format(.xmlFunction)
        case "kimi_k2", "kimik2": return .format(.kimiK2)
        case "mistral": return .format(.mistral)
        case "json_tools", "json", "hermes", "qwen25", "qwen2_5", "qwen3": return .format(.json)
        case "llama3_json", "llama3", "llama", "llama32", "llama3.2": return .format(.llama3)
        case "gpt_oss", "harmony", "openai": return .foreign("gpt-oss Harmony")
        case "deepseek_v3", "deepseek_v31", "deepseekv3", "deepseekv31": return .foreign("DeepSeek")
        default: return nil
        }
    }

    /// Token texts that name a format, most specific first.
    static let tokenTable: [(token: String, verdict: Verdict)] = [
        ("<minimax:tool_call>", .format(.minimaxM2)),
        ("<|tool_call>", .format(.gemma4)),
        ("<start_function_call>", .format(.gemma)),
        ("<arg_key>", .format(.glm4)),
        ("<|tool_call_start|>", .format(.lfm2)),
        ("<|tool_list_start|>", .format(.lfm2)),
        ("<|tool_calls_section_begin|>", .format(.kimiK2)),
        ("[TOOL_CALLS]", .format(.mistral)),
        ("<｜tool▁calls▁begin｜>", .foreign("DeepSeek <｜tool▁calls▁begin｜>")),
        ("<TOOLCALL>", .foreign("Nemotron <TOOLCALL>")),
        ("<|call|>", .foreign("gpt-oss Harmony")),
        ("<|python_tag|>", .format(.llama3)),
        ("<tool_call>", .format(.json)),
    ]

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
        func prefix(_ p: String) -> Bool { t.hasPrefix(p) }
        if prefix("lfm2") { return (.format(.lfm2), "\(named) → lfm2") }
        if prefix("glm4") { return (.format(.glm4), "\(named) → glm4") }
        if prefix("gemma4") { return (.format(.gemma4), "\(named) → gemma4") }
        if prefix("minimax") { return (.format(.minimaxM2), "\(named) → minimax_m2") }
        if prefix("kimi_k2") { return (.format(.kimiK2), "\(named) → kimi_k2") }
        if prefix("mistral3") { return (.format(.mistral), "\(named) → mistral") }
        if prefix("nemotron") || prefix("qwen3_5") || prefix("qwen3_next") {
            return (.format(.xmlFunction), "\(named) → xml_function")
        }
        if t == "qwen3" || t == "qwen3_moe" || t == "qwen2" || t == "qwen2_moe" {
            let also = t == "qwen3_moe" ? "; ambiguous: Qwen3-Coder shares qwen3_moe and writes xml_function" : ""
            return (.format(.json), "\(named) → json, the family's default (no template or tokens to confirm it)\(also)")
        }
        if t == "llama" {
            let vocab = c["vocab_size"]?.doubleValue ?? 0
            let rope = c["rope_scaling"]?["rope_type"]?.stringValue
            if vocab >= 128_000 || rope == "llama3" {
                let why = vocab >= 128_000 ? "vocab_size \(Int(vocab))" : "rope_type llama3"
                return (.format(.llama3), "\(named) with \(why) → llama3, the Llama 3 default (ambiguous: a fine-tune may use another template)")
            }
            return (nil, "\(named) without a Llama 3 vocabulary or rope: Llama 2 / OpenLLaMA, no tool-call format")
        }
        if t == "deepseek_v3" {
            return (nil, "\(named): DeepSeek V3's architecture (Kimi K2 builds on it too), no format by itself")
        }
        if prefix("gemma") {
            return (nil, "\(named): plain Gemma has no tool-call format (FunctionGemma is told by its tokens)")
        }
        return (nil, "\(named) names no tool-call format")
    }
}
