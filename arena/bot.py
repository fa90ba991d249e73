"""The solver bot as a match player, and hints for people."""

from __future__ import annotations

import asyncio
from collections import Counter
from functools import cache

from engines.bananagrams.board import Grid
from engines.bananagrams.dictionary import Dictionary
from engines.bananagrams.game import DUMP_DRAW, PlayerState
from engines.play.oneshot import TurnDecision
from engines.solver.bot import BotPlayer, common_words
from engines.solver.solver import Hint, Solver


def board_in_hand(me: PlayerState) -> dict:
    """The board to build on: the latest one, unless it holds tiles the player no longer owns
    (a dumped board tile, a broken submission); then start afresh."""
    fits = not Counter(me.board.values()) - Counter(me.hand)
    return me.board if fits else {}


class SolverPlayer:
    """Plays with the solver at a level. `pace` None means the level's own pace per move (it
    varies with the size of the move); a number fixes it. Turns mode passes 0: bots answer at once."""

    kind = "bot"
    model = None

    def __init__(
        self, level: str, *, dictionary: Dictionary, pace: float | None, seed: int = 0
    ) -> None:
        self.level, self.dictionary, self.seed = level, dictionary, seed
        self.bot: BotPlayer | None = None
        self.fixed_pace = pace
        self.pace = pace or 0.0

    def _next_action(self, hand: str, board: dict, can_dump: bool):
        # The first bot of a dictionary builds the word index (about a second): do it here, in
        # the worker thread, never on the event loop that draws the screen.
        if self.bot is None:
            self.bot = BotPlayer(self.level, self.dictionary, seed=self.seed)
        return self.bot.next_action(hand, board, can_dump=can_dump)

    async def decide(self, view, me, on_delta=None) -> TurnDecision:
        action = await asyncio.to_thread(
            self._next_action, me.hand_letters, board_in_hand(me), view.bunch >= DUMP_DRAW
        )
        self.pace = action.pace if self.fixed_pace is None else self.fixed_pace
        board = (action.anchor or action.board) if action.board else None
        plan = "Every tile placed." if action.solved else "Placing what fits."
        if action.dump:
            plan += f" Dumping {action.dump}."
        problems = () if board or action.dump else ("no move found",)
        return TurnDecision(board=board, dump=action.dump, plan=plan, problems=problems)


@cache
def _everyday_solver(dictionary: Dictionary) -> Solver:
    return Solver(dictionary, vocabulary=common_words(dictionary), short_words=True)


def hint_for(dictionary: Dictionary, hand: str, board: Grid) -> Hint | None:
    """One move for a person: everyday words when one fits, else any word. Slow the first time
    (the word index is built); call it off the event loop. ValueError for an invalid board."""
    return _everyday_solver(dictionary).hint(hand, board) or Solver(dictionary).hint(hand, board)
