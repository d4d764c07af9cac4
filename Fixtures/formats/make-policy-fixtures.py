#!/usr/bin/env python3
"""Writes Fixtures/formats/<format>/policy-*.txt and .expected.json: the decoder's tool_choice and
parallel_tool_calls policy (reasons tool_not_chosen, parallel_tool_call, no_tool_call).

The inputs are written by `toolcall render` (TOOLCALL, default .build/debug/toolcall); the
expected calls and rejections are written here by hand; the text events around them are those
of the input decoded without a policy. Run: python3 Fixtures/formats/make-policy-fixtures.py"""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.abspath(__file__))
TOOLCALL = os.environ.get("TOOLCALL", os.path.join(ROOT, "..", "..", ".build", "debug", "toolcall"))
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
EVENT = {"type": "function", "function": {"name": "create_event", "parameters": {
    "type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}}
TOOLS = [WEATHER, EVENT]
W = ("get_weather", {"city": "Paris"})
E = ("create_event", {"title": "Standup"})
TEXT = "Let me see."
NAMED = {"type": "function", "function": {"name": "get_weather"}}
ALLOWED = {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "get_weather"}}]}}


def call(name, args):
    return {"type": "tool_call", "name": name, "arguments": args}


def rejected(reason, name=None):
    e = {"type": "rejected", "reason": reason}
    if name:
        e["name"] = name
    return e


# name: (description, options, calls, text, expected calls and rejections)
CASES = {
    "policy-required-no-call": (
        "tool_choice required and only text: the end is preceded by a bytes-less no_tool_call rejection.",
        {"tool_choice": "required"}, [], "No tool is needed for that.",
        [rejected("no_tool_call")]),
    "policy-named-other-tool": (
        "tool_choice names get_weather: a create_event call is refused as tool_not_chosen before it starts, "
        "and, no call being accepted, no_tool_call comes before the end.",
        {"tool_choice": NAMED}, [E], TEXT,
        [rejected("tool_not_chosen", "create_event"), rejected("no_tool_call")]),
    "policy-none-any-call": (
        "tool_choice none: any call is refused as tool_not_chosen; none is required, so no no_tool_call.",
        {"tool_choice": "none"}, [W], TEXT,
        [rejected("tool_not_chosen", "get_weather")]),
    "policy-single-second-call": (
        "parallel_tool_calls false: the first call is accepted, the second is refused as parallel_tool_call.",
        {"parallel_tool_calls": False}, [W, E], TEXT,
        [call(*W), rejected("parallel_tool_call", "create_event")]),
    "policy-allowed-tools-auto": (
        "allowed_tools (mode auto) with get_weather only: create_event is refused, the get_weather call after it "
        "is accepted with index 0, and nothing is required.",
        {"tool_choice": ALLOWED}, [E, W], TEXT,
        [rejected("tool_not_chosen", "create_event"), dict(call(*W), index=0)]),
    "policy-single-refused-first": (
        "parallel_tool_calls false counts accepted calls: a refused first call (not chosen) leaves the second free.",
        {"tool_choice": ALLOWED, "parallel_tool_calls": False}, [E, W, W], TEXT,
        [rejected("tool_not_chosen", "create_event"), dict(call(*W), index=0), rejected("parallel_tool_call", "get_weather")]),
}

FORMATS = ["json", "kimi_k2", "mistral", "xml_function", "lfm2", "deepseek_v31", "gemma4"]


def render(fmt, calls, text):
    body = [{"type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for n, a in calls]
    cmd = [TOOLCALL, "render", "--format", fmt] + (["--text", text] if text else [])
    return subprocess.run(cmd, input=json.dumps(body).encode(), capture_output=True, check=True).stdout


def with_text(fmt, data, expected):
    """The expected calls and rejections with the text events around them: the input decoded
    without a policy gives the text (which does not depend on one) and one accepted call per
    rendered call, each of which stands for the next expected entry; what is left (no_tool_call)
    comes last."""
    p = subprocess.run([TOOLCALL, "decode", "--format", fmt], input=data, capture_output=True, check=True)
    events = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    out, rest = [], list(expected)
    for e in events:
        if e["type"] == "text":
            if out and out[-1]["type"] == "text":
                out[-1]["text"] += e["text"]
            else:
                out.append({"type": "text", "text": e["text"]})
        elif e["type"] == "tool_call":
            out.append(rest.pop(0))
        elif e["type"] not in ("tool_call_start", "tool_call_delta", "end"):
            raise SystemExit(f"{fmt}: unexpected {e}")
    return out + rest


def main():
    for fmt in FORMATS:
        for name, (description, options, calls, text, expected) in CASES.items():
            data = render(fmt, calls, text)
            accepted = sum(e["type"] == "tool_call" for e in expected)
            events = with_text(fmt, data, expected) + [
                {"type": "end", "tool_calls": accepted, "rejected": len(expected) - accepted}]
            doc = {"description": description, "tools": TOOLS, "options": options, "events": events}
            base = os.path.join(ROOT, fmt, name)
            with open(base + ".txt", "wb") as f:
                f.write(data)
            with open(base + ".expected.json", "w") as f:
                json.dump(doc, f, indent=2, ensure_ascii=False)
                f.write("\n")


if __name__ == "__main__":
    main()
