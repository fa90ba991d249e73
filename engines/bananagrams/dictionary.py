"""Word lists: the packaged ENABLE list (loaded once) or a user's own file."""

from __future__ import annotations

import gzip
from functools import cache
from importlib.resources import files
from pathlib import Path

ENABLE_NOTE = "ENABLE lacks QI, ZA and OK, which some other word lists allow."


class DictionaryError(Exception):
    """A word list that cannot be used; the message says why."""


class Dictionary:
    """A set of upper-case words of 2+ letters with fast membership."""

    def __init__(self, words: frozenset[str], name: str) -> None:
        self.words = words
        self.name = name

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def __repr__(self) -> str:
        return f"Dictionary({self.name!r}, {len(self.words)} words)"

    @classmethod
    def from_text(cls, text: str, name: str) -> Dictionary:
        # A single letter is never a word in Bananagrams, whatever the list says.
        words = frozenset(
            w for w in text.upper().split() if len(w) > 1 and w.isascii() and w.isalpha()
        )
        if not words:
            raise DictionaryError(f"Word list {name} has no words (one word per line, 2+ letters).")
        return cls(words, name)

    @classmethod
    def from_file(cls, path: str | Path) -> Dictionary:
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise DictionaryError(f"Word list not found: {path}") from None
        except IsADirectoryError:
            raise DictionaryError(f"Word list is a folder, not a file: {path}") from None
        except OSError as error:
            raise DictionaryError(f"Cannot read word list {path}: {error.strerror}") from None
        if path.suffix == ".gz":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as error:
                raise DictionaryError(f"Word list {path} is not valid gzip: {error}") from None
        return cls.from_text(data.decode("utf-8", errors="replace"), str(path))


@cache
def enable() -> Dictionary:
    """The ENABLE list shipped in the package (172,823 words), loaded once per process."""
    data = files("engines.bananagrams").joinpath("enable.txt.gz").read_bytes()
    return Dictionary(frozenset(gzip.decompress(data).decode("ascii").upper().split()), "ENABLE")


def load_dictionary(path: str | Path | None = None) -> Dictionary:
    """ENABLE by default, else the word list at `path`."""
    return enable() if path is None else Dictionary.from_file(path)
