"""`make grammar-bench`: the cost of exporting a grammar for 100 tools, and of compiling it in
each backend (grammar_compare.py puts xgrammar's own tags beside ours).

For every format and target (tool_choice auto, parallel calls):
- `cli`: `toolcall grammar` as a process (the release binary: start, read the tools, export,
  print), wall and CPU time (the child's user + system), best of --repeat;
- `lib`: the library API in-process (`toolcallkit.grammar`, the C library over the Swift
  exporter: tools as JSON in, grammar out), wall and CPU time, best of --repeat;
- `bytes`: the grammar's size;
- `byte-vocab`: compile time with a 257-token byte vocabulary (the tests' matchers): xgrammar's
  `compile_structural_tag`, llguidance's grammar check, llama.cpp's GBNF parse;
- `gpt2`: compile time against the GPT-2 vocabulary (50,259 tokens, Fixtures/tokenizers) for
  xgrammar and llguidance, whose cost grows with the vocabulary (llama.cpp has none to compile).

usage: grammar_bench.py [--repeat N] [--formats a,b] [--no-vocab]
"""
import argparse
import json
import os
import resource
import subprocess
import tempfile
import time

import backends as B
import harness as H
import tokens as T


def hundred_tools():
    tools = []
    for i in range(100):
        tools.append({"type": "function", "function": {"name": f"tool_{i:03d}", "description": f"Tool number {i}.", "parameters": {
            "type": "object", "properties": {
                "query": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "mode": {"type": "string", "enum": ["fast", "full"]}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["query"], "additionalProperties": False}}})
    return tools


def best_ms(fn, repeat, children=False):
    """The best wall time and the best CPU time (ms) of `fn` over `repeat` runs: CPU of the
    process itself, or of the child processes it ran."""
    best = cpu = None
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN) if children else None
        c0 = time.process_time()
        t0 = time.perf_counter()
        out = fn()
        el = (time.perf_counter() - t0) * 1000
        if children:
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            c = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
        else:
            c = (time.process_time() - c0) * 1000
        best = el if best is None else min(best, el)
        cpu = c if cpu is None else min(cpu, c)
    return best, cpu, out


def timed(fn):
    t0 = time.perf_counter()
    try:
        fn()
    except B.Refused:
        return "refused"
    return f"{(time.perf_counter() - t0) * 1000:.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--formats")
    ap.add_argument("--no-vocab", action="store_true")
    a = ap.parse_args()
    bk, _ = B.backends()
    lib = H.library()
    tools = hundred_tools()
    path = os.path.join(tempfile.mkdtemp(), "tools100.json")
    with open(path, "w") as f:
        json.dump(tools, f)
    vocab = None if a.no_vocab else T.Vocabulary(T.TOKENIZERS[0])
    print("100 tools, tool_choice auto; times in ms (best of %d for the export)" % a.repeat)
    print(f"{'format':<14}{'target':<10}{'cli':>10}{'lib':>10}{'bytes':>9}{'byte-vocab':>12}{'gpt2':>8}")
    print(f"{'':<24}{'wall/cpu':>10}{'wall/cpu':>10}")
    formats = a.formats.split(",") if a.formats else H.formats()
    for fmt in formats:
        for t in H.TARGETS:
            cli, cli_cpu, p = best_ms(lambda: subprocess.run([H.TOOLCALL, "grammar", "--format", fmt, "--tools", path, "--target", t],
                                                             capture_output=True, text=True), a.repeat, children=True)
            text = p.stdout
            lib_ms = "-"
            if lib is not None:
                ms, cpu, g = best_ms(lambda: lib.grammar(fmt, tools, target=t), a.repeat)
                lib_ms = f"{ms:.0f}/{cpu:.0f}"
            small = timed(lambda: bk[t]._compile(text)) if t in bk else "-"
            big = "-"
            if vocab is not None and t == "xgrammar":
                big = timed(lambda: vocab._xgrammar()[1].compile_structural_tag(text))
            elif vocab is not None and t == "lark":
                def check():
                    g = vocab.llg.grammar_from("lark", text)
                    err, msgs = vocab.llg.LLMatcher.validate_grammar_with_warnings(g, vocab.tok)
                    if err:
                        raise B.Refused(msgs[0])
                    vocab.llg.LLMatcher(vocab.tok, g, log_level=0).compute_bitmask()
                big = timed(check)
            print(f"{fmt:<14}{t:<10}{f'{cli:.0f}/{cli_cpu:.0f}':>10}{lib_ms:>10}{len(text):>9}{small:>12}{big:>8}", flush=True)


if __name__ == "__main__":
    main()
