// toolcall — the command-line tool: argument parsing and I/O around ToolCallKit.

import Glibc
import ToolCallKit

@main
struct ToolCallCLI {
    static let version = "0.1.0"

    static let help = """
        OVERVIEW: Turn a language model's raw output into typed tool calls while it streams.

        USAGE: toolcall decode (--format NAME | --model DIR) [options] < model-output
               toolcall render --format NAME [--text TEXT] < calls
               toolcall infer DIR
               toolcall formats
               toolcall --version | --help

        ARGUMENTS:
          NAME                    A format: json, lfm2, xml_function, glm4, gemma, gemma4,
                                  kimi_k2, minimax_m2, mistral, llama3 (case names such as
                                  xmlFunction are accepted too).
          DIR                     A Hugging Face model folder.

        OPTIONS (decode):
          --format NAME           The wire format of the model's output.
          --model DIR             Infer the format (and tokenizer) from a model folder.
          --tools FILE            An OpenAI-style tools array: only these names are accepted,
                                  and text-valued arguments are typed by their schemas.
          --validate              Check arguments against the tools' schemas (needs --tools).
          --input text|tokens     Standard input is text (default) or token ids.
          --tokenizer FILE        A tokenizer.json for --input tokens.
          --skip-special          Drop special tokens that are not format markers.
          --output events|openai  JSON events (default) or OpenAI chat.completion.chunk lines.
          --raw                   Add the exact input bytes to every event ("raw").
          --reasoning             Separate reasoning blocks into reasoning events.
          --reasoning-open        Start inside a reasoning block (implies --reasoning).
          --max-call-bytes N      Reject calls larger than N bytes (default 16777216).
          --id-seed N             Seed call ids, for reproducible output.
          --chunk-bytes N         Feed standard input in pieces of N bytes (for tests).

        OPTIONS (render):
          --format NAME           The format to write the calls in.
          --text TEXT             Content the model wrote before the calls.
                                  Standard input: an OpenAI tool_calls array, or the
                                  tool_call event lines that decode writes.

        EXIT STATUS:
          0 success, 1 an unreadable or invalid file, 2 bad usage, 3 infer found no format.
        """

    static func main() {
        signal(SIGPIPE, SIG_IGN)
        let args = CommandLine.arguments.dropFirst()
        do {
            try run(args)
            exit(0)
        } catch {
            fail(error)
        }
    }

    static func fail(_ error: ExitError) -> Never {
        if let message = error.message { StandardStreams.writeError("toolcall: \(message)\n") }
        exit(error.code)
    }

    static func run(_ args: ArraySlice<String>) throws(ExitError) {
        guard let command = args.first else {
            throw .usage("missing command: decode, infer or formats (see toolcall --help)")
        }
        switch command {
        case "--help", "-h", "help":
            StandardStreams.writeOut(help + "\n")
        case "--version":
            StandardStreams.writeOut("toolcall \(version)\n")
        case "formats":
            guard args.count == 1 else { throw .usage("formats takes no arguments") }
            var out = ""
            for f in ToolCallFormat.allCases {
                out += "\(f.rawValue)\t\(f.caseName)\t\(f.isImplemented ? "implemented" : "planned")\n"
            }
            StandardStreams.writeOut(out)
        case "decode":
            var reader = ArgumentReader(args.dropFirst())
            let options = try reader.decodeOptions()
            try DecodeCommand(options: options).run()
        case "render":
            try RenderCommand(args.dropFirst()).run()
        case "infer":
            guard args.count == 2, let dir = args.dropFirst().first, !dir.hasPrefix("--") else {
                throw .usage("infer takes one model folder: toolcall infer DIR")
            }
            let result: FormatInference
            do {
                result = try ToolCallFormat.infer(modelDirectory: dir)
            } catch {
                throw .file("infer: \(error.message)")
            }
            StandardStreams.writeOut(result.jsonLine + "\n")
            if result.format == nil { throw ExitError(code: 3, message: nil) }
        default:
            throw .usage("unknown command '\(command)' (see toolcall --help)")
        }
    }
}
