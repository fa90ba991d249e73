"""Scripted stand-ins for a model and a person, for tests and demos across the project.

    llm = ScriptedLLM([
        reply("Let me compute.", calls=[call("calculator", expression="12*3")]),
        reply(calls=[call("final_answer", answer="36")], usage=Usage(100, 20, 0.001)),
    ], chunk_size=8)

`ScriptedLLM` replays its replies in order, streams their text through `on_delta` (in chunks
when `chunk_size` is set), and records every request it was sent in `requests`. A script item
may also be a function of the request, for replies that depend on what the agent sent.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.agent.human import Decision
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
from engines.agent.tools import Risk

_call_ids = itertools.count(1)


def call(
    name: str,
    arguments: str | dict[str, Any] | None = None,
    /,
    *,
    id: str | None = None,
    **args: Any,
) -> ToolCall:
    """A tool call: `call("calculator", expression="1+1")`, or raw argument text as the second
    positional value (`call("calculator", '{"expression": ')`) to script malformed JSON."""
    if arguments is None:
        text = json.dumps(args)
    elif isinstance(arguments, str):
        text = arguments
    else:
        text = json.dumps({**arguments, **args})
    return ToolCall(id=id or f"call_{next(_call_ids)}", name=name, arguments=text)


@dataclass(frozen=True)
class ScriptedReply:
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None  # None: the ScriptedLLM's default usage
    delay_s: float = 0.0  # spread across the streamed chunks, so a cancel can land mid-reply
    backoff_s: float = 0.0
    finish_reason: str | None = None
    reasoning: str = ""
    error: str | None = None  # raise LLMError(error) instead of replying


def reply(
    text: str = "",
    *,
    calls: Iterable[ToolCall] = (),
    usage: Usage | None = None,
    delay_s: float = 0.0,
    backoff_s: float = 0.0,
    finish_reason: str | None = None,
    reasoning: str = "",
) -> ScriptedReply:
    return ScriptedReply(
        text, tuple(calls), usage, delay_s, backoff_s, finish_reason, reasoning, error=None
    )


def failure(message: str) -> ScriptedReply:
    """A scripted model failure: the call raises `LLMError(message)`."""
    return ScriptedReply(error=message)


@dataclass(frozen=True)
class ScriptedRequest:
    """What the agent sent on one call (deep-copied, so later changes do not show)."""

    messages: list[dict[str, Any]]
    tools: list[ToolSpec] | None

    @property
    def tool_names(self) -> list[str]:
        return [spec.name for spec in self.tools or ()]

    @property
    def last(self) -> dict[str, Any]:
        return self.messages[-1]

    def text(self) -> str:
        """All message contents joined, for `in` checks."""
        return "\n".join(str(message.get("content") or "") for message in self.messages)


ScriptItem = (
    ScriptedReply | LLMReply | str | Callable[[ScriptedRequest], "ScriptedReply | LLMReply | str"]
)


class ScriptedLLM:
    """Replays `script`; raises `LLMError` when it runs out."""

    def __init__(
        self,
        script: Iterable[ScriptItem],
        *,
        model: str = "scripted",
        chunk_size: int | None = None,
        default_usage: Usage | None = None,
        on_call: Callable[[ScriptedRequest], None] | None = None,
    ) -> None:
        self.model = model
        self.script = list(script)
        self.chunk_size = chunk_size
        self.default_usage = default_usage or Usage()
        self.on_call = on_call
        self.requests: list[ScriptedRequest] = []

    @property
    def remaining(self) -> int:
        return len(self.script) - len(self.requests)

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        on_delta: Callable[[Delta], None] | None = None,
    ) -> LLMReply:
        request = ScriptedRequest(copy.deepcopy(messages), list(tools) if tools else None)
        index = len(self.requests)
        self.requests.append(request)
        if self.on_call is not None:
            self.on_call(request)
        if index >= len(self.script):
            raise LLMError(f"ScriptedLLM ran out of replies after {len(self.script)} calls")
        item = self.script[index]
        if callable(item):
            item = item(request)
        if isinstance(item, str):
            item = ScriptedReply(text=item)
        if isinstance(item, LLMReply):
            item = ScriptedReply(
                item.text,
                item.tool_calls,
                item.usage,
                backoff_s=item.backoff_s,
                finish_reason=item.finish_reason,
                reasoning=item.reasoning,
            )
        if item.error is not None:
            if item.delay_s:
                await asyncio.sleep(item.delay_s)
            raise LLMError(item.error)
        await self._stream(item, on_delta)
        return LLMReply(
            text=item.text,
            tool_calls=item.calls,
            usage=item.usage if item.usage is not None else self.default_usage,
            finish_reason=item.finish_reason or ("tool_calls" if item.calls else "stop"),
            model=self.model,
            backoff_s=item.backoff_s,
            reasoning=item.reasoning,
        )

    async def _stream(self, item: ScriptedReply, on_delta: Callable[[Delta], None] | None) -> None:
        size = self.chunk_size or max(1, len(item.text))
        chunks = [item.text[start : start + size] for start in range(0, len(item.text), size)]
        pause = item.delay_s / max(1, len(chunks))
        if not chunks and item.delay_s:
            await asyncio.sleep(item.delay_s)
        for chunk in chunks:
            if pause:
                await asyncio.sleep(pause)
            if on_delta is not None:
                on_delta(TextDelta(chunk))
        if on_delta is not None:
            for index, tool_call in enumerate(item.calls):
                on_delta(ToolCallDelta(index, tool_call.id, tool_call.name, tool_call.arguments))


@dataclass
class ScriptedHuman:
    """A person who gives scripted answers and approval decisions, recording what was asked."""

    answers: Sequence[str] = ()
    decisions: Sequence[Decision | str] = ()
    delay_s: float = 0.0
    on_wait: Callable[[], None] | None = None  # runs while "the person is thinking"
    questions: list[str] = field(default_factory=list)
    approvals: list[tuple[str, dict[str, Any], Risk]] = field(default_factory=list)

    async def ask(self, question: str) -> str:
        self.questions.append(question)
        await self._think()
        if len(self.questions) > len(self.answers):
            raise RuntimeError("ScriptedHuman has no answer left")
        return self.answers[len(self.questions) - 1]

    async def approve(self, tool: str, args: dict[str, Any], risk: Risk) -> Decision:
        self.approvals.append((tool, args, risk))
        await self._think()
        if len(self.approvals) > len(self.decisions):
            raise RuntimeError("ScriptedHuman has no decision left")
        return Decision(self.decisions[len(self.approvals) - 1])

    async def _think(self) -> None:
        if self.on_wait is not None:
            self.on_wait()
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
