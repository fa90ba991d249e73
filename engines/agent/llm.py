"""The seam between the agent engine and any language model.

The engine only knows this protocol; `arena.llm` implements it with litellm, tests implement it
with scripted replies. Messages use the OpenAI chat shape (a list of dicts with `role`,
`content`, and for tool use `tool_calls` / `tool_call_id`), the lingua franca of litellm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: name, description and a JSON schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model. `arguments` is the raw JSON text the model sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost_usd + other.cost_usd,
        )


@dataclass(frozen=True)
class TextDelta:
    """A piece of streamed reply text."""

    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of a streamed tool call: `index` identifies the call within the reply."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


Delta = TextDelta | ToolCallDelta


@dataclass(frozen=True)
class LLMReply:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    finish_reason: str | None = None
    model: str = ""
    latency_s: float = 0.0
    # Seconds spent sleeping between retries; budgets exclude it from wall time.
    backoff_s: float = 0.0
    reasoning: str = ""


class LLMError(Exception):
    """A model call failed for good (after any retries). The message is meant for people."""


class LLM(Protocol):
    """Anything that can complete a chat. Implementations must be safe to call concurrently."""

    model: str

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        on_delta: Callable[[Delta], None] | None = None,
    ) -> LLMReply:
        """Return the whole reply; call `on_delta` for each streamed piece. Raise `LLMError`."""
        ...
