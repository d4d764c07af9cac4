"""toolcallkit.sglang supplies ToolCallKit's grammar through SGLang's own mechanism (the
detector's structural tag and its support flag), so that tool_choice "required", a named tool
and parallel_tool_calls false are enforced in the format's own markup: checked through SGLang's
FunctionCallParser and request protocol (what its serving layer calls) and with xgrammar."""
import json

import pytest

from adapters import TOOLS, require

require("sglang")

from grammar.backends import XGrammar  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest, Tool, ToolChoice  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402

import toolcallkit  # noqa: E402
import toolcallkit.sglang  # noqa: E402

toolcallkit.sglang.register()
# Reading a request's sampling parameters touches its deprecated max_tokens.
pytestmark = pytest.mark.filterwarnings("ignore:max_tokens is deprecated:DeprecationWarning")

WEATHER = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
TIME = '<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_call>'
NAMED = ToolChoice(function={"name": "get_time"})
OUTPUTS = {
    "weather": WEATHER,
    "time": TIME,
    "two calls": WEATHER + "\n" + TIME,
    "reasoning, then a call": "<think>Paris, then.</think>\n\n" + WEATHER,
    "text only": "Sure, it is sunny.",
    "undeclared tool": '<tool_call>\n{"name": "get_stock", "arguments": {}}\n</tool_call>',
    "argument of the wrong type": '<tool_call>\n{"name": "get_weather", "arguments": {"city": 3}}\n</tool_call>',
}


@pytest.fixture(scope="module")
def xgr():
    return XGrammar()


@pytest.fixture(autouse=True)
def json_format(monkeypatch):
    monkeypatch.setenv("TOOLCALLKIT_FORMAT", "json")
    monkeypatch.delenv("TOOLCALLKIT_OPTIONS", raising=False)


def tools(strict=False):
    out = [Tool(**t) for t in TOOLS]
    if strict:
        out[0].function.strict = True
    return out


def constraint(choice, parallel=True, strict=False):
    """The constraint SGLang's chat serving asks the parser for, as sampling parameters."""
    c = FunctionCallParser(tools(strict), "toolcallkit").get_structure_constraint(choice, parallel_tool_calls=parallel)
    if c is None:
        return None
    req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=TOOLS,
                                tool_choice=choice if isinstance(choice, str) else choice.model_dump())
    params = req.to_sampling_params(stop=[], model_generation_config={}, tool_call_constraint=c)
    assert c[0] == "structural_tag", c
    return params["structural_tag"]


def verdicts(xgr, tag, outputs=OUTPUTS):
    compiled = xgr.compile(tag)
    return {name: xgr.accepts(compiled, text.encode())[0] for name, text in outputs.items()}


@pytest.mark.parametrize(
    "choice, parallel, accepted",
    [
        ("required", True, {"weather", "time", "two calls", "reasoning, then a call"}),
        ("required", False, {"weather", "time", "reasoning, then a call"}),
        (NAMED, True, {"time"}),
    ],
    ids=["required", "required-single", "named"],
)
def test_required_and_named_get_toolcallkits_grammar_as_the_structural_tag(xgr, choice, parallel, accepted):
    tag = constraint(choice, parallel)
    assert tag is not None, "no constraint: the request's tool_choice is not enforced"
    got = verdicts(xgr, tag)
    assert {k for k, v in got.items() if v} == accepted, got
    ours = toolcallkit.grammar("json", TOOLS, tool_choice=choice if isinstance(choice, str) else choice.model_dump(),
                               parallel_tool_calls=parallel, reasoning=True)
    assert verdicts(xgr, ours["grammar"]) == got


def test_auto_is_left_free_unless_a_tool_is_strict(xgr):
    assert constraint("auto") is None
    got = verdicts(xgr, constraint("auto", strict=True))
    assert got["text only"] and got["two calls"]
    assert not got["undeclared tool"] and not got["argument of the wrong type"]


def test_required_and_named_calls_are_read_by_the_detector():
    """The support flag makes SGLang read required and named calls through the detector, in
    the format's markup (not as the JSON list it would otherwise force); the detector gets the
    tool_choice and enforces it, as the grammar does."""
    output = WEATHER + "\n" + TIME
    for choice, names in (("required", ["get_weather", "get_time"]), (NAMED, ["get_time"])):
        parser = FunctionCallParser(tools(), "toolcallkit", tool_choice=choice)
        assert parser.owns_tool_format()
        _, calls = parser.parse_non_stream(output)
        assert [c.name for c in calls] == names
        parser = FunctionCallParser(tools(), "toolcallkit", tool_choice=choice)
        streamed = []
        for i in range(0, len(output), 5):
            streamed += parser.parse_stream_chunk(output[i:i + 5])[1]
        streamed += parser.parse_stream_end()[1]
        assert [c.name for c in streamed if c.name] == names
        assert json.loads("".join(c.parameters for c in streamed if c.tool_index == streamed[0].tool_index and not c.name))
