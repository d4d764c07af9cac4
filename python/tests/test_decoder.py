"""The Python Decoder against the CLI: the same bytes in, the same event lines out."""
import json
import os
import subprocess
import sys
import tempfile
import threading

import pytest

import toolcallkit
from tckpaths import FIXTURES

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
        ({"format": "json", "output": "xml"}, 'output must be "events", "openai", "responses" or "anthropic"'),
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


def test_zero_width_template_from_a_model_folder_ends(cli):
    """A model folder whose response template's anchors match only the empty string, decoded
    from token ids through the library's ``model`` option: decoding ends (it used to spin
    forever), with the CLI's events for the same bytes. In a child process under a timeout, so
    that a regression fails instead of hanging."""
    folder = os.path.join(FIXTURES, "models", "own-response-template-zero-width-tokens")
    program = (
        "import json, sys, toolcallkit\n"
        "d = toolcallkit.Decoder(model=sys.argv[1], reasoning=True)\n"
        "print(json.dumps(d.feed_tokens([120, 121, 122]) + d.finish()))\n"  # x y z
    )
    p = subprocess.run([sys.executable, "-c", program, folder], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    events = json.loads(p.stdout)
    assert events[-1] == {"type": "end", "tool_calls": 0, "rejected": 0, "bytes": 3}
    code, out, _ = cli(["decode", "--model", folder, "--reasoning"], b"xyz")
    assert code == 0 and events == [json.loads(line) for line in out.splitlines()]


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


# -- text that is not valid Unicode, arguments of the wrong type, ids that no uint32 holds ------


def _text(events):
    return "".join(e["text"] for e in events if e["type"] == "text")


def test_lone_surrogates_are_decoded_as_invalid_bytes_and_never_raise(cli):
    """A surrogate from surrogateescape is the byte it stands for (the CLI's lines for that
    byte); any other lone surrogate is U+FFFD, what the decoder writes for an invalid byte."""
    with toolcallkit.Decoder(format="json", id_seed=1) as d:
        escaped = d.feed("x\udc80y") + d.finish()
    _, expected, _ = cli(["decode", "--format", "json", "--id-seed", "1"], b"x\x80y")
    assert escaped == [json.loads(line) for line in expected.splitlines()]
    assert _text(escaped) == "x\ufffdy"
    with toolcallkit.Decoder(format="json") as d:
        events = []
        for piece in ("a\ud800", "b\udfff", "\ud83d"):  # lone halves, also at a feed's end
            events += d.feed(piece)
        events += d.finish()
    assert _text(events) == "a\ufffdb\ufffd\ufffd"
    assert toolcallkit.parse("x\udc80", format="json")["content"] == "x\ufffd"
    call = '<tool_call>{"name": "f", "arguments": {"a": "\ud800"}}</tool_call>'
    (parsed,) = toolcallkit.parse(call, format="json")["tool_calls"]
    assert json.loads(parsed["function"]["arguments"]) == {"a": "\ufffd"}


@pytest.mark.parametrize("bad", [5, 0, 1.5, None, [104, 105], {"a": 1}])
def test_feed_refuses_what_is_neither_text_nor_bytes(bad):
    with toolcallkit.Decoder(format="json") as d:
        with pytest.raises(TypeError, match="str or bytes-like"):
            d.feed(bad)
        with pytest.raises(TypeError, match="str or bytes-like"):
            toolcallkit.parse(bad, format="json")
        # Nothing was fed.
        assert d.finish()[-1] == {"type": "end", "tool_calls": 0, "rejected": 0, "bytes": 0}
    with toolcallkit.Decoder(format="json") as d:
        assert _text(d.feed(bytearray(b"ok")) + d.feed(memoryview(b"!")) + d.finish()) == "ok!"


@pytest.mark.parametrize("bad", [-1, -(2**40), 2**32, 2**64])
def test_an_id_no_vocabulary_has_is_a_token_error_after_the_ids_before_it(bad):
    d = toolcallkit.Decoder(format="json", tokenizer=TOKENIZER)
    with pytest.raises(toolcallkit.TokenError, match=r"token 3 of this call \(%d\) is outside the vocabulary" % bad) as caught:
        d.feed_tokens(iter(list(b"ok ") + [bad, 65]))
    assert caught.value.code == -3
    assert _text(caught.value.events) == "ok "
    assert d.feed_tokens([65]) == [{"type": "text", "text": "A"}]


def test_an_unknown_format_gets_the_clis_suggestion(cli):
    with pytest.raises(toolcallkit.ConfigError) as caught:
        toolcallkit.Decoder(format="qwen")
    assert 'unknown format \'qwen\': Qwen and Hermes models write json, so try "format": "json"' in str(caught.value)
    _, _, err = cli(["decode", "--format", "qwen"], b"")
    assert b"Qwen and Hermes models write json, so try --format json" in err
    with pytest.raises(toolcallkit.ConfigError, match='try "format": "json"'):
        toolcallkit.Decoder(format="JSON")


# -- model means what --model means ------------------------------------------------------------

MODELS = os.path.join(FIXTURES, "models")
MODEL_OUTPUT = '<think>hm</think>Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><|im_end|>'


@pytest.mark.parametrize("model", ["Qwen3-0.6B", "own-response-template-only"])
@pytest.mark.parametrize("reasoning", [False, True])
def test_model_infers_the_format_and_decodes_text_as_the_cli(cli, model, reasoning):
    path = os.path.join(MODELS, model)
    flags = ["decode", "--model", path, "--id-seed", "3"] + (["--reasoning"] if reasoning else [])
    status, out, err = cli(flags, MODEL_OUTPUT.encode())
    assert status == 0, err
    expected = [json.loads(line) for line in out.splitlines()]
    with toolcallkit.Decoder(model=path, id_seed=3, reasoning=reasoning) as d:
        assert d.feed(MODEL_OUTPUT) + d.finish() == expected
    assert any(e["type"] == "tool_call" for e in expected)
    with toolcallkit.Decoder(model=path, id_seed=3, reasoning=reasoning) as d:
        events = []
        for i in range(0, len(MODEL_OUTPUT), 5):
            events += d.feed(MODEL_OUTPUT[i : i + 5])
        events += d.finish()
    whole = [e for e in expected if e["type"] in ("tool_call", "end")]
    assert [e for e in events if e["type"] in ("tool_call", "end")] == whole
    assert _text(events) == _text(expected)
    assert toolcallkit.parse(MODEL_OUTPUT, model=path, reasoning=True)["tool_calls"]


def test_a_model_folders_tokenizer_is_read_only_for_token_input(tmp_path):
    plain = os.path.join(MODELS, "Qwen3-0.6B")  # no tokenizer.json
    d = toolcallkit.Decoder(model=plain)
    with pytest.raises(toolcallkit.ConfigError, match="tokenizer.json: No such file or directory"):
        d.feed_tokens([72])
    assert _text(d.feed("still text") + d.finish()) == "still text"
    with pytest.raises(toolcallkit.ConfigError, match="tokenizer.json: No such file or directory"):
        toolcallkit.Decoder(model=plain, input="tokens")
    folder = tmp_path / "Qwen3-0.6B"
    folder.mkdir()
    for name in os.listdir(plain):
        (folder / name).write_bytes(open(os.path.join(plain, name), "rb").read())
    (folder / "tokenizer.json").write_bytes(open(TOKENIZER, "rb").read())
    d = toolcallkit.Decoder(model=str(folder), id_seed=7)
    events = d.feed_tokens(CALL_IDS) + d.finish()  # the first feed is token ids: the folder's tokenizer
    assert [e["name"] for e in events if e["type"] == "tool_call"] == ["get_weather"]
    with pytest.raises(toolcallkit.StateError, match="takes token ids"):
        d2 = toolcallkit.Decoder(model=str(folder), input="tokens")
        d2.feed("text")
    d3 = toolcallkit.Decoder(model=str(folder))
    d3.feed("text first")
    with pytest.raises(toolcallkit.StateError, match="takes text"):
        d3.feed_tokens([72])


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null"])
def test_a_tokenizer_that_is_not_a_regular_file_is_refused_unread(path):
    with pytest.raises(toolcallkit.ConfigError, match="not a regular file"):
        toolcallkit.Decoder(format="json", tokenizer=path)


def test_a_config_key_given_twice_is_refused():
    lib = toolcallkit._library()
    import ctypes

    text = b'{"format":"json","format":"pythonic"}'
    err = ctypes.create_string_buffer(512)
    assert not lib.tck_decoder_new(text, len(text), err, len(err))
    assert b"config key 'format' is given twice" in err.value
