"""The solver bot as a match player."""

from __future__ import annotations

import asyncio
from collections import Counter

from engines.bananagrams.dictionary import Dictionary
from engines.bananagrams.game import DUMP_DRAW, PlayerState
from engines.play.oneshot import TurnDecision
from engines.solver.bot import BotPlayer


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
        self.bot = BotPlayer(level, dictionary, seed=seed)
        self.fixed_pace = pace
        self.pace = pace or 0.0

    async def decide(self, view, me, on_delta=None) -> TurnDecision:
        # The search is CPU-bound: keep the event loop (and any UI on it) responsive.
        action = await asyncio.to_thread(
            self.bot.next_action,
            me.hand_letters,
            board_in_hand(me),
            can_dump=view.bunch >= DUMP_DRAW,
        )
        self.pace = action.pace if self.fixed_pace is None else self.fixed_pace
        board = (action.anchor or action.board) if action.board else None
        plan = "Every tile placed." if action.solved else "Placing what fits."
        if action.dump:
            plan += f" Dumping {action.dump}."
        return TurnDecision(
            board=board,
            dump=action.dump,
            plan=plan,
            problems=() if board or action.dump else ("no move found",),
        )
