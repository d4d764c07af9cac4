import Foundation
import Testing
import ToolCallKit

/// Issue 27 items 11, 16 and 17: what a user who mistypes, or reads docs/cli.md, is told.
@Suite("toolcall suggestions and the reference")
struct SuggestionCLITests {
    @Test("a name that is not a format gets the formats it may mean, from the declarations", arguments: [
        ("deepseek", ["deepseek_v3", "deepseek_v31", "deepseek_v32", "deepseek_v4"]),
        ("kimi", ["kimi_k2", "kimi_k3"]),
        ("minimax", ["minimax_m2", "minimax_m3"]),
        ("xml-function", ["xml_function"]),
        ("XML_FUNCTION", ["xml_function"]),
        ("kimi-k3", ["kimi_k3"]),
        ("jsn", ["json"]),
        ("jason", ["json"]),
        ("deepsek_v3", ["deepseek_v3"]),
        ("qwen", ["json"]),
        ("glm", ["glm4", "glm47", "glm45_llamacpp"]),
        ("glm4.7", ["glm47"]),
        ("lfm2.5", ["lfm2"]),
        ("mistral3", ["mistral31"]),
    ])
    func formatSuggestions(_ name: String, _ expected: [String]) throws {
        for command in ["decode", "render"] {
            let r = try CLI.run([command, "--format", name], stdin: "[]")
            #expect(r.status == 2)
            let line = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            // The suggestion is what comes after the quoted name and before the list of every
            // format.
            let suggestion = (line.components(separatedBy: "(the formats:").first ?? "").components(separatedBy: "'\(name)'").last ?? ""
            for f in (ToolCallFormat.allCases + ToolCallFormat.variants).map(\.rawValue) {
                let named = suggestion.range(of: #"(^|[^a-z0-9_])"# + f + #"($|[^a-z0-9_])"#, options: .regularExpression) != nil
                #expect(named == expected.contains(f), "\(command) --format \(name): \(f) \(named ? "named" : "not named") in: \(line)")
            }
        }
    }

    @Test("a name close to nothing gets no suggestion, only the list")
    func noSuggestion() throws {
        let r = try CLI.run(["decode", "--format", "yaml"])
        #expect(r.stderr.hasPrefix("toolcall: unknown format 'yaml' (the formats: json, "), "\(r.stderr)")
    }

    @Test("a mistyped option gets the option it may mean", arguments: [
        (["decode", "--fromat", "json"], "unknown option '--fromat' for decode: did you mean --format? (see toolcall decode --help)"),
        (["decode", "--format", "json", "--reasonig"], "did you mean --reasoning?"),
        (["decode", "--format", "json", "--tool=x.json"], "did you mean --tools or --tool-choice?"),
        (["render", "--fromat", "json"], "unknown option '--fromat' for render: did you mean --format? (see toolcall render --help)"),
        (["render", "--format", "json", "--txt", "hi"], "did you mean --text?"),
    ])
    func optionSuggestions(_ args: [String], _ fragment: String) throws {
        let r = try CLI.run(args)
        #expect(r.status == 2)
        #expect(r.stderr.contains(fragment), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test("render --bogus points at render's help, not the main help")
    func renderHelpPointer() throws {
        let r = try CLI.run(["render", "--format", "json", "--bogus"], stdin: "[]")
        #expect(r.status == 2)
        #expect(r.stderr == "toolcall: unknown option '--bogus' for render (see toolcall render --help)\n", "\(r.stderr)")
    }

    @Test("a stray word is not an unknown option: decode reads standard input", arguments: [["decode", "--format", "json", "extra"], ["render", "--format", "json", "calls.json"]])
    func strayArgument(_ args: [String]) throws {
        let r = try CLI.run(args, stdin: "[]")
        #expect(r.status == 2)
        #expect(!r.stderr.contains("unknown option"), "\(r.stderr)")
        #expect(r.stderr.contains("takes no argument '\(args[3])'") && r.stderr.contains("reads standard input"), "\(r.stderr)")
    }

    @Test("decode --model on a folder with no format gives the evidence and the next step")
    func modelNextStep() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("toolcall-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["decode", "--model", dir.path], stdin: "hi")
        #expect(r.status == 2)
        #expect(r.stderr.contains("no tool-call format found; evidence: "), "\(r.stderr)")
        #expect(r.stderr.contains("--format NAME") && r.stderr.contains("toolcall formats") && r.stderr.contains("--response-template"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test("decode and render on a terminal say on stderr that they read standard input; in a pipe they are silent",
          arguments: [["decode", "--format", "json"], ["render", "--format", "json"]])
    func terminalNote(_ args: [String]) throws {
        let (master, slave) = try #require(Self.openTerminal())
        defer { close(master) }
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = args
        p.standardInput = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        let output = Pipe(), error = Pipe()
        p.standardOutput = output
        p.standardError = error
        try p.run()
        // Ctrl-D: the end of the terminal's input.
        _ = unsafe write(master, [UInt8(4)], 1)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(err)")
        #expect(err.hasPrefix("toolcall: note: \(args[0]) is reading ") && err.contains("standard input") && err.contains("Ctrl-D"), "\(err)")
        if args[0] == "decode" { #expect(String(decoding: out, as: UTF8.self).contains("\"type\":\"end\"")) }
        let piped = try CLI.run(args, stdin: args[0] == "render" ? "[]" : "")
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
    }

    /// A pseudo-terminal: its controlling side and the terminal a child reads. (The C library's
    /// `posix_openpt`, `grantpt`, `unlockpt` and `ptsname_r`, which the Glibc module does not
    /// import, found with `dlsym`.)
    static func openTerminal() -> (master: Int32, slave: Int32)? {
        typealias Call = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
        let library = unsafe dlopen(nil, RTLD_NOW)
        guard let o = unsafe dlsym(library, "posix_openpt"), let g = unsafe dlsym(library, "grantpt"),
              let u = unsafe dlsym(library, "unlockpt"), let n = unsafe dlsym(library, "ptsname_r") else { return nil }
        let master = unsafe unsafeBitCast(o, to: Call.self)(O_RDWR | O_NOCTTY)
        guard master >= 0 else { return nil }
        var name = [CChar](repeating: 0, count: 256)
        guard unsafe unsafeBitCast(g, to: Call.self)(master) == 0, unsafe unsafeBitCast(u, to: Call.self)(master) == 0,
              unsafe unsafeBitCast(n, to: Name.self)(master, &name, name.count) == 0 else {
            close(master)
            return nil
        }
        let slave = unsafe open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            return nil
        }
        return (master, slave)
    }

    @Test("render: an assistant message's content is the leading text")
    func messageContent() throws {
        let input = #"{"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "x", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]}"#
        let r = try CLI.run(["render", "--format", "json"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Checking.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>")
        let parts = #"{"role": "assistant", "content": [{"type": "text", "text": "Check"}, {"type": "text", "text": "ing."}], "tool_calls": []}"#
        #expect(try CLI.run(["render", "--format", "json"], stdin: parts).stdout == "Checking.")
        let none = #"{"role": "assistant", "content": null, "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}"#
        #expect(try CLI.run(["render", "--format", "mistral"], stdin: none).stdout == "[TOOL_CALLS]f[ARGS]{}")
    }

    @Test("render: messages and shapes it cannot take are named", arguments: [
        (["render", "--format", "json", "--text", "Hi."], #"{"content": "Checking.", "tool_calls": []}"#, Int32(2), "the message has content and --text was given"),
        (["render", "--format", "json"], #"[{"name": "f", "arguments": {"a": 1}}]"#, 1,
         #"tool call 0 is not an OpenAI tool_calls entry ({"type": "function", "function": {"name", "arguments"}}) or a tool_call event"#),
        (["render", "--format", "json"], #"{"role": "user", "content": "hi"}"#, 1, "the message's role is \"user\""),
        (["render", "--format", "json"], #"{"content": [{"type": "image_url", "image_url": {}}]}"#, 1, "content part 0 is not a text part"),
        (["render", "--format", "json"], "5", 1, "expected an OpenAI tool_calls array"),
        (["render", "--format", "minimax_m3", "--text", "</mm:think>"], "[]", 1, #"the text: minimax_m3's decoder reads "</mm:think>""#),
    ])
    func renderShapes(_ args: [String], _ stdin: String, _ status: Int32, _ fragment: String) throws {
        let r = try CLI.run(args, stdin: stdin)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(fragment), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stdout.isEmpty)
    }

    /// docs/cli.md is the reference for every option: each command has a section and a line in
    /// the synopsis, and every option its help lists is in the page.
    /// The commands `toolcall --help` lists in its usage lines.
    static func commands() throws -> [String] {
        let help = try CLI.run(["--help"]).stdout
        var out: [String] = []
        for line in help.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "toolcall"), i + 1 < words.count else { continue }
            let command = String(words[i + 1])
            if command.first?.isLetter == true, command.uppercased() != command, !out.contains(command) { out.append(command) }
        }
        return out
    }

    @Test("toolcall --help lists the commands")
    func commandList() throws {
        let commands = try Self.commands()
        #expect(["decode", "render", "infer", "formats"].allSatisfy(commands.contains), "\(commands)")
    }

    @Test("docs/cli.md documents every command and every option the help texts list", arguments: try commands())
    func reference(_ command: String) throws {
        let page = try String(contentsOf: DocsTests.repo.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        #expect(page.contains("\n## `toolcall \(command)"), "no section for \(command)")
        let synopsis = page.components(separatedBy: "```")[1]
        #expect(synopsis.contains("\ntoolcall \(command)"), "no synopsis line for \(command)")
        let help = try CLI.run([command, "--help"]).stdout
        let options = Set(help.split(whereSeparator: { !($0.isLetter || $0 == "-") }).filter { $0.hasPrefix("--") && $0.count > 2 }.map(String.init))
        #expect(!options.isEmpty || command == "infer")
        for option in options.sorted() where option != "--help" {
            #expect(page.contains("`\(option)") || page.contains(" \(option) ") || page.contains("[\(option)"), "docs/cli.md does not document \(command) \(option)")
        }
    }

    @Test("--help's --tools names every shape the tools file may take", arguments: try commands())
    func toolsHelp(_ command: String) throws {
        let help = try CLI.run([command, "--help"]).stdout
        guard help.contains("\n  --tools FILE") else { return }
        let tools = help.components(separatedBy: "\n  --tools FILE").dropFirst().first ?? ""
        let entry = tools.components(separatedBy: "\n  --").first ?? ""
        for shape in ["OpenAI tools array", "flat", "Anthropic", "request body"] {
            #expect(entry.contains(shape), "--tools help lacks \(shape): \(entry)")
        }
    }
}
