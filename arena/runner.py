"""The match runner: players take turns (or all play at once), the engine judges, and every
turn is committed to the store as one transaction, so a match can be resumed exactly after a
crash and followed live from another process.

Stream layout of a match: `match_started`, the engine's deal events, then per move a `turn`
record (the decision with its LLM call(s)), the `action` applied, and the engine's events.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.config import MatchConfig, parse_config
from arena.players import Player, build_player
from arena.store import Store, StoreError, redact
from engines.agent.llm import TextDelta
from engines.bananagrams.dictionary import load_dictionary
from engines.bananagrams.game import (
    Action,
    BoardVerified,
    DumpRefused,
    EndGame,
    Event,
    Game,
    GameEnded,
    PassTurn,
    TileDumped,
    TilesPeeled,
    action_from_dict,
    action_to_dict,
)
from engines.play.oneshot import TurnDecision
from engines.play.view import Notebook

LIVE_FLUSH_S = 0.25  # how often a streaming reply is written for spectators
REALTIME_DEFAULT_LIMIT_S = 600.0
RETRY_AFTER_PASS_S = 1.0
STALL_ROUNDS = 3  # realtime: this many idle moves per player in a row ends the game


@dataclass(frozen=True)
class Progress:
    """What a live display is told after each committed move."""

    seq: int
    kind: str
    payload: dict


class MatchRunner:
    def __init__(
        self,
        store: Store,
        match_id: str,
        config: MatchConfig,
        game: Game,
        players: list[Player],
        on_event: Callable[[Progress], None] | None = None,
        on_delta: Callable[[int, str], None] | None = None,
    ) -> None:
        self.store = store
        self.match_id = match_id
        self.config = config
        self.game = game
        self.players = players
        self.notebooks = [Notebook(seat) for seat in range(len(players))]
        self.on_event = on_event
        self.on_delta = on_delta
        self.last_seat: int | None = None
        self.lock = asyncio.Lock()
        self._live: dict[int, tuple[str, float]] = {}

    # --- creating and resuming -------------------------------------------------------------

    @classmethod
    def create(
        cls,
        store: Store,
        config: MatchConfig,
        *,
        on_event: Callable[[Progress], None] | None = None,
        on_delta: Callable[[int, str], None] | None = None,
    ) -> MatchRunner:
        dictionary = load_dictionary(config.dictionary)
        names = config.player_names()
        players = [
            build_player(p, dictionary=dictionary, realtime=config.mode == "realtime")
            for p in config.players
        ]
        match_id = store.create_match(
            title=config.title or " vs ".join(names),
            mode=config.mode,
            seed=config.seed or 0,
            config=config.model_dump(mode="json"),
            players=[
                {
                    "name": name,
                    "kind": p.kind,
                    "model": p.model,
                    "policy": p.policy if p.kind in ("llm", "scripted") else None,
                    "settings": p.model_dump(mode="json", exclude_none=True),
                }
                for name, p in zip(names, config.players, strict=True)
            ],
        )
        game = _new_game(config, names, dictionary)
        runner = cls(store, match_id, config, game, players, on_event, on_delta)
        start = [
            ("match_started", {"config": redact(config.model_dump(mode="json")), "players": names})
        ]
        runner._commit(start + [(e.kind, e.to_dict()) for e in game.start()])
        return runner

    @classmethod
    def resume(
        cls,
        store: Store,
        match_id: str,
        *,
        on_event: Callable[[Progress], None] | None = None,
        on_delta: Callable[[int, str], None] | None = None,
    ) -> MatchRunner:
        """Rebuild a stopped match from its stored actions: same tiles, same state."""
        match = store.match(match_id)
        if match["status"] == "finished":
            raise StoreError(f"Match {match_id} has already finished.")
        config = parse_config(_without_redacted(match["config"]), f"match {match_id}")
        dictionary = load_dictionary(config.dictionary)
        names = [p["name"] for p in match["players"]]
        game = _new_game(config, names, dictionary)
        notebooks = [Notebook(seat) for seat in range(len(names))]
        stored = list(store.events(match_id))
        replies_done = [0] * len(names)
        replayed = _feed(game, notebooks, game.start())
        last_seat = None
        for event in stored:
            if event.kind == "turn":
                replies_done[event.payload["seat"]] += len(event.payload.get("calls", []))
                _note_problems(notebooks[event.payload["seat"]], event.payload)
            elif event.kind == "action":
                action = action_from_dict(event.payload)
                last_seat = getattr(action, "player", last_seat)
                replayed += _feed(game, notebooks, game.apply(action))
        engine_kinds = [e.kind for e in stored if e.kind not in ("match_started", "turn", "action")]
        if engine_kinds != [e.kind for e in replayed]:
            raise StoreError(
                f"Match {match_id} cannot be resumed: its stored events disagree with a replay."
            )
        players = [
            build_player(
                p, dictionary=dictionary, replies_done=done, realtime=config.mode == "realtime"
            )
            for p, done in zip(config.players, replies_done, strict=True)
        ]
        runner = cls(store, match_id, config, game, players, on_event, on_delta)
        runner.notebooks, runner.last_seat = notebooks, last_seat
        store.set_status(match_id, "running")
        return runner

    # --- running -----------------------------------------------------------------------------

    async def run(self) -> GameEnded:
        try:
            if not self.game.over:
                if self.config.mode == "turns":
                    await self._run_turns()
                else:
                    await self._run_realtime()
        except BaseException:
            if not self.game.over:
                self.store.set_status(self.match_id, "stopped")
            raise
        ended = self.game.ended
        assert ended is not None
        self.store.finish_match(
            self.match_id, winner=ended.winner, end_reason=ended.reason, turns=ended.turns
        )
        return ended

    def next_seat(self) -> int:
        active = self.game.active_players
        if self.last_seat is None:
            return active[0]
        later = [seat for seat in active if seat > self.last_seat]
        return (later or active)[0]

    async def _run_turns(self) -> None:
        while not self.game.over:
            await self._take_turn(self.next_seat())

    async def _take_turn(self, seat: int) -> list[Event]:
        view = self.notebooks[seat].view(self.game)
        decision = await self.players[seat].decide(
            view, self.game.players[seat], self._delta_sink(seat)
        )
        async with self.lock:
            if self.game.over or self.game.players[seat].out:
                return []
            return self._apply(seat, decision, decision.action(seat))

    def _apply(self, seat: int, decision: TurnDecision | None, action: Action) -> list[Event]:
        events = self.game.apply(action)
        batch: list[tuple[str, dict]] = []
        if decision is not None:
            batch.append(("turn", self._turn_record(seat, decision, events)))
        batch.append(("action", action_to_dict(action)))
        batch += [(event.kind, event.to_dict()) for event in events]
        if decision is not None:
            self.last_seat = seat
            _note_problems(self.notebooks[seat], batch[0][1])
        _feed(self.game, self.notebooks, events)
        self._commit(batch)
        if decision is not None and decision.calls:
            self.store.clear_live_reply(self.match_id, seat)
        return events

    async def _run_realtime(self) -> None:
        wake = {seat: asyncio.Event() for seat in self.game.active_players}
        for event in wake.values():
            event.set()
        idle = {"moves": 0}

        async def play(seat: int) -> None:
            loop = asyncio.get_running_loop()
            while not self.game.over and not self.game.players[seat].out:
                await wake[seat].wait()
                wake[seat].clear()
                started = time.monotonic()
                view = self.notebooks[seat].view(self.game)
                decision = await self.players[seat].decide(
                    view, self.game.players[seat], self._delta_sink(seat)
                )
                # A bot's pace is known once it has chosen its move (bigger moves take longer).
                pace = self.players[seat].pace
                await asyncio.sleep(max(0.0, pace - (time.monotonic() - started)))
                async with self.lock:
                    if self.game.over or self.game.players[seat].out:
                        return
                    events = self._apply(seat, decision, decision.action(seat))
                    progress = any(
                        isinstance(e, TilesPeeled | TileDumped | GameEnded) for e in events
                    )
                    idle["moves"] = 0 if progress else idle["moves"] + 1
                    if idle["moves"] >= STALL_ROUNDS * len(self.game.active_players):
                        self._apply(seat, None, EndGame("stalled"))
                        return
                for other in self.game.active_players:
                    if any(isinstance(e, TilesPeeled) for e in events):
                        wake[other].set()
                if any(isinstance(e, DumpRefused) for e in events):
                    continue  # nothing changes until someone PEELs
                if isinstance(decision.action(seat), PassTurn):
                    loop.call_later(RETRY_AFTER_PASS_S, wake[seat].set)
                elif any(isinstance(e, TileDumped | BoardVerified) for e in events):
                    wake[seat].set()

        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.config.time_limit or REALTIME_DEFAULT_LIMIT_S)
        running = {asyncio.create_task(play(seat)) for seat in wake}
        tasks = set(running)
        try:
            # Until the game ends, time runs out, or every player has stopped; a player parked
            # waiting for tiles must not keep a finished game open.
            while running and not self.game.over and (remaining := deadline - loop.time()) > 0:
                done, running = await asyncio.wait(
                    running, timeout=min(remaining, 0.25), return_when=asyncio.FIRST_COMPLETED
                )
                for task in done:
                    task.result()  # re-raise a player's crash
            if not self.game.over and not running:
                async with self.lock:
                    self._apply(0, None, EndGame("all_stuck"))
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if not self.game.over:
            async with self.lock:
                self._apply(0, None, EndGame("time_limit"))

    # --- recording -----------------------------------------------------------------------------

    def _turn_record(self, seat: int, decision: TurnDecision, events: list[Event]) -> dict:
        verdict = next((e for e in events if isinstance(e, BoardVerified)), None)
        return {
            "seat": seat,
            "turn": self.game.turns,
            "kind": self.players[seat].kind,
            "model": self.players[seat].model,
            "plan": decision.plan,
            "board": decision.board
            if isinstance(decision.board, str) or decision.board is None
            else None,
            "dump": decision.dump,
            "problems": list(decision.problems),
            "error": decision.error,
            "calls": decision.calls,
            "agent_events": decision.agent_events,
            "usage": {
                "prompt_tokens": decision.usage.prompt_tokens,
                "completion_tokens": decision.usage.completion_tokens,
                "cost_usd": decision.usage.cost_usd,
            },
            "latency_s": round(decision.latency_s, 4),
            "verdict": None
            if verdict is None
            else {
                "valid": verdict.valid,
                "complete": verdict.complete,
                "errors": [e["code"] for e in verdict.errors],
            },
        }

    def _commit(self, batch: list[tuple[str, dict]]) -> None:
        seqs = self.store.append_many(self.match_id, batch)
        if self.on_event:
            for seq, (kind, payload) in zip(seqs, batch, strict=True):
                self.on_event(Progress(seq, kind, payload))

    def _delta_sink(self, seat: int) -> Callable:
        def sink(delta) -> None:
            if not isinstance(delta, TextDelta):
                return
            text, flushed = self._live.get(seat, ("", 0.0))
            text += delta.text
            now = time.monotonic()
            if now - flushed >= LIVE_FLUSH_S:
                self.store.set_live_reply(self.match_id, seat, text)
                flushed = now
            self._live[seat] = (text, flushed)
            if self.on_delta:
                self.on_delta(seat, delta.text)

        self._live.pop(seat, None)
        return sink


def _new_game(config: MatchConfig, names: list[str], dictionary) -> Game:
    max_turns = config.max_turns if config.mode == "turns" else None
    return Game(
        names,
        config.seed or 0,
        max_turns=max_turns,
        rotten_banana=config.rotten_banana,
        dictionary=dictionary,
    )


def _feed(game: Game, notebooks: list[Notebook], events: list[Event]) -> list[Event]:
    for event in events:
        for notebook in notebooks:
            notebook.observe(event, game)
    return events


def _note_problems(notebook: Notebook, record: dict) -> None:
    if record.get("plan"):
        notebook.last_plan = record["plan"]
    for problem in record.get("problems", []):
        notebook.note(f"Your last reply: {problem}")
    if record.get("error"):
        notebook.note(record["error"])


def _without_redacted(value):
    """Drop stripped secrets so a resumed match reads keys from the environment again."""
    if isinstance(value, dict):
        return {k: _without_redacted(v) for k, v in value.items() if v != "[redacted]"}
    if isinstance(value, list):
        return [_without_redacted(v) for v in value]
    return value
