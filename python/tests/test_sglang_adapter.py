"""toolcallkit.sglang against SGLang's real classes (torch stubbed)."""
import json
import os

import pytest

from adapters import HERMES_CALLS, HERMES_OUTPUT, TOOLS, pieces, require
from tckpaths import FIXTURES

require("sglang")

from sglang.srt.entrypoints.openai.protocol import Tool  # noqa: E402
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402

import toolcallkit  # noqa: E402
import toolcallkit.sglang  # noqa: E402
from toolcallkit.sglang import ToolCallKitDetector  # noqa: E402

SGLANG_TOOLS = [Tool(**t) for t in TOOLS]


@pytest.fixture(autouse=True)
def json_format(monkeypatch):
    monkeypatch.setenv("TOOLCALLKIT_FORMAT", "json")
    monkeypatch.delenv("TOOLCALLKIT_OPTIONS", raising=False)


def stream(parser, text, size):
    """Drives a FunctionCallParser as SGLang's serving layer does: chunks, then the end."""
    normal = ""
    items = []
    for chunk in pieces(text, size):
        t, calls = parser.parse_stream_chunk(chunk)
        normal += t
        items += calls
    t, calls = parser.parse_stream_end()
    return normal + t, items


def assemble(items):
    """What the OpenAI chunks SGLang builds from the items add up to, per call index."""
    calls = {}
    for item in items:
        assert isinstance(item, ToolCallItem)
        if item.name:
            assert item.tool_index not in calls, "a name comes once, first"
            assert item.parameters == "", "the name item has empty parameters"
            calls[item.tool_index] = {"name": item.name, "arguments": ""}
        else:
            calls[item.tool_index]["arguments"] += item.parameters
    return [calls[i] for i in sorted(calls)]


def test_register_adds_the_detector():
    assert toolcallkit.sglang.register() is ToolCallKitDetector
    assert FunctionCallParser.ToolCallParserEnum["toolcallkit"] is ToolCallKitDetector


@pytest.mark.parametrize("size", [1, 3, 8, 1000])
def test_streaming_name_first_then_fragments(size):
    toolcallkit.sglang.register()
    parser = FunctionCallParser(SGLANG_TOOLS, "toolcallkit")
    normal, items = stream(parser, HERMES_OUTPUT, size)
    assert normal == "Let me check both. \n"
    calls = assemble(items)
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == HERMES_CALLS
    detector = parser.detector
    assert [c["name"] for c in detector.prev_tool_call_arr] == ["get_weather", "get_time"]
    # What SGLang's serving layer checks at the end: nothing left unstreamed.
    assert detector.prev_tool_call_arr[-1]["arguments"] == detector.streamed_args_for_tool[-1]


def test_the_end_of_stream_releases_held_text_and_settles_a_cut_call():
    detector = ToolCallKitDetector()
    r = detector.parse_streaming_increment("ok <tool_c", SGLANG_TOOLS)
    assert isinstance(r, StreamingParseResult) and r.normal_text == "ok "
    assert detector.finish(SGLANG_TOOLS).normal_text == "<tool_c"
    # A new stream on the same detector starts afresh.
    detector.parse_streaming_increment('<tool_call>{"name": "get_time", "arguments": {"tz": "U', SGLANG_TOOLS)
    end = detector.finish(SGLANG_TOOLS)
    assert end.calls == [] and end.normal_text == ""


def test_non_stream_parse_and_has_tool_call():
    toolcallkit.sglang.register()
    parser = FunctionCallParser(SGLANG_TOOLS, "toolcallkit")
    assert parser.has_tool_call(HERMES_OUTPUT)
    assert not parser.has_tool_call("plain text, <tool> but no call")
    normal, calls = parser.parse_non_stream(HERMES_OUTPUT)
    assert normal == "Let me check both. \n"
    assert [(c.name, json.loads(c.parameters)) for c in calls] == HERMES_CALLS
    assert [c.tool_index for c in calls] == [0, 1]  # positions in the response


def test_undeclared_calls_are_dropped_not_text():
    detector = ToolCallKitDetector()
    text = 'a<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>b'
    r = detector.detect_and_parse(text, SGLANG_TOOLS)
    assert r.normal_text == "ab" and r.calls == []


def test_same_calls_as_sglangs_own_qwen_detector():
    """On outputs both handle, SGLang's Qwen 2.5 detector and ours agree."""
    ours = FunctionCallParser(SGLANG_TOOLS, "toolcallkit")
    theirs = FunctionCallParser(SGLANG_TOOLS, "qwen")
    a = ours.parse_non_stream(HERMES_OUTPUT)[1]
    b = theirs.parse_non_stream(HERMES_OUTPUT)[1]
    assert [(c.name, json.loads(c.parameters)) for c in a] == [(c.name, json.loads(c.parameters)) for c in b]
    for size in (2, 5):
        _, x = stream(FunctionCallParser(SGLANG_TOOLS, "toolcallkit"), HERMES_OUTPUT, size)
        _, y = stream(FunctionCallParser(SGLANG_TOOLS, "qwen"), HERMES_OUTPUT, size)
        assert [(c["name"], json.loads(c["arguments"])) for c in assemble(x)] == [
            (c["name"], json.loads(c["arguments"])) for c in assemble(y)]


def test_format_inferred_from_the_tokenizers_model_folder(monkeypatch):
    monkeypatch.delenv("TOOLCALLKIT_FORMAT")

    class Tokenizer:
        name_or_path = os.path.join(FIXTURES, "models", "Llama-3.2-3B-Instruct")

    toolcallkit.sglang.register()
    parser = FunctionCallParser(SGLANG_TOOLS, "toolcallkit", tokenizer=Tokenizer())
    assert parser.detector.format == "llama3"
    normal, calls = parser.parse_non_stream('<|python_tag|>{"name": "get_time", "parameters": {"tz": "UTC"}}')
    assert [(c.name, json.loads(c.parameters)) for c in calls] == [("get_time", {"tz": "UTC"})]
