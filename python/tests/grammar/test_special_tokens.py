"""Markers that are one special token: with a tokenizer, every target names them as tokens, and
the grammars accept the calls a model writes with those tokens (tokens.py)."""
import os

import pytest

import backends as B
import harness as H
import tokens as T

BACKENDS, MISSING = B.backends(os.environ.get("TOOLCALL_GBNF_LIB"))
# The formats whose markers are the tokenizers' special tokens (<tool_call>, </tool_call>).
FORMATS = ["json", "xml_function"]
POLICIES = [("auto", True), ("required", False)]
_VOCABS = {}


def vocabulary(path):
    if path not in _VOCABS:
        try:
            _VOCABS[path] = T.Vocabulary(path)
        except ImportError as e:
            pytest.skip(f"llguidance: {e} (make grammar-deps)")
    return _VOCABS[path]


def grammar(fmt, target, choice, parallel, tokenizer):
    lib = H.library()
    if lib is None:
        pytest.skip("needs the library (TOOLCALLKIT_LIBRARY)")
    return lib.grammar(fmt, H.tools_json("weather"), tool_choice=choice, parallel_tool_calls=parallel,
                       target=target, tokenizer=tokenizer)["grammar"]


def accepts(v, target, text, data):
    if target == "lark":
        return v.lark_accepts(text, data)
    if target == "xgrammar":
        return v.xgrammar_accepts(text, data)
    if "gbnf" not in BACKENDS:
        pytest.skip(f"gbnf: {MISSING.get('gbnf')}")
    return v.gbnf_accepts(BACKENDS["gbnf"], text, data)


@pytest.mark.parametrize("target", H.TARGETS)
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: f"{p[0]}-{'parallel' if p[1] else 'single'}")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("path", T.TOKENIZERS, ids=lambda p: os.path.basename(p).split("-with")[0])
def test_special_tokens(path, fmt, policy, target):
    v = vocabulary(path)
    choice, parallel = policy
    text = grammar(fmt, target, choice, parallel, path)
    # The markers are named by id where the target can (xgrammar: a tag's end; its triggers
    # and the text inside grammar formats stay text, which xgrammar matches a special token
    # against).
    call_id = v.special["<tool_call>"]
    end_id = v.special["</tool_call>"]
    if target in ("lark", "gbnf"):
        assert f"<[{call_id}]>" in text and f"<[{end_id}]>" in text
    else:
        assert f'"token": {end_id}' in text or f'"token":{end_id}' in text
    wrong = []
    for cid, expect, data in H.cases(fmt, choice, parallel):
        ok, off = accepts(v, target, text, data)
        if ok != (expect == "accept"):
            ids = v.ids(data)
            wrong.append(f"{cid}: expected {expect}, got {'accept' if ok else 'reject'} at token {off} of {ids[max(0, off - 4):off + 4]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("path", T.TOKENIZERS, ids=lambda p: os.path.basename(p).split("-with")[0])
def test_llguidance_needs_the_token(path, fmt):
    """Why the tokens are named: the grammar without --tokenizer spells <tool_call> as text,
    which llguidance never matches against the special token, so a call written with it is
    refused."""
    v = vocabulary(path)
    data = H.render(fmt, [H.W_MIN], None)
    assert v.special["<tool_call>"] in v.ids(data)
    ok, _ = v.lark_accepts(grammar(fmt, "lark", "required", False, None), data)
    assert not ok
    ok, _ = v.lark_accepts(grammar(fmt, "lark", "required", False, path), data)
    assert ok
