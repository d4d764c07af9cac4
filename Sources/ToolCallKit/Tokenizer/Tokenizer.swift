// ToolCallKit — a Hugging Face tokenizer.json, loaded for decoding only (ids → bytes).

/// A Hugging Face `tokenizer.json`, loaded for turning token ids back into UTF-8 bytes.
///
/// Only decoding is supported: the vocabulary, the `added_tokens` and the `decoder` are read
/// (and the `normalizer`, which `tokenizers` applies to added tokens marked `normalized`);
/// merges and pre-tokenizers are ignored. Two decoder families are understood:
///
/// - byte-level BPE (GPT-2, Llama 3, Qwen): a `ByteLevel` decoder, whose pieces spell bytes
///   with the GPT-2 byte↔unicode table;
/// - SentencePiece-style BPE (Llama 2, Mistral, Gemma): a `Sequence` of `Replace` (`▁` → space),
///   `ByteFallback` (`<0xNN>` pieces are raw bytes), `Fuse` and `Strip`.
///
/// A tokenizer without a decoder joins its pieces with spaces, as `tokenizers` does. Anything
/// else fails with a ``TokenizerError`` naming the file and the unsupported part.
///
/// Every piece is converted once, when the file is loaded, into the bytes it contributes; the
/// result is one flat byte array indexed by id, so decoding a token is a table look-up (see
/// ``Detokenizer``). The type is an immutable `Sendable` value; copies share the tables.
///
/// Because the tables are indexed by id, an id is accepted only up to 2^24 - 1 and only while
/// the id range stays within twice the tokens the file defines plus 65,536: a file cannot make
/// the loader allocate by naming one huge id (the error names the token instead).
public struct Tokenizer: Sendable {
    /// One entry of the file's `added_tokens`.
    public struct AddedToken: Sendable, Hashable {
        public let id: Int
        public let content: String
        /// Marked `special` (BOS, EOS, end-of-turn, tool markers, ...).
        public let special: Bool
    }

    /// The name used in messages (normally the file's path).
    public let source: String
    /// The file's `added_tokens`, in file order.
    public let addedTokens: [AddedToken]

    /// How the pieces of a stream are put together after the per-piece conversion.
    enum Joining: Sendable, Equatable {
        /// Byte-level: every piece is bytes; the whole stream is decoded as lossy UTF-8.
        case byteLevel
        /// SentencePiece-style: `<0xNN>` runs are decoded as a unit (`byteFallback`), then the
        /// fused text loses `strip` characters at its start and end.
        case pieces(byteFallback: Bool, strip: Strip?)
        /// No decoder: pieces joined with a space.
        case spaceJoined
    }

    /// A `Strip` decoder applied to the fused text.
    struct Strip: Sendable, Equatable {
        var content: [UInt8]
        var start: Int
        var stop: Int
    }

    /// Per-id flags.
    enum Flag {
        static let present: UInt8 = 1
        static let special: UInt8 = 2
        /// A `<0xNN>` byte-fallback piece; its bytes are the one byte.
        static let byte: UInt8 = 4
        /// The bytes are complete, valid UTF-8 on their own (a fast path for byte-level).
        static let wholeUTF8: UInt8 = 8
        static let added: UInt8 = 16
    }

    let joining: Joining
    /// The converted bytes of every id, back to back; id `i` is `arena[starts[i]..<starts[i+1]]`.
    let arena: [UInt8]
    let starts: [Int32]
    let flags: [UInt8]

    /// One more than the largest id (ids in between may be unused; see ``contains(_:)``).
    public var vocabularySize: Int { flags.count }

    /// Whether `id` names a token of this tokenizer.
    @inline(__always)
    public func contains(_ id: Int) -> Bool {
        id >= 0 && id < flags.count && flags[id] & Flag.present != 0
    }

    /// Whether `id` is an added token marked special.
    public func isSpecial(_ id: Int) -> Bool {
        contains(id) && flags[id] & Flag.special != 0
    }

    /// The bytes `id` contributes to a decode on its own (after the per-piece steps; for a
    /// byte-fallback piece, its one byte). For inspection and tests.
    public func pieceBytes(_ id: Int) -> [UInt8]? {
        guard contains(id) else { return nil }
        return Array(arena[Int(starts[id])..<Int(starts[id + 1])])
    }

    /// Loads a `tokenizer.json`.
    ///
    /// - Parameters:
    ///   - json: the file's bytes.
    ///   - source: a name for messages, normally the path.
    /// - Throws: ``TokenizerError`` when the file is not valid JSON, lacks a vocabulary, uses
    ///   a model or decoder that is not supported, or gives a token an id beyond the bound
    ///   above (the message names the token).
    public init(json: some Collection<UInt8>, source: String) throws(TokenizerError) {
        self.source = source
        let root: JSONValue
        do {
            root = try JSONValue.parse(json)
        } catch {
            throw TokenizerError(source: source, message: "not valid JSON (\(error))")
        }
        guard case .object(let top) = root else {
            throw TokenizerError(source: source, message: "not a tokenizer.json (the top level is not an object)")
        }
        func member(_ key: String) -> JSONValue? { top.first(where: { $0.key == key })?.value }

        guard let model = member("model") else {
            // Users mix up the two files that sit side by side; name the mix-up.
            let configKeys = ["tokenizer_class", "added_tokens_decoder", "chat_template", "model_max_length"]
            if configKeys.contains(where: { member($0) != nil }) {
                throw TokenizerError(
                    source: source,
                    message: "is a tokenizer_config.json, not a tokenizer.json: give the tokenizer.json beside it "
                        + "(the file with the vocabulary, its \"model\")",
                    kind: .tokenizerConfig)
            }
            throw TokenizerError(source: source, message: "no \"model\"")
        }
        var tokens = try Self.vocabulary(model, source: source)

        var added: [AddedToken] = []
        var normalizedIDs: [Int] = []
        if let list = member("added_tokens"), list != .null {
            guard case .array(let entries) = list else {
                throw TokenizerError(source: source, message: "\"added_tokens\" is not an array")
            }
            for entry in entries {
                guard let id = entry["id"].flatMap(Self.integer), let content = entry["content"]?.stringValue else {
                    throw TokenizerError(source: source, message: "an entry of \"added_tokens\" lacks an id or content")
                }
                let special = entry["special"] == .bool(true)
                added.append(AddedToken(id: id, content: content, special: special))
                // `tokenizers` keeps a `normalized` added token as the normalizer's output
                // (Llama's `<s>` becomes `▁<s>`, which decodes to " <s>").
                if entry["normalized"] == .bool(true) { normalizedIDs.append(added.count - 1) }
            }
        }
        self.addedTokens = added
        var pieceOfAdded = added.map(\.content)
        if !normalizedIDs.isEmpty {
            let normalizer = try Normalizer(member("normalizer") ?? .null, source: source)
            for k in normalizedIDs { pieceOfAdded[k] = try normalizer.apply(pieceOfAdded[k], source: source) }
        }

        let decoder = member("decoder") ?? .null
        let (joining, replacements) = try Self.pipeline(decoder, source: source)
        self.joining = joining

        // Added tokens win over the model's piece for the same id, as in `tokenizers`. The
        // tables are indexed by id, so an id far beyond the tokens present is refused before
        // anything is sized by it.
        var maxAdded = -1
        var distinctAdded = 0
        for a in added {
            guard a.id <= Self.maxTokenID else {
                throw TokenizerError(
                    source: source,
                    message: "added token \(Self.quoted(a.content)) has id \(a.id), above the largest id supported (\(Self.maxTokenID))")
            }
            if a.id >= tokens.count || tokens[a.id] == nil { distinctAdded += 1 }
            maxAdded = max(maxAdded, a.id)
        }
        if maxAdded >= tokens.count {
            let present = tokens.count(where: { $0 != nil }) + distinctAdded
            let cap = Self.idRange(forTokens: present)
            if maxAdded >= cap, let worst = added.first(where: { $0.id == maxAdded }) {
                throw TokenizerError(
                    source: source,
                    message: "added token \(Self.quoted(worst.content)) has id \(worst.id), far beyond the \(present) tokens the file defines (ids must be below \(cap) here)")
            }
            tokens += Array(repeating: nil, count: maxAdded + 1 - tokens.count)
        }
        var flags = [UInt8](repeating: 0, count: tokens.count)
        for (k, a) in added.enumerated() {
            tokens[a.id] = pieceOfAdded[k]
            flags[a.id] |= Flag.added | (a.special ? Flag.special : 0)
        }

        var arena: [UInt8] = []
        arena.reserveCapacity(tokens.count * 8)
        var starts: [Int32] = []
        starts.reserveCapacity(tokens.count + 1)
        var scratch: [UInt8] = []
        for (id, token) in tokens.enumerated() {
            starts.append(Int32(arena.count))
            guard let token else { continue }
            flags[id] |= Flag.present
            switch joining {
            case .byteLevel:
                ByteLevelTable.decode(token, into: &arena)
            case .spaceJoined:
                arena.append(contentsOf: token.utf8)
            case .pieces(let byteFallback, _):
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: token.utf8)
                for (pattern, content) in replacements { Self.replaceAll(pattern, with: content, in: &scratch) }
                if byteFallback, let b = Self.fallbackByte(scratch) {
                    flags[id] |= Flag.byte
                    arena.append(b)
                } else {
                    arena.append(contentsOf: scratch)
                }
            }
            let from = Int(starts[id])
            if UTF8Boundary.isValid(arena[from...]) { flags[id] |= Flag.wholeUTF8 }
        }
        starts.append(Int32(arena.count))
        guard arena.count < Int32.max else {
            throw TokenizerError(source: source, message: "the vocabulary is too large")
        }
        self.arena = arena
        self.starts = starts
        self.flags = flags
    }

    // MARK: - Reading the file

    /// The model's pieces by id (`nil` for an unused id).
    private static func vocabulary(_ model: JSONValue, source: String) throws(TokenizerError) -> [String?] {
        let type = model["type"]?.stringValue
        switch type {
        case nil, "BPE", "WordPiece", "WordLevel", "Unigram":
            break
        case let other?:
            throw TokenizerError(source: source, message: "model type \"\(other)\" is not supported (BPE, WordPiece, WordLevel and Unigram are)")
        }
        switch model["vocab"] {
        case .object(let members)?:
            var maxID = -1
            var worst = ""
            var ids = [Int](repeating: -1, count: members.count)
            for (i, m) in members.enumerated() {
                guard let id = integer(m.value), id <= maxTokenID else {
                    throw TokenizerError(
                        source: source,
                        message: "the id of vocabulary entry \(quoted(m.key)) is not a usable integer (at most \(maxTokenID))")
                }
                ids[i] = id
                if id > maxID { (maxID, worst) = (id, m.key) }
            }
            let cap = idRange(forTokens: members.count)
            guard maxID < cap else {
                throw TokenizerError(
                    source: source,
                    message: "vocabulary entry \(quoted(worst)) has id \(maxID), far beyond the \(members.count) entries of the vocabulary (ids must be below \(cap) here)")
            }
            var tokens = [String?](repeating: nil, count: maxID + 1)
            for (i, m) in members.enumerated() { tokens[ids[i]] = m.key }
            return tokens
        case .array(let entries)?:
            // Unigram: `[[piece, score], ...]`, the id being the position.
            var tokens: [String?] = []
            tokens.reserveCapacity(entries.count)
            for entry in entries {
                guard case .array(let pair) = entry, let piece = pair.first?.stringValue else {
                    throw TokenizerError(source: source, message: "a vocabulary entry is not [piece, score]")
                }
                tokens.append(piece)
            }
            return tokens
        default:
            throw TokenizerError(source: source, message: "the model has no \"vocab\"")
        }
    }

    /// The largest token id accepted (2^24 - 1, well above every published vocabulary, which
    /// stay below 2^19).
    static let maxTokenID = (1 << 24) - 1

    /// The id range (one more than the largest id) accepted for a file defining `count` tokens.
    ///
    /// Decoding looks ids up in tables indexed by id, so the tables are as long as the largest
    /// id: ids may leave gaps (vocabularies padded to a round size do), but the range may be at
    /// most twice the tokens present plus 65,536. A larger id is an error rather than an
    /// allocation sized by one number in the file.
    static func idRange(forTokens count: Int) -> Int {
        min(maxTokenID + 1, 2 * count + 65_536)
    }

    /// A token's text for a message: JSON-quoted (control bytes escaped), cut at 64 bytes.
    static func quoted(_ text: String) -> String {
        guard text.utf8.count > 64 else { return JSONValue.string(text).jsonText }
        let head = Array(text.utf8.prefix(65))
        var end = 64
        while end > 0 && head[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a character
        return JSONValue.string(String(decoding: head[0..<end], as: UTF8.self) + "…").jsonText
    }

    /// A non-negative integer written as JSON number text.
    static func integer(_ v: JSONValue) -> Int? {
        guard case .number(let text) = v else { return nil }
        var n = 0
        var digits = 0
        for b in text.utf8 {
            guard b >= 0x30 && b <= 0x39, n < (Int.max - 9) / 10 else { return nil }
            n = n * 10 + Int(b - 0x30)
            digits += 1
        }
        return digits > 0 ? n : nil
    }

    /// The decoder as a ``Joining`` plus the per-piece `Replace` steps (byte patterns).
    private static func pipeline(
        _ decoder: JSONValue, source: String
    ) throws(TokenizerError) -> (Joining, [([UInt8], [UInt8])]) {
        if decoder == .null { return (.spaceJoined, []) }
        // Flatten nested sequences: a sequence applies its decoders one after the other.
        var steps: [JSONValue] = []
        func flatten(_ d: JSONValue) {
            if d["type"]?.stringValue == "Sequence", case .array(let inner)? = d["decoders"] {
                for x in inner { flatten(x) }
            } else {
                steps.append(d)
            }
        }
        flatten(decoder)
        func unsupported(_ what: String) -> TokenizerError {
            TokenizerError(source: source, message: "decoder \(what) is not supported (ByteLevel, or Replace/ByteFallback/Fuse/Strip in that order, are)")
        }
        let types = steps.map { $0["type"]?.stringValue ?? "(without a type)" }
        if types.contains("ByteLevel") {
            guard types == ["ByteLevel"] else { throw unsupported("sequence \(types.joined(separator: ", "))") }
            return (.byteLevel, [])
        }
        // Replace* ByteFallback? Fuse? Strip? — each stage may only follow earlier ones.
        var replacements: [([UInt8], [UInt8])] = []
        var byteFallback = false
        var fused = false
        var strip: Strip?
        var stage = 0
        for (step, type) in zip(steps, types) {
            switch type {
            case "Replace" where stage == 0:
                guard let pattern = step["pattern"]?["String"]?.stringValue, !pattern.isEmpty,
                    let content = step["content"]?.stringValue
                else {
                    throw unsupported("Replace with a pattern that is not a plain string")
                }
                replacements.append((Array(pattern.utf8), Array(content.utf8)))
            case "ByteFallback" where stage < 1:
                byteFallback = true
                stage = 1
            case "Fuse" where stage < 2:
                fused = true
                stage = 2
            case "Strip" where stage < 3:
                guard let content = step["content"]?.stringValue, content.unicodeScalars.count == 1,
                    let start = step["start"].flatMap(integer), let stop = step["stop"].flatMap(integer)
                else {
                    throw unsupported("Strip with a content that is not one character")
                }
                // Before `Fuse`, Strip would apply to every piece: not supported.
                guard fused || (start == 0 && stop == 0) else { throw unsupported("Strip before Fuse") }
                strip = start == 0 && stop == 0 ? nil : Strip(content: Array(content.utf8), start: start, stop: stop)
                stage = 3
            case "Replace", "ByteFallback", "Fuse", "Strip":
                throw unsupported("sequence \(types.joined(separator: ", ")) (\(type) out of order)")
            default:
                throw unsupported("\"\(type)\"")
            }
        }
        return (.pieces(byteFallback: byteFallback, strip: strip), replacements)
    }

    /// Replaces every non-overlapping occurrence of `pattern`, left to right.
    static func replaceAll(_ pattern: [UInt8], with content: [UInt8], in bytes: inout [UInt8]) {
        guard bytes.count >= pattern.count, let first = pattern.first, bytes.contains(first) else { return }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        var changed = false
        while i < bytes.count {
            if bytes[i] == first && i + pattern.count <= bytes.count && bytes[i..<i + pattern.count].elementsEqual(pattern) {
                out.append(contentsOf: content)
                i += pattern.count
                changed = true
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        if changed { bytes = out }
    }

    /// The byte of a `<0xNN>` piece, read as `tokenizers` reads it (`u8::from_str_radix` of the
    /// two characters after `<0x`, which also accepts a `+` sign before one digit).
    static func fallbackByte(_ p: [UInt8]) -> UInt8? {
        guard p.count == 6, p[0] == UInt8(ascii: "<"), p[1] == UInt8(ascii: "0"), p[2] == UInt8(ascii: "x"),
            p[5] == UInt8(ascii: ">")
        else { return nil }
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        if p[3] == UInt8(ascii: "+") { return hex(p[4]) }
        guard let hi = hex(p[3]), let lo = hex(p[4]) else { return nil }
        return hi << 4 | lo
    }
}

/// The parts of a normalizer that matter for decoding: `tokenizers` applies it to the content
/// of added tokens marked `normalized`. Prepend, Replace (plain string), Lowercase and the
/// Unicode normal forms (on ASCII text only, where they change nothing) are supported.
struct Normalizer {
    enum Step {
        case prepend(String)
        case replace(String, String)
        case lowercase
        /// NFC, NFKC, ...: only for ASCII text.
        case normalForm(String)
    }

    var steps: [Step] = []

    init(_ json: JSONValue, source: String) throws(TokenizerError) {
        try add(json, source: source)
    }

    private mutating func add(_ json: JSONValue, source: String) throws(TokenizerError) {
        if json == .null { return }
        let type = json["type"]?.stringValue ?? "(without a type)"
        switch type {
        case "Sequence":
            guard case .array(let inner)? = json["normalizers"] else {
                throw TokenizerError(source: source, message: "normalizer Sequence without \"normalizers\"")
            }
            for n in inner { try add(n, source: source) }
        case "Prepend":
            guard let p = json["prepend"]?.stringValue else {
                throw TokenizerError(source: source, message: "normalizer Prepend without \"prepend\"")
            }
            steps.append(.prepend(p))
        case "Replace":
            guard let pattern = json["pattern"]?["String"]?.stringValue, !pattern.isEmpty,
                let content = json["content"]?.stringValue
            else {
                throw TokenizerError(
                    source: source,
                    message: "normalizer Replace with a pattern that is not a plain string is not supported (for normalized added tokens)")
            }
            steps.append(.replace(pattern, content))
        case "Lowercase":
            steps.append(.lowercase)
        case "NFC", "NFD", "NFKC", "NFKD":
            steps.append(.normalForm(type))
        default:
            throw TokenizerError(
                source: source,
                message: "normalizer \"\(type)\" is not supported (it applies to the normalized added tokens)")
        }
    }

    func apply(_ text: String, source: String) throws(TokenizerError) -> String {
        var s = text
        for step in steps {
            switch step {
            case .prepend(let p):
                if !s.isEmpty { s = p + s }
            case .replace(let pattern, let content):
                var bytes = Array(s.utf8)
                Tokenizer.replaceAll(Array(pattern.utf8), with: Array(content.utf8), in: &bytes)
                s = String(decoding: bytes, as: UTF8.self)
            case .lowercase:
                s = s.lowercased()
            case .normalForm(let form):
                guard s.utf8.allSatisfy({ $0 < 0x80 }) else {
                    throw TokenizerError(
                        source: source,
                        message: "normalizer \(form) on the non-ASCII added token \"\(text)\" is not supported")
                }
            }
        }
        return s
    }
}

/// A tokenizer file that cannot be used.
public struct TokenizerError: Error, CustomStringConvertible, Sendable {
    /// Why the file cannot be used.
    public enum Kind: Sendable, Equatable {
        /// There is no file at the path (``Tokenizer/init(contentsOfFile:)``).
        case missing
        /// The file could not be opened or read, is not a regular file, or is larger than
        /// ``Tokenizer/fileSizeLimit`` (``Tokenizer/init(contentsOfFile:)``).
        case unreadable
        /// The file is a `tokenizer_config.json`, given in place of the `tokenizer.json`
        /// beside it (the message says so).
        case tokenizerConfig
        /// The file was read but is not a tokenizer.json this package can decode with.
        case invalid
    }

    /// The file (as given to ``Tokenizer/init(json:source:)``).
    public let source: String
    /// What is wrong or unsupported.
    public let message: String
    /// Why, as a value (the message says it in words).
    public var kind: Kind = .invalid
    public var description: String { "\(source): \(message)" }
}

/// The GPT-2 byte↔unicode table: printable Latin-1 characters stand for themselves, the other
/// 68 bytes for U+0100 onwards, in byte order.
enum ByteLevelTable {
    /// Scalar value → byte, for scalars below 0x144; -1 where no byte maps there.
    static let byteForScalar: [Int16] = {
        var table = [Int16](repeating: -1, count: 0x144)
        var next = 0x100
        for b in 0...255 {
            let printable = (0x21...0x7E).contains(b) || (0xA1...0xAC).contains(b) || (0xAE...0xFF).contains(b)
            if printable {
                table[b] = Int16(b)
            } else {
                table[next] = Int16(b)
                next += 1
            }
        }
        return table
    }()

    /// The bytes a byte-level piece stands for; a piece with a character outside the table
    /// stands for its own UTF-8 (as in `tokenizers`).
    static func decode(_ piece: String, into out: inout [UInt8]) {
        let mark = out.count
        for s in piece.unicodeScalars {
            let v = Int(s.value)
            guard v < byteForScalar.count, byteForScalar[v] >= 0 else {
                out.removeSubrange(mark...)
                out.append(contentsOf: piece.utf8)
                return
            }
            out.append(UInt8(truncatingIfNeeded: byteForScalar[v]))
        }
    }
}
