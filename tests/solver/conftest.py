"""Shared helpers for the solver tests: seeded hands from the real bag, and board checks by the
engine's own verifier."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engines.bananagrams.tiles import Bunch, full_set
from engines.bananagrams.verifier import verify
from engines.solver import Solver, SolveResult

VOWELS = "AEIOU"


@pytest.fixture(scope="session")
def solver() -> Solver:
    return Solver()


def dealt_hand(seed: int, size: int = 21) -> str:
    return "".join(Bunch.new(seed).draw(size))


def vowel_poor_hand(seed: int, vowels: int, size: int = 21) -> str:
    """`vowels` vowels and the rest consonants, all drawn from the 144-tile set."""
    rng = random.Random(f"vowel-poor:{seed}")
    tiles = full_set()
    return "".join(
        rng.sample([t for t in tiles if t in VOWELS], vowels)
        + rng.sample([t for t in tiles if t not in VOWELS], size - vowels)
    )


def q_without_u_hand(seed: int, size: int = 21) -> str:
    rng = random.Random(f"q-no-u:{seed}")
    return "Q" + "".join(rng.sample([t for t in full_set() if t not in "QU"], size - 1))


def assert_sound(result: SolveResult, hand: str) -> None:
    """The result is honest: its board passes the verifier with the hand, `solved` means every
    tile is on it, `unplaced` is exactly what is missing, and the DUMP is one of those."""
    missing = Counter(hand) - Counter(result.cells.values())
    assert Counter(result.unplaced) == missing, (hand, result.unplaced)
    if result.cells:
        check = verify(result.cells, hand=hand)
        assert check.valid, (hand, result.rows, [e.message for e in check.errors])
        assert check.complete == result.solved
        # The same board in anchor notation (what the CLI prints and bots submit).
        again = verify(result.anchor or "", hand=hand)
        assert again.valid and again.grid == result.rows, (result.anchor, again.errors)
    else:
        assert not result.solved
    if result.solved:
        assert result.dump is None and result.unplaced == ""
    else:
        assert result.dump is not None and result.dump in result.unplaced
