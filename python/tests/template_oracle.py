"""Model chat templates as the oracle of the wire format.

A model is trained on what its chat template writes for an assistant message with tool calls,
so the template is the specification of what the model emits. This module renders such
messages through a template the way transformers' ``apply_chat_template`` does (jinja2 with
the same environment), cuts the assistant's part out of the conversation, and describes what a
decoder must give back. ``test_chat_templates.py`` runs it over ``Fixtures/models``.
"""
import datetime
import json
import random

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

# Dates reach only system prompts; a fixed one keeps the renders reproducible.
TODAY = datetime.datetime(2025, 1, 15, 12, 0, 0)


class _GenerationTag(jinja2.ext.Extension):
    """transformers' ``{% generation %}...{% endgeneration %}``: the body is rendered as is."""

    tags = {"generation"}

    def parse(self, parser):
        line = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(line)

    def _body(self, caller):
        return caller()


def _raise(message):
    raise jinja2.exceptions.TemplateError(message)


def _tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers' filter; a generator (what `map` gives) is written as a list.
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys, default=lambda o: list(o) if hasattr(o, "__next__") else str(o))


def environment():
    """jinja2 configured as transformers configures it for chat templates."""
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[_GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: TODAY.strftime(fmt)
    return env


# Tokens that end a turn: one of them (and white space after it) is taken off the end of the
# assistant's part. Harmony's <|call|> ends a call, not the turn, and is kept.
END_OF_TURN = ["<|im_end|>", "<|eot_id|>", "<|eom_id|>", "</s>", "<|end_of_text|>", "<｜end▁of▁sentence｜>",
               "<end_of_turn>", "<turn|>", "<|END_OF_TURN_TOKEN|>", "<|end_of_msg|>", "<seed:eos>", "<|return|>",
               "<|end|>", "<|endoftext|>", "<eos>", "<|user|>", "<|observation|>", "〈|EOS|〉", "<|role_end|>",
               "<｜hy_eos:opensource｜>", "<|ifm|im_end|>", "<|message_sep|>", "</assistant>"]

# What a generation prompt may end with when it leaves the model inside reasoning.
REASONING_OPENERS = ["<think>", "<|open|>think<|sep|>", "<seed:think>", "<|START_THINKING|>", "<mm:think>", "<think:opensource>",
                     "<ifm|think>"]


def special_tokens(template):
    """(bos, eos) for a template, told by the markers it uses."""
    for marker, bos, eos in [
        ("[INST]", "<s>", "</s>"), ("[TOOL_CALLS]", "<s>", "</s>"),
        ("<｜", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
        ("<|start_header_id|>", "<|begin_of_text|>", "<|eot_id|>"),
        ("<|turn>", "<bos>", "<eos>"), ("<start_of_turn>", "<bos>", "<eos>"),
        ("<|START_OF_TURN_TOKEN|>", "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>"),
        ("<|im_start|>", "", "<|im_end|>"),
    ]:
        if marker in template:
            return bos, eos
    return "", "</s>"


# ---------------------------------------------------------------------------------------------
# Cases: the calls that go in.
# ---------------------------------------------------------------------------------------------

def _case(name, calls, content=""):
    return {"name": name, "content": content, "calls": [{"name": n, "arguments": a} for n, a in calls]}


def written_cases():
    """Calls chosen for what they exercise: nesting, unicode, quotes, backslashes, newlines at
    the edges of strings, markup characters in strings, empty containers, null, parallel
    calls, empty arguments, text before the calls."""
    return [
        _case("one-call", [("get_weather", {"city": "Paris"})]),
        _case("text-then-call", [("get_weather", {"city": "Lyon", "unit": "celsius"})], "I will look it up."),
        _case("two-calls", [("get_weather", {"city": "Oslo"}), ("get_time", {"zone": "Europe/Oslo"})]),
        _case("three-calls-one-empty", [("get_weather", {"city": "Zürich"}), ("get_time", {}),
                                        ("search_web", {"query": "a < b", "limit": 5})]),
        _case("text-and-two-calls", [("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"})],
              "Reading both files."),
        _case("nested", [("create_event", {"title": "Launch", "place": {"city": "Oslo", "zip": "0150",
                                                                      "geo": {"lat": 59.91, "lon": 10.75}},
                                           "tags": ["x", "y"], "people": [{"name": "Ann", "age": 30}]})]),
        _case("deep", [("update_record", {"config": {"a": {"b": {"c": [1, {"d": "e"}]}}}})]),
        _case("numbers", [("calculate", {"i": 42, "neg": -7, "f": 3.25, "big": 12345678901234, "zero": 0,
                                         "tiny": 2.5e-07, "whole": 4.0})]),
        _case("booleans-and-null", [("update_record", {"on": True, "off": False, "none": None})]),
        _case("unicode", [("translate_text", {"text": "naïve café — 東京 😀", "to": "日本語"})]),
        _case("quotes", [("send_email", {"subject": 'say "hi"', "body": "it's 'fine'"})]),
        _case("backslashes", [("read_file", {"path": "C:\\Users\\me\\file.txt", "pattern": "\\d+\\.\\w*"})]),
        _case("backslash-n-is-not-a-newline", [("run_command", {"cmd": "printf '\\n is not a newline'"})]),
        _case("newlines-tabs", [("write_file", {"path": "a.py", "content": "def f():\n    return 1\n\nf()",
                                                "crlf": "a\r\nb", "tab": "a\tb"})]),
        _case("newline-at-both-edges", [("write_file", {"path": "x.txt", "content": "\nfirst and last\n"})]),
        _case("file-ending-in-newline", [("write_file", {"path": "f.py", "content": "def f(x):\n    return x * 2\n"})]),
        _case("angle-brackets", [("write_file", {"path": "i.html", "content": '<p class="x">a < b > c</p>',
                                                 "cmp": "x<y"})]),
        _case("braces-and-brackets", [("run_command", {"template": "{name} {{x}} }", "json_like": '{"a": 1}',
                                                       "list_like": "[not, a, list]"})]),
        _case("strings-that-look-typed", [("update_record", {"num": "123", "neg": "-4.5", "bool": "true",
                                                             "null": "null", "arr": "[1, 2]"})]),
        _case("empty-and-padded-strings", [("send_email", {"subject": "", "body": "  padded  "})]),
        _case("empty-containers", [("update_record", {"obj": {}, "arr": []})]),
        _case("mixed-array", [("list_items", {"items": [1, "two", 3.5, True, None, {"k": "v"}, [1]]})]),
        _case("no-arguments", [("get_time", {})]),
    ]


_NAMES = ["get_weather", "search_web", "read_file", "write_file", "create_event", "send_email", "run_command",
          "lookup_user", "calculate", "translate_text", "list_items", "update_record"]
_KEYS = ["city", "query", "count", "limit", "path", "content", "options", "filters", "enabled", "tags", "items",
         "user_id", "price", "note", "mode", "data", "config", "value", "title", "body", "unit", "ratio"]
_STRINGS = ["Paris", "hello world", "naïve café", "東京タワー", "🚀 launch", 'say "hi"', "it's fine",
            "back\\slash", "C:\\tmp\\new", "line1\nline2", "tab\there", "a < b > c", "<b>bold</b>", "{braces}",
            '{"k": 1}', "[1, 2]", "123", "-4.5", "true", "null", "None", "", "  padded  ", "50% off", "a&b",
            "trailing newline\n", "\nleading newline", "crlf\r\nline", "ünïcödé ∑ ≠ ∞", "\\n stays",
            "quote ' and \" both", "SELECT * FROM t WHERE a > 1;", "{{x}}", "Zürich", "a\\\"b", "</tag>"]


def _value(rng, depth):
    kinds = ["str"] * 5 + ["int", "int", "float", "bool", "null"] + (["obj", "arr", "arr"] if depth < 2 else [])
    kind = rng.choice(kinds)
    if kind == "str":
        return rng.choice(_STRINGS)
    if kind == "int":
        return rng.choice([0, 1, -1, 7, 42, -273, 2024, 10 ** 9, 12345678901234])
    if kind == "float":
        return rng.choice([3.14, -0.5, 2.5, 1e-05, 0.1, 98.6, -1234.5678, 6.02e23])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "obj":
        return {k: _value(rng, depth + 1) for k in rng.sample(_KEYS, rng.randint(0, 3))}
    n = rng.randint(0, 3)
    if rng.random() < 0.6:  # a list of one kind
        first = _value(rng, depth + 1)
        if isinstance(first, str):
            return [rng.choice(_STRINGS) for _ in range(n)]
        if isinstance(first, bool):
            return [rng.random() < 0.5 for _ in range(n)]
        if isinstance(first, int):
            return [rng.randint(-99, 99) for _ in range(n)]
        if isinstance(first, dict):
            return [{"name": rng.choice(_STRINGS), "id": rng.randint(1, 99)} for _ in range(n)]
    return [_value(rng, depth + 1) for _ in range(n)]


def random_cases(count, seed):
    """`count` cases from a seeded generator: 1 to 3 calls with distinct names, 0 to 4
    arguments each, text before the calls in about one case in four."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        names = rng.sample(_NAMES, rng.choices([1, 2, 3], weights=[6, 3, 1])[0])
        calls = [(n, {k: _value(rng, 0) for k in rng.sample(_KEYS, rng.choices(range(5), weights=[1, 4, 4, 3, 2])[0])})
                 for n in names]
        content = rng.choice(["Let me check.", "Calling the tools now."]) if rng.random() < 0.25 else ""
        out.append(_case(f"random-{i:02d}", calls, content))
    return out


def schema_of(value):
    """A JSON schema giving a value its own type (arrays get `items` when their elements agree)."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if value is None:
        return {"type": "null"}
    if isinstance(value, list):
        items = [schema_of(v) for v in value]
        if items and all(i == items[0] for i in items):
            return {"type": "array", "items": items[0]}
        return {"type": "array", "items": {}}
    return {"type": "object", "properties": {k: schema_of(v) for k, v in value.items()}, "required": list(value)}


def tools_for(case):
    """One tool per call name, each argument typed by its value (what a server would declare)."""
    tools = {}
    for call in case["calls"]:
        tool = tools.setdefault(call["name"], {"type": "function", "function": {
            "name": call["name"], "description": f"Tool {call['name']}.",
            "parameters": {"type": "object", "properties": {}, "required": []}}})
        params = tool["function"]["parameters"]
        for k, v in call["arguments"].items():
            params["properties"][k] = dict(schema_of(v), description=f"The {k}.")
            if k not in params["required"]:
                params["required"].append(k)
    return list(tools.values())


def call_ids(case, seed, kimi_style):
    """Ids for the calls: `functions.NAME:N` for Kimi K2's template, else 9 letters and digits
    (the only ids Mistral's templates take)."""
    rng = random.Random(f"{seed}-{case['name']}")
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    if kimi_style:
        return [f"functions.{c['name']}:{i}" for i, c in enumerate(case["calls"])]
    return ["".join(rng.choice(alphabet) for _ in range(9)) for _ in case["calls"]]


# ---------------------------------------------------------------------------------------------
# Rendering a turn and cutting it out.
# ---------------------------------------------------------------------------------------------

USER = {"role": "user", "content": "Please help me with this."}


def _prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _ends_a_turn(text):
    t = text.rstrip()
    return any(t.endswith(e) for e in END_OF_TURN)


def inserted(before, after):
    """What `after` adds to `before`: `after == before[:k] + added + before[k:]`. Where several
    `k` fit, the largest at which `added` ends a turn, else the largest. When `after` is no
    insertion into `before` (the template rewrote earlier text), the part between their common
    prefix and common suffix. Returns (added, before[k:])."""
    grown = len(after) - len(before)
    head = _prefix(before, after)
    tail = _prefix(before[::-1], after[::-1])
    lowest = max(0, len(before) - tail)
    if grown >= 0 and lowest <= head:
        for k in range(head, lowest - 1, -1):
            if _ends_a_turn(after[k:k + grown]):
                return after[k:k + grown], before[k:]
        return after[head:head + grown], before[head:]
    a, b = after[head:], before[head:]
    tail = min(_prefix(a[::-1], b[::-1]), len(a), len(b))
    return a[:len(a) - tail], a[len(a) - tail:]


class Template:
    """One model folder's chat template, compiled."""

    def __init__(self, env, text, variables=None):
        self.compiled = env.from_string(text)
        self.bos, self.eos = special_tokens(text)
        self.variables = variables or {}

    def render(self, messages, tools, generation_prompt):
        return self.compiled.render(messages=messages, tools=tools, add_generation_prompt=generation_prompt,
                                    bos_token=self.bos, eos_token=self.eos, **self.variables)

    def assistant_turn(self, message, tools):
        """What the model writes for `message`: the turn the template adds for it, less the
        generation prompt the model is given and the end-of-turn token. Returns
        (completion, whether the completion starts inside reasoning)."""
        base = self.render([USER], tools, False)
        prompt = self.render([USER], tools, True)
        full = self.render([USER, message], tools, False)
        turn, rest = inserted(base, full)
        generation, _ = inserted(base, prompt)
        if not generation and rest:
            generation = rest  # a template that always appends its generation prompt
        turn = turn.lstrip("\r\n")
        n = _prefix(turn, generation)
        whole = n == len(generation)
        if not whole:
            # The turn and the prompt part mid-way (`<think>\n` in the prompt, none in the
            # history): back off to the last boundary they share.
            while n > 0 and generation[n - 1] not in ">\n]":
                n -= 1
        completion = turn[n:]
        stripped = completion.rstrip()
        for e in END_OF_TURN:
            if stripped.endswith(e):
                completion = stripped[:-len(e)]
                break
        opened = whole and any(generation.rstrip().endswith(o) for o in REASONING_OPENERS)
        return completion, opened


def assistant_message(case, ids, content, arguments_as_text):
    calls = []
    for cid, call in zip(ids, case["calls"]):
        args = json.dumps(call["arguments"], ensure_ascii=False) if arguments_as_text else call["arguments"]
        calls.append({"id": cid, "type": "function", "function": {"name": call["name"], "arguments": args}})
    return {"role": "assistant", "content": content, "tool_calls": calls}


def render_case(template, case, ids, tools):
    """The template's text for the case, as a caller sends the message: arguments as an object
    (as JSON text only when no object renders: templates that concatenate them), content as
    given, or `""` and None when there is none; of the renders that write every call's name,
    the shortest. Returns (completion, starts in reasoning, content sent, plain) or a string
    saying why the template cannot write the case. `plain` is what the template writes for the
    same content without calls (its framing of an answer)."""
    contents = [case["content"]] if case["content"] else ["", None]
    errors = []
    for as_text in (False, True):
        found = []
        for content in contents:
            try:
                completion, opened = template.assistant_turn(assistant_message(case, ids, content, as_text), tools)
            except Exception as e:  # the template's raise_exception, or a type error inside it
                errors.append(f"{type(e).__name__}: {e}")
                continue
            missing = [c["name"] for c in case["calls"] if c["name"] not in completion]
            if missing:
                errors.append(f"writes no call named {missing[0]}")
                continue
            found.append((len(completion), completion, opened, content))
        if found:
            _, completion, opened, content = min(found, key=lambda f: f[0])
            try:
                plain, _ = template.assistant_turn({"role": "assistant", "content": content or ""}, tools)
            except Exception:
                plain = ""
            return completion, opened, content, plain
    return next((e for e in errors if e.startswith("TemplateError")), None) or \
        next((e for e in errors if e.startswith("writes no call")), None) or (errors[-1] if errors else "nothing")


# ---------------------------------------------------------------------------------------------
# Comparing.
# ---------------------------------------------------------------------------------------------

def same_value(a, b):
    """JSON equality: key order ignored, 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def squeeze(text):
    return "".join((text or "").split())


def chunkings(data, seed):
    """The pieces a decode is fed in: whole, one byte at a time, and token-sized pieces (2 to
    17 bytes, seeded)."""
    rng = random.Random(seed)
    tokens, i = [], 0
    while i < len(data):
        n = rng.randint(2, 17)
        tokens.append(data[i:i + n])
        i += n
    return {"whole": [data], "1-byte": [data[i:i + 1] for i in range(len(data))], "token-sized": tokens}


def problems(events, case, content, completion, plain):
    """What is wrong with decoded events for the case (empty when nothing is): the same calls
    in order (names, arguments as JSON values), no rejection, and text or reasoning only where
    the template writes them (the content, or its framing of a plain answer)."""
    out = []
    calls = [e for e in events if e.get("type") == "tool_call"]
    for e in events:
        if e.get("type") == "rejected":
            out.append(f"rejected ({e.get('reason')}): {e.get('detail', '')[:160]}")
    want = case["calls"]
    if len(calls) != len(want):
        out.append(f"{len(calls)} calls {[c.get('name') for c in calls]}, expected {len(want)}")
    for i, (got, exp) in enumerate(zip(calls, want)):
        if got.get("name") != exp["name"]:
            out.append(f"call {i}: name {got.get('name')!r}, expected {exp['name']!r}")
        elif not same_value(got.get("arguments"), exp["arguments"]):
            out.append(f"call {i} ({exp['name']}): arguments {json.dumps(got.get('arguments'), ensure_ascii=False)}"
                       f", expected {json.dumps(exp['arguments'], ensure_ascii=False)}")
    text = squeeze("".join(e.get("text", "") for e in events if e.get("type") == "text"))
    reasoning = squeeze("".join(e.get("text", "") for e in events if e.get("type") == "reasoning"))
    written = squeeze(content) if content and content.strip() and content.strip() in completion else ""
    framing = squeeze(plain)

    def allowed(x):
        return x == "" or (written and x == written) or (framing and x in framing)
    if written and written not in text and written not in reasoning:
        out.append(f"the content is not in the text {text[:120]!r}")
    elif not allowed(text):
        out.append(f"text {text[:160]!r}")
    if not allowed(reasoning):
        out.append(f"reasoning {reasoning[:160]!r}")
    return out


def call_span(events):
    """(start, end) in the completion of the calls' raw bytes (with the markup around them),
    from the decoder's raw spans; None when there is no call."""
    spans, pos = [], 0
    for e in events:
        raw = e.get("raw")
        if raw is None:
            continue
        n = len(raw.encode())
        spans.append((pos, pos + n, e.get("type")))
        pos += n
    calls = [i for i, s in enumerate(spans) if s[2] in ("tool_call", "rejected")]
    if not calls:
        return None
    return spans[calls[0]][0], spans[calls[-1]][1]
