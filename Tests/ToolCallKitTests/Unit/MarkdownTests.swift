import Foundation
import Testing

/// Every Markdown file of the repository reads as its author meant: its code fences close, and
/// every relative link reaches a file that exists and, with a `#fragment` into Markdown, a
/// heading of that file (by GitHub's anchor rules, ``MarkdownFile/slug(_:)``).
///
/// A fence left open turns the rest of a page into one code block (a merge once did that to
/// docs/formats.md: six sections sat inside a block, and the table's links went nowhere).
@Suite("Markdown")
struct MarkdownTests {
    static let repo = DocsTests.repo

    /// Every `*.md` file under the repository, found by walking it (folders whose names begin
    /// with `.`, and build and fuzz output, are skipped), as paths relative to the root.
    static func markdownFiles() -> [String] {
        let skipped: Set<String> = ["fuzz-corpus", "dist", "node_modules", "build"]
        var out: [String] = []
        let fm = FileManager.default
        var folders = [""]
        while let folder = folders.popLast() {
            let url = folder.isEmpty ? repo : repo.appendingPathComponent(folder)
            guard let names = try? fm.contentsOfDirectory(atPath: url.path) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let relative = folder.isEmpty ? name : folder + "/" + name
                var isFolder: ObjCBool = false
                guard unsafe fm.fileExists(atPath: repo.appendingPathComponent(relative).path, isDirectory: &isFolder) else { continue }
                if isFolder.boolValue {
                    if !skipped.contains(name) { folders.append(relative) }
                } else if name.hasSuffix(".md") {
                    out.append(relative)
                }
            }
        }
        return out.sorted()
    }

    @Test("the repository's Markdown files are found (README.md and docs/ among them)")
    func found() {
        let files = Self.markdownFiles()
        #expect(files.contains("README.md") && files.contains("docs/formats.md") && files.contains("docs/cli.md"), "\(files)")
        #expect(files.count >= 10, "\(files)")
    }

    @Test("every code fence of every Markdown file is closed")
    func fences() throws {
        for file in Self.markdownFiles() {
            let md = try MarkdownFile(Self.repo.appendingPathComponent(file))
            if let open = md.unclosedFence {
                Issue.record("\(file):\(open): a code fence opened here is never closed")
            }
        }
    }

    @Test("every relative link and #anchor in every Markdown file resolves")
    func links() throws {
        var cache: [String: MarkdownFile] = [:]
        func load(_ relative: String) throws -> MarkdownFile {
            if let md = cache[relative] { return md }
            let md = try MarkdownFile(Self.repo.appendingPathComponent(relative))
            cache[relative] = md
            return md
        }
        var checked = 0
        for file in Self.markdownFiles() {
            let md = try load(file)
            for link in md.links {
                guard let problem = try Self.problem(link.target, from: file, load: load) else {
                    checked += 1
                    continue
                }
                Issue.record("\(file):\(link.line): link \(link.target): \(problem)")
            }
        }
        #expect(checked > 50, "\(checked) links checked")
    }

    /// Why `target`, a link in `file`, does not resolve; nil when it does (or leaves the repository).
    static func problem(_ target: String, from file: String, load: (String) throws -> MarkdownFile) throws -> String? {
        // A scheme (`https:`, `mailto:`) leaves the repository: not checked here.
        if target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil { return nil }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let pathPart = (String(parts[0]).removingPercentEncoding ?? String(parts[0]))
        let anchor = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : nil
        var resolved = file
        if !pathPart.isEmpty {
            let base = pathPart.hasPrefix("/") ? "" : (file as NSString).deletingLastPathComponent
            guard let path = normalize(base.isEmpty ? String(pathPart.drop { $0 == "/" }) : base + "/" + pathPart) else {
                return "it leaves the repository"
            }
            var isFolder: ObjCBool = false
            guard unsafe FileManager.default.fileExists(atPath: repo.appendingPathComponent(path).path, isDirectory: &isFolder) else {
                return "no file \(path)"
            }
            if isFolder.boolValue || !path.hasSuffix(".md") { return nil }
            resolved = path
        }
        guard let anchor, !anchor.isEmpty else { return nil }
        let anchors = try load(resolved).anchors
        if anchors.contains(anchor) { return nil }
        return "no heading of \(resolved) has the anchor #\(anchor)"
    }

    /// `a/./b/../c` as `a/c`; nil when `..` climbs out of the repository.
    static func normalize(_ path: String) -> String? {
        var parts: [Substring] = []
        for p in path.split(separator: "/", omittingEmptySubsequences: true) {
            if p == "." { continue }
            if p == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else {
                parts.append(p)
            }
        }
        return parts.joined(separator: "/")
    }

    @Test("the checker itself: fences, anchors and links", arguments: [
        ("```\ncode\n```\n", nil),
        ("````\n```json\n{}\n```\n````\n", nil),
        ("```\n## not a heading\n", 1),
        ("~~~\n```\n~~~\n", nil),
        ("   ```\nx\n   ```\n", nil),
        ("```swift\nx\n``` not a close\n", 1),
    ] as [(String, Int?)])
    func checkerFences(_ text: String, _ unclosed: Int?) {
        #expect(MarkdownFile(text: text).unclosedFence == unclosed)
    }

    @Test("the checker itself: GitHub's anchor slugs", arguments: [
        ("## deepseek_v3", "deepseek_v3"),
        ("## Typing text values", "typing-text-values"),
        ("### `toolcall infer DIR`", "toolcall-infer-dir"),
        ("## Tools and validation", "tools-and-validation"),
        ("# A & B: c.d (e)", "a--b-cd-e"),
        ("## [Linked](x.md) *heading*", "linked-heading"),
        ("## Ünïcode 東京", "ünïcode-東京"),
    ])
    func checkerSlugs(_ heading: String, _ anchor: String) {
        #expect(MarkdownFile(text: heading + "\n").anchors.contains(anchor))
    }

    @Test("the checker itself: a repeated heading gets -1, -2; code and fences hide links and headings")
    func checkerDetails() {
        let md = MarkdownFile(text: "# x\n## x\n## x\n```\n## y\n[a](gone.md)\n```\nsee `[b](gone.md)` and [c](here.md#x-2)\n[ref]: other.md\n")
        #expect(md.anchors == ["x", "x-1", "x-2"])
        #expect(md.links.map(\.target) == ["here.md#x-2", "other.md"])
        #expect(md.links.map(\.line) == [8, 9])
    }
}

/// One Markdown file, read the way GitHub renders it as far as fences, headings and links go.
struct MarkdownFile {
    /// The anchors of its headings (and of `<a name=…>` / `id=…` tags).
    var anchors: Set<String> = []
    /// Its links (inline, images and reference definitions), outside code.
    var links: [(target: String, line: Int)] = []
    /// The line of a fence that is never closed.
    var unclosedFence: Int?

    init(_ url: URL) throws {
        self.init(text: try String(contentsOf: url, encoding: .utf8))
    }

    init(text: String) {
        var fence: (char: Character, count: Int, line: Int)?
        var seen: [String: Int] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (i, raw) in lines.enumerated() {
            let line = String(raw)
            let n = i + 1
            let indent = line.prefix { $0 == " " }.count
            let body = line.dropFirst(min(indent, 3))
            if let open = fence {
                // A close: the same character, at least as many, nothing after but spaces.
                let run = body.prefix { $0 == open.char }.count
                if indent <= 3 && run >= open.count && body.dropFirst(run).allSatisfy({ $0 == " " || $0 == "\t" }) {
                    fence = nil
                }
                continue
            }
            if indent <= 3, let c = body.first, c == "`" || c == "~" {
                let run = body.prefix { $0 == c }.count
                // A backtick fence's info string holds no backtick.
                if run >= 3 && !(c == "`" && body.dropFirst(run).contains("`")) {
                    fence = (c, run, n)
                    continue
                }
            }
            let visible = Self.withoutCodeSpans(line)
            if indent <= 3, let heading = Self.heading(String(body)) {
                var slug = Self.slug(heading)
                if let k = seen[slug] {
                    seen[slug] = k + 1
                    slug += "-\(k + 1)"
                } else {
                    seen[slug] = 0
                }
                anchors.insert(slug)
            }
            for m in Self.matches(#"<a\s[^>]*(?:name|id)="([^"]+)""#, in: visible) { anchors.insert(m) }
            for m in Self.matches(#"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#, in: visible) { links.append((m, n)) }
            for m in Self.matches(#"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)"#, in: visible) { links.append((m, n)) }
        }
        unclosedFence = fence?.line
    }

    /// The text of an ATX heading (`## Title ##`), or nil.
    static func heading(_ line: String) -> String? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let rest = line.dropFirst(hashes)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        var text = rest.trimmingCharacters(in: .whitespaces)
        // A closing run of `#` (after a space) is not part of the text.
        if let r = text.range(of: #"\s+#+$"#, options: .regularExpression) { text.removeSubrange(r) }
        return text
    }

    /// GitHub's anchor for a heading: the rendered text (code spans' content, links' text, no
    /// emphasis or tags), lowercased, every character that is not a letter, a mark, a number,
    /// `_`, `-` or a space removed, then each space made a `-`.
    static func slug(_ heading: String) -> String {
        var text = heading
        text = text.replacingOccurrences(of: #"!?\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        text = text.replacingOccurrences(of: #"<[^>]+>"#, with: "", options: .regularExpression)
        var out = ""
        for scalar in text.lowercased().unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber,
                 .connectorPunctuation:
                out.unicodeScalars.append(scalar)
            default:
                if scalar == "-" { out += "-" } else if scalar == " " { out += "-" }
            }
        }
        return out
    }

    /// `line` with its inline code spans blanked (a link written in code is no link).
    static func withoutCodeSpans(_ line: String) -> String {
        line.replacingOccurrences(of: #"(`+)(?:(?!\1).)+?\1"#, with: "``", options: .regularExpression)
    }

    /// The first capture group of every match of `pattern` in `s`.
    static func matches(_ pattern: String, in s: String) -> [String] {
        guard let re = try? NSRegularExpression(pattern: pattern) else { return [] }
        return re.matches(in: s, range: NSRange(s.startIndex..., in: s)).compactMap { m in
            Range(m.range(at: 1), in: s).map { String(s[$0]) }
        }
    }
}
