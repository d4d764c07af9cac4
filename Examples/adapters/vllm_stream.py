"""Streams one model output through vLLM's own parser objects with ToolCallKit's tool and
reasoning parsers, as `vllm serve ... --tool-call-parser toolcallkit --reasoning-parser
toolcallkit` does for each request, and prints what vLLM would send: each delta, then the whole
message. Run it from the repository's root (docs/embedding.md, "Walkthrough").

On a machine without torch (vLLM imports it on the way to its parsers, which never use it),
the stand-in the adapter tests use is put in its place. Last, it shows the grammar vLLM gets
from ToolCallKit's tool parser for a request with tool_choice "required".
"""
import importlib.util
import json
import os
import sys
import warnings

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if importlib.util.find_spec("torch") is None:
    sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
    import torch_stub

    torch_stub.install()
    # tvm_ffi (imported by xgrammar) warns that the stand-in has no DLPack extension.
    warnings.filterwarnings("ignore", module="tvm_ffi")

os.environ.setdefault("TOOLCALLKIT_FORMAT", "json")  # what the model writes (Qwen 3)

from transformers import PreTrainedTokenizerFast  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402

import toolcallkit.vllm  # noqa: E402,F401  (registers both parsers as "toolcallkit")

OUTPUT = (
    "<think>The user wants the weather in Paris.</think>Let me check. "
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def triggered(node):
    """The triggered_tags parts of a structural tag (where calls may start)."""
    if isinstance(node, dict):
        if node.get("type") == "triggered_tags":
            yield node
        for value in node.values():
            yield from triggered(value)
    elif isinstance(node, list):
        for value in node:
            yield from triggered(value)

tokenizer = PreTrainedTokenizerFast(
    tokenizer_file=os.path.join(ROOT, "Fixtures", "tokenizers", "gpt2-with-markers.tokenizer.json"))
request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "Weather in Paris?"}], tools=TOOLS)
parser_cls = ParserManager.get_parser(
    tool_parser_name="toolcallkit", reasoning_parser_name="toolcallkit", enable_auto_tools=True)

parser = parser_cls(tokenizer, request.tools)
chunks = [OUTPUT[i : i + 12] for i in range(0, len(OUTPUT), 12)]
for n, chunk in enumerate(chunks):
    delta = parser.parse_delta(chunk, [], request, prompt_token_ids=tokenizer.encode("assistant\n"),
                               finished=n == len(chunks) - 1)
    if delta is not None:
        print("delta:", json.dumps(delta.model_dump(exclude_none=True, exclude_defaults=True), ensure_ascii=False))

reasoning, content, calls = parser_cls(tokenizer, request.tools).parse(OUTPUT, request, enable_auto_tools=True)
print("message:", json.dumps({"reasoning": reasoning, "content": content,
                              "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in calls]}))

# tool_choice "required": vLLM asks the tool parser for the request's structural tag, which its
# constrained decoder (xgrammar) then applies, and reads the calls through the parser.
required = ChatCompletionRequest(model="m", messages=request.messages, tools=TOOLS, tool_choice="required")
required = parser_cls(tokenizer, required.tools).adjust_request(required)
tag = json.loads(required.structured_outputs.structural_tag)
print("required:", json.dumps({"structural_tag": [
    {"triggers": t["triggers"], "at_least_one": t["at_least_one"]} for t in triggered(tag)]}))
