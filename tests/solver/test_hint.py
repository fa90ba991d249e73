"""Hints: one move that keeps the board valid, for a person to play."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.bananagrams.board import grid_runs
from engines.bananagrams.verifier import verify
from engines.solver import Solver
from tests.solver.conftest import dealt_hand, q_without_u_hand, vowel_poor_hand


@pytest.mark.parametrize(
    "hand",
    [dealt_hand(21), dealt_hand(22), dealt_hand(23), q_without_u_hand(2), vowel_poor_hand(4, 4)],
)
def test_following_hints_keeps_the_board_valid(solver: Solver, hand: str) -> None:
    board: dict = {}
    for _ in range(len(hand)):
        hint = solver.hint(hand, board, time_limit=0.3)
        if hint is None:
            break
        # The hint adds exactly its tiles, on empty cells, and makes its word.
        assert not board.keys() & hint.tiles.keys()
        assert hint.cells == {**board, **hint.tiles}
        check = verify(hint.cells, hand=hand)
        assert check.valid, [e.message for e in check.errors]
        runs = {(run.x, run.y, run.direction): run.word for run in grid_runs(hint.cells)}
        assert runs[(hint.x, hint.y, hint.direction)] == hint.word
        assert hint.word in hint.text
        board = hint.cells
    assert Counter(board.values()) <= Counter(hand)


def test_hint_on_an_existing_board_keeps_its_tiles(solver: Solver) -> None:
    board = {(0, 0): "C", (1, 0): "A", (2, 0): "T"}
    hint = solver.hint("CATQU", board)
    assert hint is not None and "Q" in hint.tiles.values() and "U" in hint.tiles.values()
    assert board.items() <= hint.cells.items()
    assert verify(hint.cells, hand="CATQU").complete


def test_hint_places_the_hardest_letter_first(solver: Solver) -> None:
    hand = "AEINRSTJ"
    hint = solver.hint(hand)
    assert hint is not None and "J" in hint.word


def test_no_hint_when_every_tile_is_placed(solver: Solver) -> None:
    assert solver.hint("CAT", {(0, 0): "C", (1, 0): "A", (2, 0): "T"}) is None


def test_no_hint_when_nothing_fits(solver: Solver) -> None:
    # A lone Q cannot join CAT (no QA, QC or QT; QAT would need a second T).
    assert solver.hint("CATQ", {(0, 0): "C", (1, 0): "A", (2, 0): "T"}) is None
    assert solver.hint("VV") is None


def test_hint_refuses_an_invalid_board(solver: Solver) -> None:
    with pytest.raises(ValueError, match="not valid"):
        solver.hint("CXTA", {(0, 0): "C", (1, 0): "X", (2, 0): "T"})
