// ToolCallKit — a stream's events as the output lines of `toolcall decode`.

/// Turns the events of one stream into the lines `toolcall decode` writes, for any embedder
/// that must produce the same bytes (the command-line tool, the C library, bindings over it).
///
/// With ``Mode/events(raw:)`` every event is one JSON object (``EventJSONEncoder``). With
/// ``Mode/openAI(_:)`` the events become `chat.completion.chunk` lines
/// (``OpenAIChunkEncoder``); rejections are not chunks there but *diagnostics*, one JSON event
/// line each, which the command-line tool writes to standard error. ``Mode/responses(_:)``
/// and ``Mode/anthropic(_:)`` write the Responses and Anthropic streaming events, with
/// rejections as diagnostics too.
///
/// Every line ends with a newline (`\n`). The writer keeps the per-stream state of the OpenAI
/// encoder, so one writer serves one stream. It appends to the caller's buffers and never
/// clears them, so a caller can reuse them without allocating.
public struct EventLineWriter: Sendable {
    /// How events are written.
    public enum Mode: Sendable {
        /// One JSON event per line; `raw` adds the `raw` field.
        case events(raw: Bool)
        /// OpenAI streaming chunks, from this encoder (its id, creation time and model name).
        case openAI(OpenAIChunkEncoder)
        /// OpenAI Responses API streaming events (``ResponsesEventEncoder``).
        case responses(ResponsesEventEncoder)
        /// Anthropic Messages API streaming events (``AnthropicEventEncoder``).
        case anthropic(AnthropicEventEncoder)
    }

    private var mode: Mode

    public init(_ mode: Mode) {
        self.mode = mode
    }

    /// Appends the lines of `events`.
    ///
    /// - Parameters:
    ///   - events: the next events of the stream, in order.
    ///   - lines: where the output lines go (standard output for the command-line tool).
    ///   - diagnostics: where rejections go in OpenAI mode (standard error for the tool);
    ///     untouched in events mode.
    public mutating func write(_ events: [ToolCallEvent], lines: inout [UInt8], diagnostics: inout [UInt8]) {
        for e in events { write(e, lines: &lines, diagnostics: &diagnostics) }
    }

    /// Appends the lines of one event (a caller may then write out what a large one made
    /// before the next is encoded).
    public mutating func write(_ e: ToolCallEvent, lines: inout [UInt8], diagnostics: inout [UInt8]) {
        switch mode {
        case .events(let raw):
            EventJSONEncoder.encode(e, raw: raw, into: &lines)
            lines.append(0x0A)
        case .openAI(var encoder):
            // Take the encoder out while it changes, so its state is not copied.
            mode = .events(raw: false)
            do {
                let encoded = encoder.encode(e)
                for line in encoded.chunks {
                    lines.append(contentsOf: line.utf8)
                    lines.append(0x0A)
                }
                for line in encoded.diagnostics {
                    diagnostics.append(contentsOf: line.utf8)
                    diagnostics.append(0x0A)
                }
            }
            mode = .openAI(encoder)
        case .responses(var encoder):
            mode = .events(raw: false)
            do {
                let encoded = encoder.encode(e)
                Self.append(encoded.lines, to: &lines)
                Self.append(encoded.diagnostics, to: &diagnostics)
            }
            mode = .responses(encoder)
        case .anthropic(var encoder):
            mode = .events(raw: false)
            do {
                let encoded = encoder.encode(e)
                Self.append(encoded.lines, to: &lines)
                Self.append(encoded.diagnostics, to: &diagnostics)
            }
            mode = .anthropic(encoder)
        }
    }

    private static func append(_ encoded: [String], to out: inout [UInt8]) {
        for line in encoded {
            out.append(contentsOf: line.utf8)
            out.append(0x0A)
        }
    }
}
