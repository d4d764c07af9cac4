import Foundation
import Glibc
import Testing
import ToolCallKit
@testable import ToolCallKitC

/// The configuration of `tck_decoder_new`: files read within the CLI's bounds, each key once,
/// and `model` meaning what `toolcall decode --model` means.
@Suite("C configuration")
struct CConfigTests {
    typealias C = CInterfaceTests

    /// A scratch folder, removed by the caller.
    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tck-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A copy of a fixture model folder with the tiny byte-level tokenizer as its tokenizer.json.
    static func modelWithTokenizer(_ model: String = "Qwen3-0.6B") throws -> URL {
        let dir = try scratch().appendingPathComponent(model)
        try FileManager.default.copyItem(at: FixturePaths.root.appendingPathComponent("models/\(model)"), to: dir)
        try FileManager.default.copyItem(
            at: FixturePaths.root.appendingPathComponent("tokenizers/bytelevel-tiny.tokenizer.json"),
            to: dir.appendingPathComponent("tokenizer.json"))
        return dir
    }

    static func feedTokens(_ d: OpaquePointer?, _ ids: [UInt32]) -> Int32 {
        unsafe ids.withUnsafeBufferPointer { unsafe tck_feed_tokens(d, $0.baseAddress, $0.count) }
    }

    /// All lines after feeding `text` and finishing.
    static func decode(_ d: OpaquePointer?, _ text: String) -> String {
        _ = unsafe C.feed(d, text)
        var all = unsafe C.events(d).0
        _ = unsafe tck_finish(d)
        all += unsafe C.events(d).0
        return all
    }

    // MARK: - Files (issue: a tokenizer path must not take the host down)

    @Test(
        "a tokenizer that is not a regular file is refused without being read",
        arguments: ["/dev/zero", "/dev/null", "/tmp"])
    func deviceTokenizer(path: String) {
        let (d, err) = unsafe C.make(#"{"format": "json", "tokenizer": "\#(path)"}"#)
        #expect(unsafe d == nil)
        #expect(err.hasPrefix("tokenizer \(path): not a regular file ("), "\(err)")
    }

    @Test("a tokenizer FIFO is refused, not waited on")
    func fifoTokenizer() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("tokenizer.json").path
        #expect(unsafe mkfifo(fifo, 0o600) == 0)
        let (d, err) = unsafe C.make(#"{"format": "json", "tokenizer": "\#(fifo)"}"#)
        #expect(unsafe d == nil)
        #expect(err == "tokenizer \(fifo): not a regular file (a FIFO)")
    }

    @Test("a tokenizer larger than 512 MiB is refused by its size, before it is read")
    func hugeTokenizer() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("tokenizer.json").path
        // Sparse: 600 MB that take no disk and, unread, no memory.
        let fd = unsafe open(path, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        #expect(ftruncate(fd, 600 << 20) == 0)
        close(fd)
        let (d, err) = unsafe C.make(#"{"format": "json", "tokenizer": "\#(path)"}"#)
        #expect(unsafe d == nil)
        #expect(err == "tokenizer \(path): \(600 << 20) bytes, more than the \(Tokenizer.fileSizeLimit) read for it")
        #expect(Tokenizer.fileSizeLimit == 512 << 20)
    }

    @Test("a model folder's tokenizer.json gets the same checks, when token input reads it")
    func modelFolderTokenizerChecks() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(
            at: FixturePaths.root.appendingPathComponent("models/Qwen3-0.6B/chat_template.jinja"),
            to: dir.appendingPathComponent("chat_template.jinja"))
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("tokenizer.json").path, withDestinationPath: "/dev/zero")
        let (refused, err) = unsafe C.make(#"{"model": "\#(dir.path)", "input": "tokens"}"#)
        #expect(unsafe refused == nil)
        #expect(err.contains("tokenizer.json: not a regular file (a character device)"), "\(err)")
        // Without "input", the first feed of token ids reads it: an error code, and the decoder
        // still takes text.
        let (d, err2) = unsafe C.make(#"{"model": "\#(dir.path)"}"#)
        #expect(unsafe d != nil, "\(err2)")
        defer { unsafe tck_decoder_free(d) }
        #expect(unsafe Self.feedTokens(d, [72]) == TCK.io)
        #expect(unsafe C.lastError(d).contains("tokenizer.json: not a regular file (a character device)"))
        #expect(unsafe C.feed(d, "ok") == 1)
    }

    // MARK: - Keys

    @Test(
        "a key given twice is refused, whichever values it has",
        arguments: [
            #"{"format": "json", "format": "pythonic"}"#,
            #"{"format": "json", "format": "json"}"#,
            #"{"format": "json", "id_seed": 1, "id_seed": null}"#,
            #"{"format": "json", "form\u0061t": "json"}"#,
            #"{"tools": [{"a": {"b": 1}}], "validate": true, "format": "json", "validate": false}"#,
        ])
    func duplicateKey(config: String) {
        let (d, err) = unsafe C.make(config)
        #expect(unsafe d == nil)
        #expect(err.hasPrefix("config key '"), "\(err)")
        #expect(err.contains("' is given twice"), "\(err)")
    }

    @Test("tck_grammar's request too: a key given twice, an unknown format with the suggestion, a /dev/zero tokenizer")
    func grammarRequest() {
        func ask(_ config: String) -> (Int32, String) {
            var out = [CChar](repeating: 0, count: 2048)
            let bytes = Array(config.utf8)
            let n = unsafe bytes.withUnsafeBufferPointer { unsafe tck_grammar($0.baseAddress, $0.count, &out, out.count) }
            return (n, unsafe out.withUnsafeBufferPointer { unsafe String(cString: $0.baseAddress!) })
        }
        let tools = #"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]"#
        let (a, twice) = ask(#"{"format": "json", "tools": \#(tools), "target": "lark", "target": "gbnf"}"#)
        #expect(a == TCK.argument && twice == "tck_grammar: config key 'target' is given twice (give each option once)")
        let (b, unknown) = ask(#"{"format": "qwen", "tools": \#(tools)}"#)
        #expect(b == TCK.argument && unknown.hasPrefix(#"tck_grammar: unknown format 'qwen': Qwen and Hermes models write json, so try "format": "json""#), "\(unknown)")
        let (c, device) = ask(#"{"format": "json", "tools": \#(tools), "tokenizer": "/dev/zero"}"#)
        #expect(c < 0 && device.contains("/dev/zero: not a regular file (a character device)"), "\(device)")
    }

    @Test("an unknown format gets the command line's suggestion, in the configuration's terms")
    func unknownFormatHint() {
        var err = [CChar](repeating: 0, count: 1024)
        for (name, hint) in [
            ("qwen", #"unknown format 'qwen': Qwen and Hermes models write json, so try "format": "json" (the formats: "#),
            ("JSON", #"unknown format 'JSON': try "format": "json" (the formats: "#),
            ("nope", "unknown format 'nope' (the formats: "),
        ] {
            let config = #"{"format": "\#(name)"}"#
            let d = unsafe config.withCString { unsafe tck_decoder_new($0, strlen($0), &err, err.count) }
            #expect(unsafe d == nil)
            let text = unsafe err.withUnsafeBufferPointer { unsafe String(cString: $0.baseAddress!) }
            #expect(text.hasPrefix(hint), "\(text)")
        }
    }

    @Test(
        "input and skip_special are checked as the command line checks them",
        arguments: [
            (#"{"format": "json", "input": "tokens"}"#, #"input "tokens" needs tokenizer"#),
            (#"{"format": "json", "input": "ids"}"#, #"input must be "text" or "tokens""#),
            (#"{"format": "json", "input": "text", "tokenizer": "x.json"}"#, "tokenizer is used only for token input"),
            (#"{"format": "json", "skip_special": true}"#, "skip_special is used only for token input"),
            (#"{"model": "/no/such/folder", "input": "text", "skip_special": true}"#, "skip_special is used only for token input"),
        ])
    func inputChecks(config: String, message: String) {
        let (d, err) = unsafe C.make(config)
        #expect(unsafe d == nil)
        #expect(err.contains(message), "\(err)")
    }

    // MARK: - model means --model

    @Test(
        "model infers the format (or response template) and decodes text, the lines of toolcall decode --model",
        arguments: [
            ("Qwen3-0.6B", #"<think>hm</think>Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#),
            ("own-response-template-only", #"<think>hm</think>Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><|im_end|>"#),
            ("Mistral-Small-3.2-24B-Instruct-2506", #"Hi [TOOL_CALLS]f[ARGS]{"a": 1}"#),
        ])
    func modelDecodesText(model: String, input: String) throws {
        let dir = FixturePaths.root.appendingPathComponent("models/\(model)").path
        for extra in ["", #", "reasoning": true"#] {
            let (d, err) = unsafe C.make(#"{"model": "\#(dir)", "id_seed": 4\#(extra)}"#)
            #expect(unsafe d != nil, "\(err)")
            defer { unsafe tck_decoder_free(d) }
            let lines = unsafe Self.decode(d, input)
            var args = ["decode", "--model", dir, "--id-seed", "4"]
            if !extra.isEmpty { args.append("--reasoning") }
            let cli = try CLI.run(args, stdin: input)
            #expect(cli.status == 0, "\(cli.stderr)")
            #expect(lines == cli.stdout)
            #expect(lines.contains(#""type":"tool_call","#))
        }
    }

    @Test("a model folder's decoder takes token ids when its first feed is token ids")
    func modelFirstFeedTokens() throws {
        let dir = try Self.modelWithTokenizer()
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        // Ids of the tiny tokenizer: bytes are their own ids.
        let (d, err) = unsafe C.make(#"{"model": "\#(dir.path)"}"#)
        #expect(unsafe d != nil, "\(err)")
        defer { unsafe tck_decoder_free(d) }
        #expect(unsafe Self.feedTokens(d, [72, 105]) == 1)
        #expect(unsafe C.events(d).0 == "{\"type\":\"text\",\"text\":\"Hi\"}\n")
        #expect(unsafe C.feed(d, "x") == TCK.input)
        // Text first: then it takes text only.
        let (t, _) = unsafe C.make(#"{"model": "\#(dir.path)"}"#)
        defer { unsafe tck_decoder_free(t) }
        #expect(unsafe C.feed(t, "Hi") == 1)
        #expect(unsafe Self.feedTokens(t, [72]) == TCK.input)
        // "input": "tokens" reads it when the decoder is made; "input": "text" never does.
        let (k, _) = unsafe C.make(#"{"model": "\#(dir.path)", "input": "tokens"}"#)
        defer { unsafe tck_decoder_free(k) }
        #expect(unsafe C.feed(k, "Hi") == TCK.input)
        #expect(unsafe Self.feedTokens(k, [72]) == 1)
        let (x, _) = unsafe C.make(#"{"model": "\#(dir.path)", "input": "text"}"#)
        defer { unsafe tck_decoder_free(x) }
        #expect(unsafe Self.feedTokens(x, [72]) == TCK.input)
        #expect(unsafe C.lastError(x).contains("needs a tokenizer"))
    }

    @Test("a model folder without tokenizer.json decodes text; token input names the missing file")
    func modelWithoutTokenizer() {
        let dir = FixturePaths.root.appendingPathComponent("models/Qwen3-0.6B").path
        let (refused, err) = unsafe C.make(#"{"model": "\#(dir)", "input": "tokens"}"#)
        #expect(unsafe refused == nil)
        #expect(err.contains("\(dir)/tokenizer.json: No such file or directory"), "\(err)")
        let (d, _) = unsafe C.make(#"{"model": "\#(dir)"}"#)
        defer { unsafe tck_decoder_free(d) }
        #expect(unsafe Self.feedTokens(d, [1]) == TCK.io)
        #expect(unsafe C.lastError(d).contains("tokenizer.json: No such file or directory"))
        #expect(unsafe C.feed(d, "fine") == 1)
    }
}
