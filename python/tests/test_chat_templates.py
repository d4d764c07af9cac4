"""Each model's own chat template as the oracle: what the template writes for an assistant turn
with tool calls must decode back to those calls (whole, one byte at a time and in token-sized
pieces), and `toolcall render` must write the template's bytes.

The templates are copies in Fixtures/models/<folder>/ (each folder's SOURCE.txt says where it
came from). A difference that lies with a template (it drops or renumbers something, or writes
what no model is trained to emit) is listed below with its reason; so is one a change in
progress elsewhere will fix, with its issue item. A listed case that stops failing fails the
test, so the lists stay true.
"""
import json
import os

import pytest

import toolcallkit
import template_oracle as oracle
from tckpaths import FIXTURES

MODELS = os.path.join(FIXTURES, "models")
SEED = 20250115
RANDOM_CASES = 24
CASES = oracle.written_cases() + oracle.random_cases(RANDOM_CASES, SEED)
# `toolcall render` runs as a process per case: the written cases and the first random ones
# are compared with the template (decoding, in process, covers them all).
RENDERED = {c["name"] for c in CASES[:len(CASES) - RANDOM_CASES + 8]}


def calls_at_least(n):
    return lambda case: len(case["calls"]) >= n


def calls_other_than(n):
    return lambda case: len(case["calls"]) != n


def not_one_argument_each(case):
    return any(len(c["arguments"]) != 1 for c in case["calls"])


def always(case):
    return True


# folder -> {
#   "formats": the formats `toolcall infer` may name for it, as the model's own: the model variant
#              when infer names one beside the base format, else the format (the first is
#              today's; others are formats being added, which take over when they land),
#   "pending": why the folder is not measured yet (no format names it),
#   "decode": [(predicate, reason)] cases whose decode is known to fail,
#   "render": [(predicate, reason)] cases whose rendering is known to differ from the template,
#   "variables": extra template variables,
# }
MODEL_FOLDERS = {
    "Qwen3-0.6B": {"formats": ["json"]},
    "Qwen3-Coder-vllm-example": {"formats": ["xml_function"]},
    "Qwen3.5-4B": {"formats": ["xml_function"]},
    "LFM2.5-8B-A1B": {"formats": ["lfm2"]},
    "GLM-4.5": {"formats": ["glm45_llamacpp"]},
    "GLM-4.6": {"formats": ["glm4"]},
    "GLM-4.7-Flash": {"formats": ["glm47"]},
    "Laguna-XS.2": {"formats": ["poolside_v1"]},
    "Laguna-XS-2.1": {"formats": ["poolside_v1"]},
    "Ling-3.0-flash": {"formats": ["ling3"]},
    "gemma-4": {"formats": ["gemma4"]},
    "Kimi-K2-Thinking": {"formats": ["kimi_k2"]},
    "Kimi-K3": {"formats": ["kimi_k3"]},
    "MiniMax-M2": {"formats": ["minimax_m2"]},
    "Mistral-Small-3.2-24B-Instruct-2506": {"formats": ["mistral"]},
    "mistralai-Mistral-Small-3.1-24B-Instruct-2503": {"formats": ["mistral31"]},
    "Llama-3.2-3B-Instruct": {"formats": ["llama3"]},
    "DeepSeek-V3.1": {"formats": ["deepseek_v31"]},
    "deepseek-ai-DeepSeek-V3.2": {"formats": ["deepseek_v32"]},
    "DeepSeek-V4-Flash": {"formats": ["deepseek_v4"]},
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B": {
        "formats": ["deepseek_v3"],
        "decode": [(calls_at_least(3), "template quirk: after every call but the first it writes <｜tool▁calls▁end｜> "
                                       "and the end-of-sentence token, so an end-of-turn token stands inside the turn")],
        "render": [(calls_other_than(2), "template quirk: it leaves out <｜tool▁calls▁end｜> after one call and writes it (with the "
                            "end-of-sentence token) after every later call; DeepSeek's own R1 template writes it once, "
                            "after the last call, as the renderer does (docs/rendering.md)")],
    },
    "ByteDance-Seed-OSS": {"formats": ["seed_oss"]},
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": {
        "formats": ["cohere"],
        "render": [(always, "the template renumbers the ids (\"0\", \"1\", ...) where the renderer keeps the caller's "
                            "(docs/rendering.md)")],
    },
    "Cohere-Command4-melody": {
        "formats": ["cohere"],
        "render": [(always, "the template renumbers the ids (\"0\", \"1\", ...) where the renderer keeps the caller's "
                            "(docs/rendering.md)")],
    },
    "ibm-granite-granite-3.3-2B-Instruct": {"formats": ["granite"], "writes_no_calls": True},
    "GigaChat3-10B-A1.8B": {
        "formats": ["gigachat3"],
        "decode": [(calls_at_least(2), "template quirk: it writes only the first of a message's calls (tool_calls[0]); "
                                       "a case whose calls share one name passes its name check with one call written")],
        "render": [(calls_at_least(2), "template quirk: it writes only the first call; the renderer writes every call")],
    },
    "Hy3-preview": {"formats": ["hy_v3"]},
    "K2-Horizon": {"formats": ["k2_horizon"]},
    "MiniCPM5-1B": {"formats": ["minicpm5"]},
    "Muse-Glimmer-30B": {"formats": ["muse_glimmer"]},
    "meetkai-functionary-medium-v3.2": {"formats": ["functionary_v32"]},
}


def test_every_model_template_is_measured():
    """Every real model folder (not `own-*`) with a chat template is in the table: none is left
    out silently."""
    found = sorted(n for n in os.listdir(MODELS)
                   if not n.startswith("own-") and os.path.exists(os.path.join(MODELS, n, "chat_template.jinja")))
    assert found == sorted(MODEL_FOLDERS), f"not in MODEL_FOLDERS: {set(found) - set(MODEL_FOLDERS)}; " \
                                           f"no such folder: {set(MODEL_FOLDERS) - set(found)}"


def _listed(entries, case):
    return next((reason for predicate, reason in entries if predicate(case)), None)


def _decode(fmt, tools, pieces, opened):
    with toolcallkit.Decoder(format=fmt, tools=tools, raw=True, reasoning=True, reasoning_open=opened or None,
                             id_seed=7) as d:
        events = []
        for p in pieces:
            events += d.feed(p)
        return events + d.finish()


def _render(cli, path, case, ids, text):
    """`toolcall render --model PATH`: the format and model variant the folder shows."""
    calls = [{"id": cid, "type": "function",
              "function": {"name": c["name"], "arguments": json.dumps(c["arguments"], ensure_ascii=False)}}
             for cid, c in zip(ids, case["calls"])]
    args = ["render", "--model", path] + (["--text", text] if text else [])
    status, out, err = cli(args, json.dumps(calls, ensure_ascii=False).encode())
    return out.decode() if status == 0 else None, err.decode()


@pytest.fixture(scope="module")
def env():
    return oracle.environment()


@pytest.mark.parametrize("folder", sorted(MODEL_FOLDERS))
def test_template_turns_decode_and_render(folder, env, cli):
    entry = MODEL_FOLDERS[folder]
    path = os.path.join(MODELS, folder)
    inferred = toolcallkit.infer(path)
    # `format` is the base format; the model variant the template shows, if any, is beside it.
    fmt = inferred.get("variant") or inferred["format"]
    assert fmt in entry["formats"], f"{folder}: infer names {fmt}, the table expects one of {entry['formats']}"
    if fmt is None:
        pytest.skip(f"pending: {entry['pending']} (toolcall infer names no format for {folder} yet)")
    text = open(os.path.join(path, "chat_template.jinja"), encoding="utf-8", newline="").read()
    template = oracle.Template(env, text, entry.get("variables"))
    failures, stale, written = [], [], 0
    for case in CASES:
        ids = oracle.call_ids(case, SEED, kimi_style=fmt == "kimi_k2")
        tools = oracle.tools_for(case)
        rendered = oracle.render_case(template, case, ids, tools)
        if isinstance(rendered, str):
            continue  # the template cannot write the case (it refuses parallel calls, drops one...)
        written += 1
        completion, opened, content, plain = rendered
        data = completion.encode()
        # Decode, at every chunking.
        known = _listed(entry.get("decode", []), case)
        bad, events = [], None
        for how, pieces in oracle.chunkings(data, f"{SEED}-{folder}-{case['name']}").items():
            got = _decode(fmt, tools, pieces, opened)
            events = events or got
            for p in oracle.problems(got, case, content, completion, plain):
                bad.append(f"{how}: {p}")
        if bad and not known:
            failures.append(f"{case['name']}: decode: {bad[0]}\n      template text: {completion!r}")
        elif known and not bad:
            stale.append(f"{case['name']}: decodes now; remove the listed failure ({known})")
        # Render: `toolcall render` must write the template's call text, with the content
        # when the template writes it.
        span = oracle.call_span(events) if not bad else None
        if span is None or case["name"] not in RENDERED:
            continue
        wrote_content = bool(content and content.strip() and content in completion)
        out, err = _render(cli, path, case, ids, content if wrote_content else None)
        # The rendering must stand in the template's text where the calls are: from at or
        # before the first call's raw bytes to at or after the last one's (raw spans count bytes).
        i = data.find(out.encode()) if out else -1
        exact = out is not None and 0 <= i <= span[0] and i + len(out.encode()) >= span[1]
        known = _listed(entry.get("render", []), case)
        if not exact and not known:
            failures.append(f"{case['name']}: render: {out!r} ({err.strip()})\n      template text: {completion!r}")
        elif exact and known:
            stale.append(f"{case['name']}: renders as the template now; remove the listed difference ({known})")
    if entry.get("writes_no_calls"):
        assert written == 0, f"{folder} writes tool calls now: measure it"
        pytest.skip(f"{folder}'s template writes no tool calls (listed)")
    assert written >= len(CASES) // 2, f"{folder}: the template wrote only {written} of {len(CASES)} cases"
    assert not failures, f"{folder} ({fmt}):\n  " + "\n  ".join(failures)
    assert not stale, f"{folder} ({fmt}):\n  " + "\n  ".join(stale)
