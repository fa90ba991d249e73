"""The bot player: pure actions, a pace per level, common words at easy, no slurs at any level."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.bananagrams.dictionary import enable
from engines.bananagrams.tiles import Bunch
from engines.bananagrams.verifier import verify
from engines.solver import LEVELS, BotLevel, BotPlayer, Solver, common_words, offensive_words
from engines.solver.vocabulary import is_offensive
from tests.solver.conftest import dealt_hand


def play_peels(bot: BotPlayer, seed: int, peels: int) -> list[tuple[str, object]]:
    """Deal 21, then PEEL `peels` times (DUMPing when the bot asks), as a runner would."""
    bunch = Bunch.new(seed)
    hand = Counter(bunch.draw(21))
    board: dict = {}
    seen = []
    for _ in range(peels + 10):
        letters = "".join(sorted(hand.elements()))
        action = bot.next_action(letters, board, can_dump=len(bunch) >= 3)
        seen.append((letters, action))
        if action.board is not None:
            board = action.board
        if action.dump:
            assert action.dump in letters and not action.solved
            hand[action.dump] -= 1
            hand.update(bunch.draw(3))
            bunch.put_back([action.dump])
        elif action.solved:
            if peels == 0:
                break
            peels -= 1
            hand.update(bunch.draw(1))
    return seen


@pytest.mark.parametrize("level", list(BotLevel))
def test_every_level_plays_valid_boards_at_its_pace(level: BotLevel) -> None:
    bot = BotPlayer(level, seed=3)
    settings = LEVELS[level]
    for hand, action in play_peels(bot, seed=8, peels=6):
        if action.board is not None:
            check = verify(action.board, hand=hand)
            assert check.valid, [e.message for e in check.errors]
            assert check.complete == action.solved
            assert verify(action.anchor, hand=hand).valid
        low = settings.pace_min * (1 - settings.pace_jitter)
        high = settings.pace_max * (1 + settings.pace_jitter)
        assert low <= action.pace <= high


def test_levels_differ_in_pace() -> None:
    hand = dealt_hand(30)
    paces = {level: BotPlayer(level).next_action(hand).pace for level in BotLevel}
    assert paces[BotLevel.EASY] > paces[BotLevel.NORMAL] > paces[BotLevel.HARD]


def test_actions_are_pure() -> None:
    hand = dealt_hand(31)
    bot = BotPlayer("normal", seed=5)
    first = bot.next_action(hand)
    assert BotPlayer("normal", seed=5).next_action(hand) == first
    assert bot.next_action(hand) == first
    # Another seat's seed changes the pace, not the move.
    other = BotPlayer("normal", seed=6).next_action(hand)
    assert other.board == first.board and other.pace != first.pace


def test_easy_plays_only_common_words() -> None:
    vocabulary = common_words(enable())
    bot = BotPlayer("easy", seed=1)
    for seed in range(40, 46):
        action = bot.next_action(dealt_hand(seed))
        if action.board:
            words = verify(action.board).words
            assert words and set(words) <= vocabulary
            assert max(len(w) for w in words) <= 5


def test_common_words_are_short_and_plain() -> None:
    vocabulary = common_words(enable())
    assert {"HOTEL", "SWEAT", "TOUCH", "WIRE", "CAT", "IN", "ON"} <= vocabulary
    assert not {"CEPHALEXINS", "QINTAR", "AA", "XU", "JO", "ZAX"} & vocabulary
    assert all(2 <= len(word) <= 5 for word in vocabulary)
    longer = "".join(word for word in vocabulary if len(word) > 2)
    assert not set("JQXZ") & set(longer)
    assert not {"AAH", "AALII", "BAAS"} & vocabulary  # doubled A, I or U looks foreign


def test_no_level_plays_offensive_words() -> None:
    blocked = offensive_words(enable())
    assert {"MOTHERFUCKING", "SHIT", "FAGS"} <= blocked
    assert not {"SNIGGER", "SCULPT", "SPICE", "NIGGARD", "SCUTTLE"} & blocked
    assert all(is_offensive(word) for word in blocked)
    assert not any(is_offensive(word) for word in common_words(enable()))
    # This hand's best word for the plain solver is one a bot must not play.
    hand = dealt_hand(3)
    assert "MOTHERFUCKING" in Solver().solve(hand).words
    for level in BotLevel:
        action = BotPlayer(level).next_action(hand)
        assert not blocked & set(verify(action.board).words)


def test_stuck_bot_dumps_its_hardest_tile_only_when_it_may() -> None:
    hand = "HXCEWCYOHDSAOQYBMAAVR"  # the Q has no word here
    bot = BotPlayer("hard")
    action = bot.next_action(hand)
    assert not action.solved and action.dump == "Q"
    assert action.board is not None and verify(action.board, hand=hand).valid
    assert bot.next_action(hand, can_dump=False).dump is None


def test_a_finished_board_needs_no_new_board() -> None:
    hand = dealt_hand(33)
    bot = BotPlayer("normal")
    action = bot.next_action(hand)
    assert action.solved
    again = bot.next_action(hand, action.board)
    assert again.board is None and again.dump is None and again.solved


def test_easy_dumps_a_j_but_plays_it_when_it_may_not_dump() -> None:
    hand = "RAJESTONE"  # easy knows no word with J
    bot = BotPlayer("easy")
    early = bot.next_action(hand)
    assert not early.solved and early.dump == "J"
    late = bot.next_action(hand, can_dump=False)
    assert late.solved and late.dump is None
    assert verify(late.board, hand=hand).complete
