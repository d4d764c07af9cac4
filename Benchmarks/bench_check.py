#!/usr/bin/env python3
"""Deterministic benchmark counts for toolcall-bench, checked against committed thresholds.

Instructions per byte are measured on the whole program (README.md, Benchmark): under
`valgrind --tool=callgrind`, (Ir at --repeat 3 - Ir at --repeat 1) / (2 x bytes), so each
repeat's fresh decoder, its events and the result check all count. Heap allocations come from
`valgrind --tool=dhat` the same way (blocks per KiB of input and per event). The idle decoder's
cost (its storage plus its heap) comes from `toolcall-bench --idle N` under dhat, for every format.

usage: bench_check.py [--record [--missing | --improved] | --check] [--bench PATH] [--only SUBSTRING] [--jobs N]
  --record  measure and write Benchmarks/Thresholds/<toolchain>/counts.json (--missing: only
            metrics without a threshold; --improved: only thresholds a measurement beats)
  --check   measure and fail (exit 1) when a count exceeds its threshold by more than 10 %
  (neither) measure and print
"""
import argparse, concurrent.futures, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLCHAIN = "6.3"
THRESHOLDS = os.path.join(HERE, "Thresholds", TOOLCHAIN, "counts.json")
SIZE = 100_000
# Idle decoders measured at once.
IDLE = 10_000


def formats(bench):
    """Every built-in format, as `toolcall formats` lists them (the CLI beside the benchmark);
    not the model variants listed after them, which decode with their base format's grammar."""
    toolcall = os.path.join(os.path.dirname(bench), "toolcall")
    out = subprocess.run([toolcall, "formats"], capture_output=True, text=True, check=True).stdout
    return [line.split("\t")[0] for line in out.splitlines() if not line.split("\t")[2].startswith("variant of")]


# (workload, chunk) pairs measured for every format.
CASES = [("prose", 65536), ("prose", 4), ("agentic", 4096), ("long-argument", 4)]
# Shapes that were super-linear once, measured on a representative of each family (a JSON
# payload, tagged functions, Gemma values) to keep the run short: escape-heavy arguments printed
# as JSON lines, calls with thousands of parameters, floods of near-miss markers, and a list of
# small values (whose peak heap per input byte is guarded too).
EXTRA = [(w, f, c) for f in ["json", "xml_function"]
         for (w, c) in [("escaped-argument", 64), ("many-parameters", 4096), ("near-miss", 64), ("small-values", 4096)]] + [
    ("near-miss", "gemma4", 64), ("escaped-argument", "gemma4", 4096), ("near-miss", "kimi_k2", 64),
    # Validation cost per call against hostile schemas (anyOf over a shared $ref, a long enum,
    # a catastrophic pattern): bounded by the call and the schema, not their product.
    ("validation", "json", 4096), ("validation", "xml_function", 4096)] + [
    # Arguments of many small values (MemoryWorkloads.swift): time and held memory, and
    # near-miss floods of the formats not covered above.
    (w, f, 4096) for f in ["json", "xml_function", "mistral", "lfm2", "gemma4"]
    for w in ["small-values", "nested-arrays", "short-strings", "near-cap"]
    if not (w == "small-values" and f in ["json", "xml_function"])] + [
    ("near-miss", f, 64) for f in ["lfm2", "glm4", "gemma", "minimax_m2", "mistral", "llama3"]]
# Workloads whose peak heap (dhat's t-gmax) per input byte is measured and checked.
PEAK = {"small-values", "nested-arrays", "short-strings", "near-cap"}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return p


def bench_json(bench, w, f, c, repeat):
    p = run([bench, "--workload", w, "--format", f, "--chunk", str(c), "--size", str(SIZE), "--repeat", str(repeat), "--json"])
    return json.loads(p.stdout.strip().splitlines()[-1])


def ir(bench, w, f, c, repeat):
    p = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", bench, "--workload", w, "--format", f,
             "--chunk", str(c), "--size", str(SIZE), "--repeat", str(repeat), "--json"])
    return int(re.search(r"refs:\s+([\d,]+)", p.stderr).group(1).replace(",", ""))


def dhat(cmd, peak=False):
    p = run(["valgrind", "--tool=dhat", "--dhat-out-file=/dev/null"] + cmd)
    if peak:
        m = re.search(r"At t-gmax:\s+([\d,]+) bytes", p.stderr)
        return int(m.group(1).replace(",", ""))
    m = re.search(r"Total:\s+([\d,]+) bytes in ([\d,]+) blocks", p.stderr)
    return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))


def measure_one(bench, w, f, c):
    """The counts of one (workload, format, chunk) entry."""
    info = bench_json(bench, w, f, c, 1)
    n, events = info["bytes"], info["events"]
    i1, i3 = ir(bench, w, f, c, 1), ir(bench, w, f, c, 3)
    base = [bench, "--workload", w, "--format", f, "--chunk", str(c), "--size", str(SIZE), "--json"]
    _, b1 = dhat(base + ["--repeat", "1"])
    _, b3 = dhat(base + ["--repeat", "3"])
    entry = {
        "ir_per_byte": round((i3 - i1) / (2 * n), 2),
        "allocs_per_kib": round((b3 - b1) / (2 * n / 1024), 2),
        "allocs_per_event": round((b3 - b1) / (2 * max(1, events)), 3),
    }
    if w in PEAK:
        # Peak heap of one decode per input byte (the generated input itself included).
        entry["peak_heap_per_byte"] = round(dhat(base + ["--repeat", "1"], peak=True) / n, 2)
    return entry


def measure(bench, only, jobs=1):
    """Every entry's counts. The counts are deterministic (instructions and allocations, not
    time), so entries may be measured `jobs` at a time; they are printed in a fixed order."""
    keys = [(w, f, c) for f in formats(bench) for (w, c) in CASES] + EXTRA
    keys = [k for k in keys if not only or only in f"{k[0]}/{k[1]}/{k[2]}"]
    out = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(measure_one, bench, w, f, c) for (w, f, c) in keys]
        for (w, f, c), fut in zip(keys, futures):
            key = f"{w}/{f}/{c}"
            out[key] = fut.result()
            print(f"{key:32s} {out[key]['ir_per_byte']:9.2f} Ir/byte {out[key]['allocs_per_kib']:8.2f} allocs/KiB "
                  f"{out[key]['allocs_per_event']:7.3f} allocs/event", flush=True)
    # An idle decoder of every format: 10,000 decoders kept in one array, less one. The bytes
    # are the decoder's own storage (the array's share) plus its heap, so "heap_bytes" is the
    # whole cost of an idle stream.
    idle = [f for f in formats(bench) if not only or only in f"idle/{f}"]
    if idle:
        def one(f):
            b1, n1 = dhat([bench, "--idle", "1", "--format", f])
            b2, n2 = dhat([bench, "--idle", str(IDLE + 1), "--format", f])
            return {"heap_bytes_per_decoder": round((b2 - b1) / IDLE, 1), "allocs_per_decoder": round((n2 - n1) / IDLE, 2)}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for f, entry in zip(idle, pool.map(one, idle)):
                key = f"idle/{f}"
                out[key] = entry
                print(f"{key:32s} {entry['heap_bytes_per_decoder']:9.1f} bytes {entry['allocs_per_decoder']:8.2f} allocs", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--bench", default=os.path.join(HERE, "..", ".build", "release", "toolcall-bench"))
    ap.add_argument("--only")
    ap.add_argument("--missing", action="store_true",
                    help="with --record: record only the metrics that have no threshold yet")
    ap.add_argument("--improved", action="store_true",
                    help="with --record: lower the thresholds a measurement beats; keep the others")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="entries measured at once (default: one per core)")
    a = ap.parse_args()
    counts = measure(a.bench, a.only, a.jobs)
    bad = []
    if a.check:
        # Checked against the thresholds as committed, before any recording below.
        limits = json.load(open(THRESHOLDS))
        for key, vals in counts.items():
            for metric, v in vals.items():
                lim = limits.get(key, {}).get(metric)
                if lim is None:
                    bad.append(f"{key} {metric}: no recorded threshold (run make bench-record)")
                    continue
                # 10 % over the recorded count fails; tiny counts get an absolute slack.
                if v > lim * 1.10 + (0.05 if metric != "ir_per_byte" else 0.1):
                    bad.append(f"{key} {metric}: {v} > {lim} + 10 %")
        for b in bad:
            print("REGRESSION", b)
        print(f"bench-check: {len(counts)} entries, {len(bad)} regressions")
    if a.record and a.improved:
        old = json.load(open(THRESHOLDS))
        lowered = []
        for key, vals in counts.items():
            for metric, v in vals.items():
                lim = old.get(key, {}).get(metric)
                if lim is not None and v < lim:
                    old[key][metric] = v
                    lowered.append(f"{key} {metric}: {lim} -> {v}")
        json.dump(old, open(THRESHOLDS, "w"), indent=1, sort_keys=True)
        open(THRESHOLDS, "a").write("\n")
        for line in lowered:
            print("LOWERED", line)
        print(f"lowered {len(lowered)} thresholds in {os.path.relpath(THRESHOLDS)}")
    elif a.record and a.missing:
        old = json.load(open(THRESHOLDS))
        added = 0
        for key, vals in counts.items():
            for metric, v in vals.items():
                if metric not in old.get(key, {}):
                    old.setdefault(key, {})[metric] = v
                    added += 1
        json.dump(old, open(THRESHOLDS, "w"), indent=1, sort_keys=True)
        open(THRESHOLDS, "a").write("\n")
        print(f"recorded {added} new metrics in {os.path.relpath(THRESHOLDS)}")
        counts = {k: v for k, v in counts.items()}
    elif a.record:
        os.makedirs(os.path.dirname(THRESHOLDS), exist_ok=True)
        old = json.load(open(THRESHOLDS)) if os.path.exists(THRESHOLDS) else {}
        old.update(counts)
        json.dump(old, open(THRESHOLDS, "w"), indent=1, sort_keys=True)
        open(THRESHOLDS, "a").write("\n")
        print(f"recorded {len(counts)} entries in {os.path.relpath(THRESHOLDS)}")

    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
