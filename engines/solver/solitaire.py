"""Solitaire Bananagrams with the solver: the benchmark game and the incremental-play test.

One player, one seeded bunch: deal 21, solve, then PEEL one tile at a time and extend the board
until the bunch is empty. When the solver cannot place everything it DUMPs its hardest leftover
tile (while the bunch holds three), otherwise it retries with a longer time limit.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engines.bananagrams.board import Cell
from engines.bananagrams.tiles import Bunch
from engines.solver.solver import Solver, SolveResult

MAX_STEPS = 1_000  # far more than the 123 peels and a few dumps a game takes


@dataclass
class SolitaireGame:
    """How one game went. `completed` means every one of the 144 tiles ended on a valid board."""

    seed: int
    completed: bool = False
    seconds: float = 0.0
    peels: int = 0
    dumps: int = 0
    retries: int = 0
    stages: Counter[str] = field(default_factory=Counter)
    hand: str = ""
    cells: dict[Cell, str] = field(default_factory=dict)


def play_solitaire(
    seed: int,
    solver: Solver | None = None,
    *,
    hand_size: int = 21,
    time_limit: float = 1.0,
    stuck_time_limit: float = 5.0,
    on_move: Callable[[str, SolveResult], None] | None = None,
) -> SolitaireGame:
    """Play one game; `on_move(hand, result)` sees every board the solver returns."""
    solver = solver or Solver()
    game = SolitaireGame(seed)
    started = time.perf_counter()
    bunch = Bunch.new(seed)
    hand = Counter(bunch.draw(hand_size))
    result = solver.solve(_letters(hand), time_limit=time_limit)
    retried = False
    for _ in range(MAX_STEPS):
        game.stages[result.stage] += 1
        if on_move is not None:
            on_move(_letters(hand), result)
        if result.solved:
            retried = False
            if not bunch.tiles:
                game.completed = True
                break
            hand.update(bunch.draw(1))
            game.peels += 1
        elif result.dump and len(bunch) >= 3:
            drawn = bunch.draw(3)
            bunch.put_back([result.dump])
            hand[result.dump] -= 1
            hand.update(drawn)
            game.dumps += 1
        elif not retried:
            retried = True
            game.retries += 1
            result = solver.extend(result.cells, _letters(hand), time_limit=stuck_time_limit)
            continue
        else:
            break
        result = solver.extend(result.cells, _letters(hand), time_limit=time_limit)
    game.seconds = time.perf_counter() - started
    game.hand = _letters(hand)
    game.cells = result.cells
    return game


def _letters(hand: Counter[str]) -> str:
    return "".join(sorted(hand.elements()))
