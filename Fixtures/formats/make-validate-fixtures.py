#!/usr/bin/env python3
"""Writes Fixtures/formats/<format>/validate-*.txt and .expected.json (the --validate fixtures).

The expected events and details are written here by hand; add a renderer to call() for a new
format and list it at the bottom. Run from anywhere: python3 Fixtures/formats/make-validate-fixtures.py"""
import json, os
ROOT = os.path.dirname(os.path.abspath(__file__))
FLIGHTS = {"type": "function", "function": {"name": "search_flights", "parameters": {
    "type": "object",
    "properties": {
        "origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "destination": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
        "cabin": {"type": "string", "enum": ["economy", "business", "first"]},
        "flexible": {"type": "boolean"}},
    "required": ["origin", "destination"], "additionalProperties": False}}}
ALARM = {"type": "function", "function": {"name": "set_alarm", "parameters": {
    "type": "object",
    "properties": {
        "time": {"$ref": "#/$defs/hhmm"},
        "days": {"type": "array", "items": {"enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
                 "uniqueItems": True, "minItems": 1},
        "label": {"type": "string", "maxLength": 20}},
    "required": ["time"],
    "$defs": {"hhmm": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"}}}}}
TOOLS = [FLIGHTS, ALARM]

GOOD = ("search_flights", {"origin": "SFO", "destination": "NRT", "passengers": 2, "cabin": "business"})
BAD = ("search_flights", {"origin": "sfo", "destination": "NRT", "passengers": 12, "cabin": "premium", "pets": True})
BAD_DETAIL = "\n".join([
    '/origin: expected a string matching /^[A-Z]{3}$/, found "sfo"',
    '/passengers: expected at most 9, found 12',
    '/cabin: expected one of ["economy", "business", "first"], found "premium"',
    '/pets: expected no such property (declared: origin, destination, passengers, cabin, flexible), found true'])
ALARM_BAD = ("set_alarm", {"time": "24:00", "days": ["mon", "fri", "mon"], "label": "a very long label, é!"})
ALARM_BAD_DETAIL = "\n".join([
    '/time: expected a string matching /^([01][0-9]|2[0-3]):[0-5][0-9]$/, found "24:00"',
    '/days/2: expected a unique item (item 0 is the same), found "mon"',
    '/label: expected at most 20 characters, found "a very long label, é!"'])
ALARM_MISSING = ("set_alarm", {"days": []})
ALARM_MISSING_DETAIL = "\n".join([
    '/days: expected at least 1 item, found []',
    '/time: expected a value (the property is required), found nothing'])
ALARM_GOOD = ("set_alarm", {"time": "07:30", "days": ["mon", "tue"], "label": "réveil ⏰"})

def jtext(v):
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)

def call(fmt, c):
    name, args = c
    a = json.dumps(args, ensure_ascii=False)
    if fmt == "json":
        return '<tool_call>\n{"name": "%s", "arguments": %s}\n</tool_call>' % (name, a)
    if fmt == "mistral":
        return '[TOOL_CALLS]%s[ARGS]%s' % (name, a)
    if fmt == "llama3":
        return '<|python_tag|>{"name": "%s", "parameters": %s}' % (name, a)
    if fmt == "xml_function":
        ps = "".join("<parameter=%s>\n%s\n</parameter>\n" % (k, jtext(v)) for k, v in args.items())
        return "<tool_call>\n<function=%s>\n%s</function>\n</tool_call>" % (name, ps)
    if fmt == "glm4":
        ps = "".join("<arg_key>%s</arg_key>\n<arg_value>%s</arg_value>\n" % (k, jtext(v)) for k, v in args.items())
        return "<tool_call>%s\n%s</tool_call>" % (name, ps)
    if fmt == "minimax_m2":
        ps = "".join('<parameter name="%s">%s</parameter>\n' % (k, jtext(v)) for k, v in args.items())
        return '<minimax:tool_call>\n<invoke name="%s">\n%s</invoke>\n</minimax:tool_call>' % (name, ps)
    return more_calls(fmt, name, args)

def py(v):
    """A Python literal (lfm2)."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, list):
        return "[" + ", ".join(py(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (json.dumps(k), py(x)) for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=False)

def gemma_value(v, q):
    """A Gemma value with string delimiter q."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return q + v + q
    if isinstance(v, list):
        return "[" + ",".join(gemma_value(x, q) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join("%s:%s" % (k, gemma_value(x, q)) for k, x in v.items()) + "}"
    return json.dumps(v)

KIMI_INDEX = [0]

def more_calls(fmt, name, args):
    if fmt == "lfm2":
        return "<|tool_call_start|>[%s(%s)]<|tool_call_end|>" % (name, ", ".join("%s=%s" % (k, py(v)) for k, v in args.items()))
    if fmt == "gemma":
        return "<start_function_call>call:%s{%s}<end_function_call>" % (name, ",".join("%s:%s" % (k, gemma_value(v, "<escape>")) for k, v in args.items()))
    if fmt == "gemma4":
        return "<|tool_call>call:%s{%s}<tool_call|>" % (name, ",".join("%s:%s" % (k, gemma_value(v, '<|"|>')) for k, v in args.items()))
    if fmt == "kimi_k2":
        KIMI_INDEX[0] += 1
        return ("<|tool_calls_section_begin|><|tool_call_begin|>functions.%s:%d<|tool_call_argument_begin|>%s"
                "<|tool_call_end|><|tool_calls_section_end|>") % (name, KIMI_INDEX[0], json.dumps(args, ensure_ascii=False))

def ok(c, index):
    return {"type": "tool_call", "name": c[0], "arguments": c[1], "index": index}

def rej(c, index, detail):
    return {"type": "rejected", "reason": "invalid_arguments", "name": c[0], "index": index, "detail": detail}

def write(fmt, name, desc, text, events, validate=True):
    d = os.path.join(ROOT, fmt)
    with open(os.path.join(d, name + ".txt"), "w") as f:
        f.write(text)
    calls = sum(1 for e in events if e["type"] == "tool_call")
    rejected = sum(1 for e in events if e["type"] == "rejected")
    exp = {"description": desc, "tools": TOOLS, "options": {"validate": validate},
           "events": events + [{"type": "end", "tool_calls": calls, "rejected": rejected}]}
    with open(os.path.join(d, name + ".expected.json"), "w") as f:
        json.dump(exp, f, indent=1, ensure_ascii=False)
        f.write("\n")

for fmt in ["json", "mistral", "llama3", "xml_function", "glm4", "minimax_m2", "lfm2", "gemma", "gemma4", "kimi_k2"]:
    # llama3 calls count only at the start or after <|python_tag|>; mistral has no end marker,
    # so the text before the first call only.
    lead = "Checking flights. " if fmt not in ("llama3",) else ""
    write(fmt, "validate-valid", "--validate: a call that fits its schema is accepted unchanged",
          lead + call(fmt, GOOD), ([{"type": "text", "text": lead}] if lead else []) + [ok(GOOD, 0)])
    write(fmt, "validate-violations", "--validate: every violation of a call is one line of detail; the next call is judged on its own",
          call(fmt, BAD) + ("" if fmt in ("mistral", "llama3") else "\n") + call(fmt, GOOD),
          [rej(BAD, 0, BAD_DETAIL)] + ([] if fmt in ("mistral", "llama3") else [{"type": "text", "text": "\n"}]) + [ok(GOOD, 1)])
    write(fmt, "validate-ref-pattern", "--validate: a $ref'd pattern, uniqueItems and maxLength in Unicode scalars",
          call(fmt, ALARM_BAD), [rej(ALARM_BAD, 0, ALARM_BAD_DETAIL)])
    write(fmt, "validate-required", "--validate: a missing required property and too few items",
          call(fmt, ALARM_MISSING) + ("" if fmt in ("mistral", "llama3") else " ") + call(fmt, ALARM_GOOD),
          [rej(ALARM_MISSING, 0, ALARM_MISSING_DETAIL)] + ([] if fmt in ("mistral", "llama3") else [{"type": "text", "text": " "}]) + [ok(ALARM_GOOD, 1)])
    write(fmt, "validate-off", "without validate the same call is accepted as written (behaviour unchanged)",
          call(fmt, BAD), [ok(BAD, 0)], validate=False)
