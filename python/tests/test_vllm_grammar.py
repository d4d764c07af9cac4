"""toolcallkit.vllm supplies ToolCallKit's grammar through vLLM's own mechanism (the tool
parser's structural tag, and its required/named support flag), so that tool_choice "required",
a named tool and parallel_tool_calls false are enforced in the format's own markup: checked
through vLLM's unified parser (the object its serving layer drives) and with xgrammar, which
vLLM compiles the tag with."""
import json

import pytest

from adapters import TOOLS, require

require("vllm")
pytest.importorskip("vllm.parser.parser_manager", reason="this vLLM has no unified parser (vllm.parser)")

from grammar.backends import XGrammar  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402

import toolcallkit  # noqa: E402
import toolcallkit.vllm  # noqa: E402,F401  (registers the parsers)
from toolcallkit.vllm import ToolCallKitToolParser  # noqa: E402
from tckpaths import FIXTURES  # noqa: E402

WEATHER = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
TIME = '<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_call>'
NAMED = {"type": "function", "function": {"name": "get_time"}}


@pytest.fixture(scope="module")
def tokenizer():
    t = PreTrainedTokenizerFast(tokenizer_file=f"{FIXTURES}/tokenizers/gpt2-with-markers.tokenizer.json")
    t.add_special_tokens({"additional_special_tokens": ["<think>", "</think>"]})
    t.name_or_path = "toolcallkit-test"
    return t


@pytest.fixture(scope="module")
def xgr():
    return XGrammar()


@pytest.fixture(autouse=True)
def json_format(monkeypatch):
    monkeypatch.setenv("TOOLCALLKIT_FORMAT", "json")
    monkeypatch.delenv("TOOLCALLKIT_OPTIONS", raising=False)


def request(tools=TOOLS, **kw):
    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, **kw)


def parser(tokenizer, tool="toolcallkit", reasoning="toolcallkit"):
    cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning, enable_auto_tools=True)
    return cls(tokenizer, request().tools)


def tag_of(req):
    so = req.structured_outputs
    return None if so is None or so.structural_tag is None else so.structural_tag


def verdicts(xgr, tag, outputs):
    compiled = xgr.compile(tag)
    return {name: xgr.accepts(compiled, text.encode())[0] for name, text in outputs.items()}


OUTPUTS = {
    "weather": WEATHER,
    "time": TIME,
    "two calls": WEATHER + "\n" + TIME,
    "reasoning, then a call": "<think>Paris, then.</think>\n\n" + WEATHER,
    "text only": "Sure, it is sunny.",
    "undeclared tool": '<tool_call>\n{"name": "get_stock", "arguments": {}}\n</tool_call>',
    "argument of the wrong type": '<tool_call>\n{"name": "get_weather", "arguments": {"city": 3}}\n</tool_call>',
    "undeclared argument": '<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC", "x": 1}}\n</tool_call>',
}


@pytest.mark.parametrize(
    "choice, parallel, accepted",
    [
        ("required", None, {"weather", "time", "two calls", "reasoning, then a call"}),
        ("required", False, {"weather", "time", "reasoning, then a call"}),
        (NAMED, None, {"time"}),
    ],
    ids=["required", "required-single", "named"],
)
def test_required_and_named_get_toolcallkits_grammar_as_the_structural_tag(tokenizer, xgr, choice, parallel, accepted):
    """vLLM asks the tool parser for the request's structural tag: ToolCallKit's grammar for
    the format, the tools and the policy, which xgrammar compiles; it admits exactly the
    calls the request allows, in the format's own markup."""
    p = parser(tokenizer)
    kw = {} if parallel is None else {"parallel_tool_calls": parallel}
    req = p.adjust_request(request(tool_choice=choice, **kw))
    tag = tag_of(req)
    assert tag is not None, "no structural tag: the request's tool_choice is not enforced"
    got = verdicts(xgr, tag, OUTPUTS)
    assert {k for k, v in got.items() if v} == accepted, got
    # The tag is the library's grammar for the same request (vLLM re-serialises it).
    ours = toolcallkit.grammar("json", TOOLS, tool_choice=choice, parallel_tool_calls=parallel is not False, reasoning=True)
    assert verdicts(xgr, ours["grammar"], OUTPUTS) == got


def test_auto_is_left_free_unless_a_tool_is_strict(tokenizer, xgr):
    """vLLM constrains auto only for strict tools (or a raised --tool-strict-level); then the
    tag lets text through and holds calls to their schemas."""
    p = parser(tokenizer)
    assert tag_of(p.adjust_request(request(tool_choice="auto"))) is None
    assert tag_of(p.adjust_request(request(tool_choice="none"))) is None
    strict = json.loads(json.dumps(TOOLS))
    strict[0]["function"]["strict"] = True
    tag = tag_of(p.adjust_request(request(tools=strict, tool_choice="auto")))
    got = verdicts(xgr, tag, OUTPUTS)
    assert got["text only"] and got["weather"] and got["two calls"]
    assert not got["undeclared tool"] and not got["argument of the wrong type"]


def test_required_calls_are_read_from_the_formats_own_markup(tokenizer):
    """The flag that tells vLLM to read required and named calls through the tool parser
    (not as the JSON list it would otherwise force): the calls come back, whole and
    streamed."""
    assert ToolCallKitToolParser.supports_required_and_named is False
    for choice, names in (("required", ["get_weather", "get_time"]), (NAMED, ["get_time"])):
        req = parser(tokenizer).adjust_request(request(tool_choice=choice))
        output = "<think>Both.</think>\n\n" + WEATHER + "\n" + TIME
        reasoning, content, calls = parser(tokenizer).parse(output, req, enable_auto_tools=True)
        assert reasoning == "Both."
        # A named choice admits get_time only: the decoder enforces it as the grammar does.
        assert [c.name for c in calls] == names
        p = parser(tokenizer)
        ids = tokenizer.encode(output)
        deltas = [p.parse_delta(tokenizer.decode(ids[i:i + 3]), ids[i:i + 3], req,
                                prompt_token_ids=tokenizer.encode("<|im_start|>assistant\n"),
                                finished=i + 3 >= len(ids))
                  for i in range(0, len(ids), 3)]
        streamed = [tc.function.name for d in deltas if d is not None for tc in d.tool_calls if tc.function.name]
        assert streamed == names


def test_the_decoder_enforces_parallel_tool_calls_false(tokenizer):
    req = parser(tokenizer).adjust_request(request(tool_choice="auto", parallel_tool_calls=False))
    _, _, calls = parser(tokenizer).parse(WEATHER + "\n" + TIME, req, enable_auto_tools=True)
    assert [c.name for c in calls] == ["get_weather"]


def test_a_vllm_that_does_not_ask_for_tags_gets_the_grammar_from_adjust_request(tokenizer, xgr):
    """Releases before the unified parser call the tool parser's adjust_request directly."""
    req = ToolCallKitToolParser(tokenizer, request().tools).adjust_request(request(tool_choice="required"))
    got = verdicts(xgr, tag_of(req), OUTPUTS)
    assert got["weather"] and not got["text only"]


def test_with_structural_tags_turned_off_vllm_keeps_its_json_route(tokenizer, monkeypatch):
    """VLLM_ENFORCE_STRICT_TOOL_CALLING=0: no tag from the parser; vLLM then forces its own
    JSON list for required calls and reads it itself, as for its parsers without a tag."""
    monkeypatch.setenv("VLLM_ENFORCE_STRICT_TOOL_CALLING", "0")
    p = ToolCallKitToolParser(tokenizer, request().tools)
    assert p.supports_required_and_named is True and p.structural_tag_model is None
    req = p.adjust_request(request(tool_choice="required"))
    assert tag_of(req) is None and req.structured_outputs.json is not None
