"""Cases and checks shared by the grammar tests and `make grammar-fuzz`.

Every valid case is written by `toolcall render`; invalid ones are rendered from invalid calls
or cut from rendered text. A walk's output is decoded by the same decoder a server runs, with
`validate`, `tool_choice` and `parallel_tool_calls`, and must give accepted calls only, no
rejection, and no markup in its text.
"""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FIXTURES = os.path.join(ROOT, "Fixtures", "grammar")
TOOLCALL = os.environ.get("TOOLCALL_BIN", os.path.join(ROOT, ".build", "debug", "toolcall"))
TOOLSETS = {name: os.path.join(FIXTURES, f"{name}.tools.json") for name in ("weather", "mixed", "patterns")}
TARGETS = ["xgrammar", "lark", "gbnf"]
# (tool_choice, parallel_tool_calls)
POLICIES = [("auto", True), ("auto", False), ("required", True), ("required", False), ("none", True), ("get_weather", True)]


def formats():
    out = subprocess.run([TOOLCALL, "formats"], capture_output=True, text=True, check=True).stdout
    return [line.split("\t")[0] for line in out.splitlines() if line.strip()]


_MARKERS = {}


def markers():
    """Every format's markers (start and stray) and reasoning markers."""
    if _MARKERS:
        return _MARKERS
    out = subprocess.run([TOOLCALL, "formats", "--json"], capture_output=True, text=True, check=True).stdout
    _MARKERS.update({d["name"]: d["markers"] for d in map(json.loads, out.splitlines())})
    return _MARKERS


_GRAMMARS = {}
_TOOLS = {}


def library():
    """The Python package over the C library when TOOLCALLKIT_LIBRARY names one (in-process
    grammars and decoders), else None (the CLI)."""
    if not os.environ.get("TOOLCALLKIT_LIBRARY"):
        return None
    try:
        import toolcallkit
    except ImportError:
        return None
    return toolcallkit


def tools_json(tools):
    if tools not in _TOOLS:
        with open(TOOLSETS[tools]) as f:
            _TOOLS[tools] = json.load(f)
    return _TOOLS[tools]


def grammar(fmt, tools, target, choice="auto", parallel=True, extra=()):
    """The grammar's text and its report lines (cached: the tests ask for the same ones)."""
    key = (fmt, tools, target, choice, parallel, tuple(extra))
    if key not in _GRAMMARS:
        _GRAMMARS[key] = _grammar(fmt, tools, target, choice, parallel, extra)
    return _GRAMMARS[key]


def _grammar(fmt, tools, target, choice, parallel, extra):
    lib = library()
    if lib is not None and not extra:
        g = lib.grammar(fmt, tools_json(tools), tool_choice=choice, parallel_tool_calls=parallel, target=target)
        return g["grammar"] + "\n", g["report"]
    p = subprocess.run(
        [TOOLCALL, "grammar", "--format", fmt, "--tools", TOOLSETS[tools], "--target", target,
         "--tool-choice", choice, "--parallel-tool-calls", "true" if parallel else "false", *extra],
        capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    report = [l for l in p.stderr.splitlines() if "not enforced" in l]
    return p.stdout, report


def walk_literals(fmt, tools, choice, parallel):
    """The literals of the policy's grammar (from its GBNF text, which spells every one): what
    a walk types to steer to an end (backends.grammar_literals)."""
    import backends
    lits = backends.grammar_literals(grammar(fmt, tools, "gbnf", choice, parallel)[0])
    # The format's markers weigh more: they are what starts a call.
    return lits + [m for m in markers()[fmt] if m in lits] * 8


def call(name, args, id=None):
    c = {"type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
    if id:
        c["id"] = id
    return c


_RENDERED = {}


def render(fmt, calls, text=None):
    key = (fmt, json.dumps(calls), text)
    if key not in _RENDERED:
        cmd = [TOOLCALL, "render", "--format", fmt] + (["--text", text] if text is not None else [])
        p = subprocess.run(cmd, input=json.dumps(calls).encode(), capture_output=True)
        assert p.returncode == 0, p.stderr.decode()
        _RENDERED[key] = p.stdout
    return _RENDERED[key]


W_MIN = call("get_weather", {"city": "Paris", "unit": "celsius"})
W_FULL = call("get_weather", {"city": "Zürich", "unit": "fahrenheit", "days": 14}, id="a1B2c3D4e")
W_TOKYO = call("get_weather", {"city": "東京", "unit": "celsius", "days": 1})
E_MIN = call("create_event", {"title": "Standup", "attendees": ["ana"]})
E_FULL = call("create_event", {"title": "Q3 review", "attendees": ["ana", "bo", "chen", "dee", "eli"],
                               "location": {"name": "HQ", "floor": 0}, "priority": "high"})
E_ESC = call("create_event", {"title": "Say \"hi\" \\ then\nleave now & {go}", "attendees": ["x"],
                              "location": {"name": "Room \"7\"", "floor": 200}})
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ".split()
E_BIG = call("create_event", {"title": " ".join(WORDS[i % len(WORDS)] for i in range(1700))[:10000],
                              "attendees": ["ana", "bo"], "priority": "low"})
TEXT = "Let me check that for you."

INVALID = [
    ("undeclared_tool", call("get_time", {"city": "Paris"})),
    ("enum", call("get_weather", {"city": "Paris", "unit": "kelvin"})),
    ("integer_bound", call("get_weather", {"city": "Paris", "unit": "celsius", "days": 15})),
    ("missing_required", call("get_weather", {"city": "Paris"})),
    ("additional_property", call("get_weather", {"city": "Paris", "unit": "celsius", "country": "FR"})),
    ("wrong_type", call("get_weather", {"city": "Paris", "unit": "celsius", "days": "three"})),
    ("nested_missing_required", call("create_event", {"title": "T", "attendees": ["a"], "location": {"floor": 3}})),
    ("min_items", call("create_event", {"title": "T", "attendees": []})),
    ("empty_required_string", call("get_weather", {"city": "", "unit": "celsius"})),
]


def cases(fmt, choice, parallel):
    """(id, expect, bytes) for the weather tools under one policy."""
    r = lambda calls, text=TEXT: render(fmt, calls, text)
    out = []
    calls_allowed = choice != "none"
    named = choice not in ("auto", "required", "none")
    first_text = choice == "auto"
    one = [W_MIN]
    # Valid outputs for the policy.
    if choice == "auto":
        out.append(("text_only", "accept", "I can answer without a tool: it is sunny in Paris.".encode()))
        out.append(("one_call_after_text", "accept", r([W_FULL])))
        out.append(("unicode", "accept", r([W_TOKYO], "Je vérifie… 東京の天気 🌤")))
        out.append(("escapes", "accept", r([E_ESC])))
        out.append(("event_full", "accept", r([E_FULL])))
        if parallel:
            out.append(("two_calls", "accept", r([W_MIN, E_MIN])))
            out.append(("three_calls", "accept", r([W_FULL, call("get_weather", {"city": "Oslo", "unit": "celsius"}), E_MIN])))
            out.append(("big_10kb", "accept", r([E_BIG])))
        else:
            out.append(("second_call", "reject", r([W_MIN, E_MIN])))
    elif choice == "none":
        out.append(("text_only", "accept", "No tool needed.".encode()))
        out.append(("any_call", "reject", r([W_MIN])))
        out.append(("call_first", "reject", r([W_MIN], None)))
    else:
        out.append(("no_call", "reject", "No tool needed.".encode()))
        out.append(("empty", "reject", b""))
        out.append(("one_call", "accept", r([W_MIN], None)))
        out.append(("unicode_call", "accept", r([W_TOKYO], None)))
        if parallel:
            out.append(("two_calls", "accept", r([W_MIN, W_TOKYO], None)))
        else:
            out.append(("second_call", "reject", r([W_MIN, W_TOKYO], None)))
        if named:
            out.append(("other_tool", "reject", r([E_MIN], None)))
    if calls_allowed:
        text = TEXT if first_text else None
        for name, c in INVALID:
            out.append((name, "reject", r([c], text)))
        good = r(one, text)
        out.append(("truncated", "reject", good[: good.index(b"celsius") + 3]))
        broken = broken_marker(fmt, good)
        if broken is not None:
            out.append(("broken_marker", "reject", broken))
        # The format's first start marker followed by what is no call: in text after a call
        # (or in the first text for auto), it must not pass as text.
        stray = markers()[fmt][0].encode() + b"oops"
        if choice == "auto":
            out.append(("stray_marker_in_text", "reject", TEXT.encode() + b" " + stray))
        if parallel and choice != "none":
            out.append(("stray_marker_after_call", "reject", r(one, text) + b" " + stray))
        smuggled = smuggle(fmt, good)
        if smuggled is not None:
            out.append(("smuggled_close_tag", "reject", smuggled))
    return out


def pattern_cases(fmt):
    """(id, expect, bytes) for the patterns tools (tool_choice required, one call), from
    Fixtures/grammar/pattern-cases.json (the Swift tests read it too)."""
    with open(os.path.join(FIXTURES, "pattern-cases.json")) as f:
        doc = json.load(f)
    return [(c["name"], c["expect"], render(fmt, [call(doc["tool"], c["arguments"])], None)) for c in doc["cases"]]


def broken_marker(fmt, text):
    """The rendered call with its first structural tag misspelt (text that is not a call)."""
    for old, new in [(b"</tool_call>", b"</tool_cal>"), (b"[ARGS]", b"[ARG]"), (b"<parameter=", b"<parametr="),
                     (b"</arg_key>", b"</arg_ke>"), (b'<invoke name="', b'<invok name="'), (b"<|tool_call_argument_begin|>", b"<|tool_call_arg|>"),
                     (b"<|channel|>", b"<|chanel|>"), (b"\"parameters\"", b"\"paramters\""), (b"\"arguments\"", b"\"argumets\""),
                     (b"call:", b"cal:"), (b"<\xef\xbd\x9ctool\xe2\x96\x81sep\xef\xbd\x9c>", b"<\xef\xbd\x9ctool\xe2\x96\x81se\xef\xbd\x9c>"),
                     (b"argument key=", b"argumnt key="), (b"(city=", b"(city:")]:
        if old in text:
            return text.replace(old, new, 1)
    return None


def smuggle(fmt, text):
    """A tagged format's city value holding its own close tag and another parameter."""
    pairs = {
        "xml_function": (b"Paris\n</parameter>", b"Paris\n</parameter>\n<parameter=unit>\nkelvin\n</parameter>"),
        "seed_oss": (b"Paris</parameter>", b"Paris</parameter>\n<parameter=unit>kelvin</parameter>"),
        "minimax_m2": (b"Paris</parameter>", b"Paris</parameter>\n<parameter name=\"unit\">kelvin</parameter>"),
        "glm4": (b"Paris</arg_value>", b"Paris</arg_value>\n<arg_key>unit</arg_key>\n<arg_value>kelvin</arg_value>"),
    }
    if fmt in pairs and pairs[fmt][0] in text:
        a, b = pairs[fmt]
        return text.replace(a, b, 1)
    return None


class Decoder:
    """`toolcall decode` of whole outputs: the Python package when its library is there, else the CLI."""

    def __init__(self, fmt, tools, choice, parallel, extra=None):
        self.fmt, self.tools_path, self.choice, self.parallel = fmt, TOOLSETS[tools], choice, parallel
        self.extra = extra or {}
        self.lib = library()
        if self.lib is not None:
            self.tools = tools_json(tools)

    def events(self, data):
        if self.lib is not None:
            d = self.lib.Decoder(format=self.fmt, tools=self.tools, validate=True, tool_choice=self.choice,
                                 parallel_tool_calls=self.parallel, **self.extra)
            return d.feed(data) + d.finish()
        cmd = [TOOLCALL, "decode", "--format", self.fmt, "--tools", self.tools_path, "--validate",
               "--tool-choice", self.choice, "--parallel-tool-calls", "true" if self.parallel else "false"]
        for k, v in self.extra.items():
            if v is True:
                cmd.append("--" + k.replace("_", "-"))
        p = subprocess.run(cmd, input=data, capture_output=True, check=True)
        return [json.loads(l) for l in p.stdout.decode().split("\n") if l.strip()]


def valid_utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def verdict(events, markup, choice):
    """Why a walk's decoding is not clean (None when it is)."""
    calls = [e for e in events if e["type"] == "tool_call"]
    rejected = [e for e in events if e["type"] == "rejected"]
    if rejected:
        return "rejected: " + "; ".join(f"{e['reason']}: {e.get('detail', '')[:160]}" for e in rejected)
    text = "".join(e["text"] for e in events if e["type"] == "text")
    for m in markup:
        if m and m in text and len(m) > 1:
            return f"markup {m!r} in text"
    if any(e["type"] == "markup" for e in events):
        return "a markup event"
    if choice == "none" and calls:
        return "a call under tool_choice none"
    return None
