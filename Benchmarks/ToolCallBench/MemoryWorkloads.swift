// toolcall-bench — the shapes that once made a call hold many times its size (README.md, Benchmark).

import ToolCallKit
import ToolCallKitTestSupport

/// Workloads whose arguments are many small values: the memory a call holds is guarded by
/// `make bench-check` (peak heap per input byte) besides its time.
///
/// - `nested-arrays`: one argument holding `[[1,[2,[3]]], ...]`: three containers per few bytes.
/// - `short-strings`: one argument holding a list of short strings.
/// - `near-cap`: one call of small integers just under the decoder's call cap, the cap set to
///   `--size` (so the shape runs at any size; at `--size 16777216` it is the default cap).
///
/// Their results are checked on the stored argument text, so checking builds no tree either.
extension Workloads {
    static let memoryNames = ["nested-arrays", "short-strings", "near-cap"]

    /// One of ``memoryNames``, or nil for another name.
    static func makeMemory(_ name: String, format: ToolCallFormat, size: Int) -> Workload? {
        var rng = SeededGenerator(state: 0x3E30_0000 &+ UInt64(size))
        let intro = "Saving.\n"
        switch name {
        case "nested-arrays":
            var list = "["
            list.reserveCapacity(size + 32)
            while list.utf8.count < size {
                list += "[\(rng.next() % 10),[\(rng.next() % 10),[\(rng.next() % 10)]]],"
            }
            list += "[]]"
            return listCall(name, format: format, intro: intro, list: list)
        case "short-strings":
            // Written straight into one string (no array of items), so generating the input
            // does not set the peak heap measured.
            let (open, close, separator): (String, String, String)
            switch format {
            case .gemma4: (open, close, separator) = ("<|\"|>", "<|\"|>", ",")
            case .gemma: (open, close, separator) = ("<escape>", "<escape>", ",")
            case .lfm2: (open, close, separator) = ("'", "'", ", ")
            default: (open, close, separator) = ("\"", "\"", ",")
            }
            var list = "["
            list.reserveCapacity(size * 3)
            var bytes = 0
            while bytes < size {
                if bytes > 0 { list += separator }
                let s = "s\(rng.next() % 1000)"
                list += open + s + close
                bytes += s.utf8.count + 3
            }
            list += "]"
            return listCall(name, format: format, intro: intro, list: list)
        case "near-cap":
            // Small integers up to just under the cap: the rendered call is measured once with
            // an empty list, then the list fills what is left but 16 bytes.
            let frame = render(format, after: "", name: "save", args: [("values", "[]")], literal: true).input.count
            var list = "["
            list.reserveCapacity(size)
            let room = size - frame - 16
            while list.utf8.count + 4 < room {
                list += "\(rng.next() % 100),"
            }
            list += "0]"
            var w = listCall(name, format: format, intro: "", list: list)
            w.maxCallBytes = Limit(exactly: size)
            return w
        default:
            return nil
        }
    }

    /// The call, its list spliced into the rendered frame as bytes: the input is the only
    /// copy of the list made, so generating it does not set the peak heap measured.
    static func listCall(_ name: String, format: ToolCallFormat, intro: String, list: String) -> Workload {
        // A one-number list stands where the list goes, so that formats that type their
        // values (kimi_k3's `type="array"`) type it as a list; every format writes it as is.
        let slot = Array("[7340033]".utf8)
        let r = render(format, after: intro, name: "save", args: [("values", "[7340033]")], literal: true)
        let frame = r.input
        guard let at = (0...(frame.count - slot.count)).first(where: { frame[$0..<($0 + slot.count)].elementsEqual(slot) }) else {
            fatalError("\(format.rawValue): the rendered call holds no list slot")
        }
        var input: [UInt8] = []
        input.reserveCapacity(frame.count + list.utf8.count)
        input.append(contentsOf: frame[..<at])
        input.append(contentsOf: list.utf8)
        input.append(contentsOf: frame[(at + slot.count)...])
        return Workload(name: name, format: format, input: input, expectedText: r.text, expectedCalls: ["save"])
    }
}

/// Checks on a call's stored argument text (``ToolCall/argumentsJSON``), without building the
/// typed tree (which would cost the memory the workloads measure).
enum ArgumentChecks {
    /// Whether the arguments are `{"key":[...]}` with a list of at least one element.
    static func isList(_ json: [UInt8], key: String) -> Bool {
        let head = Array("{\"\(key)\":[".utf8)
        return json.count > head.count + 2 && json.starts(with: head) && json[json.count - 2] == UInt8(ascii: "]")
            && json[json.count - 1] == UInt8(ascii: "}")
    }

    /// The number of members of a JSON object's text (commas at depth 1 outside strings, plus one).
    static func memberCount(_ json: [UInt8]) -> Int {
        var depth = 0
        var inString = false
        var escaped = false
        var commas = 0
        var any = false
        for b in json {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1 { any = true }
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { commas += 1 }
            default: break
            }
        }
        return any ? commas + 1 : 0
    }

    /// The compact text of `{"key": "value"}`, to compare a string argument with.
    static func stringArgument(_ key: String, _ value: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        JSONValue.writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        JSONValue.writeString(value, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
