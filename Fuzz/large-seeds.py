#!/usr/bin/env python3
"""Large fuzz seeds: the shapes that were once super-linear or unbounded, for every format.

Each seed carries the fuzz header (Sources/ToolCallFuzz/FuzzTarget.swift: format index, option
flags, split point) and a model output of 8-200 KB: escape-heavy string arguments, calls with
thousands of parameters, floods of near-miss markers, lists of small values, quoted openers in
values and deep nesting. `make fuzz-large` runs the fuzzer from them with a large -max_len.

usage: Fuzz/large-seeds.py OUT_DIR TOOLCALL_BINARY

The calls are written by each format's own renderer (`toolcall render`) and the markers come
from its declaration (`toolcall formats --json`), so every format, built-in or new, gets seeds.
"""
import os, sys

import json, subprocess

# Placeholders the format's own renderer writes, replaced by the raw shape afterwards: a string
# (written as the format writes strings) and a number (written bare, where a literal goes).
STRING_SLOT = "QQSLOTQQ"
NUMBER_SLOT = 7340033


def declarations(toolcall):
    """Every format's declaration, in the order of ToolCallFormat.allCases."""
    out = subprocess.run([toolcall, "formats", "--json"], capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def render(toolcall, fmt, name, args, literal=False):
    """One call with (key, value) arguments, written by the format's renderer
    (`toolcall render`); each value is put in place of a placeholder afterwards, so values the
    renderer would refuse (quoted markers, nesting past its cap) are seeds too."""
    slots = {}
    arguments = {}
    for i, (k, v) in enumerate(args):
        if literal:
            arguments[k] = NUMBER_SLOT + i
            slots[str(NUMBER_SLOT + i)] = v
        else:
            arguments[k] = "%s%d%s" % (STRING_SLOT, i, STRING_SLOT)
            slots["%s%d%s" % (STRING_SLOT, i, STRING_SLOT)] = v
    calls = json.dumps([{"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}])
    text = subprocess.run([toolcall, "render", "--format", fmt], input=calls, capture_output=True, text=True, check=True).stdout
    for slot, v in sorted(slots.items(), key=lambda kv: -len(kv[0])):
        text = place(text, slot, v, literal)
    return text


def place(text, slot, v, literal):
    """`v` in place of `slot`, escaped as the string around the slot needs."""
    if literal:
        return text.replace(slot, v)
    if '"' + slot + '"' in text:  # a JSON string
        return text.replace(slot, json.dumps(v)[1:-1])
    if "'" + slot + "'" in text:  # a single-quoted Python string
        return text.replace(slot, v.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t"))
    return text.replace(slot, v)  # a text value, or a string between delimiters


def shapes(toolcall, fmt, markers):
    text = "Sure, here it is: a < b and [x] {y}.\n"
    escaped = "".join(("line %d of the file\t\"quoted\"\n" % i) for i in range(600))
    yield "escapes", text + render(toolcall, fmt, "write", [("s", escaped)])
    yield "many-params", text + render(toolcall, fmt, "f", [("p%d" % i, "v%d" % i) for i in range(2500)])
    flood = "".join(m[:-1] + "\x7f " for _ in range(400) for m in markers)
    yield "near-miss", text + flood + render(toolcall, fmt, "g", [("a", "1")])
    yield "small-values", text + render(toolcall, fmt, "f", [("c", "[" + ", ".join(str(i % 10) for i in range(8000)) + "]")], literal=True)
    quoted = "".join(markers) * 50
    yield "quoted-markers", render(toolcall, fmt, "write", [("s", quoted)]) + text + render(toolcall, fmt, "calc", [("a", "2")])
    yield "deep", render(toolcall, fmt, "f", [("d", "[" * 3000 + "]" * 3000)], literal=True)
    yield "long-text", ("é東🚀 prose <b> [c] {d} " * 3000)


def main():
    out, toolcall = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for i, d in enumerate(declarations(toolcall)):
        fmt = d["name"]
        markers = [m for m in d["markers"] + d["fuzz_words"] if len(m) > 1]
        for name, body in shapes(toolcall, fmt, markers):
            data = body.encode()
            half = len(data) // 2
            # flags 0: plain, whole; 0x21: tools, 2-byte chunks; 0x44: a small size cap, 3-byte chunks.
            for flags in (0, 0x21, 0x44):
                header = bytes([i, flags, (half >> 8) & 255, half & 255])
                with open(os.path.join(out, "%s-%s-%d" % (fmt, name, flags)), "wb") as f:
                    f.write(header + data)


if __name__ == "__main__":
    main()
