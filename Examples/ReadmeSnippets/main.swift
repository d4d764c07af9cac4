// readme-snippets — every Swift snippet of README.md and docs/ is a file of this target, so the
// build compiles them (a test checks that each snippet matches its file byte for byte). This
// file runs them on small inputs; `swift run readme-snippets` prints what they do, and a test
// compares that with Fixtures/cli/readme-snippets.stdout.

import ToolCallKit

/// `bytes` in chunks of `size`, like a network body.
func chunks(_ text: String, _ size: Int) -> [[UInt8]] {
    let bytes = Array(text.utf8)
    return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }
}

let weatherTools = #"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}]"#

print("-- decodeStream")
try decodeStream(chunks(#"Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}[TOOL_CALLS]rm[ARGS]{}"#, 7),
                 toolsJSON: weatherTools)

print("-- validatingDecoder")
let tools = try ToolSet.load(json: Array(weatherTools.utf8))
var validating = try validatingDecoder(tools: tools)
for event in validating.feed(Array(#"<tool_call>{"name": "get_weather", "arguments": {"days": "two"}}</tool_call>"#.utf8))
    + validating.finish()
{
    show(event)
}

print("-- violations")
let call = ToolCall(index: 0, id: "call_1", name: "get_weather", arguments: .object([("days", .number("2.5"))]))
print(try violations(of: call, in: tools))

print("-- format(ofModel:)")
let fixtures = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
print(try format(ofModel: "/" + fixtures + "/Fixtures/models/Qwen3-Coder-vllm-example").map(\.rawValue) ?? "none")

print("-- forecast")
let output = """
    <think>Two cities.</think>Checking.
    <tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>
    <tool_call>{"name": "get_weather", "arguments": {"city": "東京", "days": "two"}}</tool_call>
    """
let stream = AsyncStream<[UInt8]> { continuation in
    for piece in chunks(output, 64) { continuation.yield(piece) }
    continuation.finish()
}
try await forecast(stream, tools: try ToolSet.load(json: Array(#"[{"name": "get_weather"}]"#.utf8)))

print("-- decodeTokens")
var tokenizer: [UInt8] = []
let tokenizerPath = "/" + fixtures + "/Fixtures/tokenizers/bytelevel-tiny.tokenizer.json"
if let file = fopenBytes(tokenizerPath) { tokenizer = file }
let ids = Array("Hi ".utf8).map(Int.init) + [265] + Array(#"{"name": "f", "arguments": {}}"#.utf8).map(Int.init) + [266]
for event in try decodeTokens([Array(ids[0..<5]), Array(ids[5...])], tokenizerJSON: tokenizer) { show(event) }

print("-- cappedOptions")
var capped = ToolCallDecoder(format: .json, options: try cappedOptions(maxCallBytes: 16))
for event in capped.feed(Array(#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#.utf8)) + capped.finish() { show(event) }
do {
    _ = try cappedOptions(maxCallBytes: Int.max)
} catch {
    print("refused:", error)
}
print("late chunk:", feedLate(&capped, Array("more".utf8)).count, "events")

print("-- turnJSON")
var decoder = ToolCallDecoder(format: .json, options: .init(idSeed: 1))
print(try turnJSON(decoder.feed(Array(#"Hi<tool_call>{"name": "f", "arguments": {"a": [1, 2]}}</tool_call><tool_call>{"name"#.utf8)) + decoder.finish()))

print("-- renderedForPrompt")
print(String(decoding: try renderedForPrompt(), as: UTF8.self))

print("-- decodeWithTemplate")
let smolTemplate = #"{"start_anchor": "<|im_start|>assistant\n", "fields": {"thinking": {"open": "<think>", "close": "</think>"}, "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true, "content": "json", "transform": {"type": "function", "function": "{content}"}}, "content": {"close": "<|im_end|>"}}}"#
let templated = try decodeWithTemplate(
    config: Array(smolTemplate.utf8), promptTail: "<|im_start|>assistant\n<think>\n",
    output: chunks("Check.</think><tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>Done.<|im_end|>", 5))
for event in templated { if case .toolCallStart = event { continue }; show(event) }  // ids are random here

print("-- serverSentEvents")
let answer = #"<think>Paris.</think>Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>"#
for anthropic in [false, true] {
    var rejections: [UInt8] = []
    print(serverSentEvents(chunks(answer, 24), format: .json, anthropic: anthropic, rejections: &rejections), terminator: "")
    print("rejections:", rejections.count)
}
