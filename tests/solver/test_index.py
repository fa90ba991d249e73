"""The packed-count word index: which words a rack spells, alone or with one board tile."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engines.bananagrams.dictionary import enable
from engines.bananagrams.tiles import Bunch
from engines.solver.index import GUARDS, LETTERS, WordIndex, deficit, pack


def brute_force(index: WordIndex, rack: str, board_letters: str) -> list[int]:
    have = Counter(rack)
    found = []
    for number, word in enumerate(index.words):
        short = Counter(word) - have
        if not short or (sum(short.values()) == 1 and next(iter(short)) in board_letters):
            found.append(number)
    return found


@pytest.fixture(scope="module")
def sample_index() -> WordIndex:
    words = sorted(enable().words)
    return WordIndex(random.Random(7).sample(words, 8_000))


@pytest.mark.parametrize("seed", range(12))
def test_playable_matches_brute_force(sample_index: WordIndex, seed: int) -> None:
    rng = random.Random(seed)
    bunch = Bunch.new(seed)
    rack = "".join(bunch.draw(rng.choice([1, 2, 4, 8, 21, 40])))
    board = "".join(bunch.draw(rng.choice([0, 0, 1, 5, 30])))
    assert sample_index.playable(rack, board) == brute_force(sample_index, rack, board)


def test_board_can_lend_a_second_copy_of_a_rack_letter(sample_index: WordIndex) -> None:
    index = WordIndex(["EAT", "TEA", "TEAT", "TREAT", "ETA"])
    assert [index.words[n] for n in index.playable("TAE", "T")] == ["TEAT", "EAT", "ETA", "TEA"]
    assert [index.words[n] for n in index.playable("TAE")] == ["EAT", "ETA", "TEA"]
    rack, board = "SEAT", "AET"  # every board letter is also in the rack
    assert sample_index.playable(rack, board) == brute_force(sample_index, rack, board)


def test_words_are_numbered_longest_first() -> None:
    index = WordIndex(["AT", "CAT", "SCAT", "TA", "ACT", "at", "A", "C4T"])
    assert index.words == ["SCAT", "ACT", "CAT", "AT", "TA"]  # junk dropped, ties alphabetical


def test_deficit_reads_one_missing_tile() -> None:
    rack = GUARDS + pack("CAT")
    assert deficit(rack, pack("ACT")) == -1
    assert deficit(rack, pack("CATS")) == LETTERS.index("S")
    assert deficit(rack, pack("TACT")) == LETTERS.index("T")  # one T short
    assert deficit(rack, pack("TACTS")) is None  # two tiles short
    assert deficit(rack, pack("TATT")) is None  # one letter, two tiles short
