"""toolcallkit.vllm's reasoning parser, alone and with the tool parser, through vLLM's own
unified parser (ParserManager, DelegatingParser: the objects its serving layer drives)."""
import json
import os
import sys

import pytest

from adapters import REASONING_OUTPUT, TOOLS, one_decoder, pieces, require
from tckpaths import FIXTURES, ROOT

require("vllm")
pytest.importorskip("vllm.parser.parser_manager", reason="this vLLM has no unified parser (vllm.parser)")

from transformers import PreTrainedTokenizerFast  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.reasoning import ReasoningParserManager  # noqa: E402

import toolcallkit.vllm  # noqa: E402
from toolcallkit.vllm import ToolCallKitReasoningParser, ToolCallKitToolParser  # noqa: E402

ARGS = {"get_weather": {"city": "Zürich", "days": 3}, "get_time": {"tz": "Europe/Zurich"}}


@pytest.fixture(scope="module")
def tokenizer():
    """A GPT-2 vocabulary with the markers as added tokens (vLLM's own reasoning parsers look
    their start and end tokens up in it)."""
    t = PreTrainedTokenizerFast(tokenizer_file=os.path.join(FIXTURES, "tokenizers", "gpt2-with-markers.tokenizer.json"))
    t.add_special_tokens({"additional_special_tokens": ["<think>", "</think>"]})
    t.name_or_path = "toolcallkit-test"
    return t


@pytest.fixture(autouse=True)
def json_format(monkeypatch):
    monkeypatch.setenv("TOOLCALLKIT_FORMAT", "json")
    monkeypatch.delenv("TOOLCALLKIT_OPTIONS", raising=False)


def request(tools=TOOLS, **kw):
    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, **kw)


def parser(tokenizer, tool="toolcallkit", reasoning="toolcallkit", tools=TOOLS):
    cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning, enable_auto_tools=True)
    return cls(tokenizer, request(tools).tools)


def token_deltas(tokenizer, text, size):
    """(delta_text, delta_ids) as vLLM's detokenizer gives them, ``size`` tokens at a time (a
    character split between tokens waits for its last byte)."""
    ids = tokenizer.encode(text)
    out, done, start = [], "", 0
    for end in range(size, len(ids) + size, size):
        end = min(end, len(ids))
        current = tokenizer.decode(ids[:end])
        if current.endswith("\ufffd") and end < len(ids):
            continue
        out.append((current[len(done):], ids[start:end]))
        done, start = current, end
    return out


def stream(p, text, size, req, prompt_ids):
    """Drives parse_delta as vLLM's stream processor does, ``size`` tokens per delta; returns
    the DeltaMessages."""
    out = []
    deltas = token_deltas(p.model_tokenizer, text, size)
    for n, (delta, ids) in enumerate(deltas):
        d = p.parse_delta(delta, ids, req, prompt_token_ids=prompt_ids, finished=n == len(deltas) - 1)
        if d is not None:
            out.append(d)
    return out


def assemble(messages):
    reasoning = "".join(m.reasoning or "" for m in messages)
    content = "".join(m.content or "" for m in messages)
    calls, names = {}, {}
    for m in messages:
        for tc in m.tool_calls:
            if tc.function.name:
                names[tc.index] = tc.function.name
            calls[tc.index] = calls.get(tc.index, "") + (tc.function.arguments or "")
    return reasoning, content, [(names[i], json.loads(calls[i])) for i in sorted(calls)]


def test_registered_as_a_reasoning_parser():
    assert ReasoningParserManager.get_reasoning_parser("toolcallkit") is ToolCallKitReasoningParser


@pytest.mark.parametrize("size", [1, 3, 8, 1000])
def test_both_parsers_give_one_decoders_reasoning_content_and_calls(tokenizer, size):
    """The tool parser's decoder gives the whole stream: reasoning between calls, the marker
    inside reasoning that is not a call, the held-back suffix released at the end."""
    p = parser(tokenizer)
    assert p.tool_parser.paired and p.reasoning_parser.mode == "paired"
    got = assemble(stream(p, REASONING_OUTPUT, size, request(), tokenizer.encode("<|im_start|>assistant\n")))
    expected = one_decoder(REASONING_OUTPUT, tools=TOOLS)
    assert got == expected
    assert got[0] == "The user wants the weather: get_weather, {\"city\": ...}.Now the time."
    assert got[1] == "Checking.  Done. <tool_c"
    assert [name for name, _ in got[2]] == ["get_weather", "get_time"]
    # The whole output (non-streaming): the same.
    reasoning, content, calls = parser(tokenizer).parse(REASONING_OUTPUT, request(), enable_auto_tools=True)
    assert (reasoning, content, [(c.name, json.loads(c.arguments)) for c in calls]) == expected


def test_a_prompt_that_opens_reasoning_starts_the_decoder_inside_the_block(tokenizer):
    text = "still thinking</think>Answer."
    opened = tokenizer.encode("<|im_start|>assistant\n<think>\n")
    for tool in ("toolcallkit", None):
        got = assemble(stream(parser(tokenizer, tool=tool), text, 4, request(), opened))
        assert got[:2] == ("still thinking", "Answer.")
    plain = assemble(stream(parser(tokenizer), text, 4, request(), tokenizer.encode("<|im_start|>assistant\n")))
    assert plain[:2] == ("", "still thinking</think>Answer.")
    # A whole output: vLLM hands the parser the prompt first.
    for tool in ("toolcallkit", None, "hermes"):
        p = parser(tokenizer, tool=tool)
        p.set_prompt_token_ids(opened)
        assert p.parse(text, request(), enable_auto_tools=True)[:2] == ("still thinking", "Answer.")


def test_tool_choice_none_keeps_calls_as_content_and_still_separates_reasoning(tokenizer):
    req = request(tool_choice="none")
    got = assemble(stream(parser(tokenizer), REASONING_OUTPUT, 5, req, tokenizer.encode("x")))
    reasoning, _, _ = one_decoder(REASONING_OUTPUT)
    assert got[0] == reasoning and got[2] == []
    assert '<tool_call>\n{"name": "get_weather"' in got[1] and got[1].endswith("</tool_call> Done. <tool_c")


def test_include_reasoning_false_drops_only_the_reasoning(tokenizer):
    req = request(include_reasoning=False)
    got = assemble(stream(parser(tokenizer), REASONING_OUTPUT, 6, req, tokenizer.encode("x")))
    assert got == ("",) + one_decoder(REASONING_OUTPUT, tools=TOOLS)[1:]


@pytest.mark.parametrize("size", [1, 7, 1000])
def test_the_reasoning_parser_alone_separates_every_block(tokenizer, size):
    """With no tool parser, the reasoning parser's decoder keeps the stream: every block is
    reasoning, the rest (call markup included) content, streamed or whole."""
    p = parser(tokenizer, tool=None)
    assert p.reasoning_parser.mode == "alone"
    got = assemble(stream(p, REASONING_OUTPUT, size, request(), tokenizer.encode("x")))
    reasoning = one_decoder(REASONING_OUTPUT)[0]
    without = REASONING_OUTPUT
    for block in ("<think>The user wants the weather: get_weather, {\"city\": ...}.</think>", "<think>Now the time.</think>"):
        without = without.replace(block, "")
    assert got == (reasoning, without, [])
    assert parser(tokenizer, tool=None).parse(REASONING_OUTPUT, request(), enable_auto_tools=True)[:2] == (reasoning, without)


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_the_reasoning_parser_hands_the_rest_to_vllms_hermes_parser(tokenizer, size):
    """Beside another tool parser, the reasoning at the start is separated and the rest goes
    on byte for byte: vLLM's Hermes parser finds the calls in it."""
    p = parser(tokenizer, tool="hermes")
    assert p.reasoning_parser.mode == "handoff"
    got = assemble(stream(p, REASONING_OUTPUT, size, request(), tokenizer.encode("x")))
    assert got[0] == "The user wants the weather: get_weather, {\"city\": ...}."
    assert got[1].startswith("Checking. ")
    assert got[2][0] == ("get_weather", ARGS["get_weather"])
    reasoning, content, calls = parser(tokenizer, tool="hermes").parse(REASONING_OUTPUT, request(), enable_auto_tools=True)
    assert reasoning == got[0] and calls[0].name == "get_weather"


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_the_tool_parser_after_vllms_deepseek_r1_reasoning_parser(tokenizer, size):
    """After another reasoning parser, the tool parser decodes the rest and separates later
    reasoning blocks itself."""
    p = parser(tokenizer, reasoning="deepseek_r1")
    assert not p.tool_parser.paired
    got = assemble(stream(p, REASONING_OUTPUT, size, request(), tokenizer.encode("x")))
    expected = one_decoder(REASONING_OUTPUT, tools=TOOLS)
    assert got[1:] == expected[1:]
    # The block between the calls is the tool parser's (the first is vLLM's parser's).
    assert got[0].endswith("Now the time.")


def test_no_reasoning_parser_leaves_reasoning_markup_in_the_content(tokenizer):
    p = parser(tokenizer, reasoning=None)
    assert p.tool_parser.skip_reasoning_parsing
    got = assemble(stream(p, REASONING_OUTPUT, 9, request(), tokenizer.encode("x")))
    assert got[0] == "" and got[1].startswith("<think>The user wants the weather:")
    assert got[1].endswith("Done. <tool_c")  # the end of the stream releases the held suffix
    assert [name for name, _ in got[2]] == ["get_weather", "get_time"]


def test_structured_outputs_ask_where_reasoning_ends_by_token_ids(tokenizer):
    """vLLM's structured-output manager makes a reasoning parser of its own and asks with the
    prompt's ids, then with each step's new ids."""
    def fresh():
        return ToolCallKitReasoningParser(tokenizer)

    assert fresh().is_reasoning_end(tokenizer.encode("<|im_start|>assistant\n<think>\n\n</think>\n\n")) is True
    assert fresh().is_reasoning_end(tokenizer.encode("<|im_start|>assistant\n<think>\n")) is False
    assert fresh().is_reasoning_end(tokenizer.encode("<|im_start|>assistant\n")) is False
    r = fresh()
    assert r.is_reasoning_end(tokenizer.encode("<|im_start|>assistant\n")) is False
    steps = []
    for piece in ["<think>", "Let me", " think.", "</think>", "{\"a\"", ": 1}"]:
        steps.append(r.is_reasoning_end_streaming([], tokenizer.encode(piece)))
    assert steps == [False, False, False, True, True, True]
    r = fresh()
    r.is_reasoning_end(tokenizer.encode("<|im_start|>assistant\n"))
    assert r.is_reasoning_end_streaming([], tokenizer.encode("Hello")) is True  # no reasoning at all


def test_both_load_from_the_plugin_file(tokenizer):
    """--tool-parser-plugin and --reasoning-parser-plugin both given this file's path."""
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    path = os.path.join(ROOT, "python", "src", "toolcallkit", "vllm.py")
    real = sys.modules["vllm"]
    loaded = sys.modules.pop("toolcallkit.vllm")
    ReasoningParserManager.reasoning_parsers.pop("toolcallkit", None)
    try:
        ToolParserManager.import_tool_parser(path)
        ReasoningParserManager.import_reasoning_parser(path)
        assert sys.modules["vllm"] is real
        cls = ReasoningParserManager.get_reasoning_parser("toolcallkit")
        assert cls.__module__ == "toolcallkit.vllm" and cls is not ToolCallKitReasoningParser
    finally:
        sys.modules["toolcallkit.vllm"] = loaded
        ReasoningParserManager.reasoning_parsers["toolcallkit"] = ToolCallKitReasoningParser
        ToolParserManager.tool_parsers["toolcallkit"] = ToolCallKitToolParser
