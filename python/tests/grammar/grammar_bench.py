"""`make grammar-bench`: the cost of exporting a grammar for 100 tools, compile time in each
backend, and xgrammar's own `get_model_structural_tag` beside ours on the same cases.

usage: grammar_bench.py [--repeat N]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import backends as B
import harness as H

# Our formats and the xgrammar built-in tag of the same family.
BUILTIN = {"json": "qwen_3", "xml_function": "qwen_3_coder", "kimi_k2": "kimi", "kimi_k3": "kimi_k3",
           "deepseek_v3": "deepseek_r1", "deepseek_v31": "deepseek_v3_1", "deepseek_v32": "deepseek_v3_2",
           "harmony": "harmony", "minimax_m2": "minimax", "minimax_m3": "minimax_m3", "glm4": "glm_4_7",
           "gemma4": "gemma_4", "llama3": "llama"}


def hundred_tools():
    tools = []
    for i in range(100):
        tools.append({"type": "function", "function": {"name": f"tool_{i:03d}", "parameters": {
            "type": "object", "properties": {
                "query": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "mode": {"type": "string", "enum": ["fast", "full"]}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["query"], "additionalProperties": False}}})
    return tools


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    bk, _ = B.backends()
    path = os.path.join(tempfile.mkdtemp(), "tools100.json")
    with open(path, "w") as f:
        json.dump(hundred_tools(), f)
    print("export (toolcall grammar, 100 tools; wall time of the process) and compile, ms")
    print(f"{'format':<14}{'target':<10}{'export':>9}{'bytes':>9}{'compile':>10}")
    for fmt in H.formats():
        for t in H.TARGETS:
            best = None
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                p = subprocess.run([H.TOOLCALL, "grammar", "--format", fmt, "--tools", path, "--target", t], capture_output=True, text=True)
                el = (time.perf_counter() - t0) * 1000
                best = el if best is None else min(best, el)
            comp = "-"
            if t in bk:
                t0 = time.perf_counter()
                try:
                    bk[t].compile(p.stdout)
                    comp = f"{(time.perf_counter() - t0) * 1000:.1f}"
                except B.Refused as e:
                    comp = "refused"
            print(f"{fmt:<14}{t:<10}{best:>9.1f}{len(p.stdout):>9}{comp:>10}", flush=True)
    if "xgrammar" not in bk:
        return
    xgr = bk["xgrammar"]
    from xgrammar import builtin_structural_tag as bst
    with open(H.TOOLSETS["weather"]) as f:
        weather = json.load(f)
    print()
    print("xgrammar's get_model_structural_tag beside ours (weather tools, reasoning off): agreeing checks / all")
    print(f"{'format':<14}{'builtin':<16}{'ours':>10}{'builtin':>10}  builtin disagrees on")
    for fmt, model in BUILTIN.items():
        ours_ok = theirs_ok = total = 0
        where = []
        for choice, parallel in H.POLICIES:
            ours = xgr.compile(H.grammar(fmt, "weather", "xgrammar", choice, parallel)[0])
            tc = {"type": "function", "function": {"name": choice}} if choice not in ("auto", "required", "none") else choice
            try:
                st = bst.get_model_structural_tag(model, tools=weather, tool_choice=tc, reasoning=False, parallel_tool_calls=parallel)
                theirs = xgr.compile(st.model_dump_json(by_alias=True))
            except Exception as e:  # noqa: BLE001
                theirs = None
                where.append(f"{choice}/{parallel}: {type(e).__name__}")
            for cid, expect, data in H.cases(fmt, choice, parallel):
                total += 1
                ours_ok += xgr.accepts(ours, data)[0] == (expect == "accept")
                if theirs is not None:
                    ok = xgr.accepts(theirs, data)[0] == (expect == "accept")
                    theirs_ok += ok
                    if not ok:
                        where.append(f"{choice}/{'p' if parallel else 's'}:{cid}")
        print(f"{fmt:<14}{model:<16}{ours_ok:>5}/{total:<4}{theirs_ok:>5}/{total:<4}  {', '.join(where[:8])}{' …' if len(where) > 8 else ''}", flush=True)


if __name__ == "__main__":
    main()
