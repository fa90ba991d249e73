"""Which words the bot plays: never slurs or obscenities, and at the easy level only common ones.

These lists shape what the bot puts on its board, never what counts as valid: a person (or a
model) may play any word of the dictionary.

ENABLE carries no word frequencies, so "common" is judged from the word itself: short words
(2-letter ones from a list of everyday words, otherwise 3 to 5 letters) spelled with the letters
most frequent in English text, with at most one of the less frequent ones (W F G Y P B V K),
none of J, Q, X, Z, and no doubled A, I or U (rare in English, common in loanwords: AAH, AALII). It keeps everyday words (HOTEL, SWEAT, TOUCH, WIRE) and drops long or
exotic ones (CEPHALEXINS, QINTAR); a few obscure words made of common letters (AGIST) pass.
"""

from __future__ import annotations

from functools import cache

from engines.bananagrams.dictionary import Dictionary

# Two-letter words an ordinary reader knows (ENABLE has 96 two-letter words, most of them not).
EVERYDAY_TWO_LETTER = frozenset(
    {
        "AM", "AN", "AS", "AT", "BE", "BY", "DO", "GO", "HA", "HE", "HI", "IF", "IN", "IS", "IT",
        "ME", "MY", "NO", "OF", "OH", "ON", "OR", "OW", "OX", "SO", "TO", "UP", "US", "WE", "YE",
    }
)  # fmt: skip
# English letters by frequency in running text: the frequent ones, then the less frequent.
FREQUENT_LETTERS = frozenset("ETAOINSHRDLCUM")
LESS_FREQUENT_LETTERS = frozenset("WFGYPBVK")
COMMON_WORD_LENGTHS = range(3, 6)
RARE_DOUBLES = ("AA", "II", "UU")

# A word containing one of these is never played by the bot (all their ENABLE words are vulgar).
OFFENSIVE_STEMS = (
    "FUCK",
    "SHIT",
    "CUNT",
    "FAGGOT",
    "WHORE",
    "BITCH",
    "ASSHOLE",
    "COCKSUCK",
    "SLUT",
)
# Slurs and vulgar words that are also parts of innocent words, blocked as whole words only.
OFFENSIVE_WORDS = frozenset(
    word + suffix
    for word in (
        "NIGGER",
        "FAG",
        "KIKE",
        "SPIC",
        "DYKE",
        "GOOK",
        "WOP",
        "DAGO",
        "TWAT",
        "JISM",
        "TITTIE",
    )
    for suffix in ("", "S", "ES")
)


def is_offensive(word: str) -> bool:
    return word in OFFENSIVE_WORDS or any(stem in word for stem in OFFENSIVE_STEMS)


def is_common(word: str) -> bool:
    """Short, everyday-looking words (see the module docstring)."""
    if len(word) == 2:
        return word in EVERYDAY_TWO_LETTER
    letters = set(word)
    return (
        len(word) in COMMON_WORD_LENGTHS
        and letters <= FREQUENT_LETTERS | LESS_FREQUENT_LETTERS
        and sum(letter in LESS_FREQUENT_LETTERS for letter in word) <= 1
        and not any(double in word for double in RARE_DOUBLES)
    )


@cache
def offensive_words(dictionary: Dictionary) -> frozenset[str]:
    """The words of the dictionary that no bot plays."""
    return frozenset(word for word in dictionary.words if is_offensive(word))


@cache
def common_words(dictionary: Dictionary) -> frozenset[str]:
    """What the easy bot plays: common words, none offensive."""
    return frozenset(
        word for word in dictionary.words if is_common(word) and not is_offensive(word)
    )
