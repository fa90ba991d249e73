"""Solver benchmarks: 21-tile hands, solitaire games, and the published `bgsolver` side by side.

    python benchmarks/solver.py                 # the full run (about two minutes on 2 cores)
    python benchmarks/solver.py --quick         # 50 hands, 5 games, 12 hands for bgsolver
    python benchmarks/solver.py --hands 100 --games 10 --bgsolver-hands 20 --no-bgsolver

Prints a table with the targets and PASS/MISS; exits 1 when a target is missed.

How each number is measured (wall time, one process, after the word index is built):
- Hands: hand k is the first 21 tiles of the real 144-tile bunch shuffled with seed `--seed`+k.
  Each is solved from scratch with a 1 s limit; "solved" means every tile is on a board that the
  engine's verifier accepts with that hand (checked for every board, solved or not).
- Solitaire: deal 21 from seed `--seed`+k, then PEEL one tile at a time until the bunch is empty,
  extending the board each time (DUMP the hardest leftover tile when stuck); "completed" means
  all 144 tiles ended on a valid board. Total = the whole game's wall time.
- Whole bag: the 144 tiles solved from scratch (the reference Rust solver takes about 0.76 s).
- bgsolver (PyPI `bgsolver`, a greedy solver on a pandas grid with its own 56k-word list) is run
  the way its auto mode runs, on the first `--bgsolver-hands` hands, two processes at a time,
  with a per-hand cap of `--bgsolver-timeout` seconds. Its board counts as solved when every tile
  is on it and the verifier accepts it under bgsolver's own word list. Our solver is timed on the
  same hands with ENABLE and with bgsolver's word list, so the speed-up is like for like.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from engines.bananagrams.dictionary import Dictionary
from engines.bananagrams.tiles import Bunch, full_set
from engines.bananagrams.verifier import verify
from engines.solver import Solver, play_solitaire

TARGET_SOLVE_RATE = 0.97
TARGET_MEDIAN_MS = 30.0
TARGET_P95_MS = 300.0
TARGET_COMPLETION = 1.0
TARGET_GAME_MEDIAN_S = 3.0
TARGET_SPEEDUP = 20.0
HAND_TIME_LIMIT = 1.0


@dataclass
class Row:
    name: str
    words: str
    count: int
    times: list[float] = field(default_factory=list)
    outcomes: list[bool] = field(default_factory=list)  # solved or not, per hand or game
    note: str = ""

    @property
    def solved(self) -> int:
        return sum(self.outcomes)

    @property
    def rate(self) -> float:
        return self.solved / self.count if self.count else 0.0

    def median_ms(self) -> float:
        return statistics.median(self.times) * 1000 if self.times else float("nan")

    def p95_ms(self) -> float:
        return percentile(self.times, 0.95) * 1000 if self.times else float("nan")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def dealt_hand(seed: int, size: int = 21) -> str:
    return "".join(Bunch.new(seed).draw(size))


# --- our solver ----------------------------------------------------------------------------------


def bench_hands(solver: Solver, hands: list[str], name: str, words: str) -> Row:
    row = Row(name, words, len(hands))
    for hand in hands:
        started = time.perf_counter()
        result = solver.solve(hand, time_limit=HAND_TIME_LIMIT)
        elapsed = time.perf_counter() - started
        row.times.append(elapsed)
        if result.cells:
            check = verify(result.cells, dictionary=solver.dictionary, hand=hand)
            if not check.valid:
                raise SystemExit(f"BUG: invalid board for {hand}: {check.errors[0].message}")
            row.outcomes.append(check.complete and elapsed <= HAND_TIME_LIMIT)
        else:
            row.outcomes.append(False)
    return row


def bench_games(solver: Solver, seeds: list[int]) -> tuple[Row, str]:
    row = Row("solitaire 21 + PEELs", "ENABLE", len(seeds))
    dumps = peels = 0
    for seed in seeds:
        game = play_solitaire(seed, solver)
        row.times.append(game.seconds)
        row.outcomes.append(game.completed and verify(game.cells, hand=game.hand).complete)
        dumps += game.dumps
        peels += game.peels
    return row, f"{peels} PEELs, {dumps} DUMPs in all"


def bench_whole_bag(solver: Solver, seeds: list[int]) -> Row:
    row = Row("whole bag (144 tiles)", "ENABLE", len(seeds))
    tiles = full_set()
    for seed in seeds:
        bunch = Bunch.new(seed)  # the same 144 tiles, dealt in a different order each time
        hand = "".join(bunch.draw(len(tiles)))
        started = time.perf_counter()
        result = solver.solve(hand, time_limit=10)
        row.times.append(time.perf_counter() - started)
        row.outcomes.append(bool(result.cells) and verify(result.cells, hand=hand).complete)
    return row


# --- bgsolver --------------------------------------------------------------------------------


class _HandTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _HandTimeout


def bgsolver_solve(job: tuple[str, float]) -> tuple[str, dict, str, float, bool]:
    """Run bgsolver's own loop (choose_word / make_word / reorder, as in its game_auto) on one
    fixed hand. Returns (hand, cells, leftover letters, seconds, timed out)."""
    hand, timeout = job
    from bgsolver.board import Board
    from bgsolver.player import Player

    signal.signal(signal.SIGALRM, _on_alarm)
    board = Board()
    player = Player(list(hand))
    started = time.perf_counter()
    timed_out = False
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            while player.letters:
                before = len(player.letters)
                word = player.choose_word(board)
                if word:
                    player.make_word(word, board)
                if len(player.letters) == before and not player.reorder(board, mode="auto"):
                    break
    except _HandTimeout:
        timed_out = True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    seconds = time.perf_counter() - started
    cells = {}
    frame = board.board
    for y in frame.index:
        row = frame.loc[y]
        for x in frame.columns:
            value = row[x]
            if isinstance(value, str):
                cells[(int(x), int(y))] = value
    return hand, cells, "".join(player.letters), seconds, timed_out


def bench_bgsolver(hands: list[str], timeout: float, jobs: int) -> tuple[Row, Dictionary] | None:
    try:
        from bgsolver.word import WORD_LIST
    except ImportError:
        return None
    own_words = Dictionary.from_text("\n".join(WORD_LIST), "bgsolver-56k")
    row = Row("bgsolver 0.1 (PyPI)", "its 56k", len(hands))
    timeouts = enable_valid = 0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for hand, cells, left, seconds, timed_out in pool.map(
            bgsolver_solve, [(h, timeout) for h in hands]
        ):
            row.times.append(seconds)
            timeouts += timed_out
            solved = bool(cells) and not left and not timed_out
            solved = solved and verify(cells, dictionary=own_words, hand=hand).complete
            row.outcomes.append(solved)
            if solved:
                enable_valid += verify(cells, hand=hand).complete
    row.note = f"{enable_valid} of its solved boards valid under ENABLE"
    if timeouts:
        row.note += f"; {timeouts} hit the {timeout:g} s cap"
    return row, own_words


# --- report ----------------------------------------------------------------------------------


def table(rows: list[Row]) -> str:
    header = f"{'run':<24} {'words':<10} {'n':>4} {'solved':>8} {'median':>10} {'p95':>10}  note"
    lines = [header, "-" * len(header)]
    for row in rows:
        median, p95 = row.median_ms(), row.p95_ms()
        lines.append(
            f"{row.name:<24} {row.words:<10} {row.count:>4} {row.rate:>7.1%} "
            f"{_duration(median):>10} {_duration(p95):>10}  {row.note}"
        )
    return "\n".join(lines)


def _duration(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500, help="21-tile hands to solve (500)")
    parser.add_argument("--games", type=int, default=20, help="solitaire games to play (20)")
    parser.add_argument("--bags", type=int, default=5, help="whole-bag solves (5)")
    parser.add_argument("--bgsolver-hands", type=int, default=40, help="hands for bgsolver (40)")
    parser.add_argument(
        "--bgsolver-timeout", type=float, default=30.0, help="seconds per hand (30)"
    )
    parser.add_argument("--no-bgsolver", action="store_true", help="skip the bgsolver comparison")
    parser.add_argument("--jobs", type=int, default=2, help="processes for bgsolver (2)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (0)")
    parser.add_argument("--quick", action="store_true", help="50 hands, 5 games, 12 for bgsolver")
    args = parser.parse_args()
    if args.quick:
        args.hands, args.games, args.bags, args.bgsolver_hands = 50, 5, 2, 12

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"Solver benchmark: seed {args.seed}, Python {sys.version.split()[0]}, load average {load:.2f}"
    )
    started = time.perf_counter()
    solver = Solver()
    print(f"ENABLE word index built in {time.perf_counter() - started:.2f} s (once per process)\n")

    hands = [dealt_hand(args.seed + k) for k in range(args.hands)]
    ours = bench_hands(solver, hands, "ours: 21-tile hands", "ENABLE")
    ours.note = f"each within {HAND_TIME_LIMIT:g} s"
    games, game_note = bench_games(solver, [args.seed + k for k in range(args.games)])
    games.note = game_note
    rows = [ours, games]
    if args.bags:
        rows.append(bench_whole_bag(solver, [args.seed + k for k in range(args.bags)]))

    compared = None
    if not args.no_bgsolver and args.bgsolver_hands:
        subset = hands[: args.bgsolver_hands]
        found = bench_bgsolver(subset, args.bgsolver_timeout, args.jobs)
        if found is None:
            print("bgsolver is not installed: comparison skipped (pip install bgsolver)\n")
        else:
            theirs, own_words = found
            count = len(subset)
            same = Row(
                "ours: same hands", "ENABLE", count, ours.times[:count], ours.outcomes[:count]
            )
            like = bench_hands(Solver(own_words), subset, "ours: same hands", "its 56k")
            theirs.note = f"first {len(subset)} hands; " + theirs.note
            rows += [theirs, same, like]
            compared = (theirs, same, like)

    print(table(rows))
    print()
    checks = [
        (f"21-tile solve rate >= {TARGET_SOLVE_RATE:.0%}", ours.rate >= TARGET_SOLVE_RATE),
        (f"21-tile median <= {TARGET_MEDIAN_MS:g} ms", ours.median_ms() <= TARGET_MEDIAN_MS),
        (f"21-tile p95 <= {TARGET_P95_MS:g} ms", ours.p95_ms() <= TARGET_P95_MS),
        (f"solitaire completion {TARGET_COMPLETION:.0%}", games.rate >= TARGET_COMPLETION),
        (
            f"solitaire median total <= {TARGET_GAME_MEDIAN_S:g} s",
            games.median_ms() / 1000 <= TARGET_GAME_MEDIAN_S,
        ),
    ]
    if compared:
        theirs, same, like = compared
        for mine in (same, like):
            speedup = theirs.median_ms() / mine.median_ms()
            checks.append(
                (
                    f"vs bgsolver ({mine.words}): {speedup:.0f}x faster median (>= {TARGET_SPEEDUP:g}x), "
                    f"solve rate {mine.rate:.0%} vs {theirs.rate:.0%}",
                    speedup >= TARGET_SPEEDUP and mine.rate >= theirs.rate,
                )
            )
    for text, ok in checks:
        print(f"{'PASS' if ok else 'MISS'}  {text}")
    print(f"\nTotal {time.perf_counter() - started:.0f} s")
    sys.exit(0 if all(ok for _, ok in checks) else 1)


if __name__ == "__main__":
    main()
