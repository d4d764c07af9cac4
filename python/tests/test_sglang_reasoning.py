"""toolcallkit.sglang's reasoning detector through SGLang's own ReasoningParser, alone and in
front of a function-call parser, as SGLang's serving layer chains them."""
import json

import pytest

from adapters import REASONING_OUTPUT, TOOLS, one_decoder, pieces, require

require("sglang")

from sglang.srt.entrypoints.openai.protocol import Tool  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402

import toolcallkit.sglang  # noqa: E402
from toolcallkit.sglang import ToolCallKitReasoningDetector  # noqa: E402

SGLANG_TOOLS = [Tool(**t) for t in TOOLS]


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setenv("TOOLCALLKIT_FORMAT", "json")
    monkeypatch.delenv("TOOLCALLKIT_OPTIONS", raising=False)
    toolcallkit.sglang.register()


def serve(text, size, tool_parser="toolcallkit", **reasoning_kw):
    """What SGLang's chat serving does per chunk: the reasoning parser first, its normal text
    into the function-call parser; both flushed at the end. Returns (reasoning, content, calls)."""
    rp = ReasoningParser("toolcallkit", tool_call_parser_active=tool_parser is not None, **reasoning_kw)
    fp = FunctionCallParser(SGLANG_TOOLS, tool_parser) if tool_parser else None
    reasoning, content, items = "", "", []

    def forward(normal):
        nonlocal content, items
        if fp is None:
            content += normal
            return
        t, calls = fp.parse_stream_chunk(normal)
        content += t
        items += calls

    for chunk in pieces(text, size):
        r, normal = rp.parse_stream_chunk(chunk)
        reasoning += r or ""
        forward(normal or "")
    r, normal = rp.parse_stream_end()
    reasoning += r or ""
    forward(normal or "")
    if fp is not None:
        t, calls = fp.parse_stream_end()
        content += t
        items += calls
    names, args = {}, {}
    for item in items:
        if item.name:
            names[item.tool_index] = item.name
        args[item.tool_index] = args.get(item.tool_index, "") + item.parameters
    return reasoning, content, [(names[i], json.loads(args[i])) for i in sorted(args)]


def test_registered_as_a_reasoning_parser():
    assert ReasoningParser.DetectorMap["toolcallkit"] is ToolCallKitReasoningDetector
    assert isinstance(ReasoningParser("toolcallkit").detector, ToolCallKitReasoningDetector)


@pytest.mark.parametrize("size", [1, 3, 8, 1000])
def test_reasoning_then_our_detector_give_one_decoders_reasoning_content_and_calls(size):
    assert serve(REASONING_OUTPUT, size) == one_decoder(REASONING_OUTPUT, tools=TOOLS)


@pytest.mark.parametrize("size", [2, 7])
def test_reasoning_then_sglangs_own_qwen_detector(size):
    """The normal text is the output without its reasoning, byte for byte: SGLang's Qwen 2.5
    detector finds the same calls in it."""
    reasoning, _, calls = serve(REASONING_OUTPUT, size, tool_parser="qwen")
    expected = one_decoder(REASONING_OUTPUT, tools=TOOLS)
    assert reasoning == expected[0]
    assert calls == expected[2]


def test_alone_the_normal_text_keeps_the_call_markup():
    reasoning, content, calls = serve(REASONING_OUTPUT, 4, tool_parser=None)
    assert reasoning == one_decoder(REASONING_OUTPUT)[0] and calls == []
    assert '<tool_call>\n{"name": "get_weather"' in content and content.endswith(" Done. <tool_c")


def test_force_reasoning_starts_inside_the_block():
    assert serve("still thinking</think>Answer.", 3, force_reasoning=True)[:2] == ("still thinking", "Answer.")
    assert serve("still thinking</think>Answer.", 3)[:2] == ("", "still thinking</think>Answer.")


def test_continuing_a_message_that_stopped_inside_reasoning():
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest

    request = ChatCompletionRequest(model="m", continue_final_message=True, messages=[
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "<think>Let me"}])
    rp = ReasoningParser("toolcallkit", request=request)
    assert rp.parse_non_stream(" see.</think>Hello.") == (" see.", "Hello.")


def test_without_stream_reasoning_a_block_comes_whole():
    rp = ReasoningParser("toolcallkit", stream_reasoning=False)
    got = [rp.parse_stream_chunk(c) for c in pieces("<think>abc def</think>ok", 3)]
    reasoning = [r for r, _ in got if r]
    assert reasoning == ["abc def"]


def test_whole_output_and_block_sequence():
    rp = ReasoningParser("toolcallkit")
    reasoning, normal = rp.parse_non_stream(REASONING_OUTPUT)
    assert reasoning == one_decoder(REASONING_OUTPUT)[0]
    assert "<think>" not in normal and normal.startswith("Checking. <tool_call>")
    blocks = rp.parse_non_stream_blocks("<think>a</think>b<think>c</think>d")
    assert blocks == [{"type": "reasoning", "text": "a"}, {"type": "text", "text": "b"},
                      {"type": "reasoning", "text": "c"}, {"type": "text", "text": "d"}]
