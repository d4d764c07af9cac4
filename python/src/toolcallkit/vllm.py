"""A vLLM tool parser backed by ToolCallKit, registered under the name ``toolcallkit``.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin /path/to/site-packages/toolcallkit/vllm.py --tool-call-parser toolcallkit

(``--tool-parser-plugin toolcallkit.vllm`` works too.) The wire format comes from
``TOOLCALLKIT_FORMAT`` (``json``, ``mistral``, ``llama3``, ...) or, when that is unset, is
inferred from the tokenizer's model folder. ``TOOLCALLKIT_OPTIONS`` may hold further decoder
options as a JSON object, e.g. ``{"whole_calls": true}`` so that a client never sees part of
a call that is then rejected.

Argument strings are spelt as ``json.dumps`` spells them (``{"city": "Paris"}``), streamed
or not, as vLLM's own parsers send them.

Streaming feeds only ``delta_text`` to one decoder per stream (the text is never parsed
again), and a stream whose ``previous_text`` is empty starts a fresh decoder. The request's
``tools`` are declared to the decoder, so a call to an undeclared function is rejected (and
logged) rather than passed on. Rejected calls are never content.

What vLLM does not give a tool parser, this one cannot do: there is no end-of-stream call in
streaming, so a suffix held back because it could begin a marker (``<tool_c`` at the very
end) is not sent, and a call cut off by the token limit stays as far as it was streamed.
"""

from __future__ import annotations

import sys as _sys

if __name__ == "vllm":  # pragma: no cover - exercised by the plugin-path test
    # Loaded by path (`--tool-parser-plugin .../toolcallkit/vllm.py`): vLLM imports the file
    # under the module name "vllm", displacing the real package in sys.modules. Put the real
    # package back and load this file under its own name instead.
    import gc as _gc
    import importlib as _importlib
    import os as _os
    import types as _types

    _me = _sys.modules.get("vllm")
    _real = next(
        (
            m
            for m in _gc.get_objects()
            if isinstance(m, _types.ModuleType)
            and m is not _me
            and getattr(m, "__name__", None) == "vllm"
            and getattr(m, "__path__", None)
        ),
        None,
    )
    if _real is not None:
        _sys.modules["vllm"] = _real
    else:
        del _sys.modules["vllm"]
        _importlib.import_module("vllm")
    try:
        _importlib.import_module("toolcallkit")
    except ImportError:
        _sys.path.insert(0, _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))
    _module = _importlib.import_module("toolcallkit.vllm")
    globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
else:
    from collections.abc import Sequence
    from typing import Any, Optional

    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )
    from vllm.logger import init_logger
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

    import toolcallkit
    from toolcallkit import _common

    logger = init_logger(__name__)

    @ToolParserManager.register_module("toolcallkit")
    class ToolCallKitToolParser(ToolParser):
        """vLLM's ``ToolParser`` over a ToolCallKit decoder (see the module's doc)."""

        def __init__(self, tokenizer: Any, tools: Optional[list] = None):
            super().__init__(tokenizer, tools)
            self.format = _common.resolve_format(tokenizer)
            self.options = _common.extra_options()
            self._decoder: Optional[toolcallkit.Decoder] = None
            self._spellers: dict = {}

        # -- requests -------------------------------------------------------------------------

        def adjust_request(self, request: Any) -> Any:
            request = super().adjust_request(request)
            if getattr(request, "tools", None) and getattr(request, "tool_choice", None) != "none":
                # Markers are special tokens in many vocabularies; skipping them would hide calls.
                request.skip_special_tokens = False
            return request

        def _new_decoder(self, request: Any) -> toolcallkit.Decoder:
            tools = _common.tools_array(getattr(request, "tools", None))
            try:
                return toolcallkit.Decoder(format=self.format, tools=tools, **self.options)
            except toolcallkit.ConfigError as e:
                if tools is None:
                    raise
                logger.warning("toolcallkit: the request's tools were refused (%s); decoding without them", e)
                return toolcallkit.Decoder(format=self.format, **self.options)

        # -- whole outputs --------------------------------------------------------------------

        def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
            with self._new_decoder(request) as d:
                events = d.feed(model_output) + d.finish()
            message = toolcallkit.message_from_events(events, dump_arguments=True)
            for r in message.get("x_toolcall_rejected", []):
                self._log_rejection(r)
            calls = [
                ToolCall(id=c["id"], type="function",
                         function=FunctionCall(name=c["function"]["name"], arguments=c["function"]["arguments"]))
                for c in message["tool_calls"]
            ]
            return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=message["content"])

        # -- streams --------------------------------------------------------------------------

        def extract_tool_calls_streaming(
            self,
            previous_text: str,
            current_text: str,
            delta_text: str,
            previous_token_ids: Sequence[int],
            current_token_ids: Sequence[int],
            delta_token_ids: Sequence[int],
            request: Any,
        ) -> Optional[DeltaMessage]:
            if not previous_text or self._decoder is None:
                self._start_stream(request)
            if not delta_text:
                return None
            return self._delta(self._decoder.feed(delta_text))

        def _start_stream(self, request: Any) -> None:
            if self._decoder is not None:
                self._decoder.close()
            self._decoder = self._new_decoder(request)
            self.prev_tool_call_arr = []
            self.streamed_args_for_tool = []
            self.current_tool_id = -1
            self.current_tool_name_sent = False
            self._spellers = {}

        def _delta(self, events: list) -> Optional[DeltaMessage]:
            """One DeltaMessage for a feed's events: the text, and per call its start and the
            argument fragments joined (vLLM's bookkeeping kept as its serving layer reads it)."""
            text = []
            reasoning = []
            calls: list = []
            by_index: dict = {}
            for e in events:
                kind = e["type"]
                if kind == "text":
                    text.append(e["text"])
                elif kind == "reasoning":
                    reasoning.append(e["text"])
                elif kind == "tool_call_start":
                    i = e["index"]
                    while len(self.prev_tool_call_arr) <= i:
                        self.prev_tool_call_arr.append({})
                        self.streamed_args_for_tool.append("")
                    self.prev_tool_call_arr[i] = {"name": e["name"], "arguments": ""}
                    self.current_tool_id = i
                    self.current_tool_name_sent = True
                    call = DeltaToolCall(index=i, id=e["id"], type="function",
                                         function=DeltaFunctionCall(name=e["name"]))
                    by_index[i] = call
                    calls.append(call)
                elif kind == "tool_call_delta":
                    i = e["index"]
                    speller = self._spellers.get(i)
                    if speller is None:
                        speller = self._spellers[i] = _common.ArgumentSpeller()
                    fragment = speller(e["arguments"])
                    if not fragment:
                        continue
                    self.streamed_args_for_tool[i] += fragment
                    self.prev_tool_call_arr[i]["arguments"] = self.streamed_args_for_tool[i]
                    call = by_index.get(i)
                    if call is None:
                        call = DeltaToolCall(index=i, function=DeltaFunctionCall(arguments=""))
                        by_index[i] = call
                        calls.append(call)
                    call.function.arguments = (call.function.arguments or "") + fragment
                elif kind == "rejected":
                    self._log_rejection(e)
            if not (text or reasoning or calls):
                return None
            message = DeltaMessage(content="".join(text) or None, tool_calls=calls)
            if reasoning:
                message.reasoning = "".join(reasoning)
            return message

        @staticmethod
        def _log_rejection(e: dict) -> None:
            logger.warning(
                "toolcallkit: %s tool call rejected (%s)%s: %s", e.get("format"), e.get("reason"),
                f" for {e['name']!r}" if e.get("name") else "", str(e.get("detail", ""))[:200],
            )

    __all__ = ["ToolCallKitToolParser"]
