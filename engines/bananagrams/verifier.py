"""The board verifier: every error code of the spec, the optional hand check, and the feedback
cascade an LLM is shown. Deterministic: the same board always gives the same result."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from engines.bananagrams.board import (
    STEP,
    Cell,
    Grid,
    Line,
    ParsedBoard,
    Run,
    components,
    grid_runs,
    parse_board,
    render_rows,
    word_cells,
)
from engines.bananagrams.dictionary import ENABLE_NOTE, Dictionary, enable
from engines.bananagrams.issues import Issue, shorten

MAX_SHOWN = 5
ENABLE_MISSING = frozenset({"QI", "ZA", "OK"})


@dataclass(frozen=True)
class Placement:
    """A declared word that made it onto the grid, keyed by its line (never by its text)."""

    line: Line
    x: int
    y: int

    @property
    def cells(self) -> list[Cell]:
        return word_cells(self.x, self.y, self.line.direction, len(self.line.word))


@dataclass
class VerifyResult:
    valid: bool
    errors: list[Issue]
    warnings: list[Issue]
    words: list[str]
    cells: Grid
    notation: str
    hand: str | None = None
    feedback: list[str] = field(default_factory=list)

    @property
    def grid(self) -> list[str]:
        return render_rows(self.cells)

    @property
    def tiles_used(self) -> int:
        return len(self.cells)

    @property
    def letters_used(self) -> dict[str, int]:
        return dict(sorted(Counter(self.cells.values()).items()))

    @property
    def bad_cells(self) -> set[Cell]:
        """Cells the errors point at, for highlighting."""
        return {cell for issue in self.errors for cell in issue.cells}

    @property
    def complete(self) -> bool:
        """Valid and covering every tile of the hand: the board that PEELs or calls BANANAS."""
        return (
            self.valid
            and self.hand is not None
            and Counter(self.hand) == Counter(self.cells.values())
        )

    def to_dict(self) -> dict:
        return {
            "valid": self.valid,
            "errors": [issue.to_dict() for issue in self.errors],
            "warnings": [issue.to_dict() for issue in self.warnings],
            "feedback": self.feedback,
            "words": self.words,
            "grid": self.grid,
            "tiles_used": self.tiles_used,
            "letters_used": self.letters_used,
        }


def verify(
    board: str | Mapping[Cell, str],
    *,
    dictionary: Dictionary | None = None,
    hand: str | None = None,
) -> VerifyResult:
    """Verify a board given as text (any notation) or as cells built in the UI.

    `hand` is every tile the player owns; when given, the board must use only those tiles.
    """
    dictionary = dictionary or enable()
    if hand is not None:
        # Checked before upper-casing: 'ß'.upper() is 'SS' and 'ſ'.upper() is 'S'.
        if not (hand.isascii() and (hand.isalpha() or hand == "")):
            raise ValueError(f"A hand is letters A-Z only; got {shorten(hand)!r}.")
        hand = hand.upper()
    if isinstance(board, str):
        parsed = parse_board(board)
    else:
        parsed = ParsedBoard(
            "grid" if board else "empty", cells={c: v.upper() for c, v in board.items()}
        )
        if not board:
            parsed.problems.append(Issue("EMPTY_BOARD", "The board has no tiles."))
    return _Check(parsed, dictionary, hand).run()


class _Check:
    """One verification pass; collects issues in a deterministic order."""

    def __init__(self, parsed: ParsedBoard, dictionary: Dictionary, hand: str | None) -> None:
        self.parsed = parsed
        self.dictionary = dictionary
        self.hand = hand
        self.issues: list[Issue] = list(parsed.problems)
        self.cells: Grid = dict(parsed.cells)
        self.placements: list[Placement] = []
        self.owners: dict[Cell, list[Placement]] = {}

    def run(self) -> VerifyResult:
        if self.parsed.notation == "anchor":
            self._place_lines()
            self._check_declared_words()
        runs = grid_runs(self.cells)
        self._check_connected()
        self._check_runs(runs)
        self._check_hand()
        self.issues.sort(key=lambda issue: issue.level)  # stable: detection order within a level
        errors = [issue for issue in self.issues if not issue.is_warning]
        warnings = [issue for issue in self.issues if issue.is_warning]
        return VerifyResult(
            valid=not errors,
            errors=errors,
            warnings=warnings,
            words=[run.word for run in runs],
            cells=self.cells,
            notation=self.parsed.notation,
            hand=self.hand,
            feedback=feedback(errors, warnings),
        )

    # --- anchor notation: structure (level 1) and conflicts (level 2) -------------------------

    def _place_lines(self) -> None:
        latest: dict[str, Placement] = {}
        for line in self.parsed.lines:
            placement = (
                Placement(line, 0, 0) if line.is_root else self._place_on_target(line, latest)
            )
            if placement is None:
                continue
            latest[line.word] = placement
            self.placements.append(placement)
            self._draw(placement)

    def _place_on_target(self, line: Line, latest: dict[str, Placement]) -> Placement | None:
        word, target_word = line.word, line.target or ""
        where = (
            f"'{shorten(word)}[{line.word_index}] @ {shorten(target_word)}[{line.target_index}]'"
        )
        target = latest.get(target_word)
        if target is None:
            self._add(
                "TARGET_NOT_FOUND",
                f"{where}: {shorten(target_word)} is not placed on an earlier line. Place "
                f"{shorten(target_word)} first, or attach {shorten(word)} to a word already on the board.",
                line,
            )
            return None
        if line.target_index >= len(target_word):
            self._add(
                "TARGET_INDEX_OOB",
                f"{where}: index {line.target_index} is outside {shorten(target_word)}, whose "
                f"letters are numbered 0 to {len(target_word) - 1}.",
                line,
            )
            return None
        if line.word_index >= len(word):
            self._add(
                "WORD_INDEX_OOB",
                f"{where}: index {line.word_index} is outside {shorten(word)}, whose letters are "
                f"numbered 0 to {len(word) - 1}.",
                line,
            )
            return None
        needed, given = target_word[line.target_index], word[line.word_index]
        if needed != given:
            positions = [k for k, letter in enumerate(word) if letter == needed]
            tip = (
                f"use {shorten(word)}[{positions[0]}], which is {needed}"
                if positions
                else f"{shorten(word)} has no {needed}; choose a word with {needed} in it"
            )
            self._add(
                "LETTER_MISMATCH",
                f"{where}: {shorten(word)}[{line.word_index}] is {given} but "
                f"{shorten(target_word)}[{line.target_index}] is {needed}. TIP: the crossing "
                f"letter must be {needed}: {tip}.",
                line,
            )
        if line.direction == target.line.direction:
            other = "V" if line.direction == "H" else "H"
            self._add(
                "SAME_DIRECTION",
                f"{where}: {shorten(word)} runs {line.direction} like {shorten(target_word)}; "
                f"crossing words must be perpendicular. Use {other}.",
                line,
            )
        dx, dy = STEP[line.direction]
        cx, cy = target.cells[line.target_index]
        return Placement(line, cx - line.word_index * dx, cy - line.word_index * dy)

    def _draw(self, placement: Placement) -> None:
        line = placement.line
        for cell, letter in zip(placement.cells, line.word, strict=True):
            owners = self.owners.setdefault(cell, [])
            owners.append(placement)
            first = self.cells.setdefault(cell, letter)  # the first letter stays
            if first != letter:
                earlier = next(p.line for p in owners if p.line.word[p.cells.index(cell)] == first)
                self._add(
                    "GRID_CONFLICT",
                    f"{shorten(line.word)} (line {line.number}) puts {letter} where "
                    f"{shorten(earlier.word)} (line {earlier.number}) already has {first}. Move "
                    f"{shorten(line.word)} so every shared cell has the same letter.",
                    line,
                    cells=(cell,),
                )

    # --- words (level 3) and connectivity (level 2) --------------------------------------------

    def _is_word(self, word: str) -> bool:
        return len(word) > 1 and word in self.dictionary

    def _not_a_word(self, word: str) -> str:
        note = (
            f" ({ENABLE_NOTE})"
            if word in ENABLE_MISSING and self.dictionary.name == "ENABLE"
            else ""
        )
        return f"'{shorten(word)}' is not in the {self.dictionary.name} dictionary{note}"

    def _check_declared_words(self) -> None:
        for line in self.parsed.lines:
            if not self._is_word(line.word):
                reason = (
                    "a single letter is not a word"
                    if len(line.word) == 1
                    else self._not_a_word(line.word)
                )
                self._add(
                    "INVALID_WORD", f"{reason[0].upper()}{reason[1:]}. Use a real word.", line
                )

    def _check_runs(self, runs: list[Run]) -> None:
        declared = {(p.x, p.y, p.line.direction, p.line.word) for p in self.placements}
        for run in runs:
            key = (run.x, run.y, run.direction, run.word)
            if self.parsed.notation != "anchor":
                if not self._is_word(run.word):
                    where = "across" if run.direction == "H" else "down"
                    self._add(
                        "INVALID_WORD",
                        f"{self._not_a_word(run.word)} (reading {where} from row {run.y + 1}, "
                        f"column {run.x + 1}). Change or remove its letters.",
                        line=self.parsed.row_lines.get(run.y),
                        word=run.word,
                        cells=tuple(run.cells()),
                    )
            elif key not in declared:
                self._check_accidental(run)

    def _check_accidental(self, run: Run) -> None:
        makers = sorted(
            {
                p.line.number: p.line.word
                for cell in run.cells()
                for p in self.owners.get(cell, [])
            }.items()
        )
        by = " and ".join(f"{shorten(word)} (line {number})" for number, word in makers)
        where = "across" if run.direction == "H" else "down"
        if self._is_word(run.word):
            self._add(
                "ACCIDENTAL_VALID",
                f"Undeclared word '{shorten(run.word)}' reads {where} where {by} touch; it is a "
                "valid word, so the board stays valid.",
                line=makers[-1][0],
                word=run.word,
            )
        else:
            self._add(
                "ACCIDENTAL_INVALID",
                f"Accidental '{shorten(run.word)}' reads {where} where {by} touch, and "
                f"{self._not_a_word(run.word)}. Move words apart so letters of different words "
                "don't sit side by side.",
                line=makers[-1][0],
                word=run.word,
                cells=tuple(run.cells()),
            )

    def _check_connected(self) -> None:
        groups = components(self.cells)
        if len(groups) > 1:
            sizes = ", ".join(str(len(group)) for group in groups)
            self._add(
                "DISCONNECTED",
                f"The tiles fall apart into {len(groups)} separate groups (sizes {sizes}); every "
                "tile must connect to the rest. Join the groups with a crossing word.",
                cells=tuple(sorted(cell for group in groups[1:] for cell in group)),
            )

    # --- the hand (level 4) --------------------------------------------------------------------

    def _check_hand(self) -> None:
        if self.hand is None:
            return
        board, hand = Counter(self.cells.values()), Counter(self.hand)
        extra, unused = board - hand, hand - board
        if extra:
            spare, surplus = Counter(hand), []
            for cell, letter in sorted(
                self.cells.items(), key=lambda item: (item[0][1], item[0][0])
            ):
                if spare[letter]:
                    spare[letter] -= 1
                else:
                    surplus.append(cell)
            self._add(
                "TILES_NOT_IN_HAND",
                f"The board uses tiles you don't have: {dict(sorted(extra.items()))}. Use only "
                f"your tiles: {''.join(sorted(self.hand))}.",
                cells=tuple(surplus),
            )
        if unused:
            self._add(
                "TILES_UNUSED",
                f"Tiles in your hand not on the board: {dict(sorted(unused.items()))}. A board "
                "that uses every tile PEELs.",
            )

    def _add(
        self,
        code: str,
        message: str,
        line: Line | int | None = None,
        word: str | None = None,
        cells: tuple[Cell, ...] = (),
    ) -> None:
        if isinstance(line, Line):
            word, line = word or line.word, line.number
        self.issues.append(Issue(code, message, word, line, cells))


def feedback(errors: list[Issue], warnings: list[Issue]) -> list[str]:
    """The cascade: what an LLM is shown, so it fixes the root cause before the symptoms."""
    levels = {issue.level for issue in errors}
    if 0 in levels:
        shown = [e for e in errors if e.level == 0]
    elif 1 in levels:
        shown = (
            [e for e in errors if e.level == 1]
            + [e for e in errors if e.code == "INVALID_WORD"]
            + [e for e in errors if e.level == 4]
        )
    else:
        shown = list(errors)  # already grouped by level
    lines = [_feedback_line(e) for e in shown]
    if len(lines) > MAX_SHOWN:
        left_out = len(lines) - (MAX_SHOWN - 1)
        lines = lines[: MAX_SHOWN - 1] + [
            f"... and {left_out} more similar errors. Fix the above first."
        ]
    return lines + [_feedback_line(w) for w in warnings]


def _feedback_line(issue: Issue) -> str:
    kind = "Warning" if issue.is_warning else "Error"
    where = f" (line {issue.line})" if issue.line is not None else ""
    return f"{kind} {issue.code}{where}: {issue.message}"
