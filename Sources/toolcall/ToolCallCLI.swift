// toolcall — the command-line tool: argument parsing and I/O around ToolCallKit.

import Glibc
import ToolCallKit

@main
struct ToolCallCLI {
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
        if let message = error.message { Messages.error(message) }
        exit(error.code)
    }

    static func run(_ args: ArraySlice<String>) throws(ExitError) {
        guard let command = args.first else {
            throw .usage("missing command: decode, render, grammar, infer or formats (see toolcall --help)")
        }
        let rest = args.dropFirst()
        switch command {
        case "--help", "-h":
            StandardStreams.writeOut(Help.main + "\n")
        case "help":
            // `toolcall help decode` is `toolcall decode --help`.
            switch rest.first {
            case nil: StandardStreams.writeOut(Help.main + "\n")
            case "decode": StandardStreams.writeOut(Help.decode + "\n")
            case "render": StandardStreams.writeOut(Help.render + "\n")
            case "infer": StandardStreams.writeOut(Help.infer + "\n")
            case "formats": StandardStreams.writeOut(Help.formatsCommand + "\n")
            case "grammar": StandardStreams.writeOut(Help.grammar + "\n")
            case let other?: throw .usage("no help for '\(other)': the commands are decode, render, grammar, infer and formats")
            }
        case "--version":
            StandardStreams.writeOut("toolcall \(Help.version)\n")
        case "decode" where ArgumentReader.wantsHelp(rest):
            StandardStreams.writeOut(Help.decode + "\n")
        case "render" where ArgumentReader.wantsHelp(rest):
            StandardStreams.writeOut(Help.render + "\n")
        case "infer" where ArgumentReader.wantsHelp(rest):
            StandardStreams.writeOut(Help.infer + "\n")
        case "grammar" where ArgumentReader.wantsHelp(rest):
            StandardStreams.writeOut(Help.grammar + "\n")
        case "grammar":
            try GrammarCommand(rest).run()
        case "formats" where ArgumentReader.wantsHelp(rest):
            StandardStreams.writeOut(Help.formatsCommand + "\n")
        case "formats":
            StandardStreams.writeOut(try FormatsCommand.run(rest))
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
