"""SGLang parsers backed by ToolCallKit: a function-call detector and a reasoning detector,
both under the name ``toolcallkit``.

Register them before the server starts, then pick them like built-in parsers::

    python -m toolcallkit.sglang --model-path MODEL \\
        --tool-call-parser toolcallkit --reasoning-parser toolcallkit ...

(that registers them and runs ``sglang.launch_server`` with the same arguments), or in your
own launcher::

    import toolcallkit.sglang
    toolcallkit.sglang.register()   # FunctionCallParser.ToolCallParserEnum["toolcallkit"] and
                                    # ReasoningParser.DetectorMap["toolcallkit"]

SGLang runs the reasoning parser first and gives its normal text to the function-call parser.
The reasoning detector runs the format's decoder with reasoning separation on over the whole
stream: every reasoning block (also those between calls) becomes reasoning, and everything
else goes on as normal text exactly as the model wrote it, call markup included; the
function-call detector then decodes the calls from that text. Reasoning, content and calls are
what one decoder with ``reasoning`` on gives (the tests check this at every chunking).
``force_reasoning`` (a template that opens the reasoning block in the prompt) starts the
decoder inside a block. SGLang's grammar-gated reasoning (structured outputs while thinking)
needs a think-end token string, which this detector does not name: SGLang then turns that
gating off, and says so in its log.

The wire format comes from ``TOOLCALLKIT_FORMAT`` or is inferred from the tokenizer's model
folder; ``TOOLCALLKIT_OPTIONS`` may hold further decoder options as a JSON object. One
decoder reads each stream: ``parse_streaming_increment`` feeds only the new text, and
``finish`` (SGLang's end of stream) releases what was held back and settles an unfinished call.
Argument strings are spelt as ``json.dumps`` spells them, streamed or not, as SGLang's own
detectors return them. A call's name comes first (a ``ToolCallItem`` with empty parameters), then its argument
fragments; undeclared or malformed calls are rejected (and logged), never returned as text.

**The grammar.** For tool_choice "required", a named tool, parallel_tool_calls false, and
"auto" with strict tools, SGLang asks the detector for a structural tag: it gets ToolCallKit's
grammar for the format (``toolcallkit.grammar``, docs/grammar.md), so the model can only write
calls the request allows, in the format's own markup, with arguments that fit their schemas;
``supports_structural_tag`` then makes SGLang read those calls through this detector, and the
decoder enforces the request's tool_choice too. A format without a grammar (a response
template) leaves them to SGLang's JSON route.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, List, Optional

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem
from sglang.srt.parser import reasoning_parser as _reasoning

import toolcallkit
from toolcallkit import _common

logger = logging.getLogger(__name__)

__all__ = ["ToolCallKitDetector", "ToolCallKitReasoningDetector", "register"]


class ToolCallKitDetector(BaseFormatDetector):
    """SGLang's ``BaseFormatDetector`` over a ToolCallKit decoder (see the module's doc)."""

    def __init__(self, tokenizer: Any = None, format: Optional[str] = None):
        super().__init__()
        self.format = format or _common.resolve_format(tokenizer)
        self.options = _common.extra_options()
        self._decoder: Optional[toolcallkit.Decoder] = None
        self._spellers: dict = {}
        self._grammar = _common.has_grammar(self.format)
        self._tokenizer_file = _common.tokenizer_file(tokenizer) if self._grammar else None
        self._policy: dict = {}  # the request's tool_choice, for the decoder (see get_required_tool_parser)

    # -- decoders -----------------------------------------------------------------------------

    def _new_decoder(self, tools: Optional[List[Any]]) -> toolcallkit.Decoder:
        return _common.new_decoder(self.format, tools, self.options, **self._policy)

    def _parse_whole(self, text: str, tools: Optional[List[Any]]) -> dict:
        with self._new_decoder(tools) as d:
            events = d.feed(text) + d.finish()
        message = toolcallkit.message_from_events(events, dump_arguments=True)
        for r in message.get("x_toolcall_rejected", []):
            _log_rejection(r)
        return message

    # -- one-shot -----------------------------------------------------------------------------

    def has_tool_call(self, text: str) -> bool:
        with _common.new_decoder(self.format, None, self.options) as d:
            events = d.feed(text) + d.finish()
        return any(e["type"] in ("tool_call_start", "tool_call", "rejected") for e in events)

    def detect_and_parse(self, text: str, tools: List[Any]) -> StreamingParseResult:
        message = self._parse_whole(text, tools)
        # tool_index is the call's position in this response, as in streaming (SGLang builds
        # Kimi-style ids from it).
        calls = [
            ToolCallItem(tool_index=i, name=c["function"]["name"], parameters=c["function"]["arguments"])
            for i, c in enumerate(message["tool_calls"])
        ]
        return StreamingParseResult(normal_text=message["content"] or "", calls=calls)

    # -- streams ------------------------------------------------------------------------------

    def parse_streaming_increment(self, new_text: str, tools: List[Any]) -> StreamingParseResult:
        if self._decoder is None:
            self._start(tools)
        if not new_text:
            return StreamingParseResult()
        return self._result(self._decoder.feed(new_text))

    def finish(self, tools: List[Any]) -> StreamingParseResult:
        if self._decoder is None:
            return StreamingParseResult()
        decoder, self._decoder = self._decoder, None
        try:
            return self._result(decoder.finish())
        finally:
            decoder.close()

    def _start(self, tools: Optional[List[Any]]) -> None:
        self._decoder = self._new_decoder(tools)
        self.prev_tool_call_arr = []
        self.streamed_args_for_tool = []
        self.current_tool_id = -1
        self.current_tool_name_sent = False
        self._spellers = {}

    def _result(self, events: list) -> StreamingParseResult:
        text = []
        calls: List[ToolCallItem] = []
        for e in events:
            kind = e["type"]
            if kind == "text":
                text.append(e["text"])
            elif kind == "reasoning":
                # SGLang separates reasoning with its own parser; with ours on, it stays text.
                text.append(e["text"])
            elif kind == "tool_call_start":
                i = e["index"]
                while len(self.prev_tool_call_arr) <= i:
                    self.prev_tool_call_arr.append({})
                    self.streamed_args_for_tool.append("")
                self.prev_tool_call_arr[i] = {"name": e["name"], "arguments": ""}
                self.current_tool_id = i
                self.current_tool_name_sent = True
                calls.append(ToolCallItem(tool_index=i, name=e["name"], parameters=""))
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
                last = calls[-1] if calls else None
                if last is not None and last.tool_index == i and last.name is None:
                    last.parameters += fragment
                else:
                    calls.append(ToolCallItem(tool_index=i, name=None, parameters=fragment))
            elif kind == "rejected":
                _log_rejection(e)
        return StreamingParseResult(normal_text="".join(text), calls=calls)

    # -- what SGLang asks of a detector beyond parsing -------------------------------------------

    def supports_structural_tag(self) -> bool:
        """True when the format has a grammar: SGLang then constrains required and named calls
        with :meth:`get_structural_tag` and reads them through this detector, in the format's
        own markup. A format without one (a response template) leaves them to SGLang's JSON
        route."""
        return self._grammar

    def get_structural_tag(self, tools: Optional[List[Any]] = None, tool_choice: Any = "auto",
                           thinking_mode: bool = False, parallel_tool_calls: bool = True) -> Any:
        """The request's grammar (``toolcallkit.grammar``, xgrammar target) as xgrammar's
        ``StructuralTag``: calls in the format's own markup, only of the tools ``tool_choice``
        allows, at most one when ``parallel_tool_calls`` is false, arguments held to each
        tool's schema. The format's reasoning block may come first whatever ``thinking_mode``
        says: with ToolCallKit's reasoning detector (which names no think-end token) SGLang
        applies the grammar from the first token, and after a reasoning parser that gates it,
        the block is simply not written again."""
        if not self._grammar:
            return None
        text = _common.structural_tag(self.format, tools, tool_choice, parallel_tool_calls,
                                      tokenizer=self._tokenizer_file)
        if text is None:
            return None
        from xgrammar import StructuralTag

        return StructuralTag.model_validate_json(text)

    def get_required_tool_parser(self, tool_choice: Any) -> None:
        """SGLang hands every parser the request's tool_choice here; the decoder then enforces
        it as the grammar does (a call of a tool the choice does not allow is rejected, and
        logged). No other parser is needed: required and named calls are in the format's own
        markup."""
        choice = _common.tool_choice_value(tool_choice)
        self._policy = {"tool_choice": choice} if choice not in ("auto", "none") else {}
        return None

    def structure_info(self):
        raise NotImplementedError("toolcallkit gives whole structural tags (get_structural_tag)")


def _log_rejection(e: dict) -> None:
    logger.warning(
        "toolcallkit: %s tool call rejected (%s)%s: %s", e.get("format"), e.get("reason"),
        f" for {e['name']!r}" if e.get("name") else "", str(e.get("detail", ""))[:200],
    )


class ToolCallKitReasoningDetector(_reasoning.BaseReasoningFormatDetector):
    """SGLang's reasoning detector over a ToolCallKit decoder (see the module's doc)."""

    def __init__(
        self,
        stream_reasoning: bool = True,
        force_reasoning: bool = False,
        tokenizer: Any = None,
        tool_call_parser_active: bool = False,
        format: Optional[str] = None,
        continue_final_message: bool = False,
        previous_content: Any = "",
        **_: Any,
    ):
        # No marker strings: the decoder knows the format's own.
        super().__init__("", "", force_reasoning=force_reasoning, stream_reasoning=stream_reasoning)
        self.format = format or _common.resolve_format(tokenizer)
        self.options = _common.extra_options()
        self.tool_call_parser_active = tool_call_parser_active
        if continue_final_message and isinstance(previous_content, str) and previous_content:
            # Continuing an assistant message that stopped inside a reasoning block.
            if _common.reasoning_at_end(self.format, self.options, previous_content) == "open":
                self.force_reasoning = True
        self._stream: Optional[_common.Stream] = None
        self._held: list = []  # reasoning held back while stream_reasoning is off

    def _new_stream(self) -> _common.Stream:
        return _common.Stream(self.format, self.options, reasoning=True, calls=False, track=True,
                              reasoning_open=bool(self.force_reasoning))

    def _result(self, fold: _common.Fold, end: bool = False) -> "_reasoning.StreamingParseResult":
        reasoning = "".join(fold.reasoning)
        if not self.stream_reasoning:
            # Whole blocks only: released when the output moves past reasoning, or at the end.
            self._held.append(reasoning)
            reasoning = ""
            if end or (self._stream is not None and self._stream.left_reasoning):
                reasoning, self._held = "".join(self._held), []
        return _reasoning.StreamingParseResult(normal_text=fold.content_raw, reasoning_text=reasoning)

    def detect_and_parse(self, text: str) -> "_reasoning.StreamingParseResult":
        stream = self._new_stream()
        fold = stream.feed(text)
        fold += stream.finish()
        return _reasoning.StreamingParseResult(normal_text=fold.content_raw, reasoning_text="".join(fold.reasoning))

    def detect_and_parse_block_sequence(self, text: str) -> list:
        """The output as ordered ("reasoning" | "text", text) blocks, adjacent ones merged."""
        with _common.new_decoder(self.format, None, self.options, reasoning=True, raw=True,
                                 reasoning_open=bool(self.force_reasoning)) as d:
            events = d.feed(text) + d.finish()
        blocks: list = []
        for e in events:
            if e["type"] == "reasoning":
                kind, piece = "reasoning", e["text"]
            elif "raw" in e:
                kind, piece = "text", e["raw"]
            else:
                continue
            if blocks and blocks[-1][0] == kind:
                blocks[-1] = (kind, blocks[-1][1] + piece)
            elif piece:
                blocks.append((kind, piece))
        return blocks

    def parse_streaming_increment(self, new_text: str) -> "_reasoning.StreamingParseResult":
        if self._stream is None:
            self._stream = self._new_stream()
        if not new_text:
            return _reasoning.StreamingParseResult()
        return self._result(self._stream.feed(new_text))

    def finish(self) -> "_reasoning.StreamingParseResult":
        if self._stream is None:
            return _reasoning.StreamingParseResult(reasoning_text="".join(self._held))
        stream, self._stream = self._stream, None
        return self._result(stream.finish(), end=True)


def register(name: str = "toolcallkit") -> type:
    """Adds the function-call detector to ``FunctionCallParser.ToolCallParserEnum`` and the
    reasoning detector to ``ReasoningParser.DetectorMap``, under ``name`` (so
    ``--tool-call-parser toolcallkit`` and ``--reasoning-parser toolcallkit`` are accepted);
    call it before the server parses its arguments. Returns the function-call detector class."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    FunctionCallParser.ToolCallParserEnum[name] = ToolCallKitDetector
    _reasoning.ReasoningParser.DetectorMap[name] = ToolCallKitReasoningDetector
    return ToolCallKitDetector


def main() -> None:  # pragma: no cover - starts a server
    """``python -m toolcallkit.sglang ARGS``: register both detectors, then
    ``sglang.launch_server`` ARGS."""
    import runpy

    register()
    sys.argv[0] = "sglang.launch_server"
    runpy.run_module("sglang.launch_server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":  # pragma: no cover
    main()
