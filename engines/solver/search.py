"""The search: place the rack's tiles on a board, hardest letter first, keeping the board valid.

At every step the hardest letter still in the rack (Q, J, X, Z, V, K, ... by `DIFFICULTY`) must
be placed next. Its moves are:

- a word through one tile already on the board (the anchor), whose other letters all come from
  the rack: the word's packed counts minus the rack's show whether it is short of exactly the
  anchor's letter. Words may also touch other tiles, as long as every run they form or extend
  (the cross-checks) is a word;
- a hook: the letter alone, next to the board, when both runs through it are words (CAT + S).

On an empty board the first word comes from the rack alone. Moves are ranked by how much
difficulty they take off the rack and how playable the rest looks, and explored by limited
discrepancy search: first the top move everywhere, then paths that deviate once, twice, ...
until the board is complete or the time is up; if every ranked branch fails, the search widens
(more moves per position) and goes again. Failed positions are remembered, so a board
reached in two orders is searched once. The best partial board seen is kept for the caller.
"""

from __future__ import annotations

import time

from engines.solver.grid import ACROSS, DOWN, Board, Key, key
from engines.solver.index import (
    BIT,
    DIFFICULTY,
    FIELD,
    FIELD_MASK,
    GUARDS,
    LETTERS,
    ONE_SHORT,
    UNIT,
    VOWELS,
    WordIndex,
    pack,
)

HARDEST_FIRST = sorted(LETTERS, key=lambda letter: -DIFFICULTY[letter])
ORIGIN = key(0, 0)
# Children of one position the search looks at, and placements collected before ranking them.
# When every ranked branch has been tried in vain, the search widens and starts over.
BRANCHES = (8, 16, 32)
SCAN_FACTOR = 6
LAZY_RACK = 32  # racks longer than this skip the up-front word filter (see Search.__init__)
LAZY_LONGEST = 12  # and consider words of at most this many letters
_M64 = (1 << 64) - 1


def _tile_hash(position: Key, letter: str) -> int:
    """A fixed pseudo-random 64-bit code per (cell, letter); boards hash as the XOR of their
    tiles' codes. (Python's own str hash changes between runs; this does not.)"""
    z = (position * 32 + ord(letter) + 0x9E3779B97F4A7C15) & _M64  # splitmix64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class Timeout(Exception):
    """The deadline passed; the search unwinds and reports its best partial board."""


class Search:
    """One search over one board and rack. Not reusable: build a new one per attempt."""

    def __init__(
        self,
        index: WordIndex,
        board: Board,
        rack: str,
        deadline: float,
        *,
        valid_words: frozenset[str] | None = None,
        excluded: frozenset[int] = frozenset(),
        short_words: bool = False,
        widen: bool = True,
    ) -> None:
        self.index = index
        self.words = index.words
        self.packed = index.packed
        self.masks = index.masks
        # Every run a move forms across its own line (a cross-check) must be in `valid_words`.
        self.valid_words = valid_words if valid_words is not None else index.wordset
        self.excluded = excluded  # word numbers never to play
        self.short_words = short_words
        self.deadline = deadline
        self.board: Board = dict(board)
        self.counts = dict.fromkeys(LETTERS, 0)
        for letter in rack:
            self.counts[letter] += 1
        self.guarded = GUARDS + pack(rack)
        self.left = len(rack)
        self.vowels = sum(1 for letter in rack if letter in VOWELS)
        self.cells_of: dict[str, list[Key]] = {letter: [] for letter in LETTERS}
        for position, letter in self.board.items():
            self.cells_of[letter].append(position)
        self.hash = 0
        # A big rack spells most of the dictionary: filtering it all up front would cost more
        # than checking words as the search meets them, so big racks use the plain letter lists.
        self.playable: list[int] | None = None
        if len(rack) <= LAZY_RACK:
            self.playable = index.playable(rack, "".join(sorted(set(self.board.values()))))
        self._buckets: dict[str, list[int]] = {}
        self._moves_at: dict[tuple[int, int], list[tuple[float, list[tuple[Key, str]]]]] = {}
        self._failed: dict[tuple[int, int], int] = {}
        self.nodes = 0
        self.best_board: Board = dict(self.board)
        self.best_left = self.left
        self.best_rack = rack
        self.path: list[list[tuple[Key, str]]] = []  # the moves that built `board` from the start
        self.best_path: list[list[tuple[Key, str]]] = []
        self._cut = False
        self.branches = BRANCHES[0]
        # Without widening a fruitless search ends early, which suits quick repair attempts.
        self.widths = BRANCHES if widen else BRANCHES[:1]

    # --- driving ---------------------------------------------------------------------------

    def run(self, max_discrepancies: int = 64) -> bool:
        """Search until the rack is empty (True: `board` and `path` hold the result) or time runs
        out or the space is exhausted (False: see `best_board`, `best_rack` and `best_path`)."""
        if self.left == 0:
            return bool(self.board)
        try:
            for branches in self.widths:
                self.branches = branches
                self._moves_at.clear()
                self._failed.clear()
                for budget in range(max_discrepancies + 1):
                    self._cut = False
                    if self._dfs(budget):
                        return True
                    if not self._cut:
                        break  # nothing was pruned by the budget: every ranked branch was tried
        except Timeout:
            pass
        return False

    def _dfs(self, budget: int) -> bool:
        if self.left == 0:
            return True
        self.nodes += 1
        if time.perf_counter() > self.deadline:
            raise Timeout
        state = (self.guarded, self.hash)
        if self._failed.get(state, -1) >= budget:
            return False
        moves = self._moves_at.get(state)
        if moves is None:
            moves = self._moves()
            self._moves_at[state] = moves
        for rank, (_, new) in enumerate(moves):
            cost = 1 if rank else 0
            if cost > budget:
                self._cut = True
                break
            self._apply(new)
            if self._dfs(budget - cost):
                return True
            self._undo(new)
        self._failed[state] = budget
        return False

    def _apply(self, new: list[tuple[Key, str]]) -> None:
        board, counts, cells_of = self.board, self.counts, self.cells_of
        for position, letter in new:
            board[position] = letter
            counts[letter] -= 1
            cells_of[letter].append(position)
            self.guarded -= UNIT[letter]
            self.hash ^= _tile_hash(position, letter)
            if letter in VOWELS:
                self.vowels -= 1
        self.left -= len(new)
        self.path.append(new)
        if self.left < self.best_left:
            self.best_left = self.left
            self.best_board = dict(board)
            self.best_path = list(self.path)
            self.best_rack = "".join(letter * count for letter, count in counts.items())

    def _undo(self, new: list[tuple[Key, str]]) -> None:
        board, counts, cells_of = self.board, self.counts, self.cells_of
        for position, letter in reversed(new):
            del board[position]
            counts[letter] += 1
            cells_of[letter].pop()
            self.guarded += UNIT[letter]
            self.hash ^= _tile_hash(position, letter)
            if letter in VOWELS:
                self.vowels += 1
        self.left += len(new)
        self.path.pop()

    # --- moves -----------------------------------------------------------------------------

    def hardest(self) -> str:
        counts = self.counts
        for letter in HARDEST_FIRST:
            if counts[letter]:
                return letter
        raise ValueError("empty rack")

    def _bucket(self, letter: str) -> list[int]:
        bucket = self._buckets.get(letter)
        if bucket is None:
            if self.playable is None:
                bucket = self.index.containing(letter, LAZY_LONGEST)
            else:
                bit, masks = BIT[letter], self.masks
                bucket = [number for number in self.playable if masks[number] & bit]
            if self.excluded:
                bucket = [number for number in bucket if number not in self.excluded]
            if self.short_words:
                bucket.sort(key=lambda number: (len(self.words[number]), number))
            self._buckets[letter] = bucket
        return bucket

    def _moves(self) -> list[tuple[float, list[tuple[Key, str]]]]:
        """Ranked moves that place the hardest letter, best first, at most `branches`."""
        if not self.board:
            return self._first_words()
        hard = self.hardest()
        found: list[tuple[float, list[tuple[Key, str]]]] = []
        seen: set[tuple[Key, int, int]] = set()
        words, packed, cells_of = self.words, self.packed, self.cells_of
        guarded = self.guarded
        scan_limit = self.branches * SCAN_FACTOR
        for number in self._bucket(hard):
            rest = guarded - packed[number]
            short = GUARDS ^ (rest & GUARDS)
            word = words[number]
            if not short:
                anchors = dict.fromkeys(word)  # distinct letters, in word order
            elif short & (short - 1):
                continue
            else:
                k = (short.bit_length() - 1) // FIELD
                if (rest >> (FIELD * k)) & FIELD_MASK != ONE_SHORT:
                    continue
                anchors = (LETTERS[k],)
            for anchor in anchors:
                cells = cells_of[anchor]
                if not cells:
                    continue
                for i, letter in enumerate(word):
                    if letter != anchor:
                        continue
                    for at in cells:
                        for step, perp in ((ACROSS, DOWN), (DOWN, ACROSS)):
                            start = at - i * step
                            if (start, step, number) in seen:
                                continue
                            seen.add((start, step, number))
                            new = self._fit(word, start, step, perp)
                            if new is None:
                                continue
                            if not any(letter == hard for _, letter in new):
                                continue
                            found.append((self._score(new), new))
            if len(found) >= scan_limit:
                break
        if len(found) < self.branches:
            found.extend(self._hooks(hard))
        found.sort(key=lambda move: -move[0])
        return found[: self.branches]

    def _first_words(self) -> list[tuple[float, list[tuple[Key, str]]]]:
        """Words spelled by the rack alone, laid across from (0, 0). Words with the hardest
        letter are preferred; if none has it, the next hardest letter decides, and so on."""
        words, packed, guarded = self.words, self.packed, self.guarded
        for letter in HARDEST_FIRST:
            if not self.counts[letter]:
                continue
            found = []
            for number in self._bucket(letter):
                rest = guarded - packed[number]
                if GUARDS ^ (rest & GUARDS):
                    continue
                word = words[number]
                new = [(ORIGIN + k, c) for k, c in enumerate(word)]
                found.append((self._score(new), new))
                if len(found) >= self.branches * SCAN_FACTOR:
                    break
            if found:
                found.sort(key=lambda move: -move[0])
                return found[: self.branches]
        return []

    def _fit(self, word: str, start: Key, step: int, perp: int) -> list[tuple[Key, str]] | None:
        """The new tiles of `word` laid from `start`, or None if it clashes with the board or
        forms a run that is not a word. The word must be the whole run on its line."""
        board = self.board
        if (start - step) in board or (start + len(word) * step) in board:
            return None
        valid = self.valid_words
        new = []
        at = start
        for letter in word:
            have = board.get(at)
            if have is None:
                if (at - perp) in board or (at + perp) in board:
                    lo = at - perp
                    while lo in board:
                        lo -= perp
                    lo += perp
                    hi = at + perp
                    while hi in board:
                        hi += perp
                    cross = "".join(letter if p == at else board[p] for p in range(lo, hi, perp))
                    if cross not in valid:
                        return None
                new.append((at, letter))
            elif have != letter:
                return None
            at += step
        return new or None

    def _hooks(self, letter: str) -> list[tuple[float, list[tuple[Key, str]]]]:
        """The letter alone on an empty cell next to the board, where every run through it is a
        word."""
        board, valid = self.board, self.valid_words
        found = []
        seen: set[Key] = set()
        for position in board:
            for at in (position + ACROSS, position - ACROSS, position + DOWN, position - DOWN):
                if at in board or at in seen:
                    continue
                seen.add(at)
                fits = True
                for step in (ACROSS, DOWN):
                    if (at - step) not in board and (at + step) not in board:
                        continue
                    lo = at - step
                    while lo in board:
                        lo -= step
                    hi = at + step
                    while hi in board:
                        hi += step
                    run = "".join(
                        letter if p == at else board[p] for p in range(lo + step, hi, step)
                    )
                    if run not in valid:
                        fits = False
                        break
                if fits:
                    new = [(at, letter)]
                    found.append((self._score(new), new))
        return found

    def _score(self, new: list[tuple[Key, str]]) -> float:
        """Difficulty taken off the rack, minus a guess at how awkward the rest will be."""
        gain = 0.0
        vowels_used = 0
        for _, letter in new:
            gain += DIFFICULTY[letter]
            if letter in VOWELS:
                vowels_used += 1
        if self.short_words:
            gain = len(new) ** 0.5 * 2.0 + gain * 0.2
        left = self.left - len(new)
        vowels = self.vowels - vowels_used
        consonants = left - vowels
        penalty = max(0, consonants - 2 * vowels - 1) * 0.8 + max(0, vowels - consonants - 2) * 0.6
        return gain - penalty
