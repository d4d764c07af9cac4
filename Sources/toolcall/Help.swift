// toolcall — the help texts (`toolcall --help`, `toolcall decode --help`, ...).

import ToolCallKit

enum Help {
    static let version = "0.1.0"

    static let formats = """
          NAME                    \(wrapped("A format: " + ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ") + " (case names such as xmlFunction are accepted too), or a model variant of one: " + ToolCallFormat.variants.map(\.rawValue).joined(separator: ", ") + ". `toolcall formats` lists them, `toolcall infer DIR` names a model folder's."))
        """

    /// `text` in lines of at most 61 characters, every line after the first indented to the
    /// help's second column.
    static func wrapped(_ text: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > 61 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n" + String(repeating: " ", count: 26))
    }

    static let decodeOptions = """
        OPTIONS (decode):
          --format NAME           The wire format of the model's output.
          --model DIR             Infer the format (and, for --input tokens, the tokenizer)
                                  from a Hugging Face model folder; decode as the model
                                  variant its chat template shows.
          --response-template FILE
                                  Parse with a Hugging Face response template: FILE holds
                                  the template, or a tokenizer_config.json that has one.
                                  Reasoning is always separated.
          --prefix-file FILE      The end of the prompt, for a template's start anchor (a
                                  prefilled <think> starts the stream in reasoning).
          --tools FILE            The tools the request declared: an OpenAI tools array,
                                  flat {"name", "parameters"} entries, Anthropic entries
                                  ({"name", "input_schema"}), or a whole request body with
                                  a "tools" array. Only these names are accepted, and
                                  text-valued arguments are typed by their schemas.
          --validate              Check arguments against the tools' schemas (needs --tools).
          --whole-calls           Emit a call only once it is accepted: its start, all its
                                  arguments and its end together. Text still streams.
          --input text|tokens     Standard input is text (default) or token ids.
          --tokenizer FILE        A tokenizer.json for --input tokens.
          --skip-special          Drop special tokens that are not format markers
                                  (--input tokens).
          --output events|openai|responses|anthropic
                                  JSON events (default), OpenAI chat.completion.chunk lines,
                                  OpenAI Responses or Anthropic Messages streaming events.
          --raw                   Add the exact input bytes to every event ("raw"; events only).
          --reasoning             Separate reasoning blocks into reasoning events.
          --reasoning-open        Start inside a reasoning block (implies --reasoning).
          --max-call-bytes N      Reject calls larger than N bytes as too_large: 1 to
                                  \(Limits.largestText), or 'unlimited' (default 16777216).
          --id-seed N             Seed call ids, for reproducible output.
          --chunk-bytes N         Feed standard input in pieces of N bytes (for tests).
          --tool-choice auto|required|none|NAME
                                  Reject calls the choice does not allow (tool_choice), and
                                  reject no_tool_call before end when a required call never
                                  came.
          --parallel-tool-calls true|false
                                  With false, reject every call after the first accepted one.
          -h, --help              Show this help.
        """

    static let exitStatus = """
        EXIT STATUS:
          0 success, 1 an unreadable or invalid file, 2 bad usage, 3 infer found no format.
        """

    /// `toolcall --help`.
    static let main = """
        OVERVIEW: Turn a language model's raw output into typed tool calls while it streams.

        USAGE: toolcall decode (--format NAME | --model DIR | --response-template FILE)
                               [options] < model-output
               toolcall render (--format NAME | --model DIR) [--text TEXT] < calls
               toolcall grammar (--format NAME | --model DIR) --tools FILE [options]
               toolcall infer DIR
               toolcall formats [--json | --fuzz-dictionary]
               toolcall --version | --help
               toolcall COMMAND --help

        ARGUMENTS:
        \(formats)
          DIR                     A Hugging Face model folder.

        \(decodeOptions)

        \(exitStatus)
        """

    /// `toolcall decode --help`.
    static let decode = """
        OVERVIEW: Decode standard input as it arrives; one JSON event (or API streaming event) per line.

        USAGE: toolcall decode (--format NAME | --model DIR | --response-template FILE)
                               [--prefix-file FILE] [--tools FILE [--validate]]
                               [--whole-calls] [--input text|tokens] [--tokenizer FILE]
                               [--skip-special] [--output events|openai|responses|anthropic]
                               [--raw]
                               [--reasoning] [--reasoning-open] [--max-call-bytes N|unlimited]
                               [--id-seed N] [--chunk-bytes N]
                               [--tool-choice auto|required|none|NAME]
                               [--parallel-tool-calls true|false] < model-output

        ARGUMENTS:
        \(formats)

        \(decodeOptions)

        \(exitStatus)
        """

    /// `toolcall render --help`.
    static let render = """
        OVERVIEW: Write calls as a format's model writes them (decode gives the same calls back).

        USAGE: toolcall render (--format NAME | --model DIR) [--text TEXT] < calls

        ARGUMENTS:
        \(formats)

        OPTIONS (render):
          --format NAME           The format to write the calls in.
          --model DIR             Infer the format from a model folder, in the model variant
                                  its chat template shows.
          --text TEXT             Content the model wrote before the calls.

        Standard input: an OpenAI tool_calls array; an OpenAI assistant message, whose
        content is the text before the calls (then --text cannot be given too); or the
        tool_call event lines that decode writes.

        EXIT STATUS:
          0 success, 1 a call the format cannot express or unreadable input, 2 bad usage.
        """

    /// `toolcall grammar --help`.
    static let grammar = """
        OVERVIEW: Write a constrained-decoding grammar that admits only the calls a request
        allows, in the format's own layout (docs/grammar.md).

        USAGE: toolcall grammar (--format NAME | --model DIR) --tools FILE
                                [--tool-choice auto|required|none|NAME]
                                [--parallel-tool-calls true|false]
                                [--target xgrammar|lark|gbnf]
                                [--reasoning | --reasoning-open] [--tokenizer FILE]

        ARGUMENTS:
        \(formats)

        OPTIONS (grammar):
          --format NAME           The wire format the model writes.
          --model DIR             Infer the format, in the model variant its chat template
                                  shows, from a model folder (its tokenizer.json, when
                                  there is one, names the special tokens).
          --tools FILE            The tools the request declared (any shape decode --tools
                                  reads: an OpenAI tools array, flat or Anthropic entries,
                                  a request body): the calls the grammar writes.
          --tool-choice CHOICE    auto (default): text and any calls; required: at least one
                                  call, first; none: no call markup at all; NAME: only that
                                  tool, at least once; or an OpenAI tool_choice object.
          --parallel-tool-calls true|false
                                  With false, at most one call (default true).
          --target T              xgrammar (default): a structural tag; lark: a llguidance
                                  grammar; gbnf: llama.cpp's GBNF (lazy with its trigger
                                  words for auto, as llama.cpp's server takes it).
          --reasoning             The format's reasoning block may come first.
          --reasoning-open        The output begins inside the reasoning block.
          --tokenizer FILE        A tokenizer.json: markers that are one special token are
                                  written as that token.

        Keywords of a schema that the grammar does not enforce are listed on standard error,
        one warning each.

        EXIT STATUS:
          0 success, 1 an unreadable or invalid file, 2 bad usage (also a tool_choice naming
          an undeclared tool, or a format without a layout).
        """

    /// `toolcall infer --help`.
    static let infer = """
        OVERVIEW: Name a model folder's tool-call format and say why.

        USAGE: toolcall infer DIR

        Prints one line of JSON, {"format": NAME or null, "evidence": [...]}. NAME is a base
        format; when the folder's chat template shows a model variant of it, "variant":
        VARIANT follows the format (decode, render and grammar use the variant with
        --model DIR, or with --format VARIANT).

        EXIT STATUS:
          0 a format was found, 1 DIR is not a readable folder, 3 no format was found.
        """

    /// `toolcall formats --help`.
    static let formatsCommand = """
        OVERVIEW: List the formats, one per line: raw value, case name, implemented or planned.

        USAGE: toolcall formats [--json | --fuzz-dictionary]

        OPTIONS:
          --json                  One JSON object per format: name, case_name, summary,
                                  markers, reasoning_markers, fuzz_words.
          --fuzz-dictionary       A libFuzzer dictionary of every format's markers and words.
        """
}
