"""`make grammar-compare`: our xgrammar structural tags beside xgrammar's own
`get_model_structural_tag` for the families it covers, on the same cases.

For each format and policy (tool_choice x parallel_tool_calls), every case of harness.cases()
(rendered by `toolcall render`; the expected verdict is what the policy allows and the decoder
with --validate accepts) is matched byte by byte by both structural tags. Prints, per format, a
matrix of cases x policies (`.` both agree with the expectation; `B` only ours does: xgrammar's
built-in tag disagrees; `O` only the built-in does; `X` neither; `-` not in that policy), then
the summary: agreeing checks / all, for ours and the built-in.

usage: grammar_compare.py [--formats a,b]
"""
import argparse
import json

import backends as B
import harness as H

# Our formats and the xgrammar built-in tag of the same family (xgrammar 0.2.9). Not covered
# there: mistral, lfm2, pythonic, gemma (v3), granite, nemotron, phi4_mini, seed_oss, cohere
# (xgrammar's "cohere" is the <cofl:tool_call> XML of later Command models, not
# <|START_ACTION|>).
BUILTIN = {"json": "qwen_3", "xml_function": "qwen_3_coder", "kimi_k2": "kimi", "kimi_k3": "kimi_k3",
           "deepseek_v3": "deepseek_r1", "deepseek_v31": "deepseek_v3_1", "deepseek_v32": "deepseek_v3_2",
           "harmony": "harmony", "minimax_m2": "minimax", "minimax_m3": "minimax_m3", "glm4": "glm_4_7",
           "gemma4": "gemma_4", "llama3": "llama"}


def policy_name(choice, parallel):
    return f"{choice}/{'p' if parallel else 's'}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats")
    a = ap.parse_args()
    bk, missing = B.backends()
    if "xgrammar" not in bk:
        raise SystemExit(f"xgrammar: {missing.get('xgrammar')}")
    xgr = bk["xgrammar"]
    from xgrammar import builtin_structural_tag as bst
    weather = H.tools_json("weather")
    formats = a.formats.split(",") if a.formats else list(BUILTIN)
    summary = []
    for fmt in formats:
        model = BUILTIN[fmt]
        results = {}  # case id -> {policy: cell}
        ours_ok = theirs_ok = total = 0
        errors = []
        for choice, parallel in H.POLICIES:
            pol = policy_name(choice, parallel)
            ours = xgr.compile(H.grammar(fmt, "weather", "xgrammar", choice, parallel)[0])
            tc = choice if choice in ("auto", "required", "none") else {"type": "function", "function": {"name": choice}}
            try:
                st = bst.get_model_structural_tag(model, tools=weather, tool_choice=tc, reasoning=False,
                                                  parallel_tool_calls=parallel)
                theirs = xgr.compile(st.model_dump_json(by_alias=True))
            except Exception as e:  # noqa: BLE001
                theirs = None
                errors.append(f"{pol}: {type(e).__name__}: {str(e)[:120]}")
            for cid, expect, data in H.cases(fmt, choice, parallel):
                want = expect == "accept"
                o = xgr.accepts(ours, data)[0] == want
                t = theirs is not None and xgr.accepts(theirs, data)[0] == want
                total += 1
                ours_ok += o
                theirs_ok += t
                results.setdefault(cid, {})[pol] = "." if o and t else "B" if o else "O" if t else "X"
        pols = [policy_name(c, p) for c, p in H.POLICIES]
        print(f"\n{fmt}  (xgrammar built-in: {model!r})   ours {ours_ok}/{total}, built-in {theirs_ok}/{total}")
        print(f"  {'case':<26}" + "".join(f"{p:>14}" for p in pols))
        for cid, row in results.items():
            print(f"  {cid:<26}" + "".join(f"{row.get(p, '-'):>14}" for p in pols))
        for e in errors:
            print(f"  built-in refused: {e}")
        summary.append((fmt, model, ours_ok, theirs_ok, total))
    print("\nsummary: checks agreeing with the expectation (6 policies, weather tools, reasoning off)")
    print(f"{'format':<14}{'built-in':<16}{'ours':>12}{'built-in':>12}")
    for fmt, model, o, t, n in summary:
        print(f"{fmt:<14}{model:<16}{f'{o}/{n}':>12}{f'{t}/{n}':>12}")


if __name__ == "__main__":
    main()
