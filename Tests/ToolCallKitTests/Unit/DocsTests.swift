import Foundation
import Testing

/// The repository documents itself: every Swift snippet of README.md and docs/ is a compiled
/// file, the snippets run, and nothing points to a file a clone lacks.
@Suite("Documentation")
struct DocsTests {
    static let repo = FixturePaths.root.deletingLastPathComponent()
    static let snippetFolder = "Examples/ReadmeSnippets"
    /// Files of the snippet target that are not snippets: the runner and its helper.
    static let runnerFiles: Set<String> = ["main.swift", "Files.swift"]

    /// The Markdown files that may hold snippets: README.md and docs/*.md.
    static func markdownFiles() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repo.appendingPathComponent("docs").path)
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: repo.appendingPathComponent(relative), encoding: .utf8)
    }

    /// A ```swift block: the file it must equal (from the marker line before it) and its text.
    struct Block {
        var markdown: String
        var line: Int
        var file: String?
        var text: String
    }

    static func swiftBlocks(_ markdown: String) throws -> [Block] {
        let lines = try text(markdown).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [Block] = []
        var i = 0
        while i < lines.count {
            guard lines[i] == "```swift" else {
                i += 1
                continue
            }
            let marker = i > 0 ? lines[i - 1] : ""
            var file: String?
            if marker.hasPrefix("<!-- snippet: "), marker.hasSuffix(" -->") {
                file = String(marker.dropFirst("<!-- snippet: ".count).dropLast(" -->".count))
            }
            var body: [String] = []
            var j = i + 1
            while j < lines.count && lines[j] != "```" {
                body.append(lines[j])
                j += 1
            }
            blocks.append(Block(markdown: markdown, line: i + 1, file: file, text: body.map { $0 + "\n" }.joined()))
            i = j + 1
        }
        return blocks
    }

    @Test("every Swift block of README.md and docs/ is a snippet file, byte for byte")
    func snippetsMatchTheirFiles() throws {
        var used: Set<String> = []
        var count = 0
        for md in try Self.markdownFiles() {
            for block in try Self.swiftBlocks(md) {
                count += 1
                let label = "\(md):\(block.line)"
                let file = try #require(block.file, "\(label): a ```swift block needs a `<!-- snippet: \(Self.snippetFolder)/NAME.swift -->` line before it")
                #expect(file.hasPrefix(Self.snippetFolder + "/"), "\(label): \(file) is not in \(Self.snippetFolder)")
                let content = try Self.text(file)
                #expect(block.text == content, "\(label) differs from \(file)")
                used.insert(String(file.dropFirst(Self.snippetFolder.count + 1)))
            }
        }
        #expect(count >= 5, "\(count) Swift blocks")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.repo.appendingPathComponent(Self.snippetFolder).path)
        for f in files where f.hasSuffix(".swift") && !Self.runnerFiles.contains(f) {
            #expect(used.contains(f), "\(Self.snippetFolder)/\(f) is shown nowhere")
        }
    }

    @Test("the snippets run: `readme-snippets` prints Fixtures/cli/readme-snippets.stdout")
    func snippetsRun() throws {
        let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("readme-snippets")
        let p = Process()
        p.executableURL = binary
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let url = FixturePaths.root.appendingPathComponent("cli/readme-snippets.stdout")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil { try Data(stdout.utf8).write(to: url) }
        #expect(stdout == (try String(contentsOf: url, encoding: .utf8)))
    }

    @Test("no file refers to the design notes, the build notes or the shared folder, which a clone lacks")
    func noOutsideReferences() throws {
        // Spelt in pieces so that this file does not match itself.
        let needles = ["DESIGN" + ".md", "BUILD" + "-NOTES", "../" + "shared", "shared" + "/conformance", "shared" + "/tokens"]
        let roots = ["Sources", "Tests", "Examples", "Benchmarks", "Fuzz", "docs", ".ci", "python", "Fixtures/cli", "Fixtures/peers",
                     "Fixtures/tokenizers", "Fixtures/models", "Fixtures/demo"]
        var files = ["README.md", "Makefile", "Package.swift", "Fixtures/conformance-disagreements.md"]
        for root in roots {
            let url = Self.repo.appendingPathComponent(root)
            guard let e = FileManager.default.enumerator(atPath: url.path) else { continue }
            while let f = e.nextObject() as? String {
                let ext = (f as NSString).pathExtension
                if ["swift", "md", "py", "sh", "json", "txt", "c", "h", "dict", "map", ""].contains(ext) { files.append(root + "/" + f) }
            }
        }
        var checked = 0
        for f in files {
            let url = Self.repo.appendingPathComponent(f)
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  let data = FileManager.default.contents(atPath: url.path), data.count < 4 << 20 else { continue }
            let s = String(decoding: data, as: UTF8.self)
            checked += 1
            for n in needles where s.contains(n) {
                Issue.record("\(f) refers to \(n)")
            }
        }
        #expect(checked > 100, "\(checked) files checked")
    }
}
