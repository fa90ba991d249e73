"""The `agent` policy: each turn is a ReAct run with the game tools and a step budget. The
model can check boards with `verify_board` as often as it likes before it submits."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from engines.agent.budget import Budget
from engines.agent.llm import LLM, Delta, LLMError, LLMReply
from engines.agent.session import AgentSession
from engines.bananagrams.dictionary import Dictionary
from engines.play.game_tools import TurnTable, game_tools
from engines.play.oneshot import TurnDecision, call_record
from engines.play.prompts import system_prompt, turn_prompt
from engines.play.view import PlayerView

INSTRUCTIONS = (
    "Use your tools: verify_board to check a board (as often as you like), then submit_board "
    "with your best board, or dump a tile you cannot place. End the turn with final_answer and a "
    "one-line summary."
)


def agent_system_prompt(dictionary_name: str) -> str:
    rules = system_prompt(dictionary_name).split("Send your whole board every turn")[0]
    return rules + "You play through tools, not by writing tags."


class RecordingLLM:
    """Passes calls through and keeps each one's prompt and reply for the match record."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.model = llm.model
        self.calls: list[dict] = []

    async def complete(
        self, messages: list[dict[str, Any]], *, tools=None, on_delta=None
    ) -> LLMReply:
        started = time.monotonic()
        try:
            reply = await self.llm.complete(messages, tools=tools, on_delta=on_delta)
        except LLMError as error:
            self.calls.append(
                call_record(
                    self.model, messages, latency_s=time.monotonic() - started, error=str(error)
                )
            )
            raise
        self.calls.append(
            call_record(self.model, messages, reply=reply, latency_s=time.monotonic() - started)
        )
        return reply


class AgentTurnPolicy:
    def __init__(self, llm: LLM, dictionary: Dictionary, step_budget: int = 6) -> None:
        self.llm = llm
        self.dictionary = dictionary
        self.step_budget = step_budget

    async def decide(
        self, view: PlayerView, on_delta: Callable[[Delta], None] | None = None
    ) -> TurnDecision:
        table = TurnTable(
            hand=view.hand, dictionary=self.dictionary, bunch=view.bunch, board=view.board
        )
        recorder = RecordingLLM(self.llm)
        session = AgentSession(
            recorder,
            tools=game_tools(table),
            policy="react",
            budget=Budget(
                max_steps=self.step_budget, max_wall_s=600, max_tokens=None, max_cost_usd=None
            ),
            verifiers=(),
            system_prompt=agent_system_prompt(view.dictionary_name),
        )
        events: list[dict] = []
        session.subscribe(
            lambda event: (
                None if getattr(event, "transient", False) else events.append(event.to_dict())
            )
        )
        started = time.monotonic()
        result = await session.run(f"{turn_prompt(view)}\n{INSTRUCTIONS}")
        # A model that ran out of steps still plays the last valid board it checked.
        board = table.submitted or table.last_valid
        problems = (
            ()
            if board or table.dump
            else ("no board submitted or checked valid within the step budget",)
        )
        return TurnDecision(
            board=board,
            dump=table.dump,
            plan=result.answer or "",
            raw_reply="\n".join(call["reply"] for call in recorder.calls if call["reply"]),
            problems=problems,
            calls=recorder.calls,
            usage=result.usage,
            latency_s=time.monotonic() - started,
            error=result.error,
            agent_events=events,
        )
