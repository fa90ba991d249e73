"""How fast the board redraws: `BoardView.render_line` for every line of a 120 x 40 viewport.

    python benchmarks/board.py [--runs N] [--seed S]

The board is a real 144-tile board: the solver plays a seeded solitaire game to the end
(`engines.solver.play_solitaire`), which takes a few seconds. It is loaded into a `BoardView`
that fills a headless 120 x 40 app, centred on the tiles, with the cursor on a tile and a few
cells flagged as errors (so every style is drawn).

Rows:
- full redraw: `render_line(y)` for y = 0..39, the work Textual asks of the widget when the
  whole board is repainted (a keystroke, a new tile, a scroll);
- one line: a single `render_line` call (the median over every line of every run);
- full redraw after scrolling one cell: the same, with the scroll offset moved each run so no
  per-line result can be reused.

Targets are for a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402

from engines.bananagrams.editing import BoardEdit  # noqa: E402
from engines.bananagrams.tiles import TOTAL_TILES  # noqa: E402
from engines.solver import play_solitaire  # noqa: E402
from screens.widgets.board import BoardView  # noqa: E402

WIDTH, HEIGHT = 120, 40
FULL_REDRAW_TARGET_MS = 10.0


class BoardApp(App):
    CSS = "BoardView { width: 100%; height: 100%; }"

    def __init__(self, edit: BoardEdit) -> None:
        super().__init__()
        self.edit = edit

    def compose(self) -> ComposeResult:
        yield BoardView(self.edit)


def p95(times: list[float]) -> float:
    return sorted(times)[max(0, round(0.95 * len(times)) - 1)]


async def measure(edit: BoardEdit, runs: int) -> dict[str, list[float]]:
    app = BoardApp(edit)
    results: dict[str, list[float]] = {"full": [], "line": [], "scrolled": []}
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        board.action_recentre()
        await pilot.pause()
        assert board.size.width == WIDTH and board.size.height == HEIGHT, board.size
        first = sorted(edit.cells)[len(edit.cells) // 2]
        edit.cursor = first
        board.flag(set(sorted(edit.cells)[:5]))
        await pilot.pause()
        lines = range(board.size.height)
        for y in lines:  # warm up
            board.render_line(y)
        for _ in range(runs):
            started = time.perf_counter()
            for y in lines:
                board.render_line(y)
            results["full"].append(time.perf_counter() - started)
        for _ in range(runs):
            for y in lines:
                started = time.perf_counter()
                board.render_line(y)
                results["line"].append(time.perf_counter() - started)
        x, y0 = board.scroll_offset
        for run in range(runs):
            board.scroll_to(
                x + 2 * (run % 7 - 3), y0 + (run % 5 - 2), animate=False, immediate=True
            )
            started = time.perf_counter()
            for y in lines:
                board.render_line(y)
            results["scrolled"].append(time.perf_counter() - started)
        check = [board.render_line(y).text for y in lines]
    letters = sum(line.count(letter) for line in check for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert letters > 0, "the board drew no tiles"
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="full redraws per row")
    parser.add_argument("--seed", type=int, default=1, help="solitaire game seed")
    args = parser.parse_args()

    started = time.perf_counter()
    game = play_solitaire(args.seed)
    if not game.completed or len(game.cells) != TOTAL_TILES:
        raise SystemExit(f"seed {args.seed}: the solver left {len(game.cells)} tiles; try another")
    built = time.perf_counter() - started
    edit = BoardEdit(hand=list(game.hand), cells=dict(game.cells))
    results = asyncio.run(measure(edit, args.runs))

    ms = 1000
    xs = [x for x, _ in game.cells]
    ys = [y for _, y in game.cells]
    print(
        f"Python {sys.version.split()[0]}, {len(game.cells)}-tile board "
        f"({max(xs) - min(xs) + 1} x {max(ys) - min(ys) + 1} cells, built in {built:.1f} s), "
        f"viewport {WIDTH} x {HEIGHT}, {args.runs} runs, load {os.getloadavg()[0]:.1f}"
    )
    print(f"{'what':44} {'median ms':>10} {'p95 ms':>8} {'target':>8}  result")
    for name, key, target in [
        (f"full redraw ({HEIGHT} x render_line)", "full", FULL_REDRAW_TARGET_MS),
        ("one render_line", "line", None),
        ("full redraw, scrolled each run", "scrolled", FULL_REDRAW_TARGET_MS),
    ]:
        times = results[key]
        median = statistics.median(times) * ms
        verdict = "-" if target is None else ("PASS" if median <= target else "MISS")
        shown = "-" if target is None else f"<= {target:g}"
        print(f"{name:44} {median:10.3f} {p95(times) * ms:8.3f} {shown:>8}  {verdict}")


if __name__ == "__main__":
    main()
