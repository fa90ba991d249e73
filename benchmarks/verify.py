"""How fast the board verifier is: prints a table of timings against targets.

    python benchmarks/verify.py [--runs N] [--processes N] [--show-boards]

Rows (verdicts compare the median wall-clock time with the target):
- dictionary load: a fresh interpreter imports the dictionary module and loads ENABLE (the
  median of several processes; the figure is measured inside each process, so interpreter
  start-up is not counted).
- verify, 12-word board: the spec mentions a 12-word example without printing it; TWELVE_WORDS
  below is a representative one (12 fruit words crossing, 43 tiles, a 10 x 9 grid), the size of
  board a model submits mid-game.
- verify, 144-tile board: a valid anchor board of exactly 144 tiles, grown deterministically
  from ENABLE words by the property tests' board builder (seeded; not the real tile
  distribution). Also as a drawn grid, and formatted back to anchor notation.
- `arena verify`, whole process: the console script on the 144-tile board, from process start
  to exit (the median of several processes).

The cpu column is the user + system time of those processes. On a shared machine the
wall-clock time of a process also includes waiting for a CPU; the table says so when the load
average is above the number of cores.

Targets are for a 2-core machine. Run from the project's root with the project installed (the
144-tile board comes from tests/bananagrams/test_properties.py, so hypothesis must be installed).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.bananagrams.board import format_anchor, render_rows  # noqa: E402
from engines.bananagrams.dictionary import enable  # noqa: E402
from engines.bananagrams.verifier import verify  # noqa: E402
from tests.bananagrams.test_properties import BoardBuilder, words_with  # noqa: E402

TWELVE_WORDS = """\
BANANA H
BERRY[0] @ BANANA[0] V
MANGO[2] @ BANANA[2] V
MELON[4] @ BANANA[4] V
PLUM[3] @ MANGO[0] H
LIME[2] @ MELON[0] H
RIPE[2] @ PLUM[0] V
APPLE[0] @ BANANA[5] V
OLIVE[1] @ APPLE[3] H
LEAF[0] @ MELON[2] H
SEED[2] @ OLIVE[4] V
FIG[0] @ LEAF[3] V"""

TILES = 144
SEED = 144


def board_of_144_tiles(seed: int = SEED) -> BoardBuilder:
    """Grow a board from ENABLE words (2-7 letters) until it has exactly 144 tiles."""
    rng = random.Random(seed)
    builder = BoardBuilder.start("BANANAS", "H")
    for _ in range(100_000):
        left = TILES - len(builder.cells)
        if left == 0:
            return builder
        target = rng.choice(builder.targets())
        on = builder.placed[target]
        target_index = rng.randrange(len(on.word))
        letter = on.word[target_index]
        # A word adds at most len - 1 tiles (it crosses at least once), so 144 is never passed.
        words = [w for w in words_with(letter) if len(w) - 1 <= left]
        if not words:
            continue
        word = rng.choice(words)
        word_index = rng.choice([k for k, c in enumerate(word) if c == letter])
        builder.attach(target, target_index, word, word_index)
    raise RuntimeError("could not grow a 144-tile board")


def timings(action: Callable[[], object], runs: int) -> list[float]:
    action()  # warm up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def p95(times: list[float]) -> float:
    return sorted(times)[max(0, round(0.95 * len(times)) - 1)]


def dictionary_load_times(processes: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of importing the dictionary module and loading ENABLE, each
    measured inside a fresh process."""
    script = (
        "import time\n"
        "wall, cpu = time.perf_counter(), time.process_time()\n"
        "from engines.bananagrams.dictionary import enable\n"
        "enable()\n"
        "print(time.perf_counter() - wall, time.process_time() - cpu)\n"
    )
    walls, cpus = [], []
    for _ in range(processes):
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, cwd=ROOT, check=True
        )
        wall, cpu = map(float, done.stdout.split())
        walls.append(wall)
        cpus.append(cpu)
    return walls, cpus


def arena_command() -> list[str]:
    """The installed console script beside this interpreter, else the same entry point."""
    script = Path(sys.executable).with_name("arena")
    if script.exists():
        return [str(script)]
    found = shutil.which("arena")
    return [found] if found else [sys.executable, "-c", "from arena.cli import main; main()"]


def process_times(command: list[str], processes: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (user + system) seconds of whole processes."""
    walls, cpus = [], []
    for _ in range(processes):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.decode()[-500:]}")
    return walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=500, help="verify calls per row")
    parser.add_argument("--processes", type=int, default=9, help="processes per process row")
    parser.add_argument("--show-boards", action="store_true", help="print the boards first")
    args = parser.parse_args()

    enable()
    twelve = verify(TWELVE_WORDS)
    assert twelve.valid and not twelve.warnings and len(twelve.words) == 12, twelve.feedback
    board = board_of_144_tiles()
    spec = board.spec()
    grid = "\n".join(render_rows(board.cells))
    big = verify(spec)
    assert big.valid and not big.warnings and big.tiles_used == TILES, big.feedback
    assert verify(grid).valid
    if args.show_boards:
        print(f"12-word board:\n{TWELVE_WORDS}\n\n" + "\n".join(twelve.grid) + "\n")
        print(f"144-tile board (seed {SEED}):\n{spec}\n\n{grid}\n")

    ms = 1000
    rows: list[Row] = []
    walls, cpus = dictionary_load_times(args.processes)
    rows.append(Row("dictionary load (fresh process)", walls, cpus, target=150))
    for name, action, target in [
        (f"verify 12-word board ({twelve.tiles_used} tiles)", lambda: verify(TWELVE_WORDS), None),
        (f"verify 144-tile board ({len(big.words)} words, anchor)", lambda: verify(spec), 3),
        ("verify 144-tile board (drawn grid)", lambda: verify(grid), None),
        ("verify 144-tile board (UI cells)", lambda: verify(board.cells), None),
        ("format_anchor 144-tile board", lambda: format_anchor(board.cells), None),
    ]:
        rows.append(Row(name, timings(action, args.runs), target=target, tail=True))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "board.txt"
        path.write_text(spec)
        walls, cpus = process_times([*arena_command(), "verify", str(path)], args.processes)
    rows.append(Row("`arena verify` 144-tile board, whole process", walls, cpus, target=300))

    cores = os.cpu_count() or 1
    busy = os.getloadavg()[0]
    print(
        f"Python {sys.version.split()[0]}, {cores} cores, load average {busy:.1f}; "
        f"{args.runs} verify calls or {args.processes} processes per row"
    )
    print(f"{'what':50} {'median ms':>10} {'p95 ms':>8} {'cpu ms':>8} {'target ms':>10}  result")
    for row in rows:
        median = statistics.median(row.times) * ms
        tail = f"{p95(row.times) * ms:8.2f}" if row.tail else "-"
        cpu = f"{statistics.median(row.cpu) * ms:8.1f}" if row.cpu else "-"
        target = "-" if row.target is None else f"<= {row.target}"
        verdict = "-" if row.target is None else ("PASS" if median <= row.target else "MISS")
        print(f"{row.name:50} {median:10.2f} {tail:>8} {cpu:>8} {target:>10}  {verdict}")
    if busy > cores:
        print(
            "The machine is busy: wall-clock times of processes include waiting for a CPU; "
            "the cpu column (user + system time of the process) does not."
        )


@dataclass
class Row:
    name: str
    times: list[float]
    cpu: list[float] = field(default_factory=list)
    target: float | None = None
    tail: bool = False


if __name__ == "__main__":
    main()
