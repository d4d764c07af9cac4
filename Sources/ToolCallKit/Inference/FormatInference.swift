// ToolCallKit — naming a model folder's tool-call format, with the evidence.

/// The format a model folder's files point to, and why.
///
/// `format` is nil when the folder shows no format, or a format this package does not parse:
/// the evidence then says what was seen. Guessing
/// wrong is the silent failure this exists to prevent, so there is no fallback format.
///
/// `format` is always a base format (`deepseek_v32`, `glm4`, `lfm2`, `mistral`, …), the name
/// other tools compare. When the folder's chat template shows a model variant of it (DeepSeek
/// V4's `tool_calls` wrapper, GLM-4.7's layout, …: ``ToolCallFormat/variants``), `variant`
/// names it; ``modelFormat`` is what to decode, render and build grammars with for the model.
public struct FormatInference: Sendable, Equatable {
    /// The inferred base format, or nil.
    public var format: ToolCallFormat?
    /// The model variant of `format` the folder shows, or nil (the base format's own layout).
    public var variant: ToolCallFormat?
    /// One line per signal seen, strongest first, conflicts and defaults said plainly.
    public var evidence: [String]

    /// A result naming `format`; a model variant given as `format` is split into its base
    /// (`format`) and itself (`variant`).
    public init(format: ToolCallFormat?, evidence: [String]) {
        self.format = format?.variantOf ?? format
        self.variant = format?.variantOf == nil ? nil : format
        self.evidence = evidence
    }

    /// The format to decode, render and build grammars with for this model: the variant when
    /// the folder shows one, else the base format (nil when no format was found).
    public var modelFormat: ToolCallFormat? { variant ?? format }

    /// `{"format": NAME or null, "evidence": [...]}` on one line, with `"variant": NAME` after
    /// the format when the folder shows a model variant of it (`glm47` of `glm4`: the base's
    /// wire format, in the layout the folder's template writes).
    public var jsonLine: String {
        var members: [(key: String, value: JSONValue)] = [(key: "format", value: format.map { .string($0.rawValue) } ?? .null)]
        if let variant { members.append((key: "variant", value: .string(variant.rawValue))) }
        members.append((key: "evidence", value: .array(evidence.map { .string($0) })))
        return JSONValue.object(members).jsonText
    }
}

/// What `infer` could not do at all.
public struct FormatInferenceError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

extension ToolCallFormat {
    /// Infers the tool-call format of a Hugging Face model folder.
    ///
    /// Signals, strongest first: a parser declaration in `tokenizer_config.json`
    /// (`tool_parser_type` and the names other projects use); the chat template
    /// (`chat_template.jinja`, `chat_template.json`, or `tokenizer_config.json`'s
    /// `chat_template`, a string or a list of named templates) matched against PCRE2 signatures,
    /// most specific first; added and special tokens; `config.json` and
    /// `generation_config.json`. The strongest signal wins and a disagreeing weaker one is named
    /// as a conflict. When none of them names a built-in format, a valid `response_template` in
    /// `tokenizer_config.json` gives a format defined by it (``init(responseTemplate:)``). A missing, unreadable or invalid file is noted and ignored, and so is
    /// one that is not a regular file (a FIFO, a device) or is larger than the size read for
    /// it: 1 MiB for `config.json`, `generation_config.json`, `special_tokens_map.json` and
    /// `chat_template.json`, 512 KiB for `chat_template.jinja`, 8 MiB for
    /// `tokenizer_config.json`, 64 MiB for `tokenizer.json`.
    ///
    /// - Parameter modelDirectory: the folder's path.
    /// - Returns: the format (or nil) with its evidence.
    /// - Throws: ``FormatInferenceError`` when the path is not a readable folder.
    public static func infer(modelDirectory: String) throws(FormatInferenceError) -> FormatInference {
        guard FileBytes.isReadableDirectory(modelDirectory) else {
            throw FormatInferenceError(message: "\(modelDirectory) is not a readable folder")
        }
        var folder = ModelFolderSignals(path: modelDirectory)
        return folder.resolve()
    }
}

/// A signal's verdict: the format it names.
enum Verdict: Equatable, Sendable {
    case format(ToolCallFormat)

    /// The format's name; a model variant's says its base first (`deepseek_v32 (model variant
    /// deepseek_v4)`), the name `infer` gives.
    var name: String {
        switch self {
        case .format(let f):
            guard let base = f.variantOf else { return f.rawValue }
            return "\(base.rawValue) (model variant \(f.rawValue))"
        }
    }

    /// The base format this verdict names.
    var base: ToolCallFormat {
        switch self {
        case .format(let f): return f.variantOf ?? f
        }
    }
}

/// Collects the signals of one folder and resolves them.
struct ModelFolderSignals {
    let path: String
    var evidence: [String] = []
    var missing: [String] = []

    init(path: String) { self.path = path }

    /// The most bytes read of each file `infer` looks at; a larger file (or one that is not
    /// a regular file) is skipped, and the evidence says so.
    ///
    /// Configs are a few KB; `tokenizer_config.json` may embed chat templates and thousands
    /// of added tokens; chat templates are tens of KB; `tokenizer.json` holds the whole
    /// vocabulary (Gemma's is about 33 MB), of which only `added_tokens` is parsed.
    static let sizeLimits: [String: Int] = [
        "config.json": 1 << 20,
        "generation_config.json": 1 << 20,
        "special_tokens_map.json": 1 << 20,
        "chat_template.jinja": 512 << 10,
        "chat_template.json": 1 << 20,
        "tokenizer_config.json": 8 << 20,
        "tokenizer.json": 64 << 20,
    ]

    /// The limit for a file not listed in ``sizeLimits``.
    static let defaultSizeLimit = 1 << 20

    /// The bytes of `name`; notes a missing, unreadable, oversized or non-regular file.
    private mutating func bytes(_ name: String) -> [UInt8]? {
        let file = path.hasSuffix("/") ? path + name : path + "/" + name
        do {
            return try FileBytes.read(file, limit: Self.sizeLimits[name] ?? Self.defaultSizeLimit)
        } catch {
            if error.missing {
                missing.append(name)
            } else {
                evidence.append("\(name): skipped (\(error.reason))")
            }
            return nil
        }
    }

    /// Reads `name` as JSON; notes a missing, unreadable or invalid file.
    mutating func json(_ name: String) -> JSONValue? {
        guard let bytes = bytes(name) else { return nil }
        do {
            return try JSONValue.parse(bytes)
        } catch {
            evidence.append("\(name): not valid JSON (\(error)), ignored")
            return nil
        }
    }

    /// The array under the top-level `key` of the JSON file `name`, parsed alone: the rest of
    /// the file (a tokenizer's whole vocabulary) is skimmed, never turned into values, so a
    /// large file costs its bytes and not many times them. Notes a missing, unreadable or
    /// invalid file.
    mutating func topLevelArray(_ key: String, of name: String) -> [JSONValue]? {
        guard let bytes = bytes(name) else { return nil }
        switch JSONSkim.topLevelMember(key, in: bytes) {
        case .found(let range):
            do {
                if case .array(let list) = try JSONValue.parse(bytes[range]) { return list }
                return nil
            } catch {
                evidence.append("\(name): not valid JSON (\(error)), ignored")
                return nil
            }
        case .absent:
            return nil
        case .invalid(let at):
            evidence.append("\(name): not valid JSON (at byte \(at)), ignored")
            return nil
        }
    }

    /// Reads `name` as text; notes a missing or unreadable file.
    mutating func text(_ name: String) -> String? {
        bytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    mutating func resolve() -> FormatInference {
        let tokenizerConfig = json("tokenizer_config.json")
        let config = json("config.json")
        let generationConfig = json("generation_config.json")

        // 1. A declaration.
        var decided: (verdict: Verdict, source: String)?
        var weaker: [(verdict: Verdict, source: String)] = []
        if let tc = tokenizerConfig {
            for key in InferenceTables.declarationKeys {
                guard let value = tc[key]?.stringValue else { continue }
                if let v = InferenceTables.declared(value) {
                    evidence.append("tokenizer_config.json: \(key) \"\(value)\" declares \(v.name)")
                    if decided == nil { decided = (v, "the \(key) declaration") }
                } else {
                    evidence.append("tokenizer_config.json: \(key) \"\(value)\" is not a parser name known here, ignored")
                }
            }
        }

        // 2. The chat templates.
        var templates: [(source: String, text: String)] = []
        if let t = text("chat_template.jinja") { templates.append(("chat_template.jinja", t)) }
        if let j = json("chat_template.json") {
            if let t = Self.template(from: j["chat_template"] ?? j) {
                templates.append(("chat_template.json", t.text + ""))
            }
        }
        if let tc = tokenizerConfig, let ct = tc["chat_template"], let t = Self.template(from: ct) {
            templates.append(("tokenizer_config.json chat_template" + (t.name.map { " \"\($0)\"" } ?? ""), t.text))
        }
        for (source, text) in templates {
            if let hit = TemplateSignatures.match(text) {
                evidence.append("\(source): \(hit.description) → \(hit.verdict.name)")
                if decided == nil {
                    decided = (hit.verdict, source)
                } else {
                    weaker.append((hit.verdict, source))
                }
            } else {
                evidence.append("\(source): no tool-call signature")
            }
        }

        // 3. Added and special tokens.
        var tokenTexts: [(String, String)] = []
        if let tc = tokenizerConfig, case .object(let members)? = tc["added_tokens_decoder"] {
            for m in members { if let c = m.value["content"]?.stringValue { tokenTexts.append((c, "tokenizer_config.json added_tokens_decoder")) } }
        }
        if let stm = json("special_tokens_map.json") {
            Self.collectStrings(stm) { tokenTexts.append(($0, "special_tokens_map.json")) }
        }
        if let added = topLevelArray("added_tokens", of: "tokenizer.json") {
            for t in added { if let c = t["content"]?.stringValue { tokenTexts.append((c, "tokenizer.json added_tokens")) } }
        }
        if let hit = InferenceTables.tokenVerdict(tokenTexts) {
            evidence.append("\(hit.source): token \(hit.token) → \(hit.verdict.name)")
            if decided == nil { decided = (hit.verdict, "the token \(hit.token)") } else { weaker.append((hit.verdict, "the token \(hit.token)")) }
        } else if !tokenTexts.isEmpty {
            evidence.append("added and special tokens (\(tokenTexts.count) seen): none names a tool-call format")
        }

        // 4. config.json (and generation_config.json), the weakest.
        if let c = config {
            let rule = InferenceTables.configVerdict(c)
            evidence.append("config.json: \(rule.note)")
            if let v = rule.verdict {
                if decided == nil {
                    decided = (v, "config.json")
                } else {
                    weaker.append((v, "config.json"))
                }
            }
        }
        if generationConfig != nil {
            evidence.append("generation_config.json: read; it names no tool-call format")
        }

        // 5. A response template, when no built-in format is recognised.
        let template = responseTemplate(tokenizerConfig, builtIn: decided)

        // A weaker signal that names a model variant of the decided base format (a declaration
        // says `deepseek_v32`, the template shows V4's layout) refines it: no conflict.
        if let d = decided, case .format(let f) = d.verdict, f.variantOf == nil,
            let refined = weaker.first(where: { $0.verdict.base == f && $0.verdict != d.verdict })
        {
            evidence.append("\(refined.source) shows the model variant: \(d.source) names \(f.rawValue), and \(refined.source) writes it as \(refined.verdict.name)")
            decided = (refined.verdict, d.source)
        }
        // A weaker signal naming the decided variant's base format agrees with it.
        for w in weaker where decided.map({ $0.verdict != w.verdict && w.verdict != .format($0.verdict.base) }) ?? false {
            evidence.append("conflict: \(w.source) suggests \(w.verdict.name); \(decided!.source) is stronger and wins")
        }
        if !missing.isEmpty {
            evidence.append("not present: " + missing.joined(separator: ", "))
        }
        if let template { return FormatInference(format: template, evidence: evidence) }
        guard let decided else {
            evidence.append("no signal names a tool-call format")
            return FormatInference(format: nil, evidence: evidence)
        }
        switch decided.verdict {
        case .format(let f): return FormatInference(format: f, evidence: evidence)
        }
    }

    /// A template given as a string, or as a list of named templates (`tool_use`, then
    /// `default`, then the first).
    static func template(from v: JSONValue) -> (name: String?, text: String)? {
        switch v {
        case .string(let s): return (nil, s)
        case .array(let list):
            let named = list.compactMap { e -> (String, String)? in
                guard let n = e["name"]?.stringValue, let t = e["template"]?.stringValue else { return nil }
                return (n, t)
            }
            for want in ["tool_use", "default"] {
                if let hit = named.first(where: { $0.0 == want }) { return hit }
            }
            return named.first.map { ($0.0, $0.1) }
        default: return nil
        }
    }

    static func collectStrings(_ v: JSONValue, _ add: (String) -> Void) {
        switch v {
        case .string(let s): add(s)
        case .array(let a): for e in a { collectStrings(e, add) }
        case .object(let o): for m in o { collectStrings(m.value, add) }
        default: break
        }
    }
}

/// Finds one member of a JSON object's top level without building any value: strings are
/// stepped over, containers counted, in one pass with no recursion.
enum JSONSkim {
    enum Result: Equatable {
        /// The member's value spans these bytes.
        case found(Range<Int>)
        /// The top level is an object without that key.
        case absent
        /// The text is not JSON (or not an object) around this byte.
        case invalid(at: Int)
    }

    static func topLevelMember(_ key: String, in b: [UInt8]) -> Result {
        let want = Array(key.utf8)
        var i = 0
        func skipSpace() { while i < b.count && JSONReader.isSpace(b[i]) { i += 1 } }
        /// Steps over a string starting at `i` (a quote); false when it does not end.
        func skipString() -> Bool {
            i += 1
            while i < b.count {
                switch b[i] {
                case UInt8(ascii: "\\"): i += 2
                case UInt8(ascii: "\""):
                    i += 1
                    return true
                default: i += 1
                }
            }
            return false
        }
        /// Steps over one value starting at `i`; false when it is cut or unbalanced.
        func skipValue() -> Bool {
            guard i < b.count else { return false }
            switch b[i] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while i < b.count {
                    switch b[i] {
                    case UInt8(ascii: "\""):
                        if !skipString() { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            return true
                        }
                    default: break
                    }
                    i += 1
                }
                return false
            default:
                let start = i
                while i < b.count, !JSONReader.isSpace(b[i]), b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}"),
                    b[i] != UInt8(ascii: "]")
                {
                    i += 1
                }
                return i > start
            }
        }
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return .invalid(at: i) }
        i += 1
        skipSpace()
        if i < b.count && b[i] == UInt8(ascii: "}") { return .absent }
        while true {
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return .invalid(at: i) }
            let keyStart = i + 1
            guard skipString() else { return .invalid(at: keyStart) }
            let matches = b[keyStart..<(i - 1)].elementsEqual(want)
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return .invalid(at: i) }
            i += 1
            skipSpace()
            let valueStart = i
            guard skipValue() else { return .invalid(at: valueStart) }
            if matches { return .found(valueStart..<i) }
            skipSpace()
            guard i < b.count else { return .invalid(at: i) }
            if b[i] == UInt8(ascii: "}") { return .absent }
            guard b[i] == UInt8(ascii: ",") else { return .invalid(at: i) }
            i += 1
        }
    }
}
