"""A solver-backed Bananagrams player with levels: easy, normal and hard.

The player is pure: `next_action(hand, board)` returns the board to submit and/or the tile to
DUMP, plus a pace (seconds of game time the move should appear to take). The runner waits out the
pace, so the UI can show the bot "thinking"; the same inputs always give the same action and pace
(unless the search hits its time limit on a slower machine).

- easy: plays only common words (see `engines.solver.vocabulary`), prefers the shortest,
  searches briefly and moves slowly, so it DUMPs awkward tiles a strong player would keep; only
  when it is stuck and may not DUMP does it reach for every word;
- normal: every word, a second per move, a steady pace;
- hard: every word, three seconds of search per move at most, and barely any pause.

No level plays slurs or obscenities, though every level accepts them on its board.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from engines.bananagrams.board import Cell, format_anchor
from engines.bananagrams.dictionary import Dictionary, enable
from engines.solver.solver import Solver, SolveResult
from engines.solver.vocabulary import common_words, offensive_words


class BotLevel(StrEnum):
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


@dataclass(frozen=True)
class LevelSettings:
    """How a level plays: search time per move, the words it knows, and its pace.

    Pace = `pace_base` + `pace_per_tile` for every tile the move puts down, within
    [`pace_min`, `pace_max`], times a seeded jitter of +-`pace_jitter`."""

    time_limit: float
    common_only: bool
    pace_base: float
    pace_per_tile: float
    pace_min: float
    pace_max: float
    pace_jitter: float


STUCK_TIME_FACTOR = 3  # more search time when the bot is stuck and may not DUMP

LEVELS: dict[BotLevel, LevelSettings] = {
    BotLevel.EASY: LevelSettings(0.3, True, 5.0, 1.5, 4.0, 45.0, 0.25),
    BotLevel.NORMAL: LevelSettings(1.0, False, 2.0, 0.5, 2.0, 15.0, 0.2),
    BotLevel.HARD: LevelSettings(3.0, False, 0.3, 0.05, 0.3, 2.0, 0.1),
}


@dataclass(frozen=True)
class BotAction:
    """What the bot does next: submit `board` (None: keep the current one) and/or DUMP `dump`,
    after `pace` seconds. `solved` says the board uses every tile of the hand."""

    board: dict[Cell, str] | None
    dump: str | None
    pace: float
    solved: bool

    @property
    def anchor(self) -> str | None:
        """The submitted board in anchor notation."""
        return format_anchor(self.board) if self.board else None


class BotPlayer:
    """A Bananagrams opponent. Create one per seat; `seed` varies the pace between bots."""

    def __init__(
        self,
        level: BotLevel | str = BotLevel.NORMAL,
        dictionary: Dictionary | None = None,
        *,
        seed: int = 0,
    ) -> None:
        self.level = BotLevel(level)
        self.settings = LEVELS[self.level]
        self.seed = seed
        self.dictionary = dictionary or enable()
        self.solver = _bot_solver(self.dictionary, self.settings.common_only)

    def next_action(
        self,
        hand: str,
        board: Mapping[Cell, str] | None = None,
        *,
        can_dump: bool = True,
    ) -> BotAction:
        """The next move for a player owning `hand` (every tile, board tiles included) whose
        board is `board`. Set `can_dump` False when the bunch holds fewer than three tiles.

        Raises ValueError when the hand is not letters or the board holds tiles the hand lacks
        (after a DUMP of a board tile, pass the board without it, or none)."""
        board = dict(board or {})
        result = self._play(self.solver, hand, board, self.settings.time_limit)
        if not result.solved and not can_dump:
            # No DUMP left to fall back on: think longer, and at easy, remember every word (a
            # Q or a J stuck in its hand at the end would otherwise never let it finish).
            solver = _bot_solver(self.dictionary, False)
            result = self._play(solver, hand, board, self.settings.time_limit * STUCK_TIME_FACTOR)
        new_board = result.cells if result.cells and result.cells != board else None
        placed = sum(1 for cell, letter in result.cells.items() if board.get(cell) != letter)
        dump = result.dump if (can_dump and not result.solved) else None
        return BotAction(new_board, dump, self._pace(hand, board, placed), result.solved)

    @staticmethod
    def _play(solver: Solver, hand: str, board: dict[Cell, str], time_limit: float) -> SolveResult:
        if board:
            return solver.extend(board, hand, time_limit=time_limit)
        return solver.solve(hand, time_limit=time_limit)

    def _pace(self, hand: str, board: Mapping[Cell, str], placed: int) -> float:
        s = self.settings
        pace = min(s.pace_max, max(s.pace_min, s.pace_base + s.pace_per_tile * placed))
        state = f"{self.seed}:{''.join(sorted(hand.upper()))}:{len(board)}"
        jitter = random.Random(state).uniform(-s.pace_jitter, s.pace_jitter)
        return round(pace * (1 + jitter), 2)


@cache
def _bot_solver(dictionary: Dictionary, common_only: bool) -> Solver:
    if common_only:
        return Solver(dictionary, vocabulary=common_words(dictionary), short_words=True)
    return Solver(dictionary, exclude=offensive_words(dictionary))
