"""What the vLLM and SGLang adapters share: choosing the format and the decoder options."""

from __future__ import annotations

import json
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
