"""Incremental play: PEEL and DUMP extend the board, and every board stays valid."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.bananagrams.tiles import Bunch
from engines.solver import Solver, SolveResult, play_solitaire
from tests.solver.conftest import assert_sound, dealt_hand


@pytest.mark.parametrize("seed", [1, 6])
def test_solitaire_game_keeps_every_board_valid(solver: Solver, seed: int) -> None:
    seen: list[str] = []

    def check(hand: str, result: SolveResult) -> None:
        assert_sound(result, hand)
        seen.append(result.stage)

    game = play_solitaire(seed, solver, on_move=check)
    assert game.completed
    assert len(game.cells) == 144 and Counter(game.cells.values()) == Counter(game.hand)
    assert game.peels == 123 - 2 * game.dumps  # each DUMP draws three for one
    assert len(seen) == 1 + game.peels + game.dumps + game.retries
    # Most PEELs attach the new tile; some need words torn down and rebuilt.
    assert game.stages["attach"] > 90
    assert game.stages["rebuild"] > 0


def test_attach_keeps_the_old_board_in_place(solver: Solver) -> None:
    bunch = Bunch.new(11)
    hand = "".join(bunch.draw(21))
    first = solver.solve(hand)
    assert first.solved
    for _ in range(10):
        hand += bunch.draw(1)[0]
        result = solver.extend(first.cells, hand)
        assert_sound(result, hand)
        if result.stage == "attach":
            assert first.cells.items() <= result.cells.items()
        first = result


def test_extend_after_a_dump_takes_three_new_tiles(solver: Solver) -> None:
    bunch = Bunch.new(5)
    hand = Counter(bunch.draw(21))
    result = solver.solve("".join(hand.elements()))
    dumped = "E"  # return an unplaced copy of a common tile: take it off the hand
    hand[dumped] += 1  # as if the player owned one more E that was not on the board
    hand_text = "".join(hand.elements())
    partial = solver.extend(result.cells, hand_text)
    assert_sound(partial, hand_text)
    hand[dumped] -= 1
    hand.update(bunch.draw(3))
    hand_text = "".join(hand.elements())
    after = solver.extend(result.cells, hand_text)
    assert_sound(after, hand_text)
    assert after.solved


def test_a_complete_board_is_left_alone(solver: Solver) -> None:
    hand = dealt_hand(3)
    result = solver.solve(hand)
    again = solver.extend(result.cells, hand)
    assert again.solved and again.stage == "complete" and again.cells == result.cells


def test_an_invalid_board_is_solved_afresh(solver: Solver) -> None:
    board = {(0, 0): "X", (1, 0): "Q", (2, 0): "Z"}  # XQZ is not a word
    result = solver.extend(board, "XQZAIUTEO")
    assert result.stage in {"scratch", "none"}
    assert_sound(result, "XQZAIUTEO")


def test_board_tiles_must_be_in_the_hand(solver: Solver) -> None:
    with pytest.raises(ValueError, match="not in the hand: T"):
        solver.extend({(0, 0): "A", (1, 0): "T"}, "AS")


def test_an_unplaceable_peel_becomes_the_dump(solver: Solver) -> None:
    # TA cannot take a Q: no word around it, nothing to tear down, and QAT wants the T first.
    result = solver.extend({(0, 0): "Z", (1, 0): "A"}, "ZAQ", time_limit=0.3)
    assert_sound(result, "ZAQ")
    assert not result.solved and result.dump == "Q"
