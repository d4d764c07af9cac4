import Foundation
import Testing

/// `toolcall-bench --help` names only what exists: its workloads run, its make targets are in
/// the Makefile, its scripts are in the repository.
@Suite("toolcall-bench --help")
struct BenchHelpTests {
    static let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("toolcall-bench")
    static let repo = FixturePaths.root.deletingLastPathComponent()

    static func run(_ args: [String]) throws -> (status: Int32, stdout: String) {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        let s = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, s)
    }

    static func help() throws -> String {
        let r = try run(["--help"])
        #expect(r.status == 0)
        return r.stdout
    }

    /// The names after "Workloads:", up to the next sentence.
    static func workloads(_ help: String) throws -> [String] {
        let flat = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        let start = try #require(flat.range(of: "Workloads: "))
        let rest = flat[start.upperBound...]
        let list = rest[..<(rest.range(of: ".")?.lowerBound ?? rest.endIndex)]
        // Drop the parenthesised notes, then split at the commas; a list item may be led by a
        // phrase that ends in a colon ("and the shapes ...: name").
        var plain = ""
        var depth = 0
        for c in list {
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 } else if depth == 0 { plain.append(c) }
        }
        return plain.split(separator: ",").map { item in
            var name = (item.split(separator: ":").last.map(String.init) ?? "").trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("and ") { name.removeFirst(4) }
            return name
        }.filter { !$0.isEmpty }
    }

    @Test("every workload the help names runs, and at least the three first ones are named")
    func workloadsExist() throws {
        let names = try Self.workloads(try Self.help())
        #expect(names.count >= 3 && Array(names.prefix(3)) == ["prose", "agentic", "long-argument"], "\(names)")
        for name in names {
            let r = try Self.run(["--workload", name, "--format", "json", "--size", "100000", "--repeat", "1", "--chunk", "4096", "--json"])
            #expect(r.status == 0, "--workload \(name)")
        }
        #expect(try Self.run(["--workload", "no-such-workload"]).status != 0)
    }

    @Test("--verify runs the tests' chunking verifier on every workload's input, for formats of each family")
    func verifyEveryWorkload() throws {
        let names = try Self.workloads(try Self.help())
        for format in ["json", "xml_function", "kimi_k3", "lfm2"] {
            for name in names {
                let r = try Self.run(["--workload", name, "--format", format, "--size", "4000", "--repeat", "1", "--chunk", "5", "--json", "--verify"])
                #expect(r.status == 0, "--workload \(name) --format \(format) --verify")
            }
        }
        #expect(try Self.run(["--tokens", "/no/such/tokenizer.json"]).status != 0)
    }

    @Test("every make target and file the help names exists")
    func targetsExist() throws {
        let help = try Self.help()
        let makefile = try String(contentsOf: Self.repo.appendingPathComponent("Makefile"), encoding: .utf8)
        let targets = Set(makefile.split(separator: "\n").compactMap { line -> String? in
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("\t"), !line.hasPrefix("#") else { return nil }
            let name = line[..<colon]
            return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } ? String(name) : nil
        })
        let words = help.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "`" }).map(String.init)
        var named = 0
        for (i, w) in words.enumerated() where w == "make" && i + 1 < words.count {
            named += 1
            #expect(targets.contains(words[i + 1]), "make \(words[i + 1]) is not a Makefile target")
        }
        #expect(named >= 1)
        for w in words where w.hasPrefix("Benchmarks/") {
            #expect(FileManager.default.fileExists(atPath: Self.repo.appendingPathComponent(w).path), "\(w) does not exist")
        }
    }
}
