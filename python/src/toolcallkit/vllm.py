"""vLLM parsers backed by ToolCallKit: a tool parser and a reasoning parser, both registered
under the name ``toolcallkit``.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin "$PLUGIN" --tool-call-parser toolcallkit \\
        --reasoning-parser-plugin "$PLUGIN" --reasoning-parser toolcallkit

where ``$PLUGIN`` is this file's path (``python -c 'import toolcallkit.vllm as m;
print(m.__file__)'``; ``toolcallkit.vllm`` works as a plugin name too). The wire format comes
from ``TOOLCALLKIT_FORMAT`` (``json``, ``mistral``, ``llama3``, ...) or, when that is unset, is
inferred from the tokenizer's model folder. ``TOOLCALLKIT_OPTIONS`` may hold further decoder
options as a JSON object, e.g. ``{"whole_calls": true}`` so that a client never sees part of
a call that is then rejected.

**One decoder for reasoning, content and calls.** When both parsers are ToolCallKit's, vLLM's
unified parser (``vllm.parser``) holds one of each per request; they find each other there,
and the tool parser's decoder, with reasoning separation on, gives the whole stream:
reasoning (every block, also those between calls), content and calls, as ``toolcall decode
--reasoning`` gives them. The reasoning parser then tells vLLM where the prompt left reasoning
(an open ``<think>`` at the end of the prompt makes the decoder start inside a block).

Either parser also works beside another one, or alone: the reasoning parser separates the
reasoning at the start of the output and hands the rest, byte for byte, to the tool parser;
the tool parser separates later reasoning blocks when a reasoning parser is configured (vLLM
says so by leaving ``skip_reasoning_parsing`` unset). Made by a unified parser, the tool parser
streams by ``delta_text`` alone and has an end-of-stream call (``finish_streaming``), which
releases a suffix held back as a possible marker and settles a call cut off by the token
limit; used without one (older vLLM), a stream whose ``previous_text`` is empty starts a fresh
decoder, and there is no end-of-stream call.

Argument strings are spelt as ``json.dumps`` spells them (``{"city": "Paris"}``), streamed
or not, as vLLM's own parsers send them. The request's ``tools`` are declared to the decoder,
so a call to an undeclared function is rejected (and logged) rather than passed on. Rejected
calls are never content. With ``tool_choice`` "none", calls are not parsed: their markup stays
content, as the model wrote it.

For structured outputs, the reasoning parser also answers vLLM's question "has reasoning
ended?" from token ids (``is_reasoning_end``, ``is_reasoning_end_streaming``), by decoding them.

**The grammar.** The tool parser names a structural-tag model, so vLLM asks it for the
structural tag of each request that needs one (tool_choice "required", a named tool,
parallel_tool_calls false, strict tools): ToolCallKit's grammar for the format
(``toolcallkit.grammar``, docs/grammar.md), so the model can only write calls the request allows,
in the format's own markup, with arguments that fit their schemas. ``supports_required_and_named``
is off, so vLLM reads those calls through this parser, and the decoder enforces the request's
tool_choice and parallel_tool_calls too. A vLLM that does not ask tool parsers for tags gets
the tag from ``adjust_request``. With ``VLLM_ENFORCE_STRICT_TOOL_CALLING=0``, or a format
without a grammar (a response template), vLLM keeps its own JSON route for required calls.
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
    import sys
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
    from vllm.reasoning import ReasoningParser, ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

    import toolcallkit
    from toolcallkit import _common

    logger = init_logger(__name__)

    def _owning_parser() -> Any:
        """The vLLM unified parser (``vllm.parser.abstract_parser.Parser``, one per request)
        whose constructor is making the caller, or None (an older vLLM, or direct use)."""
        try:
            from vllm.parser.abstract_parser import Parser
        except ImportError:
            return None
        frame = sys._getframe(2)
        for _ in range(6):
            if frame is None:
                return None
            owner = frame.f_locals.get("self")
            if isinstance(owner, Parser):
                return owner
            frame = frame.f_back
        return None

    def _decode(tokenizer: Any, ids: Sequence[int]) -> str:
        try:
            return tokenizer.decode(list(ids), skip_special_tokens=False)
        except TypeError:
            return tokenizer.decode(list(ids))

    def _calls_wanted(request: Any) -> bool:
        return getattr(request, "tool_choice", None) != "none"

    def _structural_tags_allowed() -> bool:
        """vLLM's switch for structural tags from tool parsers (VLLM_ENFORCE_STRICT_TOOL_CALLING,
        on unless turned off; releases without it have no such switch)."""
        try:
            import vllm.envs as envs

            return bool(getattr(envs, "VLLM_ENFORCE_STRICT_TOOL_CALLING", True))
        except Exception:  # pragma: no cover - an envs module that fails to import
            return True

    def _needs_call(request: Any) -> bool:
        """tool_choice "required" or a named tool: the request must get a call."""
        choice = getattr(request, "tool_choice", None)
        return choice == "required" or (choice is not None and not isinstance(choice, str))

    @ToolParserManager.register_module("toolcallkit")
    class ToolCallKitToolParser(ToolParser):
        """vLLM's ``ToolParser`` over a ToolCallKit decoder (see the module's doc)."""

        # The grammar: vLLM asks a tool parser that names a structural-tag model for the
        # structural tag of each request that needs one (get_structural_tag), and reads
        # required and named calls from the format's own markup, through this parser, when
        # supports_required_and_named is off. Set per instance in __init__ (a format without
        # a grammar, or structural tags turned off, leaves both to vLLM's JSON route).
        structural_tag_model: Optional[str] = "toolcallkit"
        supports_required_and_named = False

        def __init__(self, tokenizer: Any, tools: Optional[list] = None, *args: Any, **kwargs: Any):
            super().__init__(tokenizer, tools)
            self.format = _common.resolve_format(tokenizer)
            self.options = _common.extra_options()
            self._tokenizer_file: Optional[str] = None
            if _common.has_grammar(self.format) and _structural_tags_allowed():
                self._tokenizer_file = _common.tokenizer_file(tokenizer)
            else:
                # vLLM then forces required and named calls into its JSON list and reads them
                # itself, as for any parser without a structural tag.
                self.structural_tag_model = None
                self.supports_required_and_named = True
            # vLLM sets this when no reasoning parser is configured: reasoning markup is content.
            self.skip_reasoning_parsing = False
            self._stream: Optional[_common.Stream] = None
            self._spellers: dict = {}
            self._partner: Optional[ToolCallKitReasoningParser] = None
            owner = _owning_parser()
            if owner is not None:
                # One request's parser: one stream per instance, fed delta_text alone, and an
                # end-of-stream call (vLLM calls finish_streaming on engine-based parsers).
                self.engine_based_streaming = True
                partner = getattr(owner, "reasoning_parser", None)
                if isinstance(partner, ToolCallKitReasoningParser):
                    self._partner = partner
                    partner._partner = self
                    partner.engine_based_streaming = True

        @property
        def paired(self) -> bool:
            """Whether this parser's decoder also gives the reasoning (see the module's doc)."""
            return self._partner is not None

        # -- requests -------------------------------------------------------------------------

        def adjust_request(self, request: Any) -> Any:
            if (self.structural_tag_model is not None and _needs_call(request)
                    and getattr(request, "tools", None) and not self._has_structural_tag(request)):
                # A vLLM that does not ask tool parsers for structural tags (before 0.34):
                # required and named calls get ours here, so they are enforced all the same.
                tag = self.get_structural_tag(request)
                if tag is not None:
                    self._set_structural_tag(request, tag)
            request = super().adjust_request(request)
            if getattr(request, "tools", None) and getattr(request, "tool_choice", None) != "none":
                # Markers are special tokens in many vocabularies; skipping them would hide calls.
                request.skip_special_tokens = False
            return request

        def get_structural_tag(self, request: Any, *args: Any, **kwargs: Any) -> Any:
            """The request's grammar (``toolcallkit.grammar``, xgrammar target) as xgrammar's
            ``StructuralTag``: calls in the format's own markup, only of the tools the
            request's tool_choice allows, at most one when parallel_tool_calls is false, with
            arguments held to each tool's schema; the format's reasoning block may come first.
            None when there is nothing to constrain."""
            if self.structural_tag_model is None:
                return None
            text = _common.structural_tag(
                self.format, getattr(request, "tools", None), getattr(request, "tool_choice", None),
                getattr(request, "parallel_tool_calls", None), tokenizer=self._tokenizer_file)
            if text is None:
                return None
            from xgrammar import StructuralTag

            return StructuralTag.model_validate_json(text)

        @staticmethod
        def _has_structural_tag(request: Any) -> bool:
            so = getattr(request, "structured_outputs", None)
            return so is not None and getattr(so, "structural_tag", None) is not None

        @staticmethod
        def _set_structural_tag(request: Any, tag: Any) -> None:
            import json as _json

            from vllm.sampling_params import StructuredOutputsParams

            request.structured_outputs = StructuredOutputsParams(structural_tag=_json.dumps(tag.model_dump()))
            if hasattr(request, "response_format"):
                request.response_format = None

        def _reasoning(self) -> tuple:
            """(separate reasoning, start inside a block) for this parser's decoder."""
            if self._partner is not None:
                return True, self._partner.prompt_state == "open"
            if self.engine_based_streaming and not self.skip_reasoning_parsing:
                return True, False
            return bool(self.options.get("reasoning")), bool(self.options.get("reasoning_open"))

        def _new_stream(self, request: Any, track: bool = False) -> _common.Stream:
            reasoning, reasoning_open = self._reasoning()
            calls = _calls_wanted(request) or not self.engine_based_streaming
            return _common.Stream(
                self.format, self.options, tools=getattr(request, "tools", None) if calls else None,
                reasoning=reasoning, reasoning_open=reasoning_open, calls=calls, track=track,
                policy=_common.policy_options(getattr(request, "tool_choice", None),
                                              getattr(request, "parallel_tool_calls", None)))

        # -- whole outputs --------------------------------------------------------------------

        def decode_whole(self, model_output: str, request: Any, track: bool = False) -> _common.Fold:
            """The whole output through one decoder, folded."""
            stream = self._new_stream(request, track=track)
            fold = stream.feed(model_output)
            fold += stream.finish()
            return fold

        def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
            fold = None
            if self._partner is not None:
                fold = self._partner.take_whole(model_output)
            if fold is None:
                fold = self.decode_whole(model_output, request)
            for r in fold.rejected:
                self._log_rejection(r)
            events = [{"type": "text", "text": "".join(fold.content)}] + fold.calls
            message = toolcallkit.message_from_events(events, dump_arguments=True)
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
            if self._stream is None or (not previous_text and not self.engine_based_streaming):
                self._start_stream(request)
            if not delta_text:
                return None
            return self._delta(self._stream.feed(delta_text))

        def finish_streaming(self) -> Optional[DeltaMessage]:
            """The end of the stream (vLLM calls it on engine-based parsers): held-back text
            and an unfinished call are settled."""
            if self._stream is None:
                return None
            stream, self._stream = self._stream, None
            return self._delta(stream.finish())

        def _start_stream(self, request: Any) -> None:
            if self._stream is not None:
                self._stream.close()
            self._stream = self._new_stream(request)
            self.prev_tool_call_arr = []
            self.streamed_args_for_tool = []
            self.current_tool_id = -1
            self.current_tool_name_sent = False
            self._spellers = {}

        def _delta(self, fold: _common.Fold) -> Optional[DeltaMessage]:
            """One DeltaMessage for a feed: reasoning, text, and per call its start and the
            argument fragments joined (vLLM's bookkeeping kept as its serving layer reads it)."""
            calls: list = []
            by_index: dict = {}
            for e in fold.calls:
                kind = e["type"]
                if kind == "tool_call_start":
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
            for r in fold.rejected:
                self._log_rejection(r)
            text = "".join(fold.content)
            reasoning = "".join(fold.reasoning)
            if not (text or reasoning or calls):
                return None
            message = DeltaMessage(content=text or None, tool_calls=calls)
            if reasoning:
                message.reasoning = reasoning
            return message

        @staticmethod
        def _log_rejection(e: dict) -> None:
            logger.warning(
                "toolcallkit: %s tool call rejected (%s)%s: %s", e.get("format"), e.get("reason"),
                f" for {e['name']!r}" if e.get("name") else "", str(e.get("detail", ""))[:200],
            )

    @ReasoningParserManager.register_module("toolcallkit")
    class ToolCallKitReasoningParser(ReasoningParser):
        """vLLM's ``ReasoningParser`` over a ToolCallKit decoder (see the module's doc).

        It works in one of three ways, chosen when vLLM's unified parser makes it:

        - ``paired``: the tool parser is ToolCallKit's too; its decoder gives reasoning,
          content and calls, and this parser only reports where the prompt left reasoning;
        - ``alone``: there is no tool parser; this parser's decoder keeps the whole stream and
          separates every reasoning block (call markup stays content);
        - ``handoff``: another tool parser, or no unified parser (older vLLM, direct use); the
          reasoning at the start of the output is separated, and once the output moves past it
          the rest goes on unchanged, byte for byte, to the tool parser.
        """

        def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any):
            super().__init__(tokenizer, *args, **kwargs)
            self.format = _common.resolve_format(tokenizer)
            self.options = _common.extra_options()
            #: Where the prompt left reasoning: "open", "closed", "none"; None until seen.
            self.prompt_state: Optional[str] = None
            self._partner: Optional[ToolCallKitToolParser] = None  # set by the tool parser
            self.mode = "handoff"
            owner = _owning_parser()
            if owner is not None:
                tool_cls = getattr(type(owner), "tool_parser_cls", None)
                if tool_cls is None:
                    self.mode = "alone"
                elif isinstance(tool_cls, type) and issubclass(tool_cls, ToolCallKitToolParser):
                    self.mode = "paired"
                if self.mode != "handoff":
                    # Its end-of-stream call (finish_streaming) settles what the decoder holds.
                    self.engine_based_streaming = True
            self._stream: Optional[_common.Stream] = None  # the serving stream, until handed on
            self._ended = False
            self._serving = False
            self._tracker: Optional[_common.Stream] = None  # token-id checks (structured outputs)
            self._whole: Optional[tuple] = None  # (content, fold) for the tool parser
            self._last_prompt: Optional[tuple] = None  # (ids, state) of the last prompt seen

        def _new_stream(self) -> _common.Stream:
            return _common.Stream(self.format, self.options, reasoning=True, calls=False, track=True,
                                  reasoning_open=self.prompt_state == "open", handoff=self.mode == "handoff")

        # -- the prompt and token ids ---------------------------------------------------------

        def _prompt(self, input_ids: Sequence[int]) -> str:
            ids = list(input_ids)
            if self._last_prompt is not None and self._last_prompt[0] == ids:
                return self._last_prompt[1]
            state = _common.reasoning_at_end(self.format, self.options, _decode(self.model_tokenizer, ids))
            self._last_prompt = (ids, state)
            if self.prompt_state is None:
                self.prompt_state = state
            return state

        def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
            """The rendered prompt (vLLM gives it before a whole output is parsed, and at the
            start of a stream): where it leaves reasoning decides where the output starts."""
            self._prompt(prompt_token_ids)

        def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
            """Whether these ids (a prompt, as vLLM asks) close a reasoning block and leave
            none open. Paired, true (the tool parser's decoder takes the whole stream); alone,
            false (this parser's decoder does)."""
            state = self._prompt(input_ids)
            if self.mode == "paired":
                return True
            if self.mode == "alone" and not self._tracking:
                return False
            return state == "closed"

        @property
        def _tracking(self) -> bool:
            return self._tracker is not None

        def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Any) -> bool:
            if self._serving:
                return self.mode == "paired" or self._ended
            # Structured outputs ask at every step, with the new ids: decode only those.
            if self._tracker is None:
                self._tracker = _common.Stream(self.format, self.options, reasoning=True, calls=False,
                                               reasoning_open=self.prompt_state == "open", track=True)
            delta = list(delta_ids)
            if delta:
                self._tracker.feed(_decode(self.model_tokenizer, delta))
            return self._tracker.left_reasoning

        def has_engine_confirmed_reasoning_end(self) -> bool:
            return self.mode == "paired" or self._ended

        def extract_content_ids(self, input_ids: list) -> list:
            return input_ids

        # -- whole outputs --------------------------------------------------------------------

        def extract_reasoning(self, model_output: str, request: Any) -> tuple:
            """(reasoning, content), the content byte for byte what is not reasoning (call
            markup included, for the tool parser); as streaming splits the same output."""
            if self.mode == "paired" and self._partner is not None:
                fold = self._partner.decode_whole(model_output, request, track=True)
                content = fold.content_raw
                self._whole = (content, fold)
            else:
                stream = self._new_stream()
                fold = stream.feed(model_output)
                fold += stream.finish()
                content = fold.content_raw
            return "".join(fold.reasoning) or None, content or None

        def take_whole(self, content: Optional[str]) -> Optional[_common.Fold]:
            """The decoded output of the last extract_reasoning, when ``content`` is its content
            (the tool parser then has nothing to decode again)."""
            whole, self._whole = self._whole, None
            if whole is not None and whole[0] == (content or ""):
                return whole[1]
            return None

        # -- streams --------------------------------------------------------------------------

        def extract_reasoning_streaming(
            self,
            previous_text: str,
            current_text: str,
            delta_text: str,
            previous_token_ids: Sequence[int],
            current_token_ids: Sequence[int],
            delta_token_ids: Sequence[int],
        ) -> Optional[DeltaMessage]:
            self._serving = True
            if self.mode == "paired" or self._ended:
                # The tool parser's decoder has the stream (or has been handed the rest).
                return DeltaMessage(content=delta_text) if delta_text else None
            if self._stream is None:
                self._stream = self._new_stream()
            stream = self._stream
            fold = stream.feed(delta_text)
            content = fold.content_raw
            if stream.handed_off:
                # Reasoning is over: the rest goes on as text, including what the decoder
                # holds back as a possible marker or an unfinished call.
                self._ended = True
                content += stream.rest()
                stream.close()
                self._stream = None
            return self._message(fold.reasoning, content)

        def finish_streaming(self) -> Optional[DeltaMessage]:
            """The end of the stream (alone): what the decoder holds is settled."""
            if self._stream is None:
                return None
            stream, self._stream = self._stream, None
            fold = stream.finish()
            return self._message(fold.reasoning, fold.content_raw)

        @staticmethod
        def _message(reasoning: list, content: str) -> Optional[DeltaMessage]:
            text = "".join(reasoning)
            if not (text or content):
                return None
            return DeltaMessage(reasoning=text or None, content=content or None)

    __all__ = ["ToolCallKitToolParser", "ToolCallKitReasoningParser"]
