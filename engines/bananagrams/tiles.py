"""The 144-tile set, hand sizes, and a seeded bunch whose state can be saved and restored exactly."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

TILE_COUNTS: dict[str, int] = {
    "A": 13, "B": 3, "C": 3, "D": 6, "E": 18, "F": 3, "G": 4, "H": 3, "I": 12, "J": 2,
    "K": 2, "L": 5, "M": 3, "N": 8, "O": 11, "P": 3, "Q": 2, "R": 9, "S": 6, "T": 9,
    "U": 6, "V": 3, "W": 3, "X": 2, "Y": 3, "Z": 2,
}  # fmt: skip
TOTAL_TILES = sum(TILE_COUNTS.values())
MAX_PLAYERS = 8


def hand_size(players: int) -> int:
    """Starting hand: 21 tiles for 1-4 players, 15 for 5-6, 11 for 7-8."""
    if players < 1:
        raise ValueError("A game needs at least one player.")
    if players > MAX_PLAYERS:
        raise ValueError(f"Bananagrams is for at most {MAX_PLAYERS} players, not {players}.")
    return 21 if players <= 4 else 15 if players <= 6 else 11


def full_set() -> list[str]:
    """All 144 tiles in A..Z order."""
    return [letter for letter, count in TILE_COUNTS.items() for _ in range(count)]


def letter_counts(letters: str) -> Counter[str]:
    return Counter(letters.upper())


def tiles_not_covered(hand: Iterable[str], board_letters: Iterable[str]) -> int:
    """Tiles of a hand that a board does not use: how standings rank players without a winner."""
    hand = list(hand)
    covered = Counter(board_letters) & Counter(hand)
    return len(hand) - sum(covered.values())


def check_tiles(letters: str) -> str | None:
    """Why `letters` cannot be a set of tiles from one bag, or None when it can."""
    # Not c.upper(): 'ß'.upper() is 'SS', which sorts between A and Z.
    bad = sorted({c for c in letters if not (c.isascii() and c.isalpha())})
    if bad:
        return f"Tiles must be letters A-Z; got {''.join(bad)!r}."
    if len(letters) > TOTAL_TILES:
        return f"The bag has {TOTAL_TILES} tiles; got {len(letters)}."
    for letter, count in sorted(letter_counts(letters).items()):
        if count > TILE_COUNTS[letter]:
            return f"The bag has only {TILE_COUNTS[letter]} {letter}; got {count}."
    return None


@dataclass
class Bunch:
    """The face-down pile. Draws come off the front; randomness is derived from (seed, counter),
    so the whole state is a list of letters, the seed and a counter: exact to save and restore."""

    seed: int
    tiles: list[str] = field(default_factory=list)
    shuffles: int = 0

    @classmethod
    def new(cls, seed: int) -> Bunch:
        bunch = cls(seed=seed, tiles=full_set())
        bunch._rng().shuffle(bunch.tiles)
        return bunch

    def _rng(self) -> random.Random:
        # A fresh generator per random act keeps the state tiny and the sequence reproducible.
        rng = random.Random(f"{self.seed}:{self.shuffles}")
        self.shuffles += 1
        return rng

    def __len__(self) -> int:
        return len(self.tiles)

    def draw(self, count: int) -> list[str]:
        if count > len(self.tiles):
            raise ValueError(f"Cannot draw {count} tiles from a bunch of {len(self.tiles)}.")
        drawn, self.tiles = self.tiles[:count], self.tiles[count:]
        return drawn

    def put_back(self, letters: list[str]) -> None:
        """Return tiles at random (seeded) positions."""
        rng = self._rng()
        for letter in letters:
            self.tiles.insert(rng.randrange(len(self.tiles) + 1), letter)

    def to_state(self) -> dict:
        return {"seed": self.seed, "tiles": "".join(self.tiles), "shuffles": self.shuffles}

    @classmethod
    def from_state(cls, state: dict) -> Bunch:
        return cls(
            seed=int(state["seed"]), tiles=list(state["tiles"]), shuffles=int(state["shuffles"])
        )
