"""Solving a hand from scratch: every board passes the engine's verifier with the hand."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from engines.bananagrams.dictionary import Dictionary
from engines.bananagrams.tiles import full_set
from engines.solver import Solver, hardest_letter
from tests.solver.conftest import (
    assert_sound,
    dealt_hand,
    q_without_u_hand,
    vowel_poor_hand,
)


def test_dealt_hands_are_solved_and_verified(solver: Solver) -> None:
    hands = [dealt_hand(seed) for seed in range(1000, 1150)]
    solved = 0
    for hand in hands:
        result = solver.solve(hand, time_limit=1.0)
        assert_sound(result, hand)
        solved += result.solved
    assert solved >= 0.95 * len(hands)


@pytest.mark.parametrize("vowels", [2, 3, 4])
def test_vowel_poor_hands_give_valid_boards(solver: Solver, vowels: int) -> None:
    solved = unplaced = 0
    for seed in range(12):
        hand = vowel_poor_hand(seed, vowels)
        result = solver.solve(hand, time_limit=0.25)
        assert_sound(result, hand)
        solved += result.solved
        unplaced += len(result.unplaced)
    # Even when stuck, most tiles are on the board (about 2 of 21 left, on average, for 2 vowels).
    assert unplaced <= 4 * 12
    if vowels >= 3:
        assert solved >= 6


def test_q_without_u_hands(solver: Solver) -> None:
    solved = 0
    for seed in range(30):
        hand = q_without_u_hand(seed)
        result = solver.solve(hand, time_limit=0.25)
        assert_sound(result, hand)
        if result.solved:
            solved += 1
            q_words = [w for w in result.words if "Q" in w]
            assert q_words and all("U" not in w for w in q_words)
        else:
            assert result.dump == hardest_letter(result.unplaced)
    assert solved >= 20


def test_unplaceable_q_is_the_dump(solver: Solver) -> None:
    # No U, and no Q word without U (QAT, QAID, QOPH, ...) can be spelled from these tiles.
    hand = "HXCEWCYOHDSAOQYBMAAVR"
    result = solver.solve(hand, time_limit=0.5)
    assert_sound(result, hand)
    assert not result.solved
    assert result.unplaced == "Q" and result.dump == "Q"


def test_whole_bag(solver: Solver) -> None:
    hand = "".join(full_set())
    result = solver.solve(hand, time_limit=10)
    assert_sound(result, hand)
    assert result.solved and len(result.cells) == 144


@pytest.mark.parametrize(
    ("hand", "solved"),
    [("at", True), ("ZZZ", False), ("Q", False), ("QQ", False), ("VV", False), ("CAT", True)],
)
def test_tiny_hands(solver: Solver, hand: str, solved: bool) -> None:
    result = solver.solve(hand, time_limit=0.2)
    assert_sound(result, hand.upper())
    assert result.solved == solved
    if not solved:
        assert result.cells == {} and result.stage == "none"


def test_same_hand_same_board(solver: Solver) -> None:
    hand = dealt_hand(42)
    assert solver.solve(hand).cells == solver.solve(hand).cells


def test_time_limit_is_kept(solver: Solver) -> None:
    # Two vowels among 21 tiles: this one cannot be finished, so the search runs out its time.
    hand = "EERGKCDGMTLRCSTVRTYWDZ"
    started = time.perf_counter()
    result = solver.solve(hand, time_limit=0.3)
    assert time.perf_counter() - started < 0.3 + 0.2
    assert_sound(result, hand)


def test_custom_word_list() -> None:
    words = Dictionary.from_text("CAT\nACT\nTA\nAT\nCATS\nSAT\nTAS\nAS\n", "tiny")
    solver = Solver(words)
    result = solver.solve("CATSAT")
    assert result.solved
    assert set(result.words) <= set(words.words)
    assert Counter(result.cells.values()) == Counter("CATSAT")


def test_not_letters_is_an_error(solver: Solver) -> None:
    with pytest.raises(ValueError, match="letters A-Z"):
        solver.solve("CAT!")
    with pytest.raises(ValueError, match="empty"):
        solver.solve("  ")


def test_result_as_json_fields(solver: Solver) -> None:
    data = solver.solve("QUARTZ").to_dict()
    assert set(data) == {"solved", "board", "grid", "words", "unplaced", "dump", "seconds"}
    assert data["solved"] and data["board"].startswith("QUARTZ ")
