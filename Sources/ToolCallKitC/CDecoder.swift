// ToolCallKitC — the object behind a `tck_decoder *`.

import Glibc
import ToolCallKit

/// The object behind a `tck_decoder *`: a reference holding one ``DecoderSession``.
///
/// All state lives in the session, a value changed in place through one access per C call
/// (a class's stored properties are checked for exclusive access at run time on every use,
/// which cost more than the decoding of a small chunk).
final class CDecoder {
    var session: DecoderSession

    init(config: DecoderConfig) throws(DecoderConfig.Problem) {
        session = try DecoderSession(config: config)
    }
}

/// One stream's decoder as the C interface sees it: the Swift decoder, the line writer and
/// the buffers handed to the caller.
///
/// It exists so that a C caller never meets a Swift trap: every misuse the Swift API answers
/// with a precondition (a feed after `finish()`) is checked here first and reported as an
/// error code with a message. It is not locked; the header tells callers to use one decoder
/// from one thread at a time.
@safe struct DecoderSession: ~Copyable {
    /// The decoder: one of the two is set, by whether the decoder takes token ids
    /// (`takesTokens`); changed in place through `?.`, so no call copies a decoder. The token
    /// decoder is boxed, so that a byte decoder does not carry its (unused) space inline.
    private var bytesDecoder: ToolCallDecoder?
    private var tokensBox: TokenDecoderBox?
    private var takesTokens: Bool
    /// A model folder's decoder configured without `input`, before its first feed: the
    /// folder's tokenizer.json, loaded if that feed is token ids (nil once decided).
    private var undecidedTokenizer: String?
    private let skipSpecial: Bool
    private var writer: EventLineWriter
    private let countsLines: Bool
    private var finished = false
    /// Reused between calls: the caller's bytes or ids, and the events of one call.
    private var bytesIn: [UInt8] = []
    private var idsIn: [Int] = []
    private var events: [ToolCallEvent] = []
    private var scratch: [UInt8] = []
    private var diagnosticScratch: [UInt8] = []
    /// Queued lines, and whether the queue was handed out (it empties at the next call).
    private var lines = HandedBuffer()
    private var lineCount = 0
    private var diagnostics = HandedBuffer()
    private var diagnosticCount = 0
    /// The message of the last failed call (from `strdup`), nil when none has failed.
    private var lastError: UnsafeMutablePointer<CChar>?

    /// Builds a decoder from a checked configuration; loads the tokenizer (shared) and the tools.
    init(config: DecoderConfig) throws(DecoderConfig.Problem) {
        let format: ToolCallFormat
        if let f = config.format {
            format = f
        } else {
            let dir = config.model ?? ""
            let inferred: FormatInference
            do {
                inferred = try ToolCallFormat.infer(modelDirectory: dir)
            } catch {
                throw .init(message: "model: \(error.message)")
            }
            guard let f = inferred.modelFormat else {
                throw .init(message: "model \(dir): no tool-call format found; evidence: "
                    + inferred.evidence.joined(separator: "; "))
            }
            format = f
        }
        guard format.isImplemented else {
            throw .init(message: "format '\(format.rawValue)' is planned but not implemented in this build")
        }
        var tools: ToolSet?
        if let array = config.tools {
            var json: [UInt8] = []
            array.write(to: &json)
            do {
                tools = try ToolSet.load(json: json)
                if config.validate { tools = try tools?.compilingValidators() }
            } catch {
                throw .init(message: "tools: \(error.message)")
            }
        }
        var options = ToolCallDecoder.Options(
            rawSpans: config.raw, idSeed: config.idSeed, reasoning: config.reasoning,
            reasoningOpen: config.reasoningOpen, validate: config.validate, wholeCalls: config.wholeCalls)
        if let cap = config.maxCallBytes { options.maxCallBytes = cap }
        options.toolChoice = config.toolChoice
        options.parallelToolCalls = config.parallelToolCalls
        let decoder = ToolCallDecoder(format: format, tools: tools, options: options)
        // Load what can fail before any stored property is set (a throw must leave none set).
        var loaded: Tokenizer?
        if case .tokens(let path) = config.inputKind {
            do {
                loaded = try TokenizerCache.shared.tokenizer(at: path)
            } catch {
                // A model folder without a usable tokenizer.json: say which option asked for it.
                throw .init(message: config.tokenizer == nil
                    ? "model \(error.message) (input \"tokens\" reads the model folder's tokenizer.json; give tokenizer when it is elsewhere)"
                    : error.message)
            }
        }
        if let tokenizer = loaded {
            tokensBox = TokenDecoderBox(TokenStreamDecoder(tokenizer: tokenizer, decoder: decoder, skipSpecial: config.skipSpecial))
            takesTokens = true
        } else {
            bytesDecoder = decoder
            takesTokens = false
            if case .firstFeedDecides(let path) = config.inputKind { undecidedTokenizer = path }
        }
        skipSpecial = config.skipSpecial
        if config.openAI {
            let model = config.model.map(Self.folderName) ?? "toolcall"
            writer = EventLineWriter(.openAI(OpenAIChunkEncoder(
                id: OpenAIChunkEncoder.makeID(seed: config.idSeed), created: Int(time(nil)), model: model,
                wholeCalls: config.wholeCalls)))
            countsLines = true
        } else if config.output == "responses" {
            writer = EventLineWriter(.responses(ResponsesEventEncoder(
                model: config.model.map(Self.folderName) ?? "toolcall", createdAt: Int(time(nil)), seed: config.idSeed,
                toolChoice: config.toolChoice, parallelToolCalls: config.parallelToolCalls, tools: tools)))
            countsLines = true
        } else if config.output == "anthropic" {
            writer = EventLineWriter(.anthropic(AnthropicEventEncoder(
                model: config.model.map(Self.folderName) ?? "toolcall", seed: config.idSeed)))
            countsLines = true
        } else {
            writer = EventLineWriter(.events(raw: config.raw))
            countsLines = false
        }
    }

    /// The model name OpenAI chunks carry: the folder's last path component (as the CLI).
    private static func folderName(_ folder: String) -> String {
        folder.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? "toolcall"
    }

    // MARK: - Calls

    /// `tck_feed`.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        beginCall()
        guard !finished else { return fail(TCK.state, "tck_feed after tck_finish") }
        guard !takesTokens else {
            return fail(TCK.input, "this decoder takes token ids (tck_feed_tokens): it was configured with a tokenizer, "
                + "or input \"tokens\", or fed token ids first")
        }
        guard bytes.count > 0 else { return Int32(clamping: lineCount) }
        undecidedTokenizer = nil
        bytesIn.removeAll(keepingCapacity: true)
        unsafe bytesIn.append(contentsOf: bytes)
        events.removeAll(keepingCapacity: true)
        bytesDecoder?.feed(bytesIn[...], into: &events)
        return queue()
    }

    /// `tck_feed_tokens`.
    mutating func feedTokens(_ ids: UnsafeBufferPointer<UInt32>) -> Int32 {
        beginCall()
        guard !finished else { return fail(TCK.state, "tck_feed_tokens after tck_finish") }
        if !takesTokens {
            guard let path = undecidedTokenizer else {
                return fail(TCK.input, "tck_feed_tokens needs a tokenizer: this decoder takes text (tck_feed). Give "
                    + "\"tokenizer\", or \"model\" (its tokenizer.json is read with input \"tokens\", or when the "
                    + "first feed is token ids)")
            }
            guard ids.count > 0 else { return Int32(clamping: lineCount) }
            // The first feed of a model folder's decoder is token ids: load its tokenizer now.
            do {
                let tokenizer = try TokenizerCache.shared.tokenizer(at: path)
                guard let decoder = bytesDecoder else { return fail(TCK.state, "no decoder") }
                tokensBox = TokenDecoderBox(TokenStreamDecoder(tokenizer: tokenizer, decoder: decoder, skipSpecial: skipSpecial))
                bytesDecoder = nil
                takesTokens = true
                undecidedTokenizer = nil
            } catch {
                return fail(TCK.io, "model \(error.message) (token ids are decoded with the model folder's tokenizer.json; "
                    + "give tokenizer when it is elsewhere)")
            }
        }
        guard ids.count > 0 else { return Int32(clamping: lineCount) }
        idsIn.removeAll(keepingCapacity: true)
        for unsafe id in unsafe ids { idsIn.append(Int(id)) }
        do {
            events = try tokensBox?.decoder.feed(idsIn[...]) ?? []
        } catch {
            // Nothing was consumed: feed the ids before the bad one, then report it.
            events = (try? tokensBox?.decoder.feed(idsIn[..<error.offset])) ?? []
            _ = queue()
            let source = tokensBox?.decoder.tokenizer.source ?? ""
            return fail(TCK.token,
                "token \(error.offset) of this call (\(error.id)) is outside the vocabulary of "
                    + "\(source) (ids 0..<\(error.vocabularySize))")
        }
        return queue()
    }

    /// `tck_finish`.
    mutating func finish() -> Int32 {
        beginCall()
        guard !finished else { return fail(TCK.state, "tck_finish called twice") }
        finished = true
        events.removeAll(keepingCapacity: true)
        if takesTokens {
            events = tokensBox?.decoder.finish() ?? []
        } else {
            bytesDecoder?.finish(into: &events)
        }
        return queue()
    }

    /// `tck_events`: the queued lines (start, byte count, line count); they stay valid until
    /// the next call.
    mutating func takeLines() -> (UnsafePointer<UInt8>, Int, Int32) {
        beginCall()
        let n = lineCount
        lineCount = 0
        return unsafe lines.handOut(lines: n)
    }

    /// `tck_diagnostics`.
    mutating func takeDiagnostics() -> (UnsafePointer<UInt8>, Int, Int32) {
        beginCall()
        let n = diagnosticCount
        diagnosticCount = 0
        return unsafe diagnostics.handOut(lines: n)
    }

    deinit { unsafe free(lastError) }

    /// `tck_last_error`: the message, NUL-terminated ("" when no call has failed).
    var lastErrorPointer: UnsafePointer<CChar> {
        unsafe (lastError.map { unsafe UnsafePointer($0) } ?? DecoderSession.noError)
    }

    private nonisolated(unsafe) static let noError: UnsafePointer<CChar> = unsafe UnsafePointer(strdup("")!)

    /// Records a misuse found before the decoder was reached (a NULL buffer): TCK_E_ARGUMENT.
    mutating func misuse(_ message: String) -> Int32 {
        beginCall()
        return fail(TCK.argument, message)
    }

    /// The start of every call but `tck_last_error`: what was handed out may now be reused.
    private mutating func beginCall() {
        lines.reclaim()
        diagnostics.reclaim()
    }

    /// Encodes `events` onto the queues; the number of lines queued.
    private mutating func queue() -> Int32 {
        guard !events.isEmpty else { return Int32(clamping: lineCount) }
        scratch.removeAll(keepingCapacity: true)
        diagnosticScratch.removeAll(keepingCapacity: true)
        writer.write(events, lines: &scratch, diagnostics: &diagnosticScratch)
        if countsLines {
            lineCount &+= Self.newlines(scratch)
            diagnosticCount &+= Self.newlines(diagnosticScratch)
            diagnostics.append(diagnosticScratch)
        } else {
            lineCount &+= events.count
        }
        lines.append(scratch)
        return Int32(clamping: lineCount)
    }

    private static func newlines(_ bytes: [UInt8]) -> Int {
        var n = 0
        for b in bytes where b == 0x0A { n &+= 1 }
        return n
    }

    private mutating func fail(_ code: Int32, _ message: String) -> Int32 {
        unsafe free(lastError)
        unsafe lastError = strdup(message)
        return code
    }
}

/// A token decoder on the heap (see ``DecoderSession``).
final class TokenDecoderBox {
    var decoder: TokenStreamDecoder

    init(_ decoder: TokenStreamDecoder) {
        self.decoder = decoder
    }
}

/// The error codes of the header.
enum TCK {
    static let argument: Int32 = -1
    static let state: Int32 = -2
    static let token: Int32 = -3
    static let input: Int32 = -4
    static let io: Int32 = -5
}

/// A byte buffer whose storage the C caller may read between two calls.
///
/// Memory from `malloc`, so its address is stable and owned here (a Swift array gives no such
/// promise outside a closure). After ``handOut()`` the bytes belong to the caller until
/// ``reclaim()``, at the start of the decoder's next call, empties the buffer.
@safe struct HandedBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>?
    private(set) var count = 0
    private var capacity = 0
    private var handedOut = false

    init() {}

    deinit { unsafe free(base) }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let needed = count &+ bytes.count
        if needed > capacity {
            let newCapacity = max(needed, capacity &* 2, 256)
            guard let p = unsafe realloc(base, newCapacity) else { fatalError("out of memory") }
            unsafe base = p.assumingMemoryBound(to: UInt8.self)
            capacity = newCapacity
        }
        unsafe bytes.withUnsafeBufferPointer { src in
            unsafe (base! + count).update(from: src.baseAddress!, count: src.count)
        }
        count = needed
    }

    /// Hands the bytes to the caller: their start (a valid empty buffer when there are none),
    /// their count, and `lines`.
    mutating func handOut(lines: Int) -> (UnsafePointer<UInt8>, Int, Int32) {
        handedOut = true
        let start = unsafe (base.map { unsafe UnsafePointer($0) } ?? HandedBuffer.empty)
        return unsafe (start, count, Int32(clamping: lines))
    }

    /// What an empty buffer hands out (a C caller may read zero bytes from it).
    private nonisolated(unsafe) static let empty: UnsafePointer<UInt8> = unsafe UnsafePointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))

    mutating func reclaim() {
        if handedOut {
            count = 0
            handedOut = false
        }
    }
}
