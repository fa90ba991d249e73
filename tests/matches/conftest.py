"""Stored matches for the replay, export, ratings and CLI tests.

Real matches come from the runner (bots, scripted models). Streams the runner cannot produce on
demand (rotten bananas, refused dumps, rejected moves) are played on the engine directly and
stored in the runner's layout: `match_started`, the deal, then per move a `turn` record, the
`action` and the engine's events. Finished-match results for ratings are inserted directly.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from arena.config import parse_config
from arena.runner import MatchRunner
from arena.store import Store
from engines.agent.llm import Usage
from engines.bananagrams.game import (
    Action,
    EndGame,
    Game,
    action_to_dict,
)

BOTS = {
    "seed": 5,
    "max_turns": 60,
    "players": [{"kind": "bot", "level": "hard"}, {"kind": "bot", "level": "normal"}],
}

SCRIPTED_REPLIES = [
    "<game_plan>Start small.</game_plan><action>NONE</action><board>CAT H</board>",
    "no tags at all",
    "<game_plan>Swap the Q.</game_plan><action>DUMP Q</action>",
    "<game_plan>Try again.</game_plan><action>DUMP E</action><board>\nCAT H\nTAR[0] @ CAT[2] V\n</board>",
    "<game_plan>Nothing.</game_plan><action>NONE</action>",
    "<board>\nTEA H\n</board>",
]
SCRIPTED_USAGE = Usage(prompt_tokens=120, completion_tokens=30, cost_usd=0.0015)


@dataclass(frozen=True)
class StoredMatch:
    path: Path
    match_id: str

    def store(self) -> Store:
        return Store.open(self.path)

    def copy_to(self, folder: Path) -> StoredMatch:
        """A copy of the database (with its WAL folded in) that a test may damage."""
        store = self.store()
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        target = folder / self.path.name
        shutil.copy(self.path, target)
        return StoredMatch(target, self.match_id)


def run_match(
    store: Store, data: dict, prepare: Callable[[MatchRunner], None] | None = None
) -> str:
    runner = MatchRunner.create(store, parse_config(data))
    if prepare is not None:
        prepare(runner)
    asyncio.run(runner.run())
    return runner.match_id


@pytest.fixture(scope="session")
def bot_match(tmp_path_factory) -> StoredMatch:
    """Bot (hard) vs bot (normal), seed 5: runs to BANANAS with a PEEL nearly every turn."""
    path = tmp_path_factory.mktemp("bots") / "arena.db"
    match_id = run_match(Store.open(path), BOTS)
    return StoredMatch(path, match_id)


@pytest.fixture(scope="session")
def scripted_match(tmp_path_factory) -> StoredMatch:
    """A scripted model (plans, a reply without tags, DUMPs, invalid boards, token usage) vs
    the easy bot, stopped by max_turns; its 7th call fails (the script has 6 replies)."""
    folder = tmp_path_factory.mktemp("scripted")
    replies = folder / "replies.yaml"
    replies.write_text(yaml.safe_dump(SCRIPTED_REPLIES))
    data = {
        "seed": 3,
        "max_turns": 14,
        "players": [
            {"kind": "scripted", "replies": str(replies), "name": "script"},
            {"kind": "bot", "level": "easy"},
        ],
    }

    def with_usage(runner: MatchRunner) -> None:
        runner.players[0].llm.default_usage = SCRIPTED_USAGE

    match_id = run_match(Store.open(folder / "arena.db"), data, with_usage)
    return StoredMatch(folder / "arena.db", match_id)


# --- streams played on the engine ----------------------------------------------------------------


@dataclass
class EngineSnapshot:
    """The engine's truth after one stored move: compare the replay at `seq` with it."""

    seq: int
    hands: list[str]
    bunch: int
    turns: int
    out: list[bool]


def play_on_engine(
    store: Store,
    names: list[str],
    seed: int,
    moves: Callable[[Game], Iterator[Action]],
    *,
    mode: str = "turns",
    rotten_banana: bool = True,
    kinds: list[str] | None = None,
) -> tuple[str, list[EngineSnapshot]]:
    """Play `moves(game)` on the engine and store the stream as the runner lays it out."""
    config = {
        "players": [{"kind": "bot", "name": name, "level": "easy"} for name in names],
        "seed": seed,
        "mode": mode,
        "max_turns": 1000,
        "rotten_banana": rotten_banana,
    }
    kinds = kinds or ["bot"] * len(names)
    match_id = store.create_match(
        title=" vs ".join(names),
        mode=mode,
        seed=seed,
        config=config,
        players=[
            {"name": name, "kind": kind, "settings": {"level": "easy"}}
            for name, kind in zip(names, kinds, strict=True)
        ],
    )
    game = Game(names, seed, max_turns=1000, rotten_banana=rotten_banana)
    store.append_many(
        match_id,
        [("match_started", {"config": config, "players": names})]
        + [(e.kind, e.to_dict()) for e in game.start()],
    )
    snapshots = [_snapshot(store, match_id, game)]
    for action in moves(game):
        events = game.apply(action)
        batch: list[tuple[str, dict]] = []
        if not isinstance(action, EndGame):
            batch.append(("turn", _turn_record(action.player, game.turns)))
        batch.append(("action", action_to_dict(action)))
        batch += [(e.kind, e.to_dict()) for e in events]
        store.append_many(match_id, batch)
        snapshots.append(_snapshot(store, match_id, game))
    if game.over:
        ended = game.ended
        store.finish_match(
            match_id, winner=ended.winner, end_reason=ended.reason, turns=ended.turns
        )
    return match_id, snapshots


def _turn_record(seat: int, turn: int) -> dict:
    return {
        "seat": seat,
        "turn": turn,
        "kind": "bot",
        "model": None,
        "plan": f"move {turn}",
        "board": None,
        "dump": None,
        "problems": [],
        "error": None,
        "calls": [],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0},
        "latency_s": 0.0,
        "verdict": None,
    }


def _snapshot(store: Store, match_id: str, game: Game) -> EngineSnapshot:
    return EngineSnapshot(
        seq=store.last_seq(match_id),
        hands=[p.hand_letters for p in game.players],
        bunch=len(game.bunch),
        turns=game.turns,
        out=[p.out for p in game.players],
    )


# --- finished matches for ratings ---------------------------------------------------------------


def finished_match(
    store: Store,
    players: list[dict],
    tiles_left: list[int],
    *,
    winner: int | None = None,
    out: list[bool] | None = None,
    status: str = "finished",
    turn_usage: dict[int, dict] | None = None,
    boards: dict[int, list[bool]] | None = None,
) -> str:
    """A stored match with only what ratings read: players, `turn` records, `board_verified`
    events and `game_ended` standings built the way the engine builds them."""
    names = [p["name"] for p in players]
    out = out or [False] * len(players)
    match_id = store.create_match(
        title=" vs ".join(names),
        mode="turns",
        seed=0,
        config={"players": [p.get("settings", {}) for p in players], "seed": 0},
        players=players,
    )
    events: list[tuple[str, dict]] = [("match_started", {"config": {}, "players": names})]
    for seat, usage in (turn_usage or {}).items():
        events.append(("turn", {**_turn_record(seat, 1), "usage": usage}))
    for seat, verdicts in (boards or {}).items():
        events += [("board_verified", {"player": seat, "valid": v}) for v in verdicts]
    order = sorted(range(len(players)), key=lambda i: (i != winner, out[i], tiles_left[i], i))
    standings = [
        {
            "player": i,
            "name": names[i],
            "rank": rank,
            "tiles_left": tiles_left[i],
            "won": i == winner,
            "out": out[i],
        }
        for rank, i in enumerate(order, start=1)
    ]
    if status == "finished":
        events.append(
            (
                "game_ended",
                {
                    "kind": "game_ended",
                    "reason": "bananas" if winner is not None else "max_turns",
                    "winner": winner,
                    "turns": 10,
                    "standings": standings,
                },
            )
        )
    store.append_many(match_id, events)
    if status == "finished":
        store.finish_match(
            match_id,
            winner=winner,
            end_reason="bananas" if winner is not None else "max_turns",
            turns=10,
        )
    else:
        store.set_status(match_id, status)
    return match_id


def bot(level: str, name: str | None = None) -> dict:
    return {"name": name or f"bot-{level}", "kind": "bot", "settings": {"level": level}}


def llm(model: str, policy: str = "oneshot", name: str | None = None) -> dict:
    return {
        "name": name or model.split("/")[-1],
        "kind": "llm",
        "model": model,
        "policy": policy,
        "settings": {"model": model, "policy": policy},
    }
