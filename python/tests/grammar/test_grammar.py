"""Exported grammars against xgrammar, llguidance and llama.cpp's GBNF matcher.

For every format, every tool_choice x parallel_tool_calls policy and each target: the grammar
compiles, accepts every call `toolcall render` writes that the policy allows, and rejects
undeclared names, schema violations, broken markers, truncation, a second call when parallel
calls are off, no call when one is required, any call under `none`, and a smuggled close tag.
Random walks through each grammar decode as accepted calls with no rejection and no markup in
their text (GRAMMAR_WALKS per format and target; `make grammar-fuzz` runs thousands).
"""
import os
import random

import pytest

import backends as B
import harness as H

BACKENDS, MISSING = B.backends(os.environ.get("TOOLCALL_GBNF_LIB"))
FORMATS = H.formats()
MARKERS = H.markers()
WALKS = int(os.environ.get("GRAMMAR_WALKS", "3"))


def backend(target):
    if target not in BACKENDS:
        pytest.skip(f"{target}: {MISSING.get(target)} (make grammar-deps)")
    return BACKENDS[target]


@pytest.mark.parametrize("target", H.TARGETS)
@pytest.mark.parametrize("policy", H.POLICIES, ids=lambda p: f"{p[0]}-{'parallel' if p[1] else 'single'}")
@pytest.mark.parametrize("fmt", FORMATS)
def test_accepts_and_rejects(fmt, policy, target):
    be = backend(target)
    choice, parallel = policy
    text, _ = H.grammar(fmt, "weather", target, choice, parallel)
    compiled = be.compile(text)
    wrong = []
    for cid, expect, data in H.cases(fmt, choice, parallel):
        ok, off = be.accepts(compiled, data)
        if ok != (expect == "accept"):
            wrong.append(f"{cid}: expected {expect}, got {'accept' if ok else f'reject at {off}'}: {data[max(0, off - 40):off + 40]!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("target", H.TARGETS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_patterns(fmt, target):
    """`pattern` is written into every target: matching values pass, others are refused."""
    be = backend(target)
    text, _ = H.grammar(fmt, "patterns", target, "required", False)
    compiled = be.compile(text)
    wrong = []
    native = target == "xgrammar" and "json_schema" in text
    for cid, expect, data in H.pattern_cases(fmt):
        if expect == "native":
            expect = "reject" if native else "accept"
        ok, off = be.accepts(compiled, data)
        if ok != (expect == "accept"):
            wrong.append(f"{cid}: expected {expect}, got {'accept' if ok else f'reject at {off}'}: {data[max(0, off - 40):off + 40]!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("target", H.TARGETS)
@pytest.mark.parametrize("tools,policy", [("weather", ("auto", True)), ("weather", ("required", False)), ("mixed", ("auto", True)),
                                          ("patterns", ("required", True))],
                         ids=["weather-auto", "weather-required-single", "mixed-auto", "patterns-required"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_walks_decode_cleanly(fmt, tools, policy, target):
    be = backend(target)
    choice, parallel = policy
    text, _ = H.grammar(fmt, tools, target, choice, parallel)
    compiled = be.compile(text)
    decoder = H.Decoder(fmt, tools, choice, parallel)
    literals = H.walk_literals(fmt, tools, choice, parallel)
    rng = random.Random(f"{fmt}/{tools}/{target}")
    bad = []
    unfinished = 0
    for i in range(WALKS):
        out = be.walk(compiled, rng, literals=literals)
        if out is None:
            unfinished += 1
            continue
        why = H.verdict(decoder.events(out), MARKERS[fmt], choice)
        if why:
            bad.append(f"walk {i}: {why}\n    {out[:300]!r}")
    assert not bad, "\n".join(bad[:5])
    # A walk that never reaches an end proves nothing: most must end.
    assert unfinished <= WALKS // 2, f"{unfinished} of {WALKS} walks did not reach an end"
