"""Word lists indexed for the solver: letter counts packed into one integer per word.

A rack or a word is a multiset of letters. We pack its 26 letter counts into one Python integer,
six bits per letter, so "can this rack spell that word?" is one subtraction and one mask instead
of a loop over letters. The top bit of each field is a guard: the rack is packed with every
guard bit set, and after `rack - word` a field whose count went negative has borrowed its guard.
Counts stay far below 32 (the bag holds at most 18 of a letter), so fields never interfere.

Words are grouped by the less common letters they use, so a scan for the words a rack can spell
skips whole groups that need a letter the rack lacks (see `WordIndex.playable`). Words are
numbered longest first, so sorting word numbers gives the order the search tries them in.
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Iterable

from engines.bananagrams.dictionary import Dictionary

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
FIELD = 6
GUARD_BIT = 1 << (FIELD - 1)
FIELD_MASK = (1 << FIELD) - 1
UNIT = {letter: 1 << (FIELD * k) for k, letter in enumerate(LETTERS)}
BIT = {letter: 1 << k for k, letter in enumerate(LETTERS)}
GUARDS = sum(GUARD_BIT << (FIELD * k) for k in range(26))
# A field that is exactly one short after `guarded rack - word` reads GUARD_BIT - 1.
ONE_SHORT = GUARD_BIT - 1
ALL_LETTERS = (1 << 26) - 1
KEY_LETTERS = 21

# How hard a letter is to fit into words (higher = place it first, dump it first). Rough inverse
# frequency in English words, nudged by how few short words carry the letter.
DIFFICULTY: dict[str, float] = {
    "Q": 12.0, "J": 10.0, "X": 9.0, "Z": 9.0, "V": 7.0, "K": 6.5, "W": 5.5, "F": 5.0,
    "Y": 5.0, "B": 4.5, "H": 4.5, "C": 4.0, "M": 4.0, "P": 4.0, "G": 3.5, "U": 3.0,
    "D": 2.5, "L": 2.0, "N": 1.6, "O": 1.3, "T": 1.3, "R": 1.3, "S": 1.2, "I": 1.2,
    "A": 1.1, "E": 1.0,
}  # fmt: skip
VOWELS = frozenset("AEIOU")


def pack(letters: Iterable[str]) -> int:
    """The packed letter counts of `letters` (upper-case A-Z)."""
    return sum(map(UNIT.__getitem__, letters))


def letter_mask(letters: Iterable[str]) -> int:
    """Bit k set when letter k occurs."""
    return sum(map(BIT.__getitem__, set(letters)))


def deficit(guarded_rack: int, packed_word: int) -> int | None:
    """How a word relates to a rack packed with `GUARDS` added.

    Returns -1 when the rack spells the whole word, the letter number k when the rack is short of
    exactly one letter k by exactly one tile (the board has to supply it), or None otherwise.
    """
    rest = guarded_rack - packed_word
    short = GUARDS ^ (rest & GUARDS)
    if not short:
        return -1
    if short & (short - 1):
        return None
    k = (short.bit_length() - 1) // FIELD
    if (rest >> (FIELD * k)) & FIELD_MASK != ONE_SHORT:
        return None
    return k


class WordIndex:
    """Every word of a word list, longest first, with packed counts and letter masks."""

    def __init__(self, words: Iterable[str]) -> None:
        difficulty = DIFFICULTY.__getitem__
        ordered = sorted(
            w for w in set(words) if len(w) > 1 and w.isascii() and w.isalpha() and w.isupper()
        )
        # Longest first; among equals, harder letters first, then alphabetical (stable sort).
        ordered.sort(key=lambda w: -1000.0 * len(w) - sum(map(difficulty, w)))
        self.words: list[str] = ordered
        self.wordset: frozenset[str] = frozenset(ordered)
        self.packed: list[int] = [pack(word) for word in ordered]
        distinct = [set(word) for word in ordered]
        self.masks: list[int] = [sum(map(BIT.__getitem__, letters)) for letters in distinct]
        self._containing: dict[str, list[int]] = {  # letter -> numbers of the words with it
            c: [n for n, mask in enumerate(self.masks) if mask & bit] for c, bit in BIT.items()
        }
        self.max_length = max((len(w) for w in ordered), default=0)
        # Words are grouped by which of the KEY_LETTERS least used letters they contain. A rack
        # lacks several of those, and every group needing one of them (two, when a board tile
        # may lend one) is skipped whole: a scan visits only the groups keyed by subsets of the
        # rack's letters, found by enumerating those subsets.
        by_use = sorted(LETTERS, key=lambda c: (len(self._containing[c]), c))
        self.key_mask = letter_mask(by_use[:KEY_LETTERS])
        groups: dict[int, dict[tuple[int, int, bool], list[int]]] = {}
        for number, word in enumerate(ordered):
            mask = self.masks[number]
            # `repeats`: some letter occurs twice, so the mask alone cannot tell if it fits.
            entry = (len(word), mask, len(distinct[number]) < len(word))
            groups.setdefault(mask & self.key_mask, {}).setdefault(entry, []).append(number)
        # key -> [(length, mask, repeats, numbers)], shortest first so short racks stop early.
        self._groups: dict[int, list[tuple[int, int, bool, list[int]]]] = {
            key: sorted((*entry, numbers) for entry, numbers in entries.items())
            for key, entries in groups.items()
        }

    def __len__(self) -> int:
        return len(self.words)

    def containing(self, letter: str, longest: int) -> list[int]:
        """Numbers of the words with `letter` and at most `longest` letters, longest first."""
        numbers = self._containing[letter]
        words = self.words
        start = bisect.bisect_left(numbers, True, key=lambda n: len(words[n]) <= longest)
        return numbers[start:]

    def playable(self, rack: str, board_letters: str = "") -> list[int]:
        """Numbers of the words the rack spells alone, or with one more tile whose letter is in
        `board_letters` (an anchor on the board), in search order (longest first)."""
        if not rack:
            return []
        guarded = GUARDS + pack(rack)
        rack_mask = letter_mask(rack)
        outside = ~rack_mask & ALL_LETTERS
        extra = letter_mask(board_letters) & outside  # letters only a board tile can give
        packed = self.packed
        found: list[int] = []
        longest = min(self.max_length, len(rack) + (1 if board_letters else 0))
        lendable = letter_mask(board_letters)
        rack_key = rack_mask & self.key_mask
        lent_keys = [0] + [1 << k for k in range(26) if extra & self.key_mask & (1 << k)]
        groups = self._groups
        for lent in lent_keys:
            sub = rack_key
            while True:
                entries = groups.get(sub | lent)
                if entries is not None:
                    for length, mask, repeats, numbers in entries:
                        if length > longest:
                            break
                        missing = mask & outside
                        if missing and (missing & (missing - 1) or not missing & extra):
                            continue  # a board tile can lend one letter the rack lacks, not two
                        if not repeats:
                            found.extend(numbers)  # one of each letter: the mask says it all
                            continue
                        for number in numbers:
                            rest = guarded - packed[number]
                            short = GUARDS ^ (rest & GUARDS)
                            if not short:
                                found.append(number)
                            elif board_letters and not short & (short - 1):
                                # One tile short of one letter: the board may lend it.
                                k = (short.bit_length() - 1) // FIELD
                                if (lendable >> k) & 1 and (
                                    rest >> (FIELD * k)
                                ) & FIELD_MASK == ONE_SHORT:
                                    found.append(number)
                if not sub:
                    break
                sub = (sub - 1) & rack_key
        found.sort()
        return found


_INDEXES: weakref.WeakKeyDictionary[Dictionary, WordIndex] = weakref.WeakKeyDictionary()


def index_for(dictionary: Dictionary) -> WordIndex:
    """The index of a dictionary, built once per dictionary object (about a second for ENABLE)."""
    index = _INDEXES.get(dictionary)
    if index is None:
        index = WordIndex(dictionary.words)
        _INDEXES[dictionary] = index
    return index
