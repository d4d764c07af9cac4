"""`make grammar-fuzz`: the accept/reject matrix per format and target, then random walks
through every grammar, each decoded with --validate (thousands per format and target).

usage: grammar_fuzz.py [--walks N] [--formats a,b] [--targets t1,t2] [--seed S]
Exit status 1 when a case disagrees or a walk does not decode cleanly.
"""
import argparse
import random
import sys
import time

import backends as B
import harness as H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--walks", type=int, default=1000)
    ap.add_argument("--formats")
    ap.add_argument("--targets", default=",".join(H.TARGETS))
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    bk, missing = B.backends()
    for t, why in missing.items():
        print(f"{t}: not available ({why})")
    formats = a.formats.split(",") if a.formats else H.formats()
    targets = [t for t in a.targets.split(",") if t in bk]
    markers = H.markers()
    failures = 0
    print(f"accept/reject matrix (weather tools; agreeing checks / all, per policy)")
    print(f"{'format':<14}" + "".join(f"{t:>12}" for t in targets))
    for fmt in formats:
        row = []
        for t in targets:
            agree = total = 0
            for choice, parallel in H.POLICIES:
                text, _ = H.grammar(fmt, "weather", t, choice, parallel)
                c = bk[t].compile(text)
                for cid, expect, data in H.cases(fmt, choice, parallel):
                    ok, _ = bk[t].accepts(c, data)
                    total += 1
                    if ok == (expect == "accept"):
                        agree += 1
                    else:
                        print(f"  DISAGREE {fmt} {t} {choice}/{parallel} {cid}: expected {expect}")
            failures += total - agree
            row.append(f"{agree}/{total}")
        print(f"{fmt:<14}" + "".join(f"{r:>12}" for r in row))
    print()
    print(f"random walks ({a.walks} per format, target and configuration), decoded with --validate")
    configs = [("weather", "auto", True), ("weather", "required", False), ("mixed", "auto", True), ("weather", "get_weather", True),
               ("patterns", "required", True)]
    rng = random.Random(a.seed)
    if H.library() is None:
        print("(decoding with one toolcall process per walk: set TOOLCALLKIT_LIBRARY for in-process decoding)")
    totals = {t: [0, 0, 0, 0, 0] for t in targets}
    for fmt in formats:
        for t in targets:
            started = time.time()
            done = bad = calls = unfinished = backend_utf8 = 0
            for tools, choice, parallel in configs:
                text, _ = H.grammar(fmt, tools, t, choice, parallel)
                c = bk[t].compile(text)
                dec = H.Decoder(fmt, tools, choice, parallel)
                literals = H.walk_literals(fmt, tools, choice, parallel)
                for _ in range(a.walks):
                    out = bk[t].walk(c, rng, literals=literals)
                    if out is None:
                        unfinished += 1
                        continue
                    events = dec.events(out)
                    why = H.verdict(events, markers[fmt], choice)
                    done += 1
                    calls += sum(e["type"] == "tool_call" for e in events)
                    if why and t == "xgrammar" and "json_schema" in text and not H.valid_utf8(out):
                        # xgrammar's own JSON strings take an encoded surrogate (invalid UTF-8)
                        # as one character; the decoder reads three U+FFFD (docs/grammar.md).
                        backend_utf8 += 1
                        if backend_utf8 <= 1:
                            print(f"  INVALID UTF-8 (xgrammar json_schema) {fmt} {tools}/{choice}: {why[:160]}")
                    elif why:
                        bad += 1
                        if bad <= 3:
                            print(f"  BAD WALK {fmt} {t} {tools}/{choice}: {why}\n    {out[:240]!r}")
            failures += bad
            for i, v in enumerate((done, calls, bad, unfinished, backend_utf8)):
                totals[t][i] += v
            extra = f", {backend_utf8} invalid UTF-8 in xgrammar's json_schema" if backend_utf8 else ""
            print(f"{fmt:<14} {t:<9} {done:>6} walks, {calls:>6} calls, {bad} bad, {unfinished} unfinished{extra} ({time.time() - started:.0f} s)", flush=True)
    for t, (done, calls, bad, unfinished, backend_utf8) in totals.items():
        print(f"{'all':<14} {t:<9} {done:>6} walks, {calls:>6} calls, {bad} bad, {unfinished} unfinished, {backend_utf8} invalid UTF-8 (xgrammar json_schema)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
