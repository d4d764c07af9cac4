"""1,000 agentic streams (prose with a call every ~2 KB) fed in 4-byte chunks through
toolcallkit's Python Decoder, vLLM's own Hermes tool parser and SGLang's own Qwen 2.5
detector (the json format's parsers), on the same bytes; prints time per stream and ratios.

Not a test: CPU time of this process (time.process_time, which other processes on a shared
machine disturb less than wall time), machine-dependent. Every parser's calls are checked
(names and arguments), so that a fast wrong answer cannot win. vLLM and SGLang run with torch stubbed
(python/tests/torch_stub.py); a parser that is not installed is skipped.

usage: python_streams.py [--streams N] [--peer-streams M] [--chunk BYTES] [--calls K]
  --peer-streams: how many streams the peers' parsers get (default: all); vLLM's parser
  re-reads the whole text at every chunk, so its time per stream is reported and the total
  extrapolated when M < N.
"""
import argparse
import codecs
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
sys.path.insert(0, os.path.join(ROOT, "python", "src"))
sys.path.insert(0, HERE)

import agentic  # noqa: E402
import toolcallkit  # noqa: E402


def text_chunks(data: bytes, size: int):
    """The 4-byte chunks as the str deltas a Python server would have (a chunk that ends
    inside a UTF-8 sequence carries it over; empty deltas are dropped)."""
    dec = codecs.getincrementaldecoder("utf-8")()
    out = []
    for i in range(0, len(data), size):
        s = dec.decode(data[i : i + size])
        if s:
            out.append(s)
    return out


def expected_calls(data: bytes):
    msg = toolcallkit.parse(data, format="json")
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg["tool_calls"]]


def run_toolcallkit(streams, size):
    calls_seen = []
    t0 = time.process_time()
    for data, _ in streams:
        d = toolcallkit.Decoder(format="json", tools=agentic.TOOLS)
        calls = []
        for i in range(0, len(data), size):
            for e in d.feed(data[i : i + size]):
                if e["type"] == "tool_call":
                    calls.append((e["name"], e["arguments"]))
        for e in d.finish():
            if e["type"] == "tool_call":
                calls.append((e["name"], e["arguments"]))
        d.close()
        calls_seen.append(calls)
    return time.process_time() - t0, calls_seen


def run_vllm(streams, deltas):
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser

    class Tok:
        def get_vocab(self):
            return {}

    req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=agentic.TOOLS)
    calls_seen = []
    t0 = time.process_time()
    for chunks in deltas:
        p = Hermes2ProToolParser(Tok())
        previous = ""
        args = {}
        names = {}
        for delta in chunks:
            current = previous + delta
            m = p.extract_tool_calls_streaming(previous, current, delta, [], [], [], req)
            previous = current
            if m is not None:
                for tc in m.tool_calls:
                    f = tc.function
                    if f and f.name:
                        names[tc.index] = f.name
                    if f and f.arguments:
                        args[tc.index] = args.get(tc.index, "") + f.arguments
        calls_seen.append([(names[i], json.loads(args.get(i, "{}"))) for i in sorted(names)])
    return time.process_time() - t0, calls_seen


def run_sglang(streams, deltas):
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    tools = [Tool(**t) for t in agentic.TOOLS]
    calls_seen = []
    t0 = time.process_time()
    for chunks in deltas:
        parser = FunctionCallParser(tools, "qwen")
        names = {}
        args = {}
        for delta in chunks:
            _, items = parser.parse_stream_chunk(delta)
            for it in items:
                if it.name:
                    names[it.tool_index] = it.name
                if it.parameters:
                    args[it.tool_index] = args.get(it.tool_index, "") + it.parameters
        _, items = parser.parse_stream_end()
        for it in items:
            if it.name:
                names[it.tool_index] = it.name
            if it.parameters:
                args[it.tool_index] = args.get(it.tool_index, "") + it.parameters
        calls_seen.append([(names[i], json.loads(args.get(i, "{}"))) for i in sorted(names)])
    return time.process_time() - t0, calls_seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--peer-streams", type=int, default=None)
    ap.add_argument("--chunk", type=int, default=4)
    ap.add_argument("--calls", type=int, default=3, help="calls per stream (~2 KB of prose before each)")
    a = ap.parse_args()
    streams = [agentic.stream(seed, calls=a.calls) for seed in range(a.streams)]
    total = sum(len(d) for d, _ in streams)
    expect = [expected_calls(d) for d, _ in streams]
    assert all(len(e) == n for e, (_, n) in zip(expect, streams))
    print(f"{a.streams} streams, {total / a.streams:.0f} bytes and {streams[0][1]} calls each "
          f"({total / 1e6:.1f} MB), {a.chunk}-byte chunks")

    t, seen = run_toolcallkit(streams, a.chunk)
    assert seen == expect, "toolcallkit: wrong calls"
    ours = t / a.streams
    print(f"  toolcallkit (Python Decoder): {t:7.2f} s  {ours * 1e3:8.2f} ms/stream  "
          f"{total / t / 1e6:6.2f} MB/s")

    m = min(a.peer_streams or a.streams, a.streams)
    deltas = [text_chunks(d, a.chunk) for d, _ in streams[:m]]
    torch_stub_needed = True
    for name, fn, package in (("vLLM Hermes2ProToolParser", run_vllm, "vllm"),
                              ("SGLang Qwen25Detector", run_sglang, "sglang")):
        if importlib.util.find_spec(package) is None:
            print(f"  {name}: not installed (make test-adapters installs it)")
            continue
        if torch_stub_needed:
            import torch_stub
            torch_stub.install()
            torch_stub_needed = False
        t, seen = fn(streams[:m], deltas)
        assert seen == expect[:m], f"{name}: wrong calls"
        per = t / m
        note = "" if m == a.streams else f" (measured on {m} streams; {per * a.streams:.0f} s for {a.streams})"
        print(f"  {name}: {t:7.2f} s  {per * 1e3:8.2f} ms/stream  ratio {per / ours:5.1f}x slower{note}")


if __name__ == "__main__":
    main()
