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
