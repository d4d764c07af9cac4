"""What the vLLM and SGLang adapters share: choosing the format and the decoder options."""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Optional

import toolcallkit

FORMAT_ENV = "TOOLCALLKIT_FORMAT"
OPTIONS_ENV = "TOOLCALLKIT_OPTIONS"


def extra_options() -> dict:
    """Decoder options from ``TOOLCALLKIT_OPTIONS`` (a JSON object, e.g.
    ``{"whole_calls": true, "validate": true}``); empty when unset."""
    text = os.environ.get(OPTIONS_ENV)
    if not text:
        return {}
    value = json.loads(text)
    if not isinstance(value, dict):
        raise toolcallkit.ConfigError(f"{OPTIONS_ENV} must be a JSON object of decoder options")
    return value


def model_folder(tokenizer: Any) -> Optional[str]:
    """The local model folder a tokenizer was loaded from, if it can be found without the
    network: its ``name_or_path`` when that is a folder, else the Hugging Face cache's
    snapshot of that repository."""
    name = getattr(tokenizer, "name_or_path", None) or getattr(tokenizer, "name", None)
    if not isinstance(name, str) or not name:
        return None
    if os.path.isdir(name):
        return name
    try:
        from huggingface_hub import try_to_load_from_cache  # type: ignore

        for filename in ("tokenizer_config.json", "config.json"):
            cached = try_to_load_from_cache(name, filename)
            if isinstance(cached, str):
                return os.path.dirname(cached)
    except Exception:
        pass
    return None


def resolve_format(tokenizer: Any) -> str:
    """``TOOLCALLKIT_FORMAT``, or the format inferred from the tokenizer's model folder: the
    model variant its chat template shows when there is one (``infer``'s ``variant``), else the
    base format."""
    name = os.environ.get(FORMAT_ENV)
    if name:
        return name
    folder = model_folder(tokenizer)
    if folder:
        inferred = toolcallkit.infer(folder)
        found = inferred.get("variant") or inferred.get("format")
        if found:
            return found
    raise toolcallkit.ConfigError(
        f"toolcallkit: set {FORMAT_ENV} (json, mistral, llama3, ...): no format could be inferred"
        + (f" from {folder}" if folder else " (the tokenizer's model folder is not known)")
    )


def tools_array(tools: Any) -> Optional[list]:
    """An OpenAI tools array of plain dicts from a server's request tools (pydantic models
    or dicts), or None when there are none."""
    if not tools:
        return None
    out = []
    for tool in tools:
        if hasattr(tool, "model_dump"):
            tool = tool.model_dump(exclude_none=True)
        elif not isinstance(tool, dict):
            tool = {k: v for k, v in vars(tool).items() if v is not None}
        if isinstance(tool.get("function"), dict) or "name" in tool:
            out.append(tool)
    return out or None


def tool_choice_value(choice: Any) -> Any:
    """A request's ``tool_choice`` as the decoder and ``toolcallkit.grammar`` read it: "auto",
    "required", "none", or the OpenAI object (a pydantic model is dumped); None is "auto"."""
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        return choice
    if hasattr(choice, "model_dump"):
        return choice.model_dump(exclude_none=True)
    return choice


def policy_options(tool_choice: Any, parallel_tool_calls: Any) -> dict:
    """Decoder options that enforce a request's ``tool_choice`` and ``parallel_tool_calls``
    (a call the request does not allow is rejected, as the grammar would not let the model
    write it); empty for "auto" with parallel calls."""
    out: dict = {}
    choice = tool_choice_value(tool_choice)
    if choice not in ("auto", "none"):
        out["tool_choice"] = choice
    if parallel_tool_calls is False:
        out["parallel_tool_calls"] = False
    return out


def function_tools(tools: Any) -> Optional[list]:
    """The function tools of a request (a grammar constrains calls of those only)."""
    array = tools_array(tools)
    if not array:
        return None
    return [t for t in array if t.get("type", "function") == "function"] or None


def tokenizer_file(tokenizer: Any) -> Optional[str]:
    """The tokenizer.json of the tokenizer's local model folder, if there is one: a grammar
    then names the markers that are special tokens as tokens."""
    folder = model_folder(tokenizer)
    if folder:
        path = os.path.join(folder, "tokenizer.json")
        if os.path.isfile(path):
            return path
    return None


_HAS_GRAMMAR: dict = {}


def has_grammar(fmt: str) -> bool:
    """Whether ``toolcallkit.grammar`` exports ``fmt`` (response-template formats have no
    grammar)."""
    known = _HAS_GRAMMAR.get(fmt)
    if known is None:
        probe = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
        try:
            toolcallkit.grammar(fmt, probe)
            known = True
        except toolcallkit.ConfigError:
            known = False
        _HAS_GRAMMAR[fmt] = known
    return known


def structural_tag(fmt: str, tools: Any, tool_choice: Any, parallel_tool_calls: Any,
                   tokenizer: Optional[str] = None) -> Optional[str]:
    """The xgrammar structural tag (JSON text) that holds a model to the calls a request
    allows, in ``fmt``'s own layout (docs/grammar.md), or None when there is nothing to
    constrain or the grammar cannot be made (logged). The format's reasoning block may come
    first: a server that hands the grammar the output from its first token then still lets
    the model reason, and one that starts it after the reasoning is not affected."""
    array = function_tools(tools)
    choice = tool_choice_value(tool_choice)
    if not array or choice == "none" or not has_grammar(fmt):
        return None
    log = logging.getLogger("toolcallkit")
    try:
        g = toolcallkit.grammar(fmt, array, tool_choice=choice, parallel_tool_calls=parallel_tool_calls is not False,
                                target="xgrammar", reasoning=True, tokenizer=tokenizer)
    except toolcallkit.ConfigError as e:
        log.warning("toolcallkit: no grammar for this request (%s); calls are parsed unconstrained", e)
        return None
    for line in g.get("report", []):
        log.info("toolcallkit grammar: %s", line)
    return g["grammar"]


class ArgumentSpeller:
    """Respells one call's streamed argument JSON the way ``json.dumps`` spells it (``", "``
    and ``": "`` between items, no other white space outside strings), fragment by fragment.

    vLLM's and SGLang's own parsers send ``json.dumps`` text, and clients (and those servers'
    tests) compare argument strings; the decoder's fragments keep the model's own spacing
    (or none, for formats whose arguments are not JSON on the wire). Strings and numbers pass
    through unchanged, so the fragments still join to the same value.
    """

    __slots__ = ("in_string", "escaped")

    def __init__(self) -> None:
        self.in_string = False
        self.escaped = False

    def __call__(self, fragment: str) -> str:
        out = []
        in_string = self.in_string
        escaped = self.escaped
        for ch in fragment:
            if in_string:
                out.append(ch)
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
                out.append(ch)
            elif ch in " \t\r\n":
                continue
            elif ch == ",":
                out.append(", ")
            elif ch == ":":
                out.append(": ")
            else:
                out.append(ch)
        self.in_string = in_string
        self.escaped = escaped
        return "".join(out)


# -- one stream through one decoder ---------------------------------------------------------------

# A character no format's markers contain: fed after a text to see whether the text left the
# decoder inside a reasoning block (the character then comes back as reasoning).
_PROBE = "\ue000"


def new_decoder(fmt: str, tools: Any, options: dict, **extra: Any) -> "toolcallkit.Decoder":
    """A decoder for ``fmt`` declaring a request's tools (pydantic models or dicts); when the
    tools are refused (a schema the decoder cannot use), one without them, with a warning."""
    merged = dict(options)
    merged.update(extra)
    array = tools_array(tools)
    try:
        return toolcallkit.Decoder(format=fmt, tools=array, **merged)
    except toolcallkit.ConfigError as e:
        if array is None:
            raise
        logging.getLogger("toolcallkit").warning(
            "toolcallkit: the request's tools were refused (%s); decoding without them", e
        )
        return toolcallkit.Decoder(format=fmt, **merged)


def reasoning_at_end(fmt: str, options: dict, text: str) -> str:
    """Where ``text`` (a rendered prompt, say) leaves a decoder of ``fmt`` with reasoning on:
    ``"open"`` inside a reasoning block (the output continues it), ``"closed"`` after a block
    closed, ``"none"`` when it holds no block."""
    plain = {k: v for k, v in options.items() if k not in ("reasoning", "reasoning_open", "raw", "whole_calls")}
    with toolcallkit.Decoder(format=fmt, reasoning=True, **plain) as d:
        events = d.feed(text) + d.feed(_PROBE) + d.finish()
    seen = False
    for e in events:
        if e["type"] == "reasoning":
            seen = True
            if _PROBE in e["text"]:
                return "open"
    return "closed" if seen else "none"


class Fold:
    """What one feed of a :class:`Stream` gave: reasoning and content text, the call events
    (``tool_call_start``, ``tool_call_delta``, ``tool_call``) and rejections in order, and
    (with ``track``) the exact text of everything but reasoning, call markup included."""

    __slots__ = ("reasoning", "content", "calls", "rejected", "raw")

    def __init__(self) -> None:
        self.reasoning: list = []
        self.content: list = []
        self.calls: list = []
        self.rejected: list = []
        self.raw: list = []

    def __iadd__(self, other: "Fold") -> "Fold":
        self.reasoning += other.reasoning
        self.content += other.content
        self.calls += other.calls
        self.rejected += other.rejected
        self.raw += other.raw
        return self

    @property
    def content_raw(self) -> str:
        """The output without its reasoning, byte for byte (with ``track``)."""
        return "".join(self.raw)


class Stream:
    """One generation stream through one decoder, its events folded into reasoning, content
    and calls.

    ``policy`` (:func:`policy_options`) has the decoder enforce the request's ``tool_choice``
    and ``parallel_tool_calls``, as the request's grammar does.
    ``calls=False`` is for a server that has turned tool parsing off for the request
    (``tool_choice`` "none"): a call's markup is then content, exactly as the model wrote it
    (the decoder's raw spans), so nothing is lost and nothing is a call. ``track=True`` keeps
    the raw spans too, for a reasoning parser: :attr:`left_reasoning` says whether the stream
    has moved past reasoning, and :meth:`rest` gives the text the decoder still holds back.
    """

    def __init__(self, fmt: str, options: dict, tools: Any = None, reasoning: bool = False,
                 reasoning_open: bool = False, calls: bool = True, track: bool = False,
                 handoff: bool = False, policy: Optional[dict] = None):
        extra: dict = dict(policy or {}) if calls else {}
        if reasoning or reasoning_open:
            extra["reasoning"] = True
        if reasoning_open:
            extra["reasoning_open"] = True
        self.calls = calls
        self.track = track
        if not calls or track:
            extra["raw"] = True
        self.decoder = new_decoder(fmt, tools, options, **extra)
        self._fed: list = []
        self._consumed = 0
        #: The stream has moved past reasoning: a block closed, or the model wrote something
        #: other than reasoning (text that is not white space, a call, a format's framing).
        #: False again while a later block is open. Only with ``track``.
        self.left_reasoning = False
        #: With ``handoff``: once the stream has left reasoning, nothing more is classified;
        #: every later event's exact text is content (raw), for another parser to read.
        self.handoff = handoff
        self.handed_off = False

    def feed(self, text: str) -> Fold:
        if self.track:
            self._fed.append(text)
        return self._fold(self.decoder.feed(text))

    def finish(self) -> Fold:
        fold = self._fold(self.decoder.finish())
        self.decoder.close()
        return fold

    def close(self) -> None:
        self.decoder.close()

    def rest(self) -> str:
        """The text fed but in no event yet (held back as a possible marker, or a call still
        open); with ``track``."""
        text = "".join(self._fed)
        return text[self._consumed:]

    def _fold(self, events: list) -> Fold:
        fold = Fold()
        for e in events:
            kind = e["type"]
            raw = e.get("raw")
            if raw is not None:
                self._consumed += len(raw)
                if kind != "reasoning" or self.handed_off:
                    fold.raw.append(raw)
            if self.handed_off:
                continue
            if kind == "text":
                fold.content.append(e["text"])
                if e["text"].strip():
                    self.left_reasoning = True
            elif kind == "reasoning":
                text = e["text"]
                fold.reasoning.append(text)
                if raw is not None:
                    # A block's last event carries its close marker in its raw span (harmony
                    # closes a reasoning message with framing of its own, below).
                    self.left_reasoning = (text == "" and raw != "") or not raw.endswith(text)
            elif kind in ("tool_call_start", "tool_call_delta", "tool_call", "rejected"):
                self.left_reasoning = True
                if self.calls:
                    (fold.rejected if kind == "rejected" else fold.calls).append(e)
                elif kind in ("tool_call", "rejected"):
                    fold.content.append(raw or "")
            elif kind == "markup":
                self.left_reasoning = True
            if self.handoff and self.left_reasoning:
                self.handed_off = True
        return fold
