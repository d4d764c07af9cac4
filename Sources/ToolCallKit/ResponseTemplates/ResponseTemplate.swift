// ToolCallKit — Hugging Face response templates: the template model and its validation.

/// Why a response template cannot be used: one line that names the field (or the top-level
/// key) and the problem, for a CLI to print as it is.
public struct ResponseTemplateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The message, one line.
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A declarative description of a model's output, as in a `tokenizer_config.json`'s
/// `response_template` (the vocabulary of transformers' response parser).
///
/// The output is a sequence of regions. Each region belongs to a *field* of the assistant
/// message and is opened and closed by *anchors*: a literal, a list of literals, or a regular
/// expression (PCRE2, translated from Python's syntax where the two differ). At most one field
/// has no open anchor: it is the *implicit* region, which takes every byte outside the other
/// regions. A region's bytes are parsed by the field's content parser when it closes, and
/// reshaped by its transform.
///
/// How the fields become events: `content` streams as `text`, the reasoning field
/// (`reasoning_content`, `thinking` or `reasoning`, the first the template has) streams as
/// `reasoning`, each entry of `tool_calls` is one call, and any other field is reported as
/// `markup` (its raw bytes; the value is not an event). Bytes outside every region are markup.
///
/// Construct one with ``init(json:)`` or ``load(_:)``: every rule is checked there, so a
/// template that loads can be run over any input.
public struct ResponseTemplate: Sendable {
    /// An anchor that opens or closes a region (a reference: the scan reads it per step).
    final class Anchor: Sendable {
        let regex: PCRE2Regex
        /// The same pattern compiled anchored (a pattern anchor's, nil for a literal): one
        /// attempt at a given position, with JIT matching.
        let anchoredRegex: PCRE2Regex?
        /// The literals, for a literal anchor (nil for a pattern).
        let literals: [[UInt8]]?
        /// Whether one literal is a strict prefix of another (a match at the end of the bytes
        /// received could still grow).
        let canExtend: Bool
        /// Named groups: name to group number.
        let groups: [(name: String, number: Int)]
        /// A literal anchor's literals, longest first (the order the alternation tries them).
        let sortedLiterals: [[UInt8]]?
        /// The bytes a literal anchor's literals begin with.
        let firstBytes: ByteSet
        /// How many bytes before a search's start the pattern may read (lookbehinds, `\b`,
        /// `^` in multiline mode), with room to spare: each search is given that many bytes
        /// of what came before, so its result does not depend on where the stream was cut.
        /// Zero for a literal anchor.
        let contextBytes: Int
        /// The pattern is one lookahead (`(?=…)`, `(?!…)`): it writes no bytes, and decides by
        /// what follows. At the first byte of the text it may look as far as the call cap.
        let isLookahead: Bool

        init(
            regex: PCRE2Regex, literals: [[UInt8]]?, canExtend: Bool, groups: [(name: String, number: Int)],
            contextBytes: Int = 0, isLookahead: Bool = false, anchoredRegex: PCRE2Regex? = nil
        ) {
            self.isLookahead = isLookahead
            self.anchoredRegex = anchoredRegex
            self.regex = regex
            self.literals = literals
            self.canExtend = canExtend
            self.groups = groups
            self.contextBytes = contextBytes
            self.sortedLiterals = literals?.sorted { String(decoding: $0, as: UTF8.self).unicodeScalars.count > String(decoding: $1, as: UTF8.self).unicodeScalars.count }
            self.firstBytes = ByteSet(literals?.compactMap(\.first) ?? [])
        }
    }

    /// What a field's region becomes.
    enum Role: Sendable {
        case text
        case reasoning
        case toolCalls
        /// Any other key: held, parsed at its close, reported as markup.
        case other
    }

    /// A field (a reference: the scan reads it per step).
    final class Field: Sendable {
        let name: String
        let open: Anchor?
        let close: Anchor?
        let content: TemplateContentParser
        let repeats: Bool
        let join: String?
        let optional: Bool
        let transform: JSONValue?
        let transformEach: Bool
        let role: Role
        /// The capture that names a call at its open anchor (`"name": "{name}"` in the
        /// transform), so the call can start before its body arrives.
        let nameCapture: String?

        init(
            name: String, open: Anchor?, close: Anchor?, content: TemplateContentParser, repeats: Bool, join: String?,
            optional: Bool, transform: JSONValue?, transformEach: Bool, role: Role, nameCapture: String?
        ) {
            self.name = name
            self.open = open
            self.close = close
            self.content = content
            self.repeats = repeats
            self.join = join
            self.optional = optional
            self.transform = transform
            self.transformEach = transformEach
            self.role = role
            self.nameCapture = nameCapture
        }
    }

    /// The message keys every result starts with (usually `role`).
    public let defaults: JSONValue
    let fields: [Field]
    /// The field without an open anchor, if any.
    let implicit: Int?
    let startAnchor: Anchor
    /// The field that streams as reasoning, by name.
    public var reasoningField: String? { fields.first { $0.role == .reasoning }?.name }
    /// The field names, in template order.
    public var fieldNames: [String] { fields.map(\.name) }

    /// How far an anchor pattern's match may reach, in bytes: the stream is cut into segments
    /// of this size, and a match that begins in one segment must be decided (its bytes and
    /// whatever its lookaheads read) before the end of the next. A smaller call cap lowers it
    /// (to a quarter of the cap), so that what a pending match holds stays under the cap.
    /// A pattern that is one lookahead may reach as far as the call cap when it is tried at the
    /// first byte of the text (it decides which region the output begins in).
    static let reach = 4096

    /// Patterns' limits: at most this many backtracking steps, and this depth, per match.
    static let matchLimit: UInt32 = 1_000_000
    static let depthLimit: UInt32 = 10_000

    /// Reads a file's JSON: the template object itself, or a `tokenizer_config.json` (an object
    /// with a `response_template` key).
    public static func load(_ bytes: some Collection<UInt8>) throws(ResponseTemplateError) -> ResponseTemplate {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(bytes))
        } catch {
            throw ResponseTemplateError("not JSON: \(error.description)")
        }
        if let inner = value["response_template"] {
            if case .null = inner { throw ResponseTemplateError("response_template is null") }
            return try ResponseTemplate(json: inner)
        }
        return try ResponseTemplate(json: value)
    }

    /// Validates and compiles a template object.
    public init(json spec: JSONValue) throws(ResponseTemplateError) {
        guard let top = spec.objectValue else {
            throw ResponseTemplateError("response_template must be an object, got \(Self.kind(spec))")
        }
        let known: Set<String> = ["version", "defaults", "fields", "start_anchor", "start_anchor_pattern"]
        if let version = spec["version"], version != .number("1") {
            throw ResponseTemplateError("response_template: unsupported version \(version.jsonText) (only 1 is known)")
        }
        let unknown = top.map(\.key).filter { !known.contains($0) }
        if !unknown.isEmpty {
            throw ResponseTemplateError("response_template: unknown key\(unknown.count > 1 ? "s" : "") \(Self.list(unknown))")
        }
        let defaults = spec["defaults"] ?? .object([])
        guard defaults.isObject else { throw ResponseTemplateError("response_template.defaults must be an object") }
        guard let rawFields = spec["fields"]?.objectValue, !rawFields.isEmpty else {
            throw ResponseTemplateError("response_template.fields must be a non-empty object")
        }
        let reasoningKey = ["reasoning_content", "thinking", "reasoning"].first { k in rawFields.contains { $0.key == k } }
        var fields: [Field] = []
        for (name, raw) in rawFields {
            let role: Role =
                name == "content" ? .text : name == reasoningKey ? .reasoning : name == "tool_calls" ? .toolCalls : .other
            fields.append(try Self.field(name, raw, role: role))
        }
        let implicit = fields.indices.filter { fields[$0].open == nil }
        if implicit.count > 1 {
            throw ResponseTemplateError(
                "response_template: at most one field may omit 'open'/'open_pattern' (it takes the bytes outside the other regions); found \(Self.list(implicit.map { fields[$0].name }))"
            )
        }
        guard let start = try Self.anchor("response_template", top, "start_anchor", "start_anchor_pattern") else {
            throw ResponseTemplateError("response_template must define 'start_anchor' or 'start_anchor_pattern'")
        }
        self.defaults = defaults
        self.fields = fields
        self.implicit = implicit.first
        self.startAnchor = start
    }

    private static func field(_ name: String, _ raw: JSONValue, role: Role) throws(ResponseTemplateError) -> Field {
        let scope = "field '\(name)'"
        guard let members = raw.objectValue else { throw ResponseTemplateError("\(scope) must be an object, got \(kind(raw))") }
        let allowed: Set<String> = [
            "open", "open_pattern", "close", "close_pattern", "content", "content_args", "repeats", "join", "optional",
            "transform", "transform_each",
        ]
        let unknown = members.map(\.key).filter { !allowed.contains($0) }
        if !unknown.isEmpty {
            throw ResponseTemplateError("\(scope): unknown key\(unknown.count > 1 ? "s" : "") \(list(unknown))")
        }
        let contentName: String
        switch raw["content"] {
        case nil: contentName = "text"
        case .string(let s)?: contentName = s
        case let other?: throw ResponseTemplateError("\(scope): 'content' must be a string, got \(kind(other))")
        }
        let args = raw["content_args"] ?? .object([])
        guard args.isObject else { throw ResponseTemplateError("\(scope): 'content_args' must be an object") }
        let content = try TemplateContentParser(name: contentName, args: args, scope: scope)
        let open = try anchor(scope, members, "open", "open_pattern")
        let close = try anchor(scope, members, "close", "close_pattern")
        let repeats = try flag(raw, "repeats", scope: scope, default: false)
        let optional = try flag(raw, "optional", scope: scope, default: true)
        let transformEach = try flag(raw, "transform_each", scope: scope, default: false)
        var join: String?
        if let j = raw["join"] {
            guard case .string(let s) = j else { throw ResponseTemplateError("\(scope): 'join' must be a string, got \(kind(j))") }
            guard repeats else { throw ResponseTemplateError("\(scope): 'join' requires 'repeats': true") }
            join = s
        }
        let transform = raw["transform"]
        if case .null? = transform {
            if transformEach { throw ResponseTemplateError("\(scope): 'transform_each' is set but no 'transform' is given") }
        }
        let hasTransform = transform.map { if case .null = $0 { return false } else { return true } } ?? false
        if transformEach && !hasTransform {
            throw ResponseTemplateError("\(scope): 'transform_each' is set but no 'transform' is given")
        }
        if let transform, hasTransform {
            if let bad = TemplateTransform.mixedString(in: transform) {
                throw ResponseTemplateError(
                    "\(scope): transform string \(JSONValue.string(bad).jsonText) mixes a {placeholder} with other text (a string is either one whole placeholder or a literal)"
                )
            }
        } else {
            let names = ((open?.groups ?? []) + (close?.groups ?? [])).map(\.name)
            if !names.isEmpty {
                throw ResponseTemplateError(
                    "\(scope): open_pattern/close_pattern names group\(names.count > 1 ? "s" : "") \(list(Array(Set(names)).sorted())) but the field has no 'transform' (named captures reach the message only through a transform)"
                )
            }
        }
        var nameCapture: String?
        if role == .toolCalls, !transformEach, let transform, hasTransform,
            case .string(let s)? = transform["function"]?["name"], let path = TemplateTransform.placeholder(s),
            !path.contains("."), open?.groups.contains(where: { $0.name == path }) == true
        {
            nameCapture = path
        }
        return Field(
            name: name, open: open, close: close, content: content, repeats: repeats, join: join, optional: optional,
            transform: hasTransform ? transform : nil, transformEach: transformEach, role: role,
            nameCapture: nameCapture)
    }

    private static func flag(_ raw: JSONValue, _ key: String, scope: String, default d: Bool) throws(ResponseTemplateError) -> Bool {
        switch raw[key] {
        case nil: return d
        case .bool(let b)?: return b
        case let other?: throw ResponseTemplateError("\(scope): '\(key)' must be true or false, got \(kind(other))")
        }
    }

    /// Compiles an anchor given as `literalKey` (a string or a list of strings) or
    /// `patternKey` (a regular expression); nil when neither is given.
    static func anchor(_ scope: String, _ members: [(key: String, value: JSONValue)], _ literalKey: String, _ patternKey: String)
        throws(ResponseTemplateError) -> Anchor?
    {
        let literal = members.first { $0.key == literalKey }?.value
        let pattern = members.first { $0.key == patternKey }?.value
        if literal != nil && pattern != nil {
            throw ResponseTemplateError("\(scope): cannot give both '\(literalKey)' and '\(patternKey)'")
        }
        if let literal {
            var texts: [String] = []
            switch literal {
            case .string(let s): texts = [s]
            case .array(let items):
                guard !items.isEmpty else { throw ResponseTemplateError("\(scope): '\(literalKey)' list must hold at least one literal") }
                for item in items {
                    guard case .string(let s) = item else {
                        throw ResponseTemplateError("\(scope): '\(literalKey)' list must hold only strings, got \(kind(item))")
                    }
                    if !texts.contains(s) { texts.append(s) }
                }
            default:
                throw ResponseTemplateError("\(scope): '\(literalKey)' must be a string or a list of strings, got \(kind(literal))")
            }
            if texts.contains("") { throw ResponseTemplateError("\(scope): '\(literalKey)' literals cannot be empty") }
            // Longest first, so the alternation prefers the longer of two literals at one place.
            let ordered = texts.sorted { $0.unicodeScalars.count > $1.unicodeScalars.count }
            let source = ordered.map(escape).joined(separator: "|")
            let regex = try compile(source, scope: scope, key: literalKey)
            let canExtend = texts.contains { a in texts.contains { b in a != b && a.hasPrefix(b) } }
            return Anchor(regex: regex, literals: texts.map { Array($0.utf8) }, canExtend: canExtend, groups: [])
        }
        if let pattern {
            guard case .string(let source) = pattern else {
                throw ResponseTemplateError("\(scope): '\(patternKey)' must be a string, got \(kind(pattern))")
            }
            let translated = translate(source)
            let regex = try compile(translated, scope: scope, key: patternKey)
            let syntax = PatternSyntax(translated)
            if let problem = syntax.anchorProblem { throw ResponseTemplateError("\(scope): \(patternKey) \(problem)") }
            let groups = regex.namedGroups.map { (name: $0.key, number: $0.value) }.sorted { $0.number < $1.number }
            // A lookbehind moves back at most maxLookbehind characters, but a nested one, or a
            // `\b` at its start, moves further: each lookbehind group is given that much again,
            // plus one character for `\b`, `\A` and a multiline `^`; a character is at most 4
            // bytes.
            let characters = (syntax.lookbehinds + 1) * (regex.maxLookbehind + 1)
            let anchored = try compile(translated, scope: scope, key: patternKey, anchored: true)
            return Anchor(
                regex: regex, literals: nil, canExtend: false, groups: groups, contextBytes: 4 * characters,
                isLookahead: syntax.isLookahead, anchoredRegex: anchored)
        }
        return nil
    }

    /// Compiles a pattern as the template's patterns run: `.` matches newlines, UTF-8 with
    /// Unicode classes, and the match and depth limits set.
    static func compile(_ source: String, scope: String, key: String, anchored: Bool = false) throws(ResponseTemplateError) -> PCRE2Regex {
        do {
            return try PCRE2Regex(
                source, options: anchored ? [.dotAll, .utf, .ucp, .anchored] : [.dotAll, .utf, .ucp], matchLimit: matchLimit,
                depthLimit: depthLimit)
        } catch {
            throw ResponseTemplateError("\(scope): \(key) is not a valid regular expression: \(error.description)")
        }
    }

    /// Python's pattern syntax in PCRE2's where they differ in what the templates use: Python's
    /// `\Z` (the very end) is PCRE2's `\z` (PCRE2's `\Z` also matches before a final newline).
    static func translate(_ python: String) -> String {
        var out = ""
        var escaped = false
        for ch in python {
            if escaped {
                out.append(ch == "Z" ? "z" : ch)
                escaped = false
            } else {
                if ch == "\\" { escaped = true }
                out.append(ch)
            }
        }
        return out
    }

    /// A literal as a pattern: every ASCII punctuation byte escaped.
    static func escape(_ literal: String) -> String {
        var out = ""
        for scalar in literal.unicodeScalars {
            if scalar.isASCII, !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == " "),
                scalar.value >= 0x21
            {
                out.append("\\")
            }
            if scalar == "\n" {
                out += "\\n"
                continue
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    static func kind(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }

    static func list(_ names: [String]) -> String { names.map { "'\($0)'" }.joined(separator: ", ") }
}

extension ResponseTemplate.Role: Equatable {}
