"""Streams one model output through SGLang's own parser objects with ToolCallKit's reasoning
and function-call detectors, as `python -m toolcallkit.sglang ... --reasoning-parser toolcallkit
--tool-call-parser toolcallkit` does for each request (the reasoning parser first, its normal
text into the function-call parser), and prints what each step gives. Run it from the
repository's root (docs/embedding.md, "Walkthrough").

On a machine without torch (SGLang imports it on the way to its parsers, which never use it),
the stand-in the adapter tests use is put in its place. Last, it shows the grammar SGLang gets
from ToolCallKit's detector for a request with tool_choice "required".
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

from sglang.srt.entrypoints.openai.protocol import Tool  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402

import toolcallkit.sglang  # noqa: E402

toolcallkit.sglang.register()  # "toolcallkit" for --tool-call-parser and --reasoning-parser

OUTPUT = (
    "<think>The user wants the weather in Paris.</think>Let me check. "
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)
TOOLS = [Tool(type="function", function={"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}})]


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

reasoning_parser = ReasoningParser("toolcallkit", tool_call_parser_active=True)
call_parser = FunctionCallParser(TOOLS, "toolcallkit")
chunks = [OUTPUT[i : i + 12] for i in range(0, len(OUTPUT), 12)]
for n, chunk in enumerate(chunks):
    reasoning, normal = reasoning_parser.parse_stream_chunk(chunk)
    if n == len(chunks) - 1:
        end_reasoning, end_normal = reasoning_parser.parse_stream_end()
        reasoning, normal = (reasoning or "") + (end_reasoning or ""), (normal or "") + (end_normal or "")
    text, calls = call_parser.parse_stream_chunk(normal or "")
    if n == len(chunks) - 1:
        end_text, end_calls = call_parser.parse_stream_end()
        text, calls = text + end_text, calls + end_calls
    step = {"reasoning": reasoning or None, "content": text or None,
            "calls": [{"index": c.tool_index, "name": c.name, "arguments": c.parameters} for c in calls] or None}
    if any(step.values()):
        print("step:", json.dumps({k: v for k, v in step.items() if v}, ensure_ascii=False))

# tool_choice "required": SGLang asks the detector for the structural tag its constrained decoder
# (xgrammar) then applies, and reads the calls through the detector.
kind, tag = FunctionCallParser(TOOLS, "toolcallkit").get_structure_constraint("required")
tag = tag.model_dump(by_alias=True)
print("required:", json.dumps({kind: [
    {"triggers": t["triggers"], "at_least_one": t["at_least_one"]} for t in triggered(tag)]}))
