"""Helpers for the vLLM and SGLang adapter tests: import the server package with torch stubbed,
or skip (with the reason in the summary) when it is not installed."""
import importlib.util
import warnings

import pytest

import torch_stub


def require(package: str):
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed (make test-adapters installs it)", allow_module_level=True)
    torch_stub.install()
    # tvm_ffi (imported by xgrammar) warns that the stand-in has no DLPack extension.
    warnings.filterwarnings("ignore", message="Failed to JIT torch c dlpack")


# An output with prose, two parallel calls and text after, in the json (Hermes/Qwen) format.
HERMES_OUTPUT = (
    "Let me check both. "
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich", "days": 3}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Zurich"}}\n</tool_call>'
)
HERMES_CALLS = [("get_weather", {"city": "Zürich", "days": 3}), ("get_time", {"tz": "Europe/Zurich"})]
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"tz": {"type": "string"}}}}},
]


def pieces(text: str, size: int):
    return [text[i : i + size] for i in range(0, len(text), size)]


# Reasoning, prose, a call, reasoning between calls, a second call, and a possible marker cut
# off by the end of the stream: what one decoder with reasoning on makes of it is the reference.
REASONING_OUTPUT = (
    "<think>The user wants the weather: get_weather, {\"city\": ...}.</think>Checking. "
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich", "days": 3}}\n</tool_call>'
    "<think>Now the time.</think>"
    '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Zurich"}}\n</tool_call> Done. <tool_c'
)


def one_decoder(text: str, tools=None, **options):
    """(reasoning, content, [(name, arguments)]) as one ToolCallKit decoder with reasoning on
    gives them."""
    import toolcallkit

    with toolcallkit.Decoder(format="json", tools=tools, reasoning=True, **options) as d:
        events = d.feed(text) + d.finish()
    reasoning = "".join(e["text"] for e in events if e["type"] == "reasoning")
    content = "".join(e["text"] for e in events if e["type"] == "text")
    calls = [(e["name"], e["arguments"]) for e in events if e["type"] == "tool_call"]
    return reasoning, content, calls
