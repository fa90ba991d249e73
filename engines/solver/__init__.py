"""A fast Bananagrams solver: solve a hand, keep a board valid as tiles arrive, give hints, and
play as a bot at three levels. Pure Python on top of `engines.bananagrams`.

    solver = Solver()                        # ENABLE; Solver(load_dictionary(path)) for others
    result = solver.solve("AEINRSTQUIZ...")  # SolveResult: solved, cells, unplaced, dump, ...
    result = solver.extend(result.cells, hand_after_peel)
    hint = solver.hint(hand, board)          # Hint: word, x, y, direction, tiles
    action = BotPlayer("hard").next_action(hand, board)  # BotAction: board, dump, pace
"""

from engines.solver.bot import LEVELS, BotAction, BotLevel, BotPlayer, LevelSettings
from engines.solver.solitaire import SolitaireGame, play_solitaire
from engines.solver.solver import DEFAULT_TIME_LIMIT, Hint, Solver, SolveResult, hardest_letter
from engines.solver.vocabulary import common_words, offensive_words

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "LEVELS",
    "BotAction",
    "BotLevel",
    "BotPlayer",
    "Hint",
    "LevelSettings",
    "SolitaireGame",
    "SolveResult",
    "Solver",
    "common_words",
    "hardest_letter",
    "offensive_words",
    "play_solitaire",
]
