// toolcall-bench — the response-template workload: a format defined at run time.

import ToolCallKit
import ToolCallKitTestSupport

extension Workloads {
    /// A SmolLM3-style template (reasoning in `<think>`, Hermes JSON calls in `<tool_call>`,
    /// the implicit region as content): the shape most published templates have.
    static let templateFormat: ToolCallFormat = {
        let spec = #"""
            {"start_anchor": "<|im_start|>assistant\n",
             "fields": {"thinking": {"open": "<think>", "close": "</think>"},
                        "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true, "content": "json",
                                       "transform": {"type": "function", "function": "{content}"}},
                        "content": {"close": "<|im_end|>"}}}
            """#
        // The template is ours and valid: a failure here is a bug in the benchmark.
        return ToolCallFormat(responseTemplate: try! ResponseTemplate.load(Array(spec.utf8)))
    }()

    /// The template workload: reasoning, prose and a call, about every 2.5 KB, through the
    /// template format (whatever `--format` says).
    static func template(size: Int, rng: inout SeededGenerator) -> Workload {
        var input: [UInt8] = []
        var text: [UInt8] = []
        var calls: [String] = []
        let cities = ["Paris", "東京", "Zürich", "São Paulo", "Oslo"]
        while input.count < size {
            input += Array("<think>".utf8) + prose(bytes: 300, rng: &rng) + Array("</think>".utf8)
            let p = prose(bytes: 2000, rng: &rng)
            input += p
            text += p
            let call = "get_weather_\(calls.count % 7)"
            calls.append(call)
            input += Array("<tool_call>\n{\"name\": \"\(call)\", \"arguments\": {\"city\": \"\(rng.pick(cities))\", \"unit\": \"celsius\"}}\n</tool_call>".utf8)
        }
        return Workload(name: "template", format: templateFormat, input: input, expectedText: text, expectedCalls: calls)
    }
}

// MARK: - Template shapes that were once quadratic or worse
//
// Each runs a template we ship (copied from Fixtures/response_templates/templates) or a custom
// one over the input that made its anchors pending or its tag pattern backtrack for ever:
// bench-check keeps their cost per byte flat (docs/response-templates.md, Cost).

extension Workloads {
    /// The template workloads: name, template, and the input and result for a size.
    static let templateShapes = [
        "template", "template-r1-answer", "template-r1-unclosed", "template-newlines", "template-words",
        "template-open-header", "template-name-run", "template-a-plus-b", "template-xml-spaces",
    ]

    static func loadTemplate(_ spec: String) -> ToolCallFormat {
        // The templates are ours and valid: a failure here is a bug in the benchmark.
        ToolCallFormat(responseTemplate: try! ResponseTemplate.load(Array(spec.utf8)))
    }

    /// TRL's DeepSeek-R1 template: reasoning opened by a lookahead to `</think>`.
    static let deepSeekR1 = loadTemplate(#"""
        {"start_anchor": "<｜Assistant｜><think>\n", "fields": {"reasoning_content": {"open_pattern": "(?=[\\s\\S]*?</think>)", "close_pattern": "</think>\\s*", "content": "text"}, "content": {"close_pattern": "<｜end▁of▁sentence｜>\\s*|$", "content": "text"}}}
        """#)
    /// transformers serve's Qwen3 fallback: `\s*<tool_call>` opens a call.
    static let serveQwen3 = loadTemplate(#"""
        {"start_anchor": "<|im_start|>assistant\n", "fields": {"reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"}, "tool_calls": {"open_pattern": "\\s*<tool_call>", "close": "</tool_call>", "repeats": true, "content": "json", "transform": {"type": "function", "function": "{content}"}}, "content": {"close_pattern": "\\s*(?:<\\|im_end\\|>|<\\|endoftext\\|>|<\\|eot_id\\|>)", "content": "text"}}}
        """#)
    /// Inkling's: every region opens after `[^<]*`.
    static let inkling = loadTemplate(#"""
        {"start_anchor": "<|message_model|>", "fields": {"thinking": {"open_pattern": "(?:<\\|message_model\\|>)?[^<]*<\\|content_thinking\\|>", "close": "<|end_message|>", "repeats": true, "join": "", "content_args": {"strip": false}}, "content": {"open_pattern": "(?:<\\|message_model\\|>)?[^<]*<\\|content_text\\|>", "close": "<|end_message|>", "repeats": true, "join": "", "content_args": {"strip": false}}, "tool_calls": {"open_pattern": "(?:<\\|message_model\\|>)?[^<]*<\\|content_invoke_tool_json\\|>", "close": "<|end_message|>", "repeats": true, "content": "json", "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}}}}}
        """#)
    /// gpt-oss's: a call's header runs `.*?` to `<|message|>`.
    static let gptOSS = loadTemplate(#"""
        {"start_anchor": "<|start|>assistant", "fields": {"thinking": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>", "content": "text"}, "content": {"open": "<|channel|>final<|message|>", "close": "<|end|>", "content": "text"}, "tool_calls": {"open_pattern": "<\\|channel\\|>commentary to=functions\\.(?P<name>\\w+).*?<\\|message\\|>", "close": "<|call|>", "repeats": true, "content": "json", "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}}
        """#)
    /// TRL's gpt-oss: the name is `\S+?` before the header.
    static let trlGPTOSS = loadTemplate(#"""
        {"start_anchor": "<|start|>assistant", "fields": {"thinking": {"open": "<|channel|>analysis<|message|>", "close_pattern": "<\\|end\\|>\\s*", "content": "text"}, "content": {"open": "<|channel|>final<|message|>", "close_pattern": "<\\|return\\|>\\s*", "content": "text"}, "tool_calls": {"open_pattern": "to=functions\\.(?P<name>\\S+?)<\\|channel\\|>commentary\\s+json<\\|message\\|>", "close_pattern": "<\\|call\\|>\\s*", "repeats": true, "content": "json", "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}}
        """#)
    /// A custom one: a reasoning region opened by `a+b`.
    static let aPlusB = loadTemplate(#"""
        {"start_anchor": "S", "fields": {"content": {}, "thinking": {"open_pattern": "a+b", "close": "</t>"}}}
        """#)
    /// TRL's Nemotron 3: xml-inline parameters with `\s*(?P<value>.*?)\s*`.
    static let nemotron3 = loadTemplate(#"""
        {"start_anchor_pattern": "<\\|im_start\\|>assistant\\n<think>(?:\\n|</think>)?", "fields": {"reasoning_content": {"open_pattern": "(?=[\\s\\S]*?</think>)", "close_pattern": "</think>\\s*", "content": "text"}, "tool_calls": {"open_pattern": "<tool_call>\\s*<function=(?P<name>[^\\n>]+)>", "close_pattern": "</tool_call>\\s*", "repeats": true, "content": "xml-inline", "content_args": {"tag_pattern": "<parameter=(?P<key>[^>\\n]+)>\\s*(?P<value>.*?)\\s*</parameter>", "value_parser": {"name": "text"}}, "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}, "content": {"close_pattern": "<\\|im_end\\|>\\s*", "content": "text"}}}
        """#)

    /// The format a template workload runs (nil for the others: they run every format).
    static func fixedFormat(_ name: String) -> ToolCallFormat? {
        switch name {
        case "template": return templateFormat
        case "template-r1-answer", "template-r1-unclosed": return deepSeekR1
        case "template-newlines": return serveQwen3
        case "template-words": return inkling
        case "template-open-header": return gptOSS
        case "template-name-run": return trlGPTOSS
        case "template-a-plus-b": return aPlusB
        case "template-xml-spaces": return nemotron3
        default: return nil
        }
    }

    static func templateShape(_ name: String, size: Int, rng: inout SeededGenerator) -> Workload? {
        let format = fixedFormat(name)
        func run(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: size) }
        switch name {
        case "template": return template(size: size, rng: &rng)
        case "template-r1-answer":
            // A short thought, then a long answer that must stream.
            let answer = prose(bytes: size, rng: &rng)
            return Workload(name: name, format: format!, input: Array("Let me think.</think>\n\n".utf8) + answer, expectedText: answer, expectedCalls: [])
        case "template-r1-unclosed":
            let p = prose(bytes: size, rng: &rng)
            return Workload(name: name, format: format!, input: p, expectedText: p, expectedCalls: [])
        case "template-newlines":
            return Workload(name: name, format: format!, input: run(0x0A), expectedText: run(0x0A), expectedCalls: [])
        case "template-words":
            // No implicit region: the words are markup.
            var input: [UInt8] = []
            while input.count < size { input += Array("word ".utf8) }
            return Workload(name: name, format: format!, input: input, expectedText: [], expectedCalls: [])
        case "template-open-header":
            return Workload(name: name, format: format!, input: Array("<|channel|>commentary to=functions.f ".utf8) + run(0x78), expectedText: [], expectedCalls: [])
        case "template-name-run":
            return Workload(name: name, format: format!, input: Array("to=functions.".utf8) + run(0x78), expectedText: [], expectedCalls: [])
        case "template-a-plus-b":
            return Workload(name: name, format: format!, input: run(0x61), expectedText: run(0x61), expectedCalls: [])
        case "template-xml-spaces":
            // A parameter whose value is mostly white space, then one that never closes.
            let input = Array("<tool_call><function=f><parameter=a>x".utf8) + run(0x20) + Array("y</parameter><parameter=b>".utf8)
                + run(0x20) + Array("</tool_call>".utf8)
            return Workload(name: name, format: format!, input: input, expectedText: [], expectedCalls: ["f"])
        default: return nil
        }
    }
}
