// toolcall — `render`: calls on standard input, written as a format's model writes them.

import ToolCallKit

/// `toolcall render (--format NAME | --model DIR) [--text TEXT]`. With `--model DIR` the
/// format is the one `toolcall infer DIR` names, in the model variant its template shows.
///
/// Standard input holds the calls: an OpenAI `tool_calls` array
/// (`[{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}]`, with
/// `arguments` as an object read too), an OpenAI assistant message (`{"role": "assistant",
/// "content", "tool_calls"}`: its content is the leading text), or the JSON lines
/// `toolcall decode` writes, of which the `tool_call` events count and the other events are
/// skipped. The rendered bytes go to standard output as
/// they are (no newline is added).
struct RenderCommand {
    var format: ToolCallFormat
    var text: String?

    /// Reads the flags; every problem is a usage error (exit 2).
    init(_ args: ArraySlice<String>) throws(ExitError) {
        var args = args
        var formatName: String?
        var model: String?
        var text: String?
        while let arg = args.popFirst() {
            var flag = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                flag = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            func value() throws(ExitError) -> String {
                if let inline { return inline }
                guard let v = args.popFirst() else { throw .usage("\(flag) needs a value") }
                return v
            }
            switch flag {
            case "--format": formatName = try value()
            case "--model": model = try value()
            case "--text": text = try value()
            default: throw .usage(UsageMessages.unknownArgument(arg, command: "render", help: Help.render))
            }
        }
        if formatName != nil && model != nil { throw .usage("--format and --model cannot be used together") }
        if let formatName {
            guard let format = ToolCallFormat(name: formatName) else {
                throw .usage(FormatNames.unknown(formatName))
            }
            self.format = format
        } else if let dir = model {
            let inferred: FormatInference
            do {
                inferred = try ToolCallFormat.infer(modelDirectory: dir)
            } catch {
                throw .file("--model: \(error.message)")
            }
            guard let f = inferred.modelFormat else {
                throw .usage("--model \(dir): no tool-call format found; evidence: " + inferred.evidence.joined(separator: "; ")
                    + "; name the format with --format NAME instead (toolcall formats lists them)")
            }
            self.format = f
        } else {
            throw .usage("render needs --format NAME or --model DIR")
        }
        self.text = text
    }

    func run() throws(ExitError) {
        StandardInput.noteIfTerminal(command: "render", what: "the calls")
        var input: [UInt8] = []
        var reader = StandardInput()
        while let chunk = reader.read() { input += chunk }
        let (calls, content) = try Self.calls(from: input)
        if let content, !content.isEmpty, let text, !text.isEmpty {
            throw .usage("render: the message has content and --text was given: give the text once")
        }
        let bytes: [UInt8]
        do {
            bytes = try format.render(calls, text: text ?? content)
        } catch {
            throw .file("render: \(error)")
        }
        // A reader that closed the pipe early ends the command quietly (EPIPE).
        StandardStreams.writeOut(bytes)
    }

    /// What render reads, for messages.
    static let shapes = #"an OpenAI tool_calls array ([{"type": "function", "function": {"name", "arguments"}}]), an OpenAI assistant message ({"content", "tool_calls"}), or the JSON lines of toolcall decode"#
    /// One call, for messages.
    static let callShapes = #"an OpenAI tool_calls entry ({"type": "function", "function": {"name", "arguments"}}) or a tool_call event ({"type": "tool_call", "name", "arguments"})"#

    /// The calls in the input, and its text (an assistant message's content; nil when there is
    /// none); an unreadable input is an error with exit status 1.
    static func calls(from input: [UInt8]) throws(ExitError) -> (calls: [RenderedCall], text: String?) {
        if let whole = try? JSONValue.parse(input) {
            switch whole {
            case .array(let entries):
                return (try entries.enumerated().map { (i, e) throws(ExitError) in try call(e, at: "tool call \(i)") }, nil)
            case .object where isMessage(whole):
                return try message(whole)
            case .object:
                return (try eventLine(whole, at: "the input").map { [$0] } ?? [], nil)
            default:
                throw .file("render: expected \(shapes) on standard input")
            }
        }
        // JSON lines, as `toolcall decode` writes them.
        var calls: [RenderedCall] = []
        for (n, line) in input.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { !isSpace($0) }) else { continue }
            guard let value = try? JSONValue.parse(line), value.isObject else {
                throw .file("render: line \(n + 1) of standard input is not a JSON object (render reads \(shapes))")
            }
            if let c = try eventLine(value, at: "line \(n + 1)") { calls.append(c) }
        }
        return (calls, nil)
    }

    /// An object with `tool_calls`, `content` or `role`: an OpenAI chat message.
    private static func isMessage(_ value: JSONValue) -> Bool {
        value["tool_calls"] != nil || value["content"] != nil || value["role"] != nil
    }

    /// An OpenAI assistant message: its `tool_calls` and its `content` (a string, null, or a list
    /// of `{"type": "text", "text"}` parts) as the leading text.
    private static func message(_ value: JSONValue) throws(ExitError) -> (calls: [RenderedCall], text: String?) {
        if case .string(let role)? = value["role"], role != "assistant" {
            throw .file("render: the message's role is \(JSONValue.string(role).jsonText); render writes an assistant's output")
        }
        var calls: [RenderedCall] = []
        switch value["tool_calls"] {
        case .array(let entries)?:
            calls = try entries.enumerated().map { (i, e) throws(ExitError) in try call(e, at: "tool call \(i)") }
        case nil, .null?:
            break
        default:
            throw .file("render: the message's tool_calls is not an array")
        }
        var text: String?
        switch value["content"] {
        case .string(let s)?:
            text = s
        case .array(let parts)?:
            var joined = ""
            for (i, part) in parts.enumerated() {
                guard case .string("text")? = part["type"], case .string(let t)? = part["text"] else {
                    throw .file("render: content part \(i) is not a text part ({\"type\": \"text\", \"text\"}); render writes text only")
                }
                joined += t
            }
            text = joined
        case nil, .null?:
            break
        default:
            throw .file("render: the message's content is neither a string, a list of text parts nor null")
        }
        return (calls, text)
    }

    /// A `tool_call` event, an OpenAI call entry, or nil for another event.
    private static func eventLine(_ value: JSONValue, at place: String) throws(ExitError) -> RenderedCall? {
        if value["function"] != nil { return try call(value, at: place) }
        guard case .string(let type)? = value["type"] else {
            throw .file("render: \(place) is not \(callShapes)")
        }
        guard type == "tool_call" else { return nil }
        guard case .string(let name)? = value["name"], let arguments = value["arguments"], arguments.isObject else {
            throw .file("render: \(place): a tool_call event needs a name and an arguments object")
        }
        return RenderedCall(name: name, arguments: arguments, id: value["id"]?.stringValue)
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// One OpenAI `tool_calls` entry (or an event line inside an array).
    private static func call(_ entry: JSONValue, at place: String) throws(ExitError) -> RenderedCall {
        guard entry.isObject else { throw .file("render: \(place) is not a JSON object") }
        guard let function = entry["function"] else {
            if case .string("tool_call")? = entry["type"], let c = try eventLine(entry, at: place) { return c }
            throw .file("render: \(place) is not \(callShapes)")
        }
        guard case .string(let name)? = function["name"] else { throw .file("render: \(place) has no function name") }
        var arguments: JSONValue = .object([])
        switch function["arguments"] {
        case .string(let text)?:
            if !text.utf8.contains(where: { !isSpace($0) }) { break }
            guard let parsed = try? JSONValue.parse(text), parsed.isObject else {
                throw .file("render: \(place): arguments is not the JSON text of an object")
            }
            arguments = parsed
        case let value? where value.isObject:
            arguments = value
        case nil, .null?:
            break
        default:
            throw .file("render: \(place): arguments is neither a JSON string nor an object")
        }
        return RenderedCall(name: name, arguments: arguments, id: entry["id"]?.stringValue)
    }
}
