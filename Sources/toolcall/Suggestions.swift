// toolcall — "did you mean": close names for a mistyped format or option, from the data the
// messages are about (the formats' declarations, the help text's options), never a hand list.

import ToolCallKit

/// Which known names a mistyped one is close to.
enum Suggestions {
    /// The candidates `word` may have meant, best first: the same name once case and the
    /// separators `-`, `_`, `.` and space are set aside; names it begins (`deepseek` →
    /// `deepseek_v3`, `deepseek_v31`); the nearest names within a small edit distance (`jsn` →
    /// `json`, `--fromat` → `--format`: one edit for a short name, two from 6 characters on).
    static func close(to word: String, among candidates: [String]) -> [String] {
        let key = squashed(word)
        guard !key.isEmpty else { return [] }
        var same: [String] = []
        var prefixed: [String] = []
        var near: [(name: String, distance: Int)] = []
        let allowed = key.count >= 6 ? 2 : 1
        for c in candidates {
            let s = squashed(c)
            if s == key {
                same.append(c)
            } else if key.count >= 3 && s.hasPrefix(key) {
                prefixed.append(c)
            } else if let d = distance(key, s, atMost: allowed) {
                near.append((c, d))
            }
        }
        // The nearest only: `deepsek_v3` means deepseek_v3, not also deepseek_v31.
        let best = near.map(\.distance).min()
        var out: [String] = []
        for c in same + prefixed + near.filter({ $0.distance == best }).map(\.name) where !out.contains(c) {
            out.append(c)
        }
        return out
    }

    /// Lowercased, without `-`, `_`, `.` and spaces, so `xml-function`, `XMLFunction` and
    /// `xml_function` are one name.
    static func squashed(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { !"-_. ".unicodeScalars.contains($0) }.map(Character.init))
    }

    /// The edit distance (insertions, deletions, substitutions, and swaps of two neighbours)
    /// between `a` and `b`, or nil when it is more than `limit`. Names are short: the table is
    /// small, and a length difference past the limit ends it at once.
    static func distance(_ a: String, _ b: String, atMost limit: Int) -> Int? {
        let x = Array(a.unicodeScalars)
        let y = Array(b.unicodeScalars)
        guard abs(x.count - y.count) <= limit, x.count <= 64, y.count <= 64 else { return nil }
        var table = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { table[i][0] = i }
        for j in 0...y.count { table[0][j] = j }
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) <= limit ? max(x.count, y.count) : nil }
        for i in 1...x.count {
            for j in 1...y.count {
                var d = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d = min(d, table[i - 2][j - 2] + 1) }
                table[i][j] = d
            }
        }
        let d = table[x.count][y.count]
        return d <= limit ? d : nil
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}

/// Usage messages shared by the commands.
enum UsageMessages {
    /// The options a command's help text lists (`--format`, `-h`, ...): the one list of what
    /// the command takes, as its help documents it.
    static func options(inHelp help: String) -> [String] {
        var out: [String] = []
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            // An option line of the OPTIONS section: it begins with the option.
            guard trimmed.hasPrefix("-") else { continue }
            for word in trimmed.split(separator: " ") {
                let flag = word.trimmingSuffix { $0 == "," }
                guard flag.hasPrefix("-") else { break }
                if !out.contains(String(flag)) { out.append(String(flag)) }
            }
        }
        return out
    }

    /// The message for an argument `command` does not take: a mistyped option gets the close
    /// ones, and a word that is no option is said to be one (the commands read standard input
    /// and take no file or other positional argument).
    static func unknownArgument(_ arg: String, command: String, help: String) -> String {
        let see = "see toolcall \(command) --help"
        guard arg.hasPrefix("-") else {
            let hint = command == "decode" || command == "render" ? "; \(command) reads standard input (toolcall \(command) ... < FILE)" : ""
            return "\(command) takes no argument '\(arg)'\(hint) (\(see))"
        }
        let flag = String(arg.split(separator: "=", maxSplits: 1).first ?? "")
        let close = Suggestions.close(to: flag, among: options(inHelp: help).filter { $0.hasPrefix("--") })
        if !close.isEmpty {
            return "unknown option '\(arg)' for \(command): did you mean \(Suggestions.list(close))? (\(see))"
        }
        return "unknown option '\(arg)' for \(command) (\(see))"
    }
}

extension Substring {
    /// This text without the characters at its end that match.
    fileprivate func trimmingSuffix(while matches: (Character) -> Bool) -> Substring {
        var s = self
        while let last = s.last, matches(last) { s = s.dropLast() }
        return s
    }
}
