"""`--output responses` and `--output anthropic` read back by the official clients.

Every fixture stream (Fixtures/formats/*/*.txt, with its options and tools) is decoded by the
CLI and by the Python package, in 1-byte and in token-sized chunks, as OpenAI Responses API
and as Anthropic Messages API streaming events. The events go, framed as server-sent events,
through the official `openai` client (`client.responses.stream`: its SSE reader and its
ResponseStreamState accumulator) and the official `anthropic` client
(`client.messages.stream`: its MessageStream, whose accumulator is `accumulate_event`),
answered offline by an httpx mock transport. What the clients assemble must be exactly what the
decoder emitted (its `--output events` for the same input and options): the accepted calls
(id, name, arguments as JSON), the text and the reasoning. Every event must also validate
against the client's own event type, and rejections must come as diagnostics (stderr lines in
the CLI, `Decoder.diagnostics()` in Python), as with `--output openai`.
"""
import glob
import json
import os
import random
import re
import subprocess
import tempfile
import typing
from concurrent.futures import ThreadPoolExecutor

import anthropic
import httpx2
import openai
import pytest
from anthropic.types import RawMessageStreamEvent
from openai.types.responses import ResponseStreamEvent

import toolcallkit
from conftest import FIXTURES, toolcall_binary

FORMATS = os.path.join(FIXTURES, "formats")
CASES = sorted(glob.glob(os.path.join(FORMATS, "*", "*.txt")))
assert len(CASES) > 500

TOKEN_SIZES = [2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17]
SEED = 7
TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")



def event_classes(union):
    """The client's event classes by their `type` (validating against the class an event names
    is what the union would pick, without trying the union's sixty members in turn)."""
    (members,) = typing.get_args(union)[:1]
    return {typing.get_args(c.model_fields["type"].annotation)[0]: c for c in typing.get_args(members)}


RESPONSE_EVENTS = event_classes(ResponseStreamEvent)
MESSAGE_EVENTS = event_classes(RawMessageStreamEvent)


def validate(classes, obj):
    """Validates an event against the client's own type (strict pydantic validation: a missing
    field or a wrong type raises)."""
    classes[obj["type"]].model_validate(obj)


class Case:
    """One fixture: its input, and its options as CLI flags and as Decoder keywords."""

    def __init__(self, path, tmp):
        self.name = os.path.relpath(path, FORMATS)[:-4]
        self.format = self.name.split(os.sep)[0]
        self.data = open(path, "rb").read()
        spec = json.load(open(path[:-4] + ".expected.json"))
        options = spec.get("options") or {}
        self.flags = ["--format", self.format, "--id-seed", str(SEED)]
        self.kwargs = {"format": self.format, "id_seed": SEED}
        for key in ("reasoning", "reasoning_open", "whole_calls", "validate"):
            if options.get(key):
                self.flags.append("--" + key.replace("_", "-"))
                self.kwargs[key] = True
        if "max_call_bytes" in options:
            self.flags += ["--max-call-bytes", str(options["max_call_bytes"])]
            self.kwargs["max_call_bytes"] = options["max_call_bytes"]
        # (max_depth has no CLI or C option: both sides decode with the default.)
        if spec.get("tools") is not None:
            tools_file = os.path.join(tmp, self.name.replace(os.sep, "__") + ".tools.json")
            with open(tools_file, "w") as f:
                json.dump(spec["tools"], f)
            self.flags += ["--tools", tools_file]
            self.kwargs["tools"] = spec["tools"]
        self.token_size = TOKEN_SIZES[sum(self.data) % len(TOKEN_SIZES)]
        self.expected = self._emitted()

    def _emitted(self):
        """What the decoder emitted: calls, text, reasoning, started-then-rejected calls and
        rejections, from its events (the Python package, fed whole; chunking never matters)."""
        with toolcallkit.Decoder(**self.kwargs) as d:
            events = d.feed(self.data) + d.finish()
        started = {e["index"] for e in events if e["type"] == "tool_call_start"}
        return {
            "calls": [(e["id"], e["name"], e["arguments"]) for e in events if e["type"] == "tool_call"],
            "text": "".join(e["text"] for e in events if e["type"] == "text"),
            "reasoning": "".join(e["text"] for e in events if e["type"] == "reasoning"),
            "withdrawn": [(e["id"], e["name"]) for e in events
                          if e["type"] == "rejected" and e.get("index") in started],
            "rejected": [e for e in events if e["type"] == "rejected"],
        }

    def pieces(self, chunking):
        if chunking == "1-byte":
            return [self.data[i:i + 1] for i in range(len(self.data))]
        rng = random.Random(self.name)
        out, i = [], 0
        while i < len(self.data):
            n = rng.randint(2, 17)
            out.append(self.data[i:i + n])
            i += n
        return out


@pytest.fixture(scope="module")
def cases():
    with tempfile.TemporaryDirectory() as tmp:
        yield [Case(p, tmp) for p in CASES]


class Server:
    """An offline stand-in for a server: it answers every request with the body it is given,
    as `text/event-stream`, through the clients' own HTTP stack (httpx's mock transport)."""

    def __init__(self):
        self.body = b""
        http = httpx2.Client(transport=httpx2.MockTransport(self._answer))
        self.openai = openai.OpenAI(api_key="offline", base_url="http://toolcallkit.invalid/v1",
                                    http_client=http, max_retries=0)
        self.anthropic = anthropic.Anthropic(api_key="offline", base_url="http://toolcallkit.invalid",
                                             http_client=http, max_retries=0)

    def _answer(self, request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=self.body)

    def serve(self, lines: bytes):
        """Frames each JSON line as a server-sent event named by its type; returns the objects."""
        objects, body = [], []
        for line in lines.splitlines():
            obj = json.loads(line)
            objects.append(obj)
            body.append(b"event: " + obj["type"].encode() + b"\ndata: " + line + b"\n\n")
        self.body = b"".join(body)
        return objects


@pytest.fixture(scope="module")
def server():
    return Server()


def tool_use_ids(ids):
    """The Anthropic encoder's id rule (docs/cli.md): bytes outside [A-Za-z0-9_-] become `_`,
    and an id already used in the stream gets `_2`, `_3`..."""
    used, out = set(), []
    for i in ids:
        base = re.sub(rb"[^A-Za-z0-9_-]", b"_", i.encode()).decode() or "_"
        unique, n = base, 2
        while unique in used:
            unique, n = f"{base}_{n}", n + 1
        used.add(unique)
        out.append(unique)
    return out


def check_responses(server, case, lines):
    """Problems with a Responses stream, as the openai client reads it (empty: none)."""
    objects = server.serve(lines)
    for obj in objects:
        validate(RESPONSE_EVENTS, obj)
    with server.openai.responses.stream(model="m", input="x") as stream:
        events = list(stream)
        final = stream.get_final_response()
    exp = case.expected
    problems = []
    if [e.sequence_number for e in events] != list(range(len(objects))):
        problems.append("sequence numbers are not 0, 1, 2 ...")
    if final.status != "completed" or not final.id.startswith("resp_"):
        problems.append(f"response {final.id} {final.status}")
    calls = [o for o in final.output if o.type == "function_call"]
    done = [(o.call_id, o.name, json.loads(o.arguments)) for o in calls if o.status == "completed"]
    if done != exp["calls"]:
        problems.append(f"calls {done} != {exp['calls']}")
    withdrawn = [(o.call_id, o.name) for o in calls if o.status == "incomplete"]
    if withdrawn != exp["withdrawn"] or len(calls) != len(done) + len(withdrawn):
        problems.append(f"incomplete calls {withdrawn} != {exp['withdrawn']}")
    text = "".join(p.text for o in final.output if o.type == "message" for p in o.content)
    streamed = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    if text != exp["text"] or streamed != text:
        problems.append(f"text {text!r} != {exp['text']!r}")
    reasoning = "".join(c.text for o in final.output if o.type == "reasoning" for c in o.content or [])
    streamed = "".join(e.delta for e in events if e.type == "response.reasoning_text.delta")
    if reasoning != exp["reasoning"] or streamed != reasoning:
        problems.append(f"reasoning {reasoning!r} != {exp['reasoning']!r}")
    for o in calls:
        deltas = "".join(e.delta for e in events
                         if e.type == "response.function_call_arguments.delta" and e.item_id == o.id)
        if deltas != o.arguments:
            problems.append(f"call {o.call_id}: the deltas do not join to its arguments")
    return problems


def check_anthropic(server, case, lines):
    """Problems with a Messages stream, as the anthropic client reads it (empty: none)."""
    objects = server.serve(lines)
    for obj in objects:
        validate(MESSAGE_EVENTS, obj)
    with server.anthropic.messages.stream(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}]) as stream:
        events = list(stream)
        final = stream.get_final_message()
    exp = case.expected
    problems = []
    uses = [b for b in final.content if b.type == "tool_use"]
    if not all(TOOL_USE_ID.match(b.id) for b in uses):
        problems.append(f"tool_use ids {[b.id for b in uses]} do not match {TOOL_USE_ID.pattern}")
    want = [(i, name, args) for i, (_, name, args) in zip(tool_use_ids([c[0] for c in exp["calls"]]), exp["calls"])]
    got = [(b.id, b.name, b.input) for b in uses]
    if got != want:
        problems.append(f"calls {got} != {want}")
    text = "".join(b.text for b in final.content if b.type == "text")
    streamed = "".join(e.text for e in events if e.type == "text")
    if text != exp["text"] or streamed != text:
        problems.append(f"text {text!r} != {exp['text']!r}")
    reasoning = "".join(b.thinking for b in final.content if b.type == "thinking")
    if reasoning != exp["reasoning"]:
        problems.append(f"reasoning {reasoning!r} != {exp['reasoning']!r}")
    stop = "tool_use" if exp["calls"] else "end_turn"
    if final.stop_reason != stop:
        problems.append(f"stop_reason {final.stop_reason!r}, expected {stop!r}")
    return problems


CHECKS = {"responses": check_responses, "anthropic": check_anthropic}


def run_cli(case, api, chunking):
    size = 1 if chunking == "1-byte" else case.token_size
    p = subprocess.run([toolcall_binary(), "decode", *case.flags, "--output", api, "--chunk-bytes", str(size)],
                       input=case.data, capture_output=True, timeout=60)
    assert p.returncode == 0, f"{case.name}: exit {p.returncode}: {p.stderr[:200]!r}"
    return p.stdout, [json.loads(line) for line in p.stderr.splitlines()]


def run_python(case, api, chunking):
    lines, diagnostics = b"", []
    with toolcallkit.Decoder(**case.kwargs, output=api) as d:
        for piece in case.pieces(chunking):
            d.feed_raw(piece)
            lines += d.take_lines()
            diagnostics += d.diagnostics()
        d.finish_raw()
        lines += d.take_lines()
        diagnostics += d.diagnostics()
    return lines, diagnostics


@pytest.mark.parametrize("chunking", ["1-byte", "token-sized"])
@pytest.mark.parametrize("api", ["responses", "anthropic"])
@pytest.mark.parametrize("source", ["cli", "python"])
def test_every_fixture_stream_reassembles_exactly_in_the_official_client(cases, server, source, api, chunking):
    failures, with_calls = [], 0
    if source == "cli":
        # The CLI runs in two threads ahead of the checks (a subprocess waits outside the GIL).
        pool = ThreadPoolExecutor(max_workers=2)
        outputs = pool.map(lambda case: run_cli(case, api, chunking), cases)
    else:
        outputs = (run_python(case, api, chunking) for case in cases)
    for case, (lines, diagnostics) in zip(cases, outputs):
        try:
            problems = CHECKS[api](server, case, lines)
        except Exception as e:  # the client refused the stream (a bad event, JSON it cannot read)
            problems = [f"the client raised {type(e).__name__}: {e}"]
        if diagnostics != case.expected["rejected"]:
            problems.append("the diagnostics are not the decoder's rejections")
        if problems:
            failures.append(f"{case.name}: {'; '.join(problems)}"[:400])
        with_calls += bool(case.expected["calls"])
    print(f"{source} {api} {chunking}: {len(cases) - len(failures)}/{len(cases)} fixture streams "
          f"reassembled exactly ({with_calls} with calls)")
    if source == "cli":
        pool.shutdown()
    assert not failures, f"{len(failures)} of {len(cases)}:\n" + "\n".join(failures[:20])
    assert len(cases) == len(CASES)


def test_a_started_call_that_is_rejected_is_incomplete_in_responses_and_absent_in_anthropic(server, cli):
    """The decoder streams a call's start and first fragment, then rejects it: the Responses
    stream closes the item as incomplete (no arguments.done), the Anthropic stream never shows
    it (the text on both sides of it is one block), and both report the rejection on stderr."""
    data = (b'Hi <tool_call>{"name": "g", "arguments": {"x": </tool_call> there '
            b'<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>')
    status, out, err = cli(["decode", "--format", "json", "--id-seed", "3", "--output", "responses"], data)
    assert status == 0
    objects = server.serve(out)
    assert [o["type"] for o in objects].count("response.function_call_arguments.done") == 1
    done = [o["item"] for o in objects if o["type"] == "response.output_item.done"]
    assert [(i["type"], i.get("name"), i["status"]) for i in done] == [
        ("message", None, "completed"), ("function_call", "g", "incomplete"),
        ("message", None, "completed"), ("function_call", "f", "completed")]
    assert json.loads(err.splitlines()[0])["id"] == done[1]["call_id"]
    status, out, err2 = cli(["decode", "--format", "json", "--id-seed", "3", "--output", "anthropic"], data)
    assert status == 0 and err2 == err
    server.serve(out)
    with server.anthropic.messages.stream(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}]) as s:
        final = s.get_final_message()
    assert [(b.type, getattr(b, "name", None)) for b in final.content] == [("text", None), ("tool_use", "f")]
    assert final.content[0].text == "Hi  there "
    assert [json.loads(line)["reason"] for line in err.splitlines()] == ["malformed"]


def test_ids_become_valid_tool_use_ids_and_stay_unique(server, cli):
    """Kimi K2 writes `functions.NAME:N` ids: Anthropic gets `functions_NAME_N`; an id whose
    mapped text another call already has gets a suffix. Responses keeps the ids as they are."""
    call = "<|tool_call_begin|>{id}<|tool_call_argument_begin|>{{\"city\": \"Paris\"}}<|tool_call_end|>"
    data = ("<|tool_calls_section_begin|>" + call.format(id="functions.get_weather:0")
            + call.format(id="functions.get_weather:1") + "<|tool_calls_section_end|>").encode()
    status, out, _ = cli(["decode", "--format", "kimi_k2", "--output", "anthropic"], data)
    assert status == 0
    server.serve(out)
    with server.anthropic.messages.stream(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}]) as s:
        final = s.get_final_message()
    assert [(b.id, b.name) for b in final.content] == [
        ("functions_get_weather_0", "get_weather"), ("functions_get_weather_1", "get_weather")]
    assert final.stop_reason == "tool_use"
    status, out, _ = cli(["decode", "--format", "kimi_k2", "--output", "responses"], data)
    items = [o["item"] for o in server.serve(out) if o["type"] == "response.output_item.done"]
    assert [i["call_id"] for i in items] == ["functions.get_weather:0", "functions.get_weather:1"]
    data = b'[TOOL_CALLS][{"name": "f", "arguments": {}, "id": "a.b"}, {"name": "f", "arguments": {}, "id": "a_b"}]'
    status, out, _ = cli(["decode", "--format", "mistral", "--output", "anthropic"], data)
    uses = [o["content_block"]["id"] for o in server.serve(out) if o["type"] == "content_block_start"]
    assert uses == ["a_b", "a_b_2"]


@pytest.mark.parametrize("api", ["responses", "anthropic"])
def test_raw_is_refused_with_the_api_outputs(cli, api):
    status, _, err = cli(["decode", "--format", "json", "--raw", "--output", api], b"")
    assert status == 2 and f"--raw cannot be used with --output {api}" in err.decode()
    with pytest.raises(toolcallkit.ConfigError, match=f'raw cannot be used with output "{api}"'):
        toolcallkit.Decoder(format="json", raw=True, output=api)
