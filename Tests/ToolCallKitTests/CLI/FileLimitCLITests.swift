import Foundation
import Glibc
import Testing

@Suite("Files named on the command line are read within bounds")
struct FileLimitCLITests {
    @Test("--tools /dev/zero stops at the tools-file cap: exit 1, one line naming the cap")
    func toolsFromDevZero() throws {
        let r = try CLI.run(["decode", "--format", "json", "--tools", "/dev/zero"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("--tools /dev/zero: larger than 67108864 bytes"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test("--tokenizer /dev/zero is refused as not a regular file, before a byte is read (as the C library refuses it)")
    func tokenizerFromDevZero() throws {
        let r = try CLI.run(["decode", "--format", "json", "--input", "tokens", "--tokenizer", "/dev/zero"], stdin: "1\n")
        #expect(r.status == 1)
        #expect(r.stderr == "toolcall: --tokenizer /dev/zero: not a regular file (a character device)\n")
    }

    @Test("a model folder whose tokenizer.json is a FIFO: exit 1, not a hang")
    func modelTokenizerFIFO() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("toolcall-fifo-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"{"model_type": "qwen3"}"#.utf8).write(to: dir.appendingPathComponent("config.json"))
        let made = unsafe mkfifo(dir.appendingPathComponent("tokenizer.json").path, 0o600)
        #expect(made == 0)
        let r = try CLI.run(["decode", "--model", dir.path, "--input", "tokens"], stdin: "1\n")
        #expect(r.status == 1)
        #expect(r.stderr.contains("tokenizer.json: not a regular file"))
    }
}
