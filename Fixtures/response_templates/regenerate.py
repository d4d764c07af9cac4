#!/usr/bin/env python3
"""Fills in the expectations of cases.json with what transformers' response parser returns.

usage: python regenerate.py            (a Python with transformers 5.23 or later installed;
                                        torch is not needed)

For each case it runs `transformers.utils.chat_parsing.parse_response` on the input (with the
case's prefix and tools) and stores the message as `expected`; when the parser raises, it stores
null and the exception's first line as `expected_error`. It also stores `expected_streamed`: the
text, reasoning and tool calls read from the streaming parser's region_close events, because a
field that does not repeat keeps only its last value in the message while every region streams
(the tests accept either view for text and reasoning, as ToolCallKit streams every region).
The Swift tests read the file and need no Python.
"""
import json
import os

from transformers.utils.chat_parsing import ResponseParser, parse_response

HERE = os.path.dirname(os.path.abspath(__file__))
REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


def streamed_view(template, text, prefix, tools):
    parser = ResponseParser(template, prefix=prefix or "", tools=tools)
    events = list(parser.initial_events) + parser.feed(text)
    _, final = parser.finalize()
    events += final
    key = next((k for k in REASONING_KEYS if k in template["fields"]), None)
    content, reasoning, calls = [], [], []
    for e in events:
        if e["type"] != "region_close":
            continue
        v = e["value"]
        if e["field"] == "content" and isinstance(v, str):
            content.append(v)
        elif key and e["field"] == key and isinstance(v, str):
            reasoning.append(v)
        elif e["field"] == "tool_calls":
            calls += v if isinstance(v, list) else [v]
    return {"content": "".join(content), "reasoning": "".join(reasoning), "tool_calls": calls}


def main():
    path = os.path.join(HERE, "cases.json")
    cases = json.load(open(path, encoding="utf-8"))
    for c in cases:
        template = json.load(open(os.path.join(HERE, "templates", c["template"]), encoding="utf-8"))
        c.pop("expected_error", None)
        c.pop("expected_streamed", None)
        try:
            c["expected"] = parse_response(c["input"], template, prefix=c.get("prefix") or "", tools=c.get("tools"))
            c["expected_streamed"] = streamed_view(template, c["input"], c.get("prefix"), c.get("tools"))
        except Exception as e:  # the parser's errors are the expectation
            c["expected"] = None
            c["expected_error"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(cases)} cases, {sum(c['expected'] is None for c in cases)} where the parser raises")


if __name__ == "__main__":
    main()
