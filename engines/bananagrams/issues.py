"""Verification issues: the error and warning codes of the spec, with their levels."""

from __future__ import annotations

from dataclasses import dataclass, field

LEVELS: dict[str, int] = {
    "EMPTY_BOARD": 0,
    "BOARD_TOO_LARGE": 0,
    "INVALID_ROOT": 0,
    "INVALID_LINE": 0,
    "TARGET_NOT_FOUND": 1,
    "TARGET_INDEX_OOB": 1,
    "WORD_INDEX_OOB": 1,
    "LETTER_MISMATCH": 1,
    "SAME_DIRECTION": 1,
    "GRID_CONFLICT": 2,
    "DISCONNECTED": 2,
    "INVALID_WORD": 3,
    "ACCIDENTAL_INVALID": 3,
    "ACCIDENTAL_VALID": 3,
    "TILES_NOT_IN_HAND": 4,
    "TILES_UNUSED": 4,
}
WARNING_CODES = frozenset({"ACCIDENTAL_VALID", "TILES_UNUSED"})


@dataclass(frozen=True)
class Issue:
    """One error or warning. `line` is 1-based over non-blank lines, None when no line applies."""

    code: str
    message: str
    word: str | None = None
    line: int | None = None
    # Where on the grid the problem is, for highlighting; not part of the JSON shape.
    cells: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def level(self) -> int:
        return LEVELS[self.code]

    @property
    def is_warning(self) -> bool:
        return self.code in WARNING_CODES

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "word": self.word,
            "line": self.line,
            "level": self.level,
        }


def shorten(text: str, limit: int = 40) -> str:
    """Keep messages readable when a line or word is enormous."""
    return text if len(text) <= limit else f"{text[: limit - 13]}...({len(text)} chars)"
