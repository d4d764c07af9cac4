// ToolCallKit — token ids in, tool-call events out.

/// Decodes a stream of token ids into the events of docs/events.md.
///
/// Ids are detokenized with a ``Detokenizer`` (exactly as `tokenizers` decodes them with
/// `skip_special_tokens=False`) and the bytes are fed to a ``ToolCallDecoder``. A special token
/// whose text is one of the format's markers (`<tool_call>`, `[TOOL_CALLS]`, `<|python_tag|>`)
/// arrives as the marker's bytes, so the decoder's marker scanner recognises it like any other
/// occurrence; a byte sequence left unfinished before it has already become U+FFFD, as in
/// `tokenizers`, so nothing is glued to the marker.
///
/// With `skipSpecial`, special tokens that are *not* markers (BOS, end-of-turn) are dropped
/// before detokenizing, as `skip_special_tokens=True` drops them; markers are always kept.
///
/// A `Sendable` value: copy it to fork a stream's state.
public struct TokenStreamDecoder: Sendable {
    /// An id that the tokenizer does not have.
    public struct UnknownTokenError: Error, CustomStringConvertible, Sendable {
        /// The id.
        public let id: Int
        /// Its position in the collection passed to ``TokenStreamDecoder/feed(_:)`` (0-based).
        public let offset: Int
        /// The tokenizer's vocabulary size.
        public let vocabularySize: Int
        public var description: String {
            "token id \(id) is outside the vocabulary (0..<\(vocabularySize))"
        }
    }

    public let tokenizer: Tokenizer
    /// Whether special tokens that are not format markers are dropped.
    public let skipSpecial: Bool

    private var decoder: ToolCallDecoder
    private var detokenizer: Detokenizer
    /// Special tokens dropped by `skipSpecial`.
    private let dropped: Set<Int>
    private var bytes: [UInt8] = []

    /// Creates a decoder for one stream around a configured ``ToolCallDecoder``.
    public init(tokenizer: Tokenizer, decoder: ToolCallDecoder, skipSpecial: Bool = false) {
        self.tokenizer = tokenizer
        self.skipSpecial = skipSpecial
        self.decoder = decoder
        self.detokenizer = Detokenizer(tokenizer: tokenizer)
        if skipSpecial {
            let markers = Set(decoder.markerTexts)
            self.dropped = Set(tokenizer.addedTokens.filter { $0.special && !markers.contains($0.content) }.map(\.id))
        } else {
            self.dropped = []
        }
    }

    /// Creates a decoder for one stream.
    public init(
        tokenizer: Tokenizer, format: ToolCallFormat, tools: ToolSet? = nil,
        options: ToolCallDecoder.Options = .init(), skipSpecial: Bool = false
    ) {
        self.init(
            tokenizer: tokenizer, decoder: ToolCallDecoder(format: format, tools: tools, options: options),
            skipSpecial: skipSpecial)
    }

    /// Consumes the next ids.
    ///
    /// - Parameter ids: token ids, in any batching.
    /// - Returns: the events these ids completed, in source order.
    /// - Throws: ``UnknownTokenError`` for the first id outside the vocabulary; nothing of
    ///   `ids` has been consumed then (feed the ids before it to get their events).
    public mutating func feed(_ ids: some Collection<Int>) throws(UnknownTokenError) -> [ToolCallEvent] {
        try feed(ArraySlice(ids))
    }

    /// Consumes the next ids (the concrete form: no generic iteration per id).
    public mutating func feed(_ ids: ArraySlice<Int>) throws(UnknownTokenError) -> [ToolCallEvent] {
        for i in ids.indices where !tokenizer.contains(ids[i]) {
            throw UnknownTokenError(id: ids[i], offset: i - ids.startIndex, vocabularySize: tokenizer.vocabularySize)
        }
        bytes.removeAll(keepingCapacity: true)
        if dropped.isEmpty {
            for i in ids.indices { detokenizer.decode(ids[i], into: &bytes) }
        } else {
            for i in ids.indices where !(tokenizer.isSpecial(ids[i]) && dropped.contains(ids[i])) {
                detokenizer.decode(ids[i], into: &bytes)
            }
        }
        return decoder.feed(bytes)
    }

    /// Consumes one id.
    public mutating func feed(_ id: Int) throws(UnknownTokenError) -> [ToolCallEvent] {
        var out: [ToolCallEvent] = []
        try feed(id, into: &out)
        return out
    }

    /// Consumes one id and appends its events to `out`.
    ///
    /// The allocation-free form for servers that stream one id at a time: reuse one array
    /// across ids (`out.removeAll(keepingCapacity: true)` after handling it). An id outside the
    /// vocabulary throws and changes nothing.
    public mutating func feed(_ id: Int, into out: inout [ToolCallEvent]) throws(UnknownTokenError) {
        guard tokenizer.contains(id) else {
            throw UnknownTokenError(id: id, offset: 0, vocabularySize: tokenizer.vocabularySize)
        }
        if !dropped.isEmpty && tokenizer.isSpecial(id) && dropped.contains(id) { return }
        // Most ids: their bytes go to the decoder straight from the tokenizer's table.
        if let own = detokenizer.passThrough(id) {
            if !own.isEmpty { decoder.feed(table: tokenizer.arena, own, into: &out) }
            return
        }
        bytes.removeAll(keepingCapacity: true)
        detokenizer.decode(id, into: &bytes)
        if !bytes.isEmpty { decoder.feed(bytes[...], into: &out) }
    }

    /// Ends the stream: flushes what the detokenizer held, then ends the decoder (`end` last).
    public mutating func finish() -> [ToolCallEvent] {
        var out: [ToolCallEvent] = []
        finish(into: &out)
        return out
    }

    /// Ends the stream, appending the last events to `out`.
    public mutating func finish(into out: inout [ToolCallEvent]) {
        bytes.removeAll(keepingCapacity: true)
        detokenizer.finish(into: &bytes)
        decoder.feed(bytes[...], into: &out)
        decoder.finish(into: &out)
    }
}
