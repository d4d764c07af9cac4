import Foundation
import Testing

/// Messages that must name the right thing and give the next step (one line on stderr each).
@Suite("toolcall messages")
struct MessageCLITests {
    static let models = FixturePaths.root.appendingPathComponent("models")
    static let tiny = FixturePaths.root.appendingPathComponent("tokenizers/bytelevel-tiny.tokenizer.json").path

    @Test("decode --model says on stderr when the format it chose is only a family default", arguments: [
        ("Qwen3-30B-A3B", "json", "ambiguous: Qwen3-Coder shares qwen3_moe and writes xml_function"),
        ("own-llama3-config-only", "llama3", "the Llama 3 default"),
    ])
    func defaultFormatNote(folder: String, format: String, fragment: String) throws {
        let dir = Self.models.appendingPathComponent(folder).path
        let r = try CLI.run(["decode", "--model", dir], stdin: "hi")
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stderr.hasPrefix("toolcall: note: --model \(dir): decoding as \(format), which is only a default: "))
        #expect(r.stderr.contains(fragment), "stderr: \(r.stderr)")
        #expect(r.stderr.hasSuffix("; pass --format NAME to choose\n"))
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stdout.contains("\"type\":\"end\""))
    }

    @Test("an error after a default format is still the one line on stderr (the note waits for the run)")
    func noteWaitsForErrors() throws {
        let dir = Self.models.appendingPathComponent("Qwen3-30B-A3B").path
        let r = try CLI.run(["decode", "--model", dir, "--input", "tokens"], stdin: "1 2")
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "stderr: \(r.stderr)")
        #expect(r.stderr.hasPrefix("toolcall: --model \(dir)/tokenizer.json: "))
    }

    @Test("decode --model is silent when the folder states its format", arguments: [
        "Qwen3-0.6B", "Qwen3-Coder-vllm-example", "GLM-4.5", "own-declared-vs-template",
    ])
    func noNote(folder: String) throws {
        let r = try CLI.run(["decode", "--model", Self.models.appendingPathComponent(folder).path], stdin: "hi")
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "stderr: \(r.stderr)")
    }

    @Test("--model without tokenizer.json names --model and says what to do, not --tokenizer")
    func modelWithoutTokenizer() throws {
        let dir = Self.models.appendingPathComponent("Qwen3-0.6B").path
        let r = try CLI.run(["decode", "--model", dir, "--input", "tokens"], stdin: "1 2")
        #expect(r.status == 1)
        #expect(r.stderr == "toolcall: --model \(dir)/tokenizer.json: No such file or directory (--input tokens reads the model folder's tokenizer.json; give --tokenizer FILE when it is elsewhere)\n")
        #expect(r.stdout.isEmpty)
    }

    @Test("--tokenizer given a tokenizer_config.json says so, instead of `no \"model\"`")
    func tokenizerConfig() throws {
        let path = FixturePaths.root.appendingPathComponent("cli/tokenizer_config.json").path
        let r = try CLI.run(["decode", "--format", "json", "--input", "tokens", "--tokenizer", path], stdin: "1 2")
        #expect(r.status == 1)
        #expect(r.stderr == "toolcall: --tokenizer \(path) is a tokenizer_config.json, not a tokenizer.json: give the tokenizer.json beside it (the file with the vocabulary, its \"model\")\n")
        #expect(!r.stderr.contains("no \"model\""))
    }

    @Test("a JSON array of ids says that ids are whitespace-separated", arguments: ["[19457, 0]", "19457,0", "19457, 0"])
    func jsonArrayOfIDs(input: String) throws {
        let r = try CLI.run(["decode", "--format", "json", "--input", "tokens", "--tokenizer", Self.tiny], stdin: input)
        #expect(r.status == 1)
        #expect(r.stderr.contains("is not a number: --input tokens reads whole numbers separated by white space, such as `19457 0 220` (not a JSON array)"),
                "stderr: \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test("control bytes of a bad token are escaped on stderr, never written raw", arguments: [
        ([0x37, 0x32, 0x20, 0x00, 0x20, 0x35], "token 2 ('\\u{0}') is not a number"),
        ([0x37, 0x32, 0x20, 0x61, 0x1B, 0x5B, 0x32, 0x4A, 0x20, 0x35], "token 2 ('a\\u{1B}[2J') is not a number"),
        ([0x37, 0x32, 0x20, 0x31, 0x7F, 0x20, 0x35], "token 2 ('1\\u{7F}') is not a number"),
    ] as [([UInt8], String)])
    func controlBytesEscaped(input: [UInt8], fragment: String) throws {
        let r = try CLI.run(["decode", "--format", "json", "--input", "tokens", "--tokenizer", Self.tiny], bytes: input)
        #expect(r.status == 1)
        #expect(r.stderr.contains(fragment), "stderr: \(r.stderr.debugDescription)")
        #expect(!r.stderr.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F },
                "raw control bytes: \(r.stderr.debugDescription)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test("control bytes in a file name are escaped")
    func controlBytesInPath() throws {
        let r = try CLI.run(["decode", "--format", "json", "--tools", "/nonexistent/a\u{1B}]0;x\u{7}.json"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("/nonexistent/a\\u{1B}]0;x\\u{7}.json"), "stderr: \(r.stderr.debugDescription)")
        #expect(!r.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }
}
