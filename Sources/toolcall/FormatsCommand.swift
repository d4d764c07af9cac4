// toolcall — `formats`: the built-in formats, as their declarations describe them.

import ToolCallKit

enum FormatsCommand {
    /// `toolcall formats [--json | --fuzz-dictionary]`.
    ///
    /// - plain: one line per format, `NAME<TAB>CASE NAME<TAB>implemented`, then one per model
    ///   variant, `NAME<TAB>CASE NAME<TAB>variant of BASE`;
    /// - `--json`: one JSON object per format (name, case name, summary, markers, reasoning
    ///   markers, fuzz words), the form scripts read, then one per model variant with
    ///   `variant_of` added;
    /// - `--fuzz-dictionary`: a libFuzzer dictionary of every format's markers and words.
    static func run(_ args: ArraySlice<String>) throws(ExitError) -> String {
        guard args.count <= 1 else { throw .usage("formats takes at most one option (--json or --fuzz-dictionary)") }
        let formats = ToolCallFormat.allCases
        switch args.first {
        case nil:
            return formats.map { "\($0.rawValue)\t\($0.caseName)\t\($0.isImplemented ? "implemented" : "planned")\n" }.joined()
                + ToolCallFormat.variants.map { "\($0.rawValue)\t\($0.caseName)\tvariant of \($0.variantOf?.rawValue ?? "")\n" }.joined()
        case "--json":
            return (formats + ToolCallFormat.variants).map { f in
                let d = f.definition
                let strings = { (list: [String]) in JSONValue.array(list.map { .string($0) }) }
                var members: [(key: String, value: JSONValue)] = [
                    (key: "name", value: .string(f.rawValue)),
                    (key: "case_name", value: .string(f.caseName)),
                    (key: "summary", value: .string(d.summary)),
                    (key: "markers", value: strings(d.markerTexts)),
                    (key: "reasoning_markers", value: strings(d.reasoningMarkerTexts)),
                    (key: "fuzz_words", value: strings(d.fuzzWords)),
                ]
                if let base = f.variantOf { members.append((key: "variant_of", value: .string(base.rawValue))) }
                return JSONValue.object(members).jsonText + "\n"
            }.joined()
        case "--fuzz-dictionary":
            var seen: Set<String> = []
            var out = "# Every format's markers and words (toolcall formats --fuzz-dictionary).\n"
            for f in formats {
                let d = f.definition
                for word in d.markerTexts + d.reasoningMarkerTexts + d.fuzzWords where seen.insert(word).inserted {
                    out += dictionaryEntry(word) + "\n"
                }
            }
            return out
        case let other?:
            throw .usage("unknown option '\(other)' for formats (--json or --fuzz-dictionary)")
        }
    }

    /// A libFuzzer dictionary entry: the word between quotes, `"` and `\` escaped, bytes
    /// outside printable ASCII as `\xNN`.
    static func dictionaryEntry(_ word: String) -> String {
        var out = "\""
        for b in word.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789abcdef".utf8)
                out += "\\x" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            }
        }
        return out + "\""
    }
}
