"""Match benchmarks: runner and store overhead per turn, replay seek, event append rate.

    python benchmarks/match.py [--turns 500] [--seek-events 5000] [--seeks 200]

Prints a table with the targets and PASS/MISS; exits 1 when a target is missed.

How each number is measured:
- Overhead per turn: a bot-vs-scripted match in turns mode (seat 0: the hard solver bot, seat 1:
  a scripted model through the real one-shot policy, replies read from a YAML file). The bot's
  answers are cached: its first real decision is repeated every turn (a 21-tile board that stays
  valid but no longer uses every tile once the hand grows), so the match runs to max_turns
  without anyone winning. Every `decide()` call is timed and subtracted from the wall time of
  `runner.run()`; what is left is the runner's own work per turn: building the player's view,
  the engine applying the move (verifying the board), building the turn record, JSON encoding
  and the SQLite commit. Store commits and engine time are also shown on their own.
- Replay seek: the same kind of match, long enough for the requested number of events. The
  match is read once (`Replay.load`, shown for information), then the state after randomly
  chosen events is rebuilt; median and worst seek are reported.
- Event append: `Store.append` of a real `turn` record (prompt messages included), each its own
  committed transaction; batched appends of whole moves (`append_many`) for information.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from arena.config import parse_config
from arena.replay import Replay
from arena.runner import MatchRunner
from arena.store import Store

TARGET_OVERHEAD_MS = 3.0
TARGET_SEEK_MS = 50.0
TARGET_APPENDS_PER_S = 5_000

SCRIPTED_REPLIES = [
    "<game_plan>Start with a short word.</game_plan><action>NONE</action><board>CAT H</board>",
    "<game_plan>Swap a vowel.</game_plan><action>DUMP E</action>",
    "<game_plan>Cross two words.</game_plan><action>NONE</action>"
    "<board>\nTEA H\nTAR[0] @ TEA[0] V\nRAT[0] @ TAR[2] H\n</board>",
    "I am not sure what to do this turn.",
    "<game_plan>Try a drawn grid.</game_plan><action>NONE</action><board>\nNOT\n..O\n..E\n</board>",
]


class CachedAnswers:
    """A player whose first real decision is repeated on every later turn."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.kind, self.model, self.pace = inner.kind, inner.model, inner.pace
        self.decision = None

    async def decide(self, view, me, on_delta=None):
        if self.decision is None:
            self.decision = await self.inner.decide(view, me, on_delta)
        return self.decision


class TimedPlayer:
    """Times every `decide()` so the benchmark can subtract the players' own time."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.kind, self.model, self.pace = inner.kind, inner.model, inner.pace
        self.seconds = 0.0
        self.calls = 0

    async def decide(self, view, me, on_delta=None):
        started = time.perf_counter()
        try:
            return await self.inner.decide(view, me, on_delta)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


def _timed_method(owner, name: str, totals: dict[str, float]) -> None:
    original = getattr(owner, name)

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + time.perf_counter() - started

    setattr(owner, name, timed)


def run_match(folder: Path, turns: int, seed: int = 7) -> dict:
    """A bot-vs-scripted match of `turns` turns; returns timings and the stored match id."""
    replies = folder / f"replies-{turns}.yaml"
    script = [SCRIPTED_REPLIES[i % len(SCRIPTED_REPLIES)] for i in range(turns // 2 + 2)]
    replies.write_text(yaml.safe_dump(script))
    config = parse_config(
        {
            "seed": seed,
            "max_turns": turns,
            "players": [
                {"kind": "bot", "level": "hard", "name": "bot"},
                {"kind": "scripted", "replies": str(replies), "name": "script"},
            ],
        }
    )
    store = Store.open(folder / "bench.db")
    runner = MatchRunner.create(store, config)
    runner.players = [TimedPlayer(CachedAnswers(runner.players[0])), TimedPlayer(runner.players[1])]
    totals: dict[str, float] = {}
    _timed_method(runner.store, "append_many", totals)
    _timed_method(runner.game, "apply", totals)
    started = time.perf_counter()
    ended = asyncio.run(runner.run())
    wall = time.perf_counter() - started
    decide = sum(player.seconds for player in runner.players)
    return {
        "store": store,
        "match_id": runner.match_id,
        "turns": ended.turns,
        "end_reason": ended.reason,
        "events": store.last_seq(runner.match_id),
        "wall_s": wall,
        "decide_s": decide,
        "commit_s": totals.get("append_many", 0.0),
        "engine_s": totals.get("apply", 0.0),
    }


def bench_seek(store: Store, match_id: str, seeks: int) -> dict:
    started = time.perf_counter()
    replay = Replay.load(store, match_id)
    load_s = time.perf_counter() - started
    rng = random.Random(2024)
    targets = [rng.randint(0, replay.last_seq) for _ in range(seeks)] + [replay.last_seq, 1]
    times = []
    for seq in targets:
        started = time.perf_counter()
        replay.state_at(seq)
        times.append(time.perf_counter() - started)
    return {
        "events": replay.last_seq,
        "load_s": load_s,
        "median_s": statistics.median(times),
        "max_s": max(times),
    }


def bench_append(folder: Path, sample: dict, count: int) -> dict:
    store = Store.open(folder / "append.db")
    stream = store.create_stream("match", "append benchmark")
    started = time.perf_counter()
    for _ in range(count):
        store.append(stream, "turn", sample)
    single = count / (time.perf_counter() - started)
    move = [
        ("turn", sample),
        ("action", {"type": "submit", "player": 1, "board": "CAT H", "dump": None}),
        ("board_submitted", {"player": 1, "turn": 1, "board": "CAT H", "dump": None}),
        ("board_verified", {"player": 1, "valid": False, "grid": ["CAT"], "errors": []}),
        ("tiles_peeled", {"player": 1, "drawn": {"0": "A", "1": "B"}, "bunch_size": 90}),
    ]
    started = time.perf_counter()
    for _ in range(count // len(move)):
        store.append_many(stream, move)
    batched = (count // len(move)) * len(move) / (time.perf_counter() - started)
    store.close()
    return {
        "single_per_s": single,
        "batched_per_s": batched,
        "payload_bytes": len(json.dumps(sample)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--seek-events", type=int, default=5000)
    parser.add_argument("--seeks", type=int, default=200)
    parser.add_argument("--appends", type=int, default=5000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        match = run_match(folder, args.turns)
        # Enough turns for the requested events, at the first match's events per turn.
        per_turn = match["events"] / match["turns"]
        long_turns = int(args.seek_events / per_turn) + 25
        long = run_match(folder, long_turns, seed=8)
        seek = bench_seek(long["store"], long["match_id"], args.seeks)
        sample = next(
            e.payload
            for e in match["store"].events(match["match_id"], kinds=("turn",))
            if e.payload["seat"] == 1
        )
        append = bench_append(folder, sample, args.appends)

    overhead_ms = (match["wall_s"] - match["decide_s"]) / match["turns"] * 1000
    rows = [
        (
            f"runner+store overhead per turn ({match['turns']} turns)",
            f"{overhead_ms:.2f} ms",
            f"<= {TARGET_OVERHEAD_MS:g} ms",
            overhead_ms <= TARGET_OVERHEAD_MS,
        ),
        (
            "  of which store commits",
            f"{match['commit_s'] / match['turns'] * 1000:.2f} ms",
            "",
            None,
        ),
        (
            "  of which engine (verify + apply)",
            f"{match['engine_s'] / match['turns'] * 1000:.2f} ms",
            "",
            None,
        ),
        (
            "  players' decide() (subtracted)",
            f"{match['decide_s'] / match['turns'] * 1000:.2f} ms",
            "",
            None,
        ),
        (
            f"replay seek, median ({seek['events']:,} events, {args.seeks} seeks)",
            f"{seek['median_s'] * 1000:.2f} ms",
            f"<= {TARGET_SEEK_MS:g} ms",
            seek["median_s"] * 1000 <= TARGET_SEEK_MS,
        ),
        (
            "replay seek, max",
            f"{seek['max_s'] * 1000:.2f} ms",
            f"<= {TARGET_SEEK_MS:g} ms",
            seek["max_s"] * 1000 <= TARGET_SEEK_MS,
        ),
        (
            "  replay load, once (read + fold + checkpoints)",
            f"{seek['load_s'] * 1000:.0f} ms",
            "",
            None,
        ),
        (
            f"event append, one commit each ({append['payload_bytes']:,}-byte turn record)",
            f"{append['single_per_s']:,.0f}/s",
            f">= {TARGET_APPENDS_PER_S:,}/s",
            append["single_per_s"] >= TARGET_APPENDS_PER_S,
        ),
        (
            "  event append, batched per move (5 events)",
            f"{append['batched_per_s']:,.0f}/s",
            "",
            None,
        ),
    ]
    width = max(len(row[0]) for row in rows)
    print(f"{'metric':<{width}}  {'value':>12}  {'target':>12}  result")
    for name, value, target, passed in rows:
        result = "" if passed is None else ("PASS" if passed else "MISS")
        print(f"{name:<{width}}  {value:>12}  {target:>12}  {result}".rstrip())
    print(
        f"\nmatch: {match['turns']} turns ({match['end_reason']}), {match['events']:,} events; "
        f"seek match: {long['turns']} turns, {long['events']:,} events"
    )
    return 0 if all(row[3] is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
