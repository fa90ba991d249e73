"""Players: people (moves from the UI), the solver bot, models through litellm, and scripted
replies for tests and demos. Each answers a turn with a `TurnDecision`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import yaml

from arena.config import ConfigError, PlayerConfig
from engines.agent.llm import LLM, Delta
from engines.bananagrams.dictionary import Dictionary
from engines.bananagrams.game import PlayerState
from engines.play.oneshot import OneShotPolicy, TurnDecision
from engines.play.view import PlayerView


class Player(Protocol):
    kind: str
    model: str | None
    # Seconds of game time per move in realtime mode (how long the UI shows it thinking).
    pace: float

    async def decide(
        self, view: PlayerView, me: PlayerState, on_delta: Callable[[Delta], None] | None = None
    ) -> TurnDecision: ...


class HumanPlayer:
    """Moves arrive from the UI through `submit()`."""

    kind = "human"
    model = None
    pace = 0.0

    def __init__(self) -> None:
        self.moves: asyncio.Queue[TurnDecision] = asyncio.Queue()

    def submit(self, decision: TurnDecision) -> None:
        self.moves.put_nowait(decision)

    async def decide(self, view, me, on_delta=None) -> TurnDecision:
        return await self.moves.get()


class ModelPlayer:
    """A model playing through a policy (`oneshot`, or `agent` with game tools)."""

    def __init__(self, kind: str, llm: LLM, policy) -> None:
        self.kind = kind
        self.model = llm.model
        self.llm = llm
        self.policy = policy
        self.pace = 0.0

    async def decide(self, view, me, on_delta=None) -> TurnDecision:
        return await self.policy.decide(view, on_delta)


def load_replies(path: str | Path) -> list:
    """A scripted player's replies: a YAML/JSON list whose items are reply texts or, for the
    agent policy, `{text, calls: [{name, arguments}]}`; or a text file of replies split by `---`."""
    from engines.agent.scripted import call, reply

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"Cannot read replies file {path}: {error.strerror or error}") from None
    if path.suffix not in (".yaml", ".yml", ".json"):
        return [block.strip() for block in text.split("\n---\n")]
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        raise ConfigError(f"Replies file {path} does not parse: {error}") from None
    if not isinstance(data, list):
        raise ConfigError(f"Replies file {path} must be a list of replies.")
    replies = []
    for number, item in enumerate(data, start=1):
        if isinstance(item, str):
            replies.append(item)
        elif isinstance(item, dict) and all(
            isinstance(c, dict) and "name" in c for c in item.get("calls", [])
        ):
            calls = [call(c["name"], **(c.get("arguments") or {})) for c in item.get("calls", [])]
            replies.append(reply(str(item.get("text", "")), calls=calls))
        else:
            raise ConfigError(
                f"Replies file {path}, reply {number}: a text, or a mapping with text and calls."
            )
    return replies


def build_player(
    config: PlayerConfig,
    *,
    dictionary: Dictionary,
    replies_done: int = 0,
    realtime: bool = False,
) -> Player:
    """The player a config entry describes. `replies_done` skips scripted replies already used
    (when a match is resumed)."""
    if config.kind == "human":
        return HumanPlayer()
    if config.kind == "bot":
        from arena.bot import SolverPlayer

        return SolverPlayer(
            config.level, dictionary=dictionary, pace=config.pace if realtime else 0.0
        )
    if config.kind == "scripted":
        from engines.agent.scripted import ScriptedLLM

        llm: LLM = ScriptedLLM(load_replies(config.replies or "")[replies_done:], model="scripted")
    else:
        from arena.llm import LiteLLM

        llm = LiteLLM(config.model or "", **config.llm_params)
    if config.policy == "agent":
        from engines.play.agent_policy import AgentTurnPolicy

        return ModelPlayer(
            config.kind or "llm", llm, AgentTurnPolicy(llm, dictionary, config.step_budget)
        )
    return ModelPlayer(config.kind or "llm", llm, OneShotPolicy(llm, config.history_turns))
