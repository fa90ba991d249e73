"""`LiteLLM`: the `engines.agent.llm.LLM` protocol implemented with litellm.

Every call streams (`stream=True`, usage requested in the last chunk), passes the pieces to
`on_delta` as they arrive and returns the assembled `LLMReply`. Timeouts, HTTP 429 and 5xx
are retried with jittered exponential backoff (see `RetryPolicy`); anything else fails at
once. All failures surface as `LLMError` with a one-line message for people.

A reply that already streamed pieces to `on_delta` is not retried when it breaks off, because
the pieces cannot be taken back from whoever displayed them; without `on_delta` it is.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from arena.llm._loader import litellm_module
from arena.llm.accounting import call_cost, count_tokens
from arena.llm.errors import (
    MODEL_NAME_HINT,
    EmptyStreamError,
    Failure,
    FailureKind,
    classify,
    failure_message,
    key_variable,
)
from arena.llm.retry import RetryPolicy
from engines.agent.llm import (
    Delta,
    LLMError,
    LLMReply,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)

log = logging.getLogger(__name__)

# Set by `complete()` itself; a player's extra parameters may not override them.
RESERVED_PARAMS = frozenset({"model", "messages", "stream", "stream_options", "tools"})
# Retries belong to `RetryPolicy`; these spellings set its attempt count instead.
_RETRY_PARAMS = ("num_retries", "max_retries")
_OPENAI_BASE_VARIABLES = ("OPENAI_API_BASE", "OPENAI_BASE_URL")
# Seconds without a byte from the provider before an attempt counts as timed out; litellm's own
# default (600 s) times four attempts would leave a stuck player hanging for 40 minutes.
DEFAULT_TIMEOUT_S = 300.0
# Per-player prices are applied here; handed to litellm they would re-price the model name
# for every other caller in the process.
_PRICE_PARAMS = ("input_cost_per_token", "output_cost_per_token")


class _CallbackFailed(Exception):
    """Wraps an exception raised by the caller's `on_delta`, so it is not taken for a model error."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


@dataclass
class _PartialCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class _ReplyAssembler:
    """Collects streamed chunks into text, reasoning, tool calls, usage and finish reason."""

    def __init__(self, on_delta: Callable[[Delta], None] | None) -> None:
        self._on_delta = on_delta
        self.emitted = False
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[_PartialCall] = []
        self._slot_by_index: dict[int, int] = {}
        self.finish_reason: str | None = None
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None

    @property
    def empty(self) -> bool:
        """Nothing at all arrived: no text, reasoning, tool call or usage."""
        return not (self.text or self.reasoning or self.calls or self.prompt_tokens is not None)

    def _emit(self, delta: Delta) -> None:
        if self._on_delta is None:
            return
        self.emitted = True
        try:
            self._on_delta(delta)
        except Exception as exc:
            raise _CallbackFailed(exc) from exc

    def absorb(self, chunk: Any) -> None:
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            prompt = getattr(usage, "prompt_tokens", None)
            completion = getattr(usage, "completion_tokens", None)
            if prompt or completion:
                self.prompt_tokens = int(prompt or 0)
                self.completion_tokens = int(completion or 0)
        for choice in getattr(chunk, "choices", None) or ():
            if getattr(choice, "index", 0) not in (0, None):
                continue  # we ask for one completion; ignore any others
            delta = getattr(choice, "delta", None)
            if delta is not None:
                self._absorb_delta(delta)
            reason = getattr(choice, "finish_reason", None)
            if reason:
                self.finish_reason = str(reason)

    def _absorb_delta(self, delta: Any) -> None:
        reasoning = getattr(delta, "reasoning_content", None)
        if reasoning:
            self.reasoning.append(str(reasoning))
        content = getattr(delta, "content", None)
        if content:
            self.text.append(str(content))
            self._emit(TextDelta(str(content)))
        for piece in getattr(delta, "tool_calls", None) or ():
            self._absorb_tool_call(piece)

    def _slot(self, index: int, call_id: str | None) -> int:
        """Our index for a provider's call index; a new id at a used index is a new call.

        Some providers number every parallel call 0 and tell them apart only by id.
        """
        slot = self._slot_by_index.get(index)
        if slot is not None:
            existing = self.calls[slot].id
            if not (call_id and existing and call_id != existing):
                return slot
        self.calls.append(_PartialCall())
        slot = len(self.calls) - 1
        self._slot_by_index[index] = slot
        return slot

    def _absorb_tool_call(self, piece: Any) -> None:
        index = getattr(piece, "index", None) or 0
        call_id = getattr(piece, "id", None) or None
        function = getattr(piece, "function", None)
        name = (getattr(function, "name", None) or "") if function is not None else ""
        arguments = (getattr(function, "arguments", None) or "") if function is not None else ""
        slot = self._slot(int(index), call_id)
        call = self.calls[slot]
        new_id = None
        if call_id and call.id is None:
            call.id = new_id = call_id
        new_name = None
        # Most providers send the name once; some repeat it with every piece.
        if name and name != call.name:
            call.name += name
            new_name = name
        if arguments:
            call.arguments.append(arguments)
        if new_id or new_name or arguments:
            self._emit(ToolCallDelta(index=slot, id=new_id, name=new_name, arguments=arguments))

    def tool_calls(self) -> tuple[ToolCall, ...]:
        calls = []
        for call in self.calls:
            arguments = "".join(call.arguments)
            if not call.name and not arguments.strip():
                continue
            calls.append(
                ToolCall(
                    id=call.id or f"call_{uuid.uuid4().hex[:16]}",
                    name=call.name,
                    arguments=arguments if arguments.strip() else "{}",
                )
            )
        return tuple(calls)


class LiteLLM:
    """A chat model reached through litellm; implements `engines.agent.llm.LLM`.

    `model` is a litellm model name (`openai/gpt-5-nano`, `anthropic/claude-sonnet-4-5`,
    `gemini/gemini-2.5-flash`, `openai/<name>` for any OpenAI-compatible server). Every other
    keyword goes straight to `litellm.acompletion`: `api_base`, `api_key`, `temperature`,
    `max_tokens`, `reasoning_effort`, `thinking`, `timeout` (default 300 s), ...
    (`num_retries` / `max_retries` set the number of retries of `retry` instead;
    `input_cost_per_token` / `output_cost_per_token` price this player's calls). Safe to use
    concurrently.

        llm = LiteLLM("openai/gpt-5-nano", reasoning_effort="low", timeout=60)
        reply = await llm.complete(messages, tools=specs, on_delta=show)
    """

    def __init__(self, model: str, *, retry: RetryPolicy | None = None, **params: Any) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("a model name is required, for example 'openai/gpt-5-nano'")
        clash = sorted(RESERVED_PARAMS & params.keys())
        if clash:
            raise ValueError(f"parameters set by the client itself: {', '.join(clash)}")
        retries = None
        for name in _RETRY_PARAMS:
            value = params.pop(name, None)
            if value is not None:
                retries = int(value)
        policy = retry or RetryPolicy()
        if retries is not None:
            policy = RetryPolicy(
                attempts=max(1, retries + 1),
                base_delay_s=policy.base_delay_s,
                max_delay_s=policy.max_delay_s,
                max_retry_after_s=policy.max_retry_after_s,
                jitter=policy.jitter,
            )
        if params.get("timeout") is None and params.get("request_timeout") is None:
            params["timeout"] = DEFAULT_TIMEOUT_S
        self.model = model.strip()
        self.retry = policy
        self.params: dict[str, Any] = dict(params)

    def __repr__(self) -> str:
        return f"LiteLLM({self.model!r}, {redacted_params(self.params)})"

    # -- public ----------------------------------------------------------------------------

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        on_delta: Callable[[Delta], None] | None = None,
    ) -> LLMReply:
        # The first call pays for importing litellm; do it off the event loop.
        litellm = await asyncio.to_thread(litellm_module)
        provider = self._preflight(litellm)
        request: dict[str, Any] = {
            **{k: v for k, v in self.params.items() if k not in _PRICE_PARAMS},
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_retries": 0,  # the provider SDK must not retry behind our back
        }
        if tools:
            request["tools"] = [spec.to_openai() for spec in tools]

        backoff_s = 0.0
        attempts = self.retry.attempts
        for attempt in range(1, attempts + 1):
            assembler = _ReplyAssembler(on_delta)
            started = time.monotonic()
            try:
                await self._stream(litellm, request, assembler)
            except _CallbackFailed as failed:
                raise failed.original from None
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failure = classify(exc, litellm, self._secrets())
                final = not failure.retryable or attempt == attempts or assembler.emitted
                log.debug(
                    "%s attempt %d failed: %s %s", self.model, attempt, failure.kind, failure.detail
                )
                if final:
                    raise LLMError(self._message(failure, attempt, provider, assembler)) from None
                delay = self.retry.delay(attempt, failure.retry_after_s)
                await asyncio.sleep(delay)
                backoff_s += delay
                continue
            return self._reply(assembler, messages, request, time.monotonic() - started, backoff_s)
        raise AssertionError("unreachable: the retry loop returns or raises")

    def count_tokens(
        self, messages: list[dict[str, Any]], tools: list[ToolSpec] | None = None
    ) -> int:
        """Estimated prompt tokens for `messages` (imports litellm on first use)."""
        return count_tokens(
            self.model, messages, tools=[t.to_openai() for t in tools] if tools else None
        )

    # -- internals ---------------------------------------------------------------------------

    async def _stream(
        self, litellm: ModuleType, request: dict[str, Any], assembler: _ReplyAssembler
    ) -> None:
        response = await litellm.acompletion(**request)
        async for chunk in response:
            assembler.absorb(chunk)
        if assembler.empty:
            # litellm turns a body that is not an event stream into an empty "stop" reply.
            raise EmptyStreamError(
                "the reply stream carried no data (is this an OpenAI-style endpoint?)"
            )

    def _secrets(self) -> tuple[str, ...]:
        key = self.params.get("api_key")
        return (str(key),) if key else ()

    def _preflight(self, litellm: ModuleType) -> str | None:
        """Fail before any network traffic when the model or its API key is missing."""
        api_base = self.params.get("api_base") or self.params.get("base_url")
        try:
            _, provider, _, _ = litellm.get_llm_provider(
                model=self.model,
                custom_llm_provider=self.params.get("custom_llm_provider"),
                api_base=api_base,
            )
        except Exception:
            raise LLMError(
                f"Unknown model {self.model!r}: litellm cannot tell which provider serves it; "
                f"{MODEL_NAME_HINT}."
            ) from None
        message = self._missing_key_message(litellm, provider, api_base)
        if message:
            raise LLMError(message)
        return provider

    def _missing_key_message(
        self, litellm: ModuleType, provider: str | None, api_base: Any
    ) -> str | None:
        if self.params.get("api_key"):
            return None
        try:
            report = litellm.validate_environment(model=self.model, api_base=api_base)
        except Exception:
            return None
        if report.get("keys_in_environment"):
            return None
        # Only credentials are required up front; a missing base URL often has a default.
        missing = [
            k for k in report.get("missing_keys") or () if k.endswith("_KEY") or "TOKEN" in k
        ]
        if not missing:
            return None
        preferred = key_variable(provider)
        missing.sort(key=lambda k: (k != preferred, k))
        local = provider == "openai" and (
            api_base or any(os.environ.get(v) for v in _OPENAI_BASE_VARIABLES)
        )
        hint = " (any value works for a local OpenAI-compatible server)" if local else ""
        return (
            f"No API key for {self.model}: set {' or '.join(missing)} in the environment{hint}, "
            "or give this player an api_key."
        )

    def _message(
        self, failure: Failure, attempt: int, provider: str | None, assembler: _ReplyAssembler
    ) -> str:
        timeout = self.params.get("timeout") or self.params.get("request_timeout")
        try:
            timeout_s = float(timeout) if timeout is not None else None
        except (TypeError, ValueError):
            timeout_s = None
        return failure_message(
            self.model,
            failure,
            attempts=attempt,
            provider=provider,
            timeout_s=timeout_s,
            broke_off=assembler.emitted and failure.kind is not FailureKind.UNEXPECTED,
        )

    def _reply(
        self,
        assembler: _ReplyAssembler,
        messages: list[dict[str, Any]],
        request: dict[str, Any],
        latency_s: float,
        backoff_s: float,
    ) -> LLMReply:
        text = "".join(assembler.text)
        tool_calls = assembler.tool_calls()
        prompt_tokens = assembler.prompt_tokens
        completion_tokens = assembler.completion_tokens
        if prompt_tokens is None or completion_tokens is None:
            # The provider sent no usage: estimate, budgets need a number.
            prompt_tokens = count_tokens(self.model, messages, tools=request.get("tools"))
            produced = text + "".join(assembler.reasoning)
            produced += "".join(c.name + c.arguments for c in tool_calls)
            completion_tokens = count_tokens(self.model, text=produced) if produced else 0
        cost = call_cost(self.model, prompt_tokens, completion_tokens, self.params)
        return LLMReply(
            text=text,
            tool_calls=tool_calls,
            usage=Usage(prompt_tokens, completion_tokens, cost),
            finish_reason=assembler.finish_reason,
            model=self.model,
            latency_s=latency_s,
            backoff_s=backoff_s,
            reasoning="".join(assembler.reasoning),
        )


def redacted_params(params: dict[str, Any]) -> dict[str, Any]:
    """`params` safe to log or store: values of keys that look secret are masked."""
    return {
        k: ("***" if any(s in k.lower() for s in ("key", "token", "secret")) else v)
        for k, v in params.items()
    }
