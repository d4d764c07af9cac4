// toolcall — `decode --input tokens`: token ids from standard input through a TokenStreamDecoder.

import Glibc
import ToolCallKit

extension DecodeCommand {
    /// The tokenizer.json for `--input tokens`: `--tokenizer FILE`, or the one in `--model DIR`.
    var tokenizerPath: String? {
        if let file = options.tokenizer { return file }
        if let dir = options.model { return dir.hasSuffix("/") ? dir + "tokenizer.json" : dir + "/tokenizer.json" }
        return nil
    }

    /// The tokenizer, read as the C library reads it (``Tokenizer/init(contentsOfFile:)``: a
    /// regular file of at most 512 MiB); messages name the option the path came from.
    func loadTokenizer() throws(ExitError) -> Tokenizer {
        guard let path = tokenizerPath else { throw .usage("--input tokens needs --tokenizer FILE or --model DIR") }
        // Name the option the path came from: a folder without tokenizer.json is --model's problem.
        let fromModel = options.tokenizer == nil
        let option = fromModel ? "--model" : "--tokenizer"
        do {
            return try Tokenizer(contentsOfFile: path)
        } catch {
            switch error.kind {
            case .tokenizerConfig:
                throw .file("\(option) \(path) \(error.message)")
            case .invalid:
                throw .file("\(option) \(error.description)")
            case .missing, .unreadable:
                guard fromModel else { throw .file("\(option) \(error.description)") }
                throw .file("\(option) \(error.description) (--input tokens reads the model folder's tokenizer.json; "
                    + "give --tokenizer FILE when it is elsewhere)")
            }
        }
    }
}

/// `--input tokens`: whitespace-separated ids from standard input, decoded as they arrive.
struct TokenInput {
    let chunkBytes: Int?

    func run(_ decoder: inout TokenStreamDecoder, writer: inout EventWriter) throws(ExitError) {
        var input = StandardInput()
        var scanner = TokenIDScanner()
        var ids: [Int] = []
        while let chunk = input.read() {
            var offset = 0
            let piece = chunkBytes ?? chunk.count
            while offset < chunk.count {
                let end = offset + min(piece, chunk.count - offset)
                ids.removeAll(keepingCapacity: true)
                let first = scanner.count + 1
                let failure = scanner.scan(chunk[offset..<end], into: &ids)
                offset = end
                try feed(ids, firstPosition: first, to: &decoder, writer: &writer)
                if let failure { throw Self.message(failure) }
            }
        }
        ids.removeAll(keepingCapacity: true)
        let first = scanner.count + 1
        let failure = scanner.finish(into: &ids)
        try feed(ids, firstPosition: first, to: &decoder, writer: &writer)
        if let failure { throw Self.message(failure) }
        write(decoder.finish(), to: &writer)
    }

    /// Feeds ids; an unknown id ends the run after the events of the ids before it.
    private func feed(
        _ ids: [Int], firstPosition: Int, to decoder: inout TokenStreamDecoder, writer: inout EventWriter
    ) throws(ExitError) {
        guard !ids.isEmpty else { return }
        do {
            write(try decoder.feed(ids[...]), to: &writer)
        } catch {
            write((try? decoder.feed(ids[..<error.offset])) ?? [], to: &writer)
            throw .file(
                "token \(firstPosition + error.offset) (\(error.id)) is outside the vocabulary of "
                    + "\(decoder.tokenizer.source) (ids 0..<\(error.vocabularySize))")
        }
    }

    private static func message(_ f: TokenIDScanner.Failure) -> ExitError {
        if f.isNumber {
            return .file("token \(f.position) (\(f.text)) is outside the vocabulary")
        }
        return .file("token \(f.position) ('\(f.text)') is not a number: --input tokens reads "
            + "whole numbers separated by white space, such as `19457 0 220` (not a JSON array)")
    }

    private func write(_ events: [ToolCallEvent], to writer: inout EventWriter) {
        // A closed pipe ends quietly, as for text input.
        if !writer.write(events) { exit(0) }
    }
}
