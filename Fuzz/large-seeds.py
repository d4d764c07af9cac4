#!/usr/bin/env python3
"""Large fuzz seeds: the shapes that were once super-linear or unbounded, for every format.

Each seed carries the fuzz header (Sources/ToolCallFuzz/FuzzTarget.swift: format index, option
flags, split point) and a model output of 8-200 KB: escape-heavy string arguments, calls with
thousands of parameters, floods of near-miss markers, lists of small values, quoted openers in
values and deep nesting. `make fuzz-large` runs the fuzzer from them with a large -max_len.

usage: Fuzz/large-seeds.py OUT_DIR
"""
import os, sys

# The order of ToolCallFormat.allCases.
FORMATS = ["json", "lfm2", "xml_function", "glm4", "gemma", "gemma4", "kimi_k2", "minimax_m2", "mistral", "llama3"]
MARKERS = {
    "json": ["<tool_call>", "</tool_call>"], "lfm2": ["<|tool_call_start|>", "<|tool_call_end|>"],
    "xml_function": ["<tool_call>", "<function=", "<parameter=", "</parameter>", "</function>"],
    "glm4": ["<tool_call>", "<arg_key>", "<arg_value>", "</arg_value>"],
    "gemma": ["<start_function_call>", "<escape>", "<end_function_call>"], "gemma4": ["<|tool_call>", '<|"|>', "<tool_call|>"],
    "kimi_k2": ["<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"],
    "minimax_m2": ["<minimax:tool_call>", "<invoke name=", "<parameter name=", "</parameter>", "</invoke>"],
    "mistral": ["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"], "llama3": ["<|python_tag|>", "<|eom_id|>"],
}


def jesc(s):
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def render(fmt, name, args, literal=False):
    """One call with (key, value) arguments in the format's canonical spelling."""
    val = (lambda v: v) if literal else (lambda v: '"%s"' % jesc(v))
    js = "{" + ", ".join('"%s": %s' % (k, val(v)) for k, v in args) + "}"
    if fmt == "json": return '<tool_call>\n{"name": "%s", "arguments": %s}\n</tool_call>' % (name, js)
    if fmt == "lfm2": return "<|tool_call_start|>[%s(%s)]<|tool_call_end|>" % (name, ", ".join("%s=%s" % (k, val(v)) for k, v in args))
    if fmt == "xml_function": return "<tool_call>\n<function=%s>\n%s</function>\n</tool_call>" % (name, "".join("<parameter=%s>\n%s\n</parameter>\n" % (k, v) for k, v in args))
    if fmt == "glm4": return "<tool_call>%s\n%s</tool_call>" % (name, "".join("<arg_key>%s</arg_key>\n<arg_value>%s</arg_value>\n" % (k, v) for k, v in args))
    if fmt == "gemma": return "<start_function_call>call:%s{%s}<end_function_call>" % (name, ",".join("%s:%s" % (k, v if literal else "<escape>%s<escape>" % v) for k, v in args))
    if fmt == "gemma4": return "<|tool_call>call:%s{%s}<tool_call|>" % (name, ",".join('%s:%s' % (k, v if literal else '<|"|>%s<|"|>' % v) for k, v in args))
    if fmt == "kimi_k2": return "<|tool_calls_section_begin|><|tool_call_begin|>functions.%s:0<|tool_call_argument_begin|>%s<|tool_call_end|><|tool_calls_section_end|>" % (name, js)
    if fmt == "minimax_m2": return '<minimax:tool_call>\n<invoke name="%s">\n%s</invoke>\n</minimax:tool_call>' % (name, "".join('<parameter name="%s">%s</parameter>\n' % (k, v) for k, v in args))
    if fmt == "mistral": return "[TOOL_CALLS]%s[ARGS]%s" % (name, js)
    return '<|python_tag|>{"name": "%s", "parameters": %s}' % (name, js)


def shapes(fmt):
    text = "Sure, here it is: a < b and [x] {y}.\n"
    escaped = "".join(("line %d of the file\t\"quoted\"\n" % i) for i in range(600))
    yield "escapes", text + render(fmt, "write", [("s", escaped)])
    yield "many-params", text + render(fmt, "f", [("p%d" % i, "v%d" % i) for i in range(2500)])
    flood = "".join(m[:-1] + "\x7f " for _ in range(400) for m in MARKERS[fmt])
    yield "near-miss", text + flood + render(fmt, "g", [("a", "1")])
    yield "small-values", text + render(fmt, "f", [("c", "[" + ", ".join(str(i % 10) for i in range(8000)) + "]")], literal=True)
    quoted = "".join(MARKERS[fmt]) * 50
    yield "quoted-markers", render(fmt, "write", [("s", quoted)]) + text + render(fmt, "calc", [("a", "2")])
    yield "deep", render(fmt, "f", [("d", "[" * 3000 + "]" * 3000)], literal=True)
    yield "long-text", ("é東🚀 prose <b> [c] {d} " * 3000)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for i, fmt in enumerate(FORMATS):
        for name, body in shapes(fmt):
            data = body.encode()
            half = len(data) // 2
            # flags 0: plain, whole; 0x21: tools, 2-byte chunks; 0x44: a small size cap, 3-byte chunks.
            for flags in (0, 0x21, 0x44):
                header = bytes([i, flags, (half >> 8) & 255, half & 255])
                with open(os.path.join(out, "%s-%s-%d" % (fmt, name, flags)), "wb") as f:
                    f.write(header + data)


if __name__ == "__main__":
    main()
