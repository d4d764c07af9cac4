"""Streaming tool-call parsing for the raw output of language models.

A thin ``ctypes`` layer over ``libtoolcallkit.so`` (bundled in the wheel): one
:class:`Decoder` per generation stream turns text (or token ids) into the same events
``toolcall decode`` writes, as dicts; :func:`parse` turns a whole output into an OpenAI
assistant message; :func:`infer` names the format of a model folder.

Calls into the library release the GIL (``ctypes.CDLL``), so decoders on different threads
run in parallel. One decoder must be used by one thread at a time.

Bad model output never raises: a call that cannot be parsed is a ``rejected`` event, and text
that is not valid Unicode (a lone surrogate) is decoded as the invalid bytes it stands for
(see :meth:`Decoder.feed`). The exceptions below report misuse only (a bad option, an id
outside the vocabulary, a feed after :meth:`Decoder.finish`, an argument of the wrong type).
"""

from __future__ import annotations

import array
import codecs
import ctypes
import json
import os
from typing import Any, Iterable, Optional, Union

__all__ = [
    "Decoder",
    "parse",
    "infer",
    "grammar",
    "library_path",
    "ToolCallKitError",
    "ConfigError",
    "TokenError",
    "StateError",
    "ABI_VERSION",
]

ABI_VERSION = 1

_E_ARGUMENT = -1
_E_STATE = -2
_E_TOKEN = -3
_E_INPUT = -4
_E_IO = -5


class ToolCallKitError(Exception):
    """Misuse of the library; ``code`` is the C error code (negative)."""

    def __init__(self, message: str, code: int = 0):
        super().__init__(message)
        self.code = code


class ConfigError(ToolCallKitError, ValueError):
    """The decoder's options were refused (unknown option, wrong type, bad tools, ...), or a
    file they name cannot be used (a model folder's tokenizer.json, read at the first
    :meth:`Decoder.feed_tokens`)."""


class TokenError(ToolCallKitError, ValueError):
    """A token id outside the tokenizer's vocabulary; the ids before it were consumed."""


class StateError(ToolCallKitError, RuntimeError):
    """A feed or finish after :meth:`Decoder.finish`, or text fed to a token decoder."""


def library_path() -> str:
    """Where the native library is loaded from.

    ``TOOLCALLKIT_LIBRARY`` when set; else the copy inside the package (an installed wheel);
    else ``dist/lib`` of a source checkout (after ``make lib``).
    """
    env = os.environ.get("TOOLCALLKIT_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "lib", "libtoolcallkit.so")
    if os.path.exists(bundled):
        return bundled
    checkout = os.path.normpath(os.path.join(here, "..", "..", "..", "dist", "lib", "libtoolcallkit.so"))
    if os.path.exists(checkout):
        return checkout
    raise OSError(
        "libtoolcallkit.so not found: install the toolcallkit wheel, run `make lib`, "
        "or set TOOLCALLKIT_LIBRARY"
    )


def _load() -> ctypes.CDLL:
    lib = ctypes.CDLL(library_path())
    c_size_p = ctypes.POINTER(ctypes.c_size_t)
    c_void_pp = ctypes.POINTER(ctypes.c_void_p)
    lib.tck_abi_version.restype = ctypes.c_uint32
    lib.tck_abi_version.argtypes = []
    lib.tck_decoder_new.restype = ctypes.c_void_p
    lib.tck_decoder_new.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    lib.tck_feed.restype = ctypes.c_int32
    lib.tck_feed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.tck_feed_tokens.restype = ctypes.c_int32
    lib.tck_feed_tokens.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.tck_finish.restype = ctypes.c_int32
    lib.tck_finish.argtypes = [ctypes.c_void_p]
    lib.tck_feed_events.restype = ctypes.c_int32
    lib.tck_feed_events.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, c_void_pp, c_size_p]
    for name in ("tck_events", "tck_diagnostics"):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int32
        fn.argtypes = [ctypes.c_void_p, c_void_pp, c_size_p]
    lib.tck_last_error.restype = ctypes.c_char_p
    lib.tck_last_error.argtypes = [ctypes.c_void_p]
    lib.tck_decoder_free.restype = None
    lib.tck_decoder_free.argtypes = [ctypes.c_void_p]
    lib.tck_infer.restype = ctypes.c_int32
    lib.tck_infer.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    if hasattr(lib, "tck_grammar"):
        lib.tck_grammar.restype = ctypes.c_int32
        lib.tck_grammar.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    version = lib.tck_abi_version()
    if version != ABI_VERSION:
        raise OSError(f"{library_path()} has ABI version {version}; this package needs {ABI_VERSION}")
    return lib


_lib: Optional[ctypes.CDLL] = None
_loads = json.loads


def _library() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def _lone_surrogates(error: UnicodeEncodeError):
    """The encoding error handler for text that is not valid Unicode: a surrogate that
    Python's ``surrogateescape`` made from an undecodable byte (U+DC80 to U+DCFF) is that byte
    again; any other lone surrogate is U+FFFD, which is what the decoder writes for an invalid
    byte. Either way the decoder meets the text as it meets invalid bytes, and nothing raises."""
    out = bytearray()
    for ch in error.object[error.start : error.end]:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(code - 0xDC00)
        else:
            out += b"\xef\xbf\xbd"
    return bytes(out), error.end


codecs.register_error("toolcallkit.surrogates", _lone_surrogates)


def _bytes(data: Any) -> bytes:
    """The bytes to feed for ``data``: str as UTF-8 (lone surrogates as the invalid bytes they
    stand for, see :func:`_lone_surrogates`), a bytes-like object as it is."""
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            return data.encode("utf-8", "toolcallkit.surrogates")
    if isinstance(data, bytes):
        return data
    try:
        return bytes(memoryview(data))
    except TypeError:
        pass
    raise TypeError(f"model output is str or bytes-like (bytes, bytearray, memoryview), not {type(data).__name__}")


def _lines(data: bytes) -> list:
    """The dicts of a buffer of JSON lines (one ``json.loads`` for the whole batch)."""
    if not data:
        return []
    # Lines never contain a raw newline (JSON escapes it): one line is the usual case for a
    # small feed, and several join into one array.
    end = data.find(b"\n")
    if end == len(data) - 1:
        return [_loads(data)]
    return _loads(b"[" + data[:-1].replace(b"\n", b",") + b"]")


class Decoder:
    """One generation stream's decoder.

    ``Decoder(format="json", tools=[...], reasoning=True, ...)``: the options are those of
    ``toolcall decode`` with ``_`` for ``-`` (``validate``, ``whole_calls``, ``reasoning``,
    ``reasoning_open``, ``raw``, ``id_seed``, ``max_call_bytes``, ``tokenizer`` (a
    tokenizer.json path; the decoder then takes token ids), ``input`` (``"text"`` or
    ``"tokens"``), ``skip_special``, ``output`` (``"events"``,
    ``"openai"`` for Chat Completions chunks, ``"responses"`` for OpenAI Responses API streaming
    events, ``"anthropic"`` for Anthropic Messages streaming events), ``tool_choice``
    and ``parallel_tool_calls`` (the request's policy, enforced as docs/grammar.md says), and
    ``model``).
    ``tools`` is the OpenAI-style tools array itself. Options left as ``None`` are not given.

    ``model`` (instead of ``format``) is a Hugging Face model folder and means what ``toolcall
    decode --model`` means: the format (or the response template of its
    tokenizer_config.json) is inferred from the folder as :func:`infer` infers it, the decoder
    takes text (:meth:`feed`), and the folder's name is the ``model`` of OpenAI chunks. Its
    tokenizer.json is read only for token input: with ``input="tokens"`` (read when the
    decoder is made), or, without ``input``, when the first feed is :meth:`feed_tokens`.

    A tokenizer.json (``tokenizer``, or the model folder's) must be a regular file of at most
    512 MiB, as for ``toolcall decode``: a device, a FIFO or a larger file is refused without
    being read.

    :meth:`feed`, :meth:`feed_tokens` and :meth:`finish` return the events they completed as
    dicts, exactly the JSON objects of ``toolcall decode``'s lines. Use it as a context
    manager, or call :meth:`close`, to free it early; otherwise it is freed when collected.
    """

    def __init__(self, format: Optional[str] = None, tools: Optional[list] = None, **options: Any):
        lib = _library()
        config = {"format": format, "tools": tools}
        config.update(options)
        config = {k: v for k, v in config.items() if v is not None}
        text = json.dumps(config).encode()
        err = ctypes.create_string_buffer(1024)
        handle = lib.tck_decoder_new(text, len(text), err, len(err))
        if not handle:
            raise ConfigError(err.value.decode("utf-8", "replace"), _E_ARGUMENT)
        self._lib = lib
        self._handle: Optional[int] = handle
        self._ptr = ctypes.c_void_p()
        self._len = ctypes.c_size_t()
        self._ptr_ref = ctypes.byref(self._ptr)
        self._len_ref = ctypes.byref(self._len)
        self._feed_events = lib.tck_feed_events
        self.finished = False
        self.output = config.get("output", "events")

    # -- feeding ------------------------------------------------------------------------------

    def feed(self, data: Union[str, bytes, bytearray, memoryview]) -> list:
        """Feeds the next piece of the model's output (text, or bytes in any split, even
        inside a UTF-8 sequence); returns the events it completed.

        Text that is not valid Unicode never raises: a lone surrogate made by Python's
        ``surrogateescape`` (U+DC80 to U+DCFF) is fed as the byte it stands for, any other as
        U+FFFD, so the decoder treats it as it treats invalid bytes. Anything but str or a
        bytes-like object (an int, a list) raises ``TypeError``."""
        if type(data) is not bytes:
            data = _bytes(data)
        n = self._feed_events(self._handle, data, len(data), self._ptr_ref, self._len_ref)
        if n > 0:
            return _lines(ctypes.string_at(self._ptr, self._len.value))
        if n < 0:
            self._live()
            self._raise(n)
        return []

    def feed_tokens(self, ids: Iterable[int]) -> list:
        """Feeds the next token ids (needs ``tokenizer`` or ``model``); returns the events.

        An id outside the vocabulary (negative ones included) raises :class:`TokenError`
        after the ids before it were consumed; their events are its ``events``."""
        if isinstance(ids, array.array) and ids.typecode == "I":
            buf = ids
        else:
            if not isinstance(ids, (list, tuple, array.array)):
                ids = list(ids)
            try:
                buf = array.array("I", ids)
            except OverflowError:
                return self._feed_out_of_range(ids)
        if not buf:
            return []
        address, count = buf.buffer_info()
        n = self._lib.tck_feed_tokens(self._live(), address, count)
        if n < 0:
            events = self._take()
            self._raise(n, events)
        return self._take() if n else []

    def _feed_out_of_range(self, ids: Any) -> list:
        """An id that no uint32 holds (a negative one): feed the ids before it, then raise
        TokenError as the library does for an id past the vocabulary."""
        bad = next(i for i, t in enumerate(ids) if not 0 <= t <= 0xFFFFFFFF)
        events = self.feed_tokens(ids[:bad])
        err = TokenError(f"token {bad} of this call ({ids[bad]}) is outside the vocabulary (ids are never negative)", _E_TOKEN)
        err.events = events  # type: ignore[attr-defined]
        raise err

    def finish(self) -> list:
        """Ends the stream; returns the last events (``end`` last)."""
        n = self._lib.tck_finish(self._live())
        if n < 0:
            self._raise(n)
        self.finished = True
        return self._take()

    def diagnostics(self) -> list:
        """With ``output`` ``"openai"``, ``"responses"`` or ``"anthropic"``: the rejections
        since the last call (``toolcall decode`` writes them to standard error), as event
        dicts. Empty with ``output="events"``."""
        n = self._lib.tck_diagnostics(self._live(), self._ptr_ref, self._len_ref)
        if n < 0:
            self._raise(n)
        return _lines(ctypes.string_at(self._ptr, self._len.value)) if n else []

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the native decoder (idempotent)."""
        handle, self._handle = self._handle, None
        if handle:
            self._lib.tck_decoder_free(handle)

    def __enter__(self) -> "Decoder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    # -- helpers ------------------------------------------------------------------------------

    def _live(self) -> int:
        if self._handle is None:
            raise StateError("the decoder is closed", _E_STATE)
        return self._handle

    def _take(self) -> list:
        n = self._lib.tck_events(self._handle, self._ptr_ref, self._len_ref)
        if n <= 0:
            return []
        return _lines(ctypes.string_at(self._ptr, self._len.value))

    def take_lines(self) -> bytes:
        """The queued event lines as raw bytes (each ending in a newline), for callers that
        forward them without parsing; :meth:`feed` etc. already take them, so this is for
        use after :meth:`feed_raw` and :meth:`finish_raw`."""
        n = self._lib.tck_events(self._live(), self._ptr_ref, self._len_ref)
        return ctypes.string_at(self._ptr, self._len.value) if n > 0 else b""

    def feed_raw(self, data: bytes) -> int:
        """Feeds bytes without taking the events; returns how many lines are queued."""
        n = self._lib.tck_feed(self._live(), data, len(data))
        if n < 0:
            self._raise(n)
        return n

    def finish_raw(self) -> int:
        """Ends the stream without taking the events; returns how many lines are queued."""
        n = self._lib.tck_finish(self._live())
        if n < 0:
            self._raise(n)
        self.finished = True
        return n

    def _raise(self, code: int, events: Optional[list] = None) -> None:
        message = self._lib.tck_last_error(self._handle).decode("utf-8", "replace")
        if code == _E_TOKEN:
            err: ToolCallKitError = TokenError(message, code)
            err.events = events or []  # type: ignore[attr-defined]
            raise err
        if code in (_E_STATE, _E_INPUT):
            raise StateError(message, code)
        if code == _E_IO:
            raise ConfigError(message, code)
        raise ToolCallKitError(message, code)


def parse(text: Union[str, bytes], format: Optional[str] = None, **options: Any) -> dict:
    """Parses a whole model output into an OpenAI assistant message.

    Returns ``{"role": "assistant", "content": str or None, "reasoning_content": str or None,
    "tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]}`` where
    ``arguments`` is the call's arguments as a JSON string (the concatenation of its
    streamed fragments). Options are those of :class:`Decoder` (``tools``, ``reasoning`` ...);
    ``output`` must stay ``"events"``. Rejected calls, when there are any, are listed under
    ``"x_toolcall_rejected"`` as their event dicts (they are neither content nor calls).
    """
    if options.get("output", "events") != "events":
        raise ConfigError('parse() needs output="events"', _E_ARGUMENT)
    data = _bytes(text)
    with Decoder(format=format, **options) as d:
        events = d.feed(data)
        events += d.finish()
    return message_from_events(events)


def message_from_events(events: list, dump_arguments: bool = False) -> dict:
    """Folds a stream's event dicts into an OpenAI assistant message (see :func:`parse`).

    With ``dump_arguments``, each call's ``arguments`` string is ``json.dumps`` of its typed
    arguments (``ensure_ascii=False``), the spelling vLLM's and SGLang's own parsers return;
    otherwise it is the concatenation of the call's streamed fragments.
    """
    content = []
    reasoning = []
    args: dict = {}
    calls = []
    rejected = []
    for e in events:
        t = e["type"]
        if t == "text":
            content.append(e["text"])
        elif t == "reasoning":
            reasoning.append(e["text"])
        elif t == "tool_call_delta":
            args.setdefault(e["index"], []).append(e["arguments"])
        elif t == "tool_call":
            fragments = args.get(e["index"])
            if fragments and not dump_arguments:
                text = "".join(fragments)
            else:
                text = json.dumps(e["arguments"], ensure_ascii=False)
            calls.append({"id": e["id"], "type": "function", "function": {"name": e["name"], "arguments": text}})
        elif t == "rejected":
            rejected.append(e)
    message = {
        "role": "assistant",
        "content": "".join(content) or None,
        "reasoning_content": "".join(reasoning) or None,
        "tool_calls": calls,
    }
    if rejected:
        message["x_toolcall_rejected"] = rejected
    return message


def infer(path: Union[str, os.PathLike]) -> dict:
    """The tool-call format of a Hugging Face model folder, as ``toolcall infer DIR`` prints
    it: ``{"format": name or None, "evidence": [...]}``, with ``"variant"`` after the format
    when the folder's chat template shows a model variant of it (``Decoder(model=path)``
    decodes with the variant). Raises ``OSError`` when the path is not a readable folder."""
    lib = _library()
    raw = os.fsencode(path)
    cap = 4096
    while True:
        out = ctypes.create_string_buffer(cap)
        n = lib.tck_infer(raw, out, cap)
        if n < 0:
            raise OSError(out.value.decode("utf-8", "replace"))
        if n <= cap:
            return json.loads(out.value)
        cap = n


def grammar(format: str, tools: list, tool_choice: Any = "auto", parallel_tool_calls: bool = True,
            target: str = "xgrammar", reasoning: bool = False, reasoning_open: bool = False,
            tokenizer: Optional[str] = None) -> dict:
    """A constrained-decoding grammar for ``format``, ``tools`` (an OpenAI tools array) and the
    request's ``tool_choice`` / ``parallel_tool_calls``, as ``toolcall grammar`` writes it
    (docs/grammar.md). ``target`` is ``"xgrammar"`` (a structural tag, JSON text), ``"lark"``
    (llguidance) or ``"gbnf"`` (llama.cpp; for ``auto`` the server's lazy object, JSON text).

    Returns ``{"grammar": text, "lazy": bool, "triggers": [...], "report": [...]}``;
    ``report`` lists the schema keywords the grammar does not enforce. Raises ``ConfigError``
    for an unknown format or target, or a tool_choice naming an undeclared tool."""
    lib = _library()
    config = json.dumps({
        "format": format, "tools": tools, "tool_choice": tool_choice,
        "parallel_tool_calls": parallel_tool_calls, "target": target, "reasoning": reasoning,
        "reasoning_open": reasoning_open, "tokenizer": tokenizer,
    }).encode()
    # Large enough for most grammars: a second call (when the first buffer is short) exports
    # the grammar again.
    cap = 1 << 20
    while True:
        out = ctypes.create_string_buffer(cap)
        n = lib.tck_grammar(config, len(config), out, cap)
        if n < 0:
            raise ConfigError(out.value.decode("utf-8", "replace"))
        if n <= cap:
            return json.loads(out.value)
        cap = n
