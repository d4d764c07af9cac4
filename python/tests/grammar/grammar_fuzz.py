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
    configs = [("weather", "auto", True), ("weather", "required", False), ("mixed", "auto", True), ("weather", "get_weather", True)]
    rng = random.Random(a.seed)
    for fmt in formats:
        for t in targets:
            started = time.time()
            done = bad = calls = 0
            for tools, choice, parallel in configs:
                text, _ = H.grammar(fmt, tools, t, choice, parallel)
                c = bk[t].compile(text)
                dec = H.Decoder(fmt, tools, choice, parallel)
                for _ in range(a.walks):
                    out = bk[t].walk(c, rng)
                    if out is None:
                        continue
                    events = dec.events(out)
                    why = H.verdict(events, markers[fmt], choice)
                    done += 1
                    calls += sum(e["type"] == "tool_call" for e in events)
                    if why:
                        bad += 1
                        if bad <= 3:
                            print(f"  BAD WALK {fmt} {t} {tools}/{choice}: {why}\n    {out[:240]!r}")
            failures += bad
            print(f"{fmt:<14} {t:<9} {done:>6} walks, {calls:>6} calls, {bad} bad ({time.time() - started:.0f} s)", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
