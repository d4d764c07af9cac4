"""toolcallkit.vllm against vLLM's real classes (torch stubbed)."""
import json
import os
import sys

import pytest

from adapters import HERMES_CALLS, HERMES_OUTPUT, TOOLS, pieces, require
from tckpaths import FIXTURES, ROOT

require("vllm")

from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager  # noqa: E402
from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser  # noqa: E402

import toolcallkit.vllm  # noqa: E402
from toolcallkit.vllm import ToolCallKitToolParser  # noqa: E402


class Tokenizer:
    """What the parsers read of a tokenizer: its model folder, and a vocabulary."""

    def __init__(self, name_or_path="toolcallkit-test"):
        self.name_or_path = name_or_path

    def get_vocab(self):
        return {}


@pytest.fixture(autouse=True)
def json_format(monkeypatch):
    monkeypatch.setenv("TOOLCALLKIT_FORMAT", "json")
    monkeypatch.delenv("TOOLCALLKIT_OPTIONS", raising=False)


def request(tools=None):
    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=tools)


def stream(parser, text, size, req):
    """Drives the parser as vLLM's serving layer does; returns the non-None DeltaMessages."""
    previous = ""
    out = []
    for delta in pieces(text, size):
        current = previous + delta
        msg = parser.extract_tool_calls_streaming(previous, current, delta, [], [], [], req)
        if msg is not None:
            assert isinstance(msg, DeltaMessage)
            out.append(msg)
        previous = current
    return out


def assemble(messages):
    """What an OpenAI client builds from the deltas: content, and calls by index."""
    content = "".join(m.content or "" for m in messages)
    calls = {}
    for m in messages:
        for tc in m.tool_calls:
            c = calls.setdefault(tc.index, {"id": None, "name": None, "arguments": ""})
            if tc.id:
                assert c["id"] is None, "an id is sent once"
                c["id"] = tc.id
            if tc.function and tc.function.name:
                assert c["name"] is None, "a name is sent once, first"
                assert c["arguments"] == ""
                c["name"] = tc.function.name
            if tc.function and tc.function.arguments:
                assert c["name"], "arguments only after the name"
                c["arguments"] += tc.function.arguments
    return content, [calls[i] for i in sorted(calls)]


def test_registered_under_toolcallkit():
    assert ToolParserManager.get_tool_parser("toolcallkit") is ToolCallKitToolParser


@pytest.mark.parametrize("size", [1, 2, 4, 7, 1000])
@pytest.mark.parametrize("tools", [None, TOOLS], ids=["no-tools", "tools"])
def test_streaming_gives_the_calls_and_text_at_any_delta_size(size, tools):
    parser = ToolCallKitToolParser(Tokenizer())
    messages = stream(parser, HERMES_OUTPUT, size, request(tools))
    content, calls = assemble(messages)
    assert content == "Let me check both. \n"
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == HERMES_CALLS
    assert all(c["id"].startswith("call_") for c in calls)
    # The bookkeeping vLLM's serving layer reads at the end of a stream.
    assert [c["name"] for c in parser.prev_tool_call_arr] == ["get_weather", "get_time"]
    assert parser.streamed_args_for_tool == [c["arguments"] for c in calls]
    assert parser.current_tool_id == 1
    assert parser.get_remaining_unstreamed_args() == ""


def test_feeds_only_delta_text():
    """current_text is never parsed: a wrong current_text changes nothing."""
    parser = ToolCallKitToolParser(Tokenizer())
    previous = ""
    messages = []
    for delta in pieces(HERMES_OUTPUT, 5):
        msg = parser.extract_tool_calls_streaming(previous or "x", "garbage <tool_call>", delta, [], [], [], request())
        previous += delta
        if msg:
            messages.append(msg)
    content, calls = assemble(messages)
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == HERMES_CALLS


def test_an_empty_previous_text_starts_a_fresh_stream():
    parser = ToolCallKitToolParser(Tokenizer())
    stream(parser, '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "argu', 6, request())
    messages = stream(parser, 'ok <tool_call>{"name": "c", "arguments": {"x": 1}}</tool_call>', 6, request())
    content, calls = assemble(messages)
    assert content == "ok "
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [("c", {"x": 1})]
    assert [c["name"] for c in parser.prev_tool_call_arr] == ["c"]


def test_undeclared_and_malformed_calls_are_not_content_or_calls():
    parser = ToolCallKitToolParser(Tokenizer())
    text = 'a<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>b<tool_call>{"name": "get_time", "arguments": {]}</tool_call>c'
    content, calls = assemble(stream(parser, text, 3, request(TOOLS)))
    assert content == "abc"
    info = parser.extract_tool_calls(text, request(TOOLS))
    assert info.tools_called is False and info.tool_calls == [] and info.content == "abc"


def test_extract_tool_calls_returns_vllm_types():
    parser = ToolCallKitToolParser(Tokenizer())
    info = parser.extract_tool_calls(HERMES_OUTPUT, request(TOOLS))
    assert isinstance(info, ExtractedToolCallInformation)
    assert info.tools_called is True
    assert info.content == "Let me check both. \n"
    assert [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls] == HERMES_CALLS
    assert all(c.type == "function" and c.id.startswith("call_") for c in info.tool_calls)
    none = parser.extract_tool_calls("no calls here", request())
    assert none.tools_called is False and none.content == "no calls here"


def test_same_calls_as_vllms_own_hermes_parser():
    """On outputs both handle, vLLM's Hermes parser and ours agree (names, arguments)."""
    ours = ToolCallKitToolParser(Tokenizer())
    theirs = Hermes2ProToolParser(Tokenizer())
    for size in (1, 3, 8):
        _, a = assemble(stream(ToolCallKitToolParser(Tokenizer()), HERMES_OUTPUT, size, request()))
        # vLLM makes a parser per request; its Hermes parser keeps state across calls.
        _, b = assemble(stream(Hermes2ProToolParser(Tokenizer()), HERMES_OUTPUT, size, request()))
        assert [(c["name"], json.loads(c["arguments"])) for c in a] == [(c["name"], json.loads(c["arguments"])) for c in b]
    a = ours.extract_tool_calls(HERMES_OUTPUT, request())
    b = theirs.extract_tool_calls(HERMES_OUTPUT, request())
    assert [(c.function.name, json.loads(c.function.arguments)) for c in a.tool_calls] == [
        (c.function.name, json.loads(c.function.arguments)) for c in b.tool_calls]


def test_whole_calls_from_toolcallkit_options(monkeypatch):
    monkeypatch.setenv("TOOLCALLKIT_OPTIONS", '{"whole_calls": true}')
    parser = ToolCallKitToolParser(Tokenizer())
    messages = stream(parser, HERMES_OUTPUT, 2, request())
    call_messages = [m for m in messages if m.tool_calls]
    # Each call arrives in one message: name and all its arguments.
    assert [[(tc.function.name, json.loads(tc.function.arguments)) for tc in m.tool_calls] for m in call_messages] == [
        [HERMES_CALLS[0]], [HERMES_CALLS[1]]]


def test_format_inferred_from_the_tokenizers_model_folder(monkeypatch):
    monkeypatch.delenv("TOOLCALLKIT_FORMAT")
    parser = ToolCallKitToolParser(Tokenizer(os.path.join(FIXTURES, "models", "Mistral-Small-3.2-24B-Instruct-2506")))
    assert parser.format == "mistral"
    info = parser.extract_tool_calls('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', request())
    assert [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls] == [("get_weather", {"city": "Paris"})]
    with pytest.raises(toolcallkit.ConfigError, match="TOOLCALLKIT_FORMAT"):
        ToolCallKitToolParser(Tokenizer("not/a/folder"))


def test_adjust_request_keeps_special_tokens():
    req = request(TOOLS)
    req = ToolCallKitToolParser(Tokenizer()).adjust_request(req)
    assert req.skip_special_tokens is False


def test_loads_as_a_plugin_by_path():
    """`--tool-parser-plugin .../toolcallkit/vllm.py` imports the file under the name "vllm";
    the real vllm package must stay in place and the parser be registered."""
    from vllm.utils.import_utils import import_plugin

    real = sys.modules["vllm"]
    loaded = sys.modules.pop("toolcallkit.vllm")
    ToolParserManager.tool_parsers.pop("toolcallkit", None)
    ToolParserManager.lazy_parsers.pop("toolcallkit", None)
    try:
        import_plugin(os.path.join(ROOT, "python", "src", "toolcallkit", "vllm.py"))
        assert sys.modules["vllm"] is real
        assert sys.modules["toolcallkit.vllm"] is not loaded  # loaded again, under its own name
        cls = ToolParserManager.get_tool_parser("toolcallkit")
        assert cls.__name__ == "ToolCallKitToolParser" and cls.__module__ == "toolcallkit.vllm"
        assert cls(Tokenizer()).extract_tool_calls(HERMES_OUTPUT, request()).tools_called
    finally:
        sys.modules["toolcallkit.vllm"] = loaded
        ToolParserManager.tool_parsers["toolcallkit"] = ToolCallKitToolParser


import toolcallkit  # noqa: E402
