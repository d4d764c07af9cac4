"""The Python Decoder against the CLI: the same bytes in, the same event lines out."""
import json
import os
import tempfile
import threading

import pytest

import toolcallkit
from conftest import FIXTURES

VECTORS = json.load(open(os.path.join(FIXTURES, "peers", "shared-conformance.json")))
assert len(VECTORS) > 100


def _options(vector, tools_file):
    """The same decode options as Decoder kwargs and as CLI flags."""
    kwargs = {"format": vector["format"], "id_seed": 7}
    flags = ["--format", vector["format"], "--id-seed", "7"]
    if vector.get("tools") is not None:
        kwargs["tools"] = vector["tools"]
        flags += ["--tools", tools_file]
    for flag in vector.get("flags") or []:
        kwargs[flag[2:].replace("-", "_")] = True
        flags.append(flag)
    return kwargs, flags


def _feed_lines(decoder, data: bytes, chunk: int) -> bytes:
    out = b""
    for i in range(0, len(data), chunk):
        decoder.feed_raw(data[i : i + chunk])
        out += decoder.take_lines()
    decoder.finish_raw()
    return out + decoder.take_lines()


@pytest.mark.parametrize("raw", [False, True], ids=["events", "raw"])
def test_conformance_vectors_give_the_cli_lines(cli, raw):
    """Every shared conformance vector, fed whole and in 3-byte pieces, gives byte for byte the
    lines of `toolcall decode` with the same options and chunking; the dict API gives the same
    objects."""
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        for vector in VECTORS:
            tools_file = os.path.join(tmp, "tools.json")
            if vector.get("tools") is not None:
                with open(tools_file, "w") as f:
                    json.dump(vector["tools"], f)
            kwargs, flags = _options(vector, tools_file)
            if raw:
                kwargs["raw"] = True
                flags.append("--raw")
            data = vector["input"].encode()
            for chunk in (max(1, len(data)), 3):
                status, expected, _ = cli(["decode", *flags, "--chunk-bytes", str(chunk)], data)
                assert status == 0, vector["id"]
                with toolcallkit.Decoder(**kwargs) as d:
                    got = _feed_lines(d, data, chunk)
                assert got == expected, f"{vector['id']} in chunks of {chunk}"
                with toolcallkit.Decoder(**kwargs) as d:
                    events = []
                    for i in range(0, len(data), chunk):
                        events += d.feed(data[i : i + chunk])
                    events += d.finish()
                assert events == [json.loads(line) for line in expected.splitlines()], vector["id"]
                compared += 1
    assert compared == 2 * len(VECTORS)


def test_openai_output_and_diagnostics_match_the_cli(cli):
    data = b'Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><tool_call>{"name": "g", "arguments": {</tool_call>'
    status, out, err = cli(["decode", "--format", "json", "--id-seed", "3", "--output", "openai"], data)
    assert status == 0
    with toolcallkit.Decoder(format="json", id_seed=3, output="openai") as d:
        chunks = d.feed(data) + d.finish()
        diagnostics = d.diagnostics()

    def strip_time(objs):
        for o in objs:
            o.pop("created", None)
        return objs

    assert strip_time(chunks) == strip_time([json.loads(l) for l in out.splitlines()])
    assert diagnostics == [json.loads(l) for l in err.splitlines()]
    assert diagnostics and diagnostics[0]["type"] == "rejected"


def test_a_utf8_sequence_split_between_feeds():
    with toolcallkit.Decoder(format="json") as d:
        data = "Zürich 你好".encode()
        events = []
        for b in data:
            events += d.feed(bytes([b]))
        events += d.finish()
    assert "".join(e["text"] for e in events if e["type"] == "text") == "Zürich 你好"


TOKENIZER = os.path.join(FIXTURES, "tokenizers", "bytelevel-tiny.tokenizer.json")
# "Hi " + a call between the single-id markers 265 and 266, then <|im_end|> (267).
CALL_IDS = (
    list(b"Hi ")
    + [265]
    + list(b'{"name": "get_weather", "arguments": {"city": "Paris"}}')
    + [266, 267]
)


def test_token_ids_give_the_cli_lines(cli):
    text = " ".join(map(str, CALL_IDS)).encode()
    for skip in (False, True):
        flags = ["decode", "--format", "json", "--input", "tokens", "--tokenizer", TOKENIZER, "--id-seed", "7"]
        if skip:
            flags.append("--skip-special")
        status, out, _ = cli(flags, text)
        assert status == 0
        d = toolcallkit.Decoder(format="json", tokenizer=TOKENIZER, id_seed=7, skip_special=skip)
        events = d.feed_tokens(CALL_IDS) + d.finish()
        assert events == [json.loads(l) for l in out.splitlines()]
        (call,) = [e for e in events if e["type"] == "tool_call"]
        # Two ids at a time: the same call and text (events split differently).
        d = toolcallkit.Decoder(format="json", tokenizer=TOKENIZER, id_seed=7, skip_special=skip)
        pieces = []
        for i in range(0, len(CALL_IDS), 2):
            pieces += d.feed_tokens(CALL_IDS[i : i + 2])
        pieces += d.finish()
        assert [e for e in pieces if e["type"] == "tool_call"] == [call]
        visible = "".join(e["text"] for e in events if e["type"] == "text")
        assert "".join(e["text"] for e in pieces if e["type"] == "text") == visible
        assert visible == ("Hi " if skip else "Hi <|im_end|>")


def test_an_id_outside_the_vocabulary_is_an_error_after_the_ids_before_it():
    d = toolcallkit.Decoder(format="json", tokenizer=TOKENIZER)
    with pytest.raises(toolcallkit.TokenError) as caught:
        d.feed_tokens(list(b"ok ") + [999999, 65])
    assert "999999" in str(caught.value)
    assert "outside the vocabulary" in str(caught.value)
    assert [e["text"] for e in caught.value.events if e["type"] == "text"] == ["ok "]
    # The decoder goes on.
    assert d.feed_tokens([65]) == [{"type": "text", "text": "A"}]
    assert d.finish()[-1]["type"] == "end"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"format": "nope"}, "unknown format 'nope'"),
        ({"format": "json", "colour": "red"}, "unknown config key 'colour'"),
        ({"format": "json", "validate": True}, "validate needs tools"),
        ({"format": "json", "raw": "yes"}, "raw must be true or false"),
        ({"format": "json", "raw": True, "output": "openai"}, "raw cannot be used with output"),
        ({"format": "json", "output": "xml"}, 'output must be "events" or "openai"'),
        ({"format": "json", "id_seed": -1}, "id_seed must be a whole number"),
        ({"format": "json", "max_call_bytes": 0}, "max_call_bytes must be a whole number of at least 1"),
        ({"format": "json", "tools": "tools.json"}, "tools must be the tools array itself"),
        ({"format": "json", "tools": [{"parameters": {}}]}, "tool 0 has no name"),
        ({"format": "json", "tokenizer": "/no/such/tokenizer.json"}, "/no/such/tokenizer.json"),
        ({}, 'config needs "format" or "model"'),
    ],
)
def test_bad_options_are_refused_with_a_message(options, message):
    with pytest.raises(toolcallkit.ConfigError) as caught:
        toolcallkit.Decoder(**options)
    assert message in str(caught.value)


def test_misuse_after_finish_and_of_the_wrong_input():
    d = toolcallkit.Decoder(format="json")
    d.finish()
    with pytest.raises(toolcallkit.StateError, match="after tck_finish"):
        d.feed("more")
    with pytest.raises(toolcallkit.StateError, match="called twice"):
        d.finish()
    with pytest.raises(toolcallkit.StateError, match="needs a tokenizer"):
        toolcallkit.Decoder(format="json").feed_tokens([1])
    with pytest.raises(toolcallkit.StateError, match="configured with a tokenizer"):
        toolcallkit.Decoder(format="json", tokenizer=TOKENIZER).feed("text")
    closed = toolcallkit.Decoder(format="json")
    closed.close()
    with pytest.raises(toolcallkit.StateError, match="closed"):
        closed.feed("x")


def test_bad_model_output_is_an_event_not_an_exception():
    events = toolcallkit.Decoder(format="json").feed('<tool_call>{"name": "f", "arguments": {]}</tool_call>')
    assert [e["type"] for e in events if e["type"] == "rejected"] == ["rejected"]


def test_parse_gives_an_openai_assistant_message():
    text = (
        "<think>The user wants weather.</think>Checking."
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
        '<tool_call>{"name": "nope", "arguments": {}}</tool_call>'
    )
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    msg = toolcallkit.parse(text, format="json", tools=tools, reasoning=True, id_seed=1)
    assert msg["role"] == "assistant"
    assert msg["content"] == "Checking."
    assert msg["reasoning_content"] == "The user wants weather."
    (call,) = msg["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert [r["reason"] for r in msg["x_toolcall_rejected"]] == ["undeclared_tool"]
    plain = toolcallkit.parse("just text", format="json")
    assert plain == {"role": "assistant", "content": "just text", "reasoning_content": None, "tool_calls": []}


def test_infer_matches_the_cli(cli):
    models = os.path.join(FIXTURES, "models")
    folders = sorted(f for f in os.listdir(models) if os.path.isdir(os.path.join(models, f)))
    assert len(folders) > 10
    for folder in folders:
        path = os.path.join(models, folder)
        _, out, _ = cli(["infer", path], b"")
        assert toolcallkit.infer(path) == json.loads(out), folder
    with pytest.raises(OSError, match="not a readable folder"):
        toolcallkit.infer(os.path.join(models, "no-such-model"))


def test_infer_names_the_base_format_and_the_model_variant_beside_it():
    models = os.path.join(FIXTURES, "models")
    v4 = toolcallkit.infer(os.path.join(models, "DeepSeek-V4-Flash"))
    assert (v4["format"], v4.get("variant")) == ("deepseek_v32", "deepseek_v4")
    assert list(v4) == ["format", "variant", "evidence"]
    lfm = toolcallkit.infer(os.path.join(models, "LFM2.5-8B-A1B"))
    assert lfm["format"] == "lfm2" and "variant" not in lfm


def test_the_adapters_choose_the_model_variant(monkeypatch):
    """vLLM and SGLang decode with the variant a model folder shows (as ``Decoder(model=...)``
    does), not only its base format."""
    from toolcallkit._common import FORMAT_ENV, resolve_format

    monkeypatch.delenv(FORMAT_ENV, raising=False)

    class Tokenizer:
        name_or_path = os.path.join(FIXTURES, "models", "mistralai-Mistral-Small-3.1-24B-Instruct-2503")

    assert resolve_format(Tokenizer()) == "mistral31"
    Tokenizer.name_or_path = os.path.join(FIXTURES, "models", "Mistral-Small-3.2-24B-Instruct-2506")
    assert resolve_format(Tokenizer()) == "mistral"


def test_lfm2_reads_strings_verbatim_and_lfm2_python_as_python_literals():
    """``lfm2`` (and ``lfm25``, its other name) reads a string argument verbatim, as LFM2.5's
    template writes it; the ``lfm2_python`` variant reads the same bytes as a Python literal."""
    text = r"<|tool_call_start|>[f(path='C:\new\dir')]<|tool_call_end|>"

    def paths(message):
        return [json.loads(c["function"]["arguments"])["path"] for c in message["tool_calls"]]

    assert paths(toolcallkit.parse(text, format="lfm2")) == [r"C:\new\dir"]
    assert paths(toolcallkit.parse(text, format="lfm25")) == [r"C:\new\dir"]
    assert paths(toolcallkit.parse(text, format="lfm2_python")) == ["C:\new\\dir"]



def test_decoders_on_many_threads_give_the_serial_results():
    text = ("prose " * 50 + '<tool_call>{"name": "f", "arguments": {"n": 1}}</tool_call>') * 20

    def run():
        with toolcallkit.Decoder(format="json", id_seed=5) as d:
            events = []
            for i in range(0, len(text), 7):
                events += d.feed(text[i : i + 7])
            return events + d.finish()

    expected = run()
    results = [None] * 8

    def worker(k):
        results[k] = run()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results)
    assert expected[-1] == {"type": "end", "tool_calls": 20, "rejected": 0, "bytes": len(text)}


def test_whole_calls_emit_a_call_in_one_piece():
    text = (
        'a<tool_call>{"name": "f", "arguments": {"x": [1, 2, 3]}}</tool_call>'
        'b<tool_call>{"name": "f", "arguments": {"x": </tool_call>c'
    )
    events = []
    with toolcallkit.Decoder(format="json", whole_calls=True, id_seed=2) as d:
        for i in range(0, len(text), 4):
            events += d.feed(text[i : i + 4])
        events += d.finish()
    kinds = [e["type"] for e in events if e["type"] != "text"]
    assert kinds == ["tool_call_start", "tool_call_delta", "tool_call", "rejected", "end"]
    (delta,) = [e for e in events if e["type"] == "tool_call_delta"]
    assert json.loads(delta["arguments"]) == {"x": [1, 2, 3]}
    assert "index" not in next(e for e in events if e["type"] == "rejected")
