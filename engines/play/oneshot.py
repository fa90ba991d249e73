"""The `oneshot` policy (Banana-Bench): one model reply per turn, read as plan, action and board."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engines.agent.llm import LLM, Delta, LLMError, LLMReply, Usage
from engines.bananagrams.game import Action, DumpTile, PassTurn, SubmitBoard
from engines.play.prompts import oneshot_messages
from engines.play.reply import parse_reply
from engines.play.view import PlayerView


@dataclass(frozen=True)
class TurnDecision:
    """What a player chose this turn, and everything needed to store and replay the LLM call."""

    board: str | None = None
    dump: str | None = None
    plan: str = ""
    raw_reply: str = ""
    reasoning: str = ""
    problems: tuple[str, ...] = ()
    # One record per model call: prompt messages, raw reply, usage, latency, error.
    calls: list[dict] = field(default_factory=list)
    usage: Usage = Usage()
    latency_s: float = 0.0
    error: str | None = None
    # The agent policy's tool calls, tasks and steps, for the tool log.
    agent_events: list[dict] = field(default_factory=list)

    def action(self, player: int) -> Action:
        if self.board is not None:
            return SubmitBoard(player, self.board, self.dump)
        if self.dump is not None:
            return DumpTile(player, self.dump)
        return PassTurn(player, self.error or " ".join(self.problems) or "no move")


class OneShotPolicy:
    """Sends the whole state each turn; keeps at most `history_turns` earlier exchanges."""

    def __init__(self, llm: LLM, history_turns: int = 0) -> None:
        self.llm = llm
        self.history_turns = history_turns
        self.history: list[dict] = []

    async def decide(
        self, view: PlayerView, on_delta: Callable[[Delta], None] | None = None
    ) -> TurnDecision:
        messages = oneshot_messages(
            view, self.history[-2 * self.history_turns :] if self.history_turns else []
        )
        started = time.monotonic()
        try:
            reply = await self.llm.complete(messages, on_delta=on_delta)
        except LLMError as error:
            latency = time.monotonic() - started
            call = call_record(self.llm.model, messages, latency_s=latency, error=str(error))
            return TurnDecision(calls=[call], latency_s=latency, error=f"The model failed: {error}")
        parsed = parse_reply(reply.text)
        latency = reply.latency_s or (time.monotonic() - started)
        if self.history_turns:
            self.history += [messages[-1], {"role": "assistant", "content": reply.text}]
        return TurnDecision(
            board=parsed.board,
            dump=parsed.dump,
            plan=parsed.plan,
            raw_reply=reply.text,
            reasoning=reply.reasoning,
            problems=parsed.problems,
            calls=[call_record(self.llm.model, messages, reply=reply, latency_s=latency)],
            usage=reply.usage,
            latency_s=latency,
        )


def call_record(
    model: str,
    messages: list[dict],
    *,
    reply: LLMReply | None = None,
    latency_s: float,
    error: str | None = None,
) -> dict:
    """One model call as stored with the match (never any API key: those live in the client)."""
    usage = reply.usage if reply else Usage()
    return {
        "model": model,
        "messages": messages,
        "reply": reply.text if reply else "",
        "reasoning": reply.reasoning if reply else "",
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls
        ]
        if reply
        else [],
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cost_usd": usage.cost_usd,
        "latency_s": round(latency_s, 4),
        "backoff_s": reply.backoff_s if reply else 0.0,
        "error": error,
    }
