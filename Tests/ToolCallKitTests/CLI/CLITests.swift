import Dispatch
import Foundation
import Synchronization
import Testing
import ToolCallKit

/// Bytes collected on another thread.
final class Collected: Sendable {
    let data = Mutex(Data())
}

/// Runs the built `toolcall` binary (it sits beside the test bundle in `.build/<config>/`).
enum CLI {
    static let binary: URL = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("toolcall")

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ args: [String], stdin: String = "") throws -> Result {
        try run(args, bytes: Array(stdin.utf8))
    }

    /// A child that exits before reading its input (a usage error) closes the pipe: writing to
    /// it must be an error to ignore, not a SIGPIPE that ends the test process. A handler that
    /// does nothing (not SIG_IGN, which children would inherit: exec resets a handler to the
    /// default, so the shell pipelines of the tests below still end on SIGPIPE).
    static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, { _ in }) }()

    static func run(_ args: [String], bytes: [UInt8]) throws -> Result {
        _ = ignoreSIGPIPE
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        let input = Pipe(), output = Pipe(), error = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = error
        try p.run()
        try? input.fileHandleForWriting.write(contentsOf: Data(bytes))
        try? input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
    }
}

/// A row of the CLI table: arguments, input, the exit status, and either a golden stdout file
/// (`Fixtures/cli/<golden>.stdout`) or a fragment the one-line stderr message must contain.
struct CLICase: CustomTestStringConvertible, Sendable {
    var name: String
    var args: [String]
    var stdin: String = ""
    /// Raw input bytes, when they are not valid UTF-8 (overrides `stdin`).
    var bytes: [UInt8]? = nil
    /// A file under `Fixtures/` to use as standard input (overrides `stdin` and `bytes`).
    var stdinFile: String? = nil
    var status: Int32
    var golden: String? = nil
    var stderrContains: String? = nil
    var testDescription: String { name }
}

@Suite("toolcall command line")
struct CLITests {
    static let toolsPath = FixturePaths.root.appendingPathComponent("cli/tools.json").path
    static let validateToolsPath = FixturePaths.root.appendingPathComponent("cli/validate-tools.json").path
    static let badCall = #"<tool_call>{"name": "get_weather", "arguments": {"unit": "kelvin"}}</tool_call> "#
        + #"<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}</tool_call>"#

    static let cases: [CLICase] = [
        CLICase(name: "formats lists every built-in format", args: ["formats"], status: 0, golden: "formats"),
        CLICase(name: "version", args: ["--version"], status: 0, golden: "version"),
        CLICase(name: "demo stream, seeded ids", args: ["decode", "--format", "json", "--id-seed", "42"],
                stdinFile: "demo/stream.txt", status: 0, golden: "demo-json"),
        CLICase(name: "raw spans, 3-byte chunks", args: ["decode", "--format", "mistral", "--raw", "--id-seed", "1", "--chunk-bytes", "3"],
                stdin: "Sure.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"} done", status: 0, golden: "mistral-raw"),
        CLICase(name: "undeclared tool is rejected", args: ["decode", "--format", "json", "--tools", toolsPath, "--id-seed", "1"],
                stdin: "<tool_call>{\"name\": \"rm\", \"arguments\": {}}</tool_call>", status: 0, golden: "undeclared"),
        CLICase(name: "validate: a call that breaks its schema is rejected with every violation",
                args: ["decode", "--format", "json", "--tools", validateToolsPath, "--validate", "--id-seed", "1"],
                stdin: badCall, status: 0, golden: "validate"),
        CLICase(name: "without validate the same calls are accepted",
                args: ["decode", "--format", "json", "--tools", validateToolsPath, "--id-seed", "1"],
                stdin: badCall, status: 0, golden: "validate-off"),
        CLICase(name: "invalid UTF-8 becomes U+FFFD", args: ["decode", "--format", "json", "--raw"],
                bytes: [0x61, 0xFF, 0x62, 0xE2, 0x82], status: 0, golden: "replacement"),
        CLICase(name: "no format", args: ["decode"], status: 2, stderrContains: "--format NAME or --model DIR"),
        CLICase(name: "unknown format", args: ["decode", "--format", "yaml"], status: 2, stderrContains: "unknown format 'yaml'"),
        CLICase(name: "case name accepted", args: ["decode", "--format", "json"], stdin: "hi", status: 0),
        CLICase(name: "format with model", args: ["decode", "--format", "json", "--model", "x"], status: 2, stderrContains: "cannot be used together"),
        CLICase(name: "chunk bytes zero", args: ["decode", "--format", "json", "--chunk-bytes", "0"], status: 2, stderrContains: "--chunk-bytes"),
        CLICase(name: "unknown flag", args: ["decode", "--format", "json", "--frob"], status: 2, stderrContains: "unknown option '--frob'"),
        CLICase(name: "missing value", args: ["decode", "--format"], status: 2, stderrContains: "--format needs a value"),
        CLICase(name: "validate without tools", args: ["decode", "--format", "json", "--validate"], status: 2, stderrContains: "--validate needs --tools"),
        CLICase(name: "raw with openai", args: ["decode", "--format", "json", "--raw", "--output", "openai"], status: 2, stderrContains: "--raw cannot be used"),
        CLICase(name: "tokens without tokenizer", args: ["decode", "--format", "json", "--input", "tokens"], status: 2, stderrContains: "--input tokens needs"),
        CLICase(name: "missing tools file", args: ["decode", "--format", "json", "--tools", "/nonexistent/tools.json"], status: 1, stderrContains: "/nonexistent/tools.json"),
        CLICase(name: "unknown command", args: ["frobnicate"], status: 2, stderrContains: "unknown command"),
        CLICase(name: "no command", args: [], status: 2, stderrContains: "missing command"),
        CLICase(name: "missing value at the end", args: ["decode", "--format", "json", "--tools"], status: 2, stderrContains: "--tools needs a value"),
        CLICase(name: "a flag where a value belongs", args: ["decode", "--format", "--raw"], status: 2, stderrContains: "--format needs a value"),
        CLICase(name: "unknown format with =", args: ["decode", "--format=yaml"], status: 2, stderrContains: "unknown format 'yaml'"),
        CLICase(name: "chunk bytes negative", args: ["decode", "--format", "json", "--chunk-bytes", "-3"], status: 2, stderrContains: "--chunk-bytes"),
        CLICase(name: "chunk bytes not a number", args: ["decode", "--format", "json", "--chunk-bytes", "ten"], status: 2, stderrContains: "not 'ten'"),
        CLICase(name: "max call bytes zero", args: ["decode", "--format", "json", "--max-call-bytes", "0"], status: 2,
                stderrContains: "--max-call-bytes takes a whole number from 1 to \(CLITests.largestLimit), or 'unlimited', not '0'"),
        CLICase(name: "max call bytes Int.max (it trapped once)", args: ["decode", "--format", "json", "--max-call-bytes", "9223372036854775807"],
                status: 2, stderrContains: "--max-call-bytes takes a whole number from 1 to"),
        CLICase(name: "max call bytes negative", args: ["decode", "--format", "json", "--max-call-bytes=-1"], status: 2,
                stderrContains: "not '-1'"),
        CLICase(name: "max call bytes beyond Int", args: ["decode", "--format", "json", "--max-call-bytes", "99999999999999999999"],
                status: 2, stderrContains: "--max-call-bytes takes a whole number from 1 to"),
        CLICase(name: "max call bytes unlimited", args: ["decode", "--format", "json", "--max-call-bytes", "unlimited", "--id-seed", "1"],
                stdin: "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>", status: 0, golden: "max-call-bytes-unlimited"),
        CLICase(name: "max call bytes at the largest value", args: ["decode", "--format", "json", "--max-call-bytes", CLITests.largestLimit, "--id-seed", "1"],
                stdin: "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>", status: 0, golden: "max-call-bytes-unlimited"),
        CLICase(name: "a small cap rejects a larger call", args: ["decode", "--format", "json", "--max-call-bytes", "20", "--id-seed", "1"],
                stdin: "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>", status: 0, golden: "max-call-bytes-20"),
        CLICase(name: "repeated --format", args: ["decode", "--format", "json", "--format", "mistral"], status: 2,
                stderrContains: "--format is given more than once"),
        CLICase(name: "repeated --format, with =", args: ["decode", "--format=json", "--format=json"], status: 2,
                stderrContains: "--format is given more than once"),
        CLICase(name: "repeated --tools", args: ["decode", "--format", "json", "--tools", "a.json", "--tools", "b.json"], status: 2,
                stderrContains: "--tools is given more than once"),
        CLICase(name: "a repeated flag means the same as one (scripts add flags they may already have)",
                args: ["decode", "--format", "json", "--raw", "--raw", "--reasoning", "--reasoning"], stdin: "hi", status: 0),
        CLICase(name: "--tokenizer without --input tokens", args: ["decode", "--format", "json", "--tokenizer", "t.json"], status: 2,
                stderrContains: "--tokenizer is used only with --input tokens"),
        CLICase(name: "--skip-special without --input tokens", args: ["decode", "--format", "json", "--skip-special"], status: 2,
                stderrContains: "--skip-special is used only with --input tokens"),
        CLICase(name: "qwen is not a format: suggest json and infer", args: ["decode", "--format", "qwen"], status: 2,
                stderrContains: "unknown format 'qwen': Qwen and Hermes models write json, so try --format json (the formats: json, lfm2, xml_function, "),
        CLICase(name: "hermes is not a format: suggest json", args: ["decode", "--format", "hermes"], status: 2,
                stderrContains: "so try --format json"),
        CLICase(name: "a format in capitals", args: ["decode", "--format", "JSON"], status: 2,
                stderrContains: "unknown format 'JSON': try --format json"),
        CLICase(name: "qwen3-coder suggests xml_function", args: ["decode", "--format", "qwen3-coder"], status: 2,
                stderrContains: "so try --format xml_function"),
        CLICase(name: "an unknown name still points to infer", args: ["decode", "--format", "yaml"], status: 2,
                stderrContains: "`toolcall infer DIR` names a model folder's format"),
        CLICase(name: "control bytes in an echoed option are escaped", args: ["decode", "--format", "json", "--fr\u{1B}[31mob\nx"], status: 2,
                stderrContains: "unknown option '--fr\\u{1B}[31mob\\nx' for decode"),
        CLICase(name: "control bytes in an echoed format name are escaped", args: ["decode", "--format", "a\u{7}\u{202E}b"], status: 2,
                stderrContains: "unknown format 'a\\u{7}\\u{202E}b'"),
        CLICase(name: "decode --help", args: ["decode", "--help"], status: 0, golden: "decode-help"),
        CLICase(name: "decode -h after other options", args: ["decode", "--format", "json", "-h"], status: 0, golden: "decode-help"),
        CLICase(name: "help decode", args: ["help", "decode"], status: 0, golden: "decode-help"),
        CLICase(name: "--help", args: ["--help"], status: 0, golden: "help"),
        CLICase(name: "infer --help", args: ["infer", "--help"], status: 0, golden: "infer-help"),
        CLICase(name: "help for no such command", args: ["help", "frob"], status: 2, stderrContains: "no help for 'frob'"),
        CLICase(name: "id seed negative", args: ["decode", "--format", "json", "--id-seed", "-1"], status: 2, stderrContains: "--id-seed"),
        CLICase(name: "unknown input kind", args: ["decode", "--format", "json", "--input", "xml"], status: 2, stderrContains: "--input takes 'text' or 'tokens'"),
        CLICase(name: "unknown output kind", args: ["decode", "--format", "json", "--output", "yaml"], status: 2, stderrContains: "--output takes 'events', 'openai', 'responses' or 'anthropic'"),
        CLICase(name: "formats takes only its options", args: ["formats", "json"], status: 2, stderrContains: "unknown option 'json' for formats"),
        // tool_choice in the decoder and grammar export.
        CLICase(name: "required call never came", args: ["decode", "--format", "json", "--tool-choice", "required", "--id-seed", "1"],
                stdin: "No tool is needed.", status: 0, golden: "no-tool-call"),
        CLICase(name: "a second call with parallel calls off", args: ["decode", "--format", "json", "--tools", toolsPath, "--parallel-tool-calls", "false", "--id-seed", "1"],
                stdin: "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call>",
                status: 0, golden: "parallel-tool-call"),
        CLICase(name: "grammar help", args: ["grammar", "--help"], status: 0, golden: "grammar-help"),
        CLICase(name: "grammar of json, required, gbnf", args: ["grammar", "--format", "json", "--tools", toolsPath, "--tool-choice", "required", "--target", "gbnf"],
                status: 0, golden: "grammar-json-required.gbnf"),
        CLICase(name: "grammar without tools", args: ["grammar", "--format", "json"], status: 2, stderrContains: "grammar needs --tools FILE"),
        CLICase(name: "grammar of an undeclared tool", args: ["grammar", "--format", "json", "--tools", toolsPath, "--tool-choice", "get_time"],
                status: 2, stderrContains: "tool_choice names \"get_time\", which the tools do not declare"),
        CLICase(name: "grammar target", args: ["grammar", "--format", "json", "--tools", toolsPath, "--target", "outlines"],
                status: 2, stderrContains: "--target takes xgrammar, lark or gbnf, not 'outlines'"),
        CLICase(name: "grammar reasoning twice", args: ["grammar", "--format", "json", "--tools", toolsPath, "--reasoning", "--reasoning-open"],
                status: 2, stderrContains: "--reasoning and --reasoning-open cannot be used together"),
        CLICase(name: "decode tool_choice spelling", args: ["decode", "--format", "json", "--tool-choice", ""],
                status: 2, stderrContains: "--tool-choice"),
        CLICase(name: "infer without a folder", args: ["infer"], status: 2, stderrContains: "infer takes one model folder"),
        CLICase(name: "missing model folder", args: ["decode", "--model", "/nonexistent/model"], status: 1, stderrContains: "/nonexistent/model"),
        CLICase(name: "model is a file", args: ["decode", "--model", toolsPath], status: 1, stderrContains: "tools.json"),
        CLICase(name: "tools file is a folder", args: ["decode", "--format", "json", "--tools", FixturePaths.root.path], status: 1, stderrContains: "--tools"),
        CLICase(name: "tokenizer is a folder", args: ["decode", "--format", "json", "--input", "tokens", "--tokenizer", FixturePaths.root.path],
                stdin: "", status: 1, stderrContains: "--tokenizer"),
    ]

    /// `Limit.largest`, the largest `--max-call-bytes`.
    static let largestLimit = String(Limit.largest)

    @Test("runs the binary", arguments: cases)
    func row(_ c: CLICase) throws {
        var input = c.bytes ?? Array(c.stdin.utf8)
        if let file = c.stdinFile { input = Array(try FixturePaths.data(file)) }
        let r = try CLI.run(c.args, bytes: input)
        #expect(r.status == c.status, "stderr: \(r.stderr)")
        if let golden = c.golden {
            let url = FixturePaths.root.appendingPathComponent("cli/\(golden).stdout")
            if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil {
                try Data(r.stdout.utf8).write(to: url)
            }
            let expected = try String(contentsOf: url, encoding: .utf8)
            #expect(r.stdout == expected)
        }
        if let fragment = c.stderrContains {
            #expect(r.stderr.contains(fragment), "stderr: \(r.stderr)")
            #expect(r.stderr.hasPrefix("toolcall: "))
            #expect(!r.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "raw control bytes: \(r.stderr.debugDescription)")
            #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }

    @Test("invalid tools files exit 1 with one line naming the problem", arguments: [
        ("not json", "not valid JSON"),
        ("{\"a\": 1}", "expected a JSON array"),
        ("[{\"function\": {\"description\": \"x\"}}]", "has no name"),
        ("[{\"name\": \"f\", \"parameters\": [1]}]", "parameters is not an object"),
        ("", "not valid JSON"),
        ("[1]", "tool 0 is not an object"),
        ("[{\"type\": \"function\", \"function\": {\"name\": \"\"}}]", "has no name"),
        ("[{\"name\": \"f\"}, {\"name\": \"g\", \"parameters\": \"none\"}]", "parameters is not an object"),
        ("[{\"name\": \"f\"}", "not valid JSON"),
    ])
    func invalidTools(content: String, fragment: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("toolcall-tools-\(UUID().uuidString).json")
        try Data(content.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let r = try CLI.run(["decode", "--format", "json", "--tools", url.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains(fragment), "stderr: \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test("with --validate, a schema that cannot be applied exits 1 with one line naming the tool", arguments: [
        (#"[{"name": "f", "parameters": {"properties": {"a": {"pattern": "("}}}}]"#,
         #"tool "f": #/properties/a/pattern: pattern "(" does not compile: missing closing parenthesis at offset 1"#),
        (##"[{"name": "g", "parameters": {"properties": {"a": {"$ref": "#/$defs/nope"}}}}]"##,
         ##"tool "g": #/properties/a/$ref: $ref "#/$defs/nope" points nowhere"##),
        (#"[{"name": "h", "parameters": {"properties": {}, "required": ["x"], "additionalProperties": false}}]"#,
         #"tool "h": #/required: required property "x" is not declared in properties and additionalProperties is false"#),
    ])
    func invalidSchemas(content: String, message: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("toolcall-tools-\(UUID().uuidString).json")
        try Data(content.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let r = try CLI.run(["decode", "--format", "json", "--tools", url.path, "--validate"])
        #expect(r.status == 1)
        #expect(r.stderr == "toolcall: --tools \(url.path): \(message)\n")
        #expect(r.stdout.isEmpty)
        // Without --validate the schemas are not compiled: behaviour is unchanged.
        let off = try CLI.run(["decode", "--format", "json", "--tools", url.path], stdin: "hi")
        #expect(off.status == 0)
        #expect(off.stderr.isEmpty)
    }

    @Test("with --validate, unchecked keywords are listed once on stderr at load")
    func validationWarnings() throws {
        let r = try CLI.run(["decode", "--format", "json", "--tools", Self.validateToolsPath, "--validate"], stdin: Self.badCall + Self.badCall)
        #expect(r.status == 0)
        #expect(r.stderr == "toolcall: warning: --tools \(Self.validateToolsPath): tool \"get_weather\": #: keyword \"minProperties\" is not checked\n")
    }

    @Test("events for early input appear before later input is written")
    func streamsThroughAPipe() throws {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["decode", "--format", "json"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        _ = CLI.ignoreSIGPIPE  // a child that died early must fail this test, not end the run
        try p.run()
        input.fileHandleForWriting.write(Data("<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>".utf8))
        let got = DispatchSemaphore(value: 0)
        let first = Collected()
        let reader = output.fileHandleForReading
        DispatchQueue.global().async {
            while !first.data.withLock({ String(decoding: $0, as: UTF8.self) }).contains("\"tool_call\"") {
                let d = reader.availableData
                if d.isEmpty { break }
                first.data.withLock { $0.append(d) }
            }
            got.signal()
        }
        let arrived = got.wait(timeout: .now() + 10) == .success
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        #expect(arrived, "the call was not written before end of input")
        #expect(p.terminationStatus == 0)
    }

    static let tinyTokenizer = FixturePaths.root.appendingPathComponent("tokenizers/bytelevel-tiny.tokenizer.json").path

    @Test("a reader that closes the pipe early ends the tool quietly with status 0", arguments: [
        ("text", "head -c 300000 /dev/zero | tr '\\0' 'a'", ["--chunk-bytes", "1"]),
        ("text, openai", "head -c 300000 /dev/zero | tr '\\0' 'a'", ["--chunk-bytes", "1", "--output", "openai"]),
        ("calls", "yes '<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>' | head -c 3000000", []),
        ("tokens", "yes 97 | head -c 600000", ["--input", "tokens", "--tokenizer", tinyTokenizer, "--chunk-bytes", "2"]),
        ("tokens, openai", "yes 97 | head -c 600000", ["--input", "tokens", "--tokenizer", tinyTokenizer, "--output", "openai"]),
    ])
    func closedPipe(label: String, producer: String, extra: [String]) throws {
        let args = (["decode", "--format", "json"] + extra).map { "'\($0)'" }.joined(separator: " ")
        let script = """
            ( \(producer) ) | "\(CLI.binary.path)" \(args) | head -1 >/dev/null
            echo "${PIPESTATUS[1]}"
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script]
        let output = Pipe(), error = Pipe()
        p.standardOutput = output
        p.standardError = error
        try p.run()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(out.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(label)")
        #expect(err.isEmpty, "\(label) stderr: \(err)")
    }
}

@Suite("toolcall infer")
struct CLIInferTests {
    @Test("prints one line of JSON; exit 0 found, 3 none, 1 not a folder", arguments: [
        ("Qwen3-Coder-vllm-example", Int32(0), "\"format\":\"xml_function\""),
        ("DeepSeek-V3.1", Int32(0), "\"format\":\"deepseek_v31\""),
        ("own-deepseek-v3-config-only", Int32(3), "\"format\":null"),
        // The format is the base format, exactly as scorers compare it; a model variant is named
        // beside it.
        ("GLM-4.7-Flash", Int32(0), "{\"format\":\"glm4\",\"variant\":\"glm47\",\"evidence\":"),
        ("DeepSeek-V4-Flash", Int32(0), "{\"format\":\"deepseek_v32\",\"variant\":\"deepseek_v4\",\"evidence\":"),
        ("LFM2.5-8B-A1B", Int32(0), "{\"format\":\"lfm2\",\"evidence\":"),
    ])
    func infer(folder: String, status: Int32, fragment: String) throws {
        let r = try CLI.run(["infer", FixturePaths.root.appendingPathComponent("models/\(folder)").path])
        #expect(r.status == status)
        #expect(r.stdout.contains(fragment))
        #expect(r.stdout.split(separator: "\n").count == 1)
    }

    @Test("not a folder: exit 1 with one line")
    func notAFolder() throws {
        let r = try CLI.run(["infer", "/nonexistent/model"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("not a readable folder"))
    }

    @Test("decode --model uses the inferred format, and fails with exit 2 and the evidence when none")
    func decodeModel() throws {
        let ok = try CLI.run(["decode", "--model", FixturePaths.root.appendingPathComponent("models/Qwen3-0.6B").path],
                             stdin: "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>")
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("\"type\":\"tool_call\""))
        let none = try CLI.run(["decode", "--model", FixturePaths.root.appendingPathComponent("models/Llama-2-7b-hf").path])
        #expect(none.status == 2)
        #expect(none.stderr.contains("no tool-call format found") && none.stderr.contains("Llama 2"))
    }

    @Test("--model decodes and renders with the model variant the folder shows; --format takes a variant too")
    func modelVariant() throws {
        let v4 = FixturePaths.root.appendingPathComponent("models/DeepSeek-V4-Flash").path
        let calls = #"[{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"q\": \"x\"}"}}]"#
        let byModel = try CLI.run(["render", "--model", v4], stdin: calls)
        #expect(byModel.status == 0, "\(byModel.stderr)")
        #expect(byModel.stdout.hasPrefix("<｜DSML｜tool_calls>\n"), "\(byModel.stdout)")
        let byName = try CLI.run(["render", "--format", "deepseek_v4"], stdin: calls)
        #expect(byName.stdout == byModel.stdout)
        let base = try CLI.run(["render", "--format", "deepseek_v32"], stdin: calls)
        #expect(base.stdout.hasPrefix("<｜DSML｜function_calls>\n"), "\(base.stdout)")
        let both = try CLI.run(["render", "--format", "deepseek_v32", "--model", v4], stdin: calls)
        #expect(both.status == 2)
        let decoded = try CLI.run(["decode", "--model", v4, "--id-seed", "1"], stdin: byModel.stdout)
        #expect(decoded.status == 0 && decoded.stdout.contains(#""arguments":{"q":"x"}"#), "\(decoded.stdout)")
    }

    @Test("lfm2 reads string arguments verbatim (LFM2.5's template); lfm2_python reads Python escapes; lfm25 is lfm2")
    func lfm2Conventions() throws {
        let input = #"<|tool_call_start|>[f(path='C:\new\file.txt')]<|tool_call_end|>"#
        let lfm25Folder = FixturePaths.root.appendingPathComponent("models/LFM2.5-8B-A1B").path
        for args in [["--format", "lfm2"], ["--format", "lfm25"], ["--model", lfm25Folder]] {
            let r = try CLI.run(["decode"] + args, stdin: input)
            #expect(r.status == 0 && r.stdout.contains(#""path":"C:\\new\\file.txt""#), "\(args): \(r.stdout) \(r.stderr)")
        }
        let python = try CLI.run(["decode", "--format", "lfm2_python"], stdin: input)
        #expect(python.stdout.contains(#""path":"C:\new"#), "\(python.stdout)")
    }
}
