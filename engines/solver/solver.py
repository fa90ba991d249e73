"""The solver's public face: solve a hand, extend a board after PEEL or DUMP, suggest a move.

Boards go in and come out as the engine's `dict[(x, y), letter]`; a hand is every tile the
player owns, board tiles included (as the verifier's `hand=` takes it).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import islice

from engines.bananagrams.board import Cell, format_anchor, grid_runs, render_rows
from engines.bananagrams.dictionary import Dictionary, enable
from engines.solver import grid
from engines.solver.grid import ACROSS, DOWN, Board, Key
from engines.solver.index import DIFFICULTY, GUARDS, WordIndex, deficit, index_for, pack
from engines.solver.search import Search

DEFAULT_TIME_LIMIT = 1.0
# Shares of the time limit: a fresh solve keeps the rest to improve a partial board; extend()
# attaches until ATTACH_SHARE, rebuilds until REBUILD_SHARE, then solves from scratch.
FIRST_TRY_SHARE = 0.7
ATTACH_SHARE = 0.25
REBUILD_SHARE = 0.6
REBUILD_SLICE = 0.05  # seconds for one rebuild attempt (a few words torn down)
REBUILD_WIDTH = (12, 6, 3)  # removable words tried at tear-down depth 1, 2, 3
HINT_TIME_LIMIT = 0.5


def hardest_letter(letters: Iterable[str]) -> str | None:
    """The letter hardest to fit into words (the one to DUMP), or None for no letters."""
    return max(letters, key=lambda letter: (DIFFICULTY[letter], letter), default=None)


def normalize_hand(hand: str) -> str:
    """Upper-case letters; anything else is a ValueError that says what is wrong."""
    letters = hand.strip().upper()
    if not (letters.isascii() and letters.isalpha()):
        bad = "".join(sorted({c for c in letters if not ("A" <= c <= "Z")}))
        raise ValueError(
            f"A hand is letters A-Z only; found {bad[:10]!r}." if bad else "The hand is empty."
        )
    return letters


def _sorted_letters(counts: Counter[str]) -> str:
    return "".join(sorted(counts.elements()))


@dataclass(frozen=True)
class SolveResult:
    """A valid connected board (possibly partial), what is left over, and what to DUMP.

    `stage` says which step produced the board: "complete" (the board already used every tile),
    "attach" (new tiles added to the old board), "rebuild" (a few words torn down and rebuilt),
    "scratch" (a fresh board) or "none" (no board at all: fewer than two usable tiles)."""

    solved: bool
    cells: dict[Cell, str]
    unplaced: str
    dump: str | None
    seconds: float
    stage: str

    @property
    def words(self) -> list[str]:
        return [run.word for run in grid_runs(self.cells)]

    @property
    def rows(self) -> list[str]:
        return render_rows(self.cells)

    @property
    def anchor(self) -> str | None:
        """The board in anchor notation (the root's first letter becomes (0, 0))."""
        return format_anchor(self.cells) if self.cells else None

    def to_dict(self) -> dict:
        return {
            "solved": self.solved,
            "board": self.anchor,
            "grid": self.rows,
            "words": self.words,
            "unplaced": self.unplaced,
            "dump": self.dump,
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class Hint:
    """One move that keeps the board valid: put `tiles` down to make `word`, which runs from
    (x, y) `direction` ('H' across, 'V' down). `cells` is the board after the move."""

    word: str
    x: int
    y: int
    direction: str
    tiles: dict[Cell, str]
    cells: dict[Cell, str] = field(repr=False)

    @property
    def text(self) -> str:
        """The move in words, e.g. "Play QAT down from (4, -1), through the A at (4, 0)."."""
        way = "across" if self.direction == "H" else "down"
        dx, dy = (1, 0) if self.direction == "H" else (0, 1)
        spans = [(self.x + k * dx, self.y + k * dy) for k in range(len(self.word))]
        kept = [(xy, self.cells[xy]) for xy in spans if xy not in self.tiles]
        if len(self.tiles) == 1:
            (((x, y), letter),) = self.tiles.items()
            return f"Put {letter} at ({x}, {y}) to make {self.word} {way}."
        through = ", ".join(f"the {letter} at ({x}, {y})" for (x, y), letter in kept)
        return f"Play {self.word} {way} from ({self.x}, {self.y})" + (
            f", through {through}." if through else "."
        )


@dataclass
class _Attempt:
    """A board found by one stage, and the rack letters it left over."""

    board: Board
    unplaced: str
    stage: str
    path: list[list[tuple[Key, str]]] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        return not self.unplaced and len(self.board) > 1


class Solver:
    """Turns hands into valid boards. The first Solver of a dictionary builds its word index
    (about a second for ENABLE); later ones share it, so keep one and reuse it.

    `vocabulary` restricts the words the solver plays to a list of its own (words outside the
    dictionary are ignored); `exclude` takes some words out of play while sharing the
    dictionary's index. Either way the solver never forms any other word, even by accident, and
    its boards are valid for the full dictionary. `short_words` makes it prefer short words."""

    def __init__(
        self,
        dictionary: Dictionary | None = None,
        *,
        vocabulary: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
        short_words: bool = False,
    ) -> None:
        self.dictionary = dictionary or enable()
        if vocabulary is None:
            self.index = index_for(self.dictionary)
        else:
            self.index = WordIndex(w for w in vocabulary if w in self.dictionary)
        excluded = frozenset(exclude) & self.index.wordset
        self.excluded_numbers = (
            frozenset(number for number, word in enumerate(self.index.words) if word in excluded)
            if excluded
            else frozenset()
        )
        self.play_words: frozenset[str] = (
            self.index.wordset - excluded if excluded else self.index.wordset
        )
        self.valid_words: frozenset[str] = self.dictionary.words
        self.short_words = short_words
        self._helpers: dict[str, list[int]] = {}

    # --- solve -------------------------------------------------------------------------------

    def solve(self, hand: str, *, time_limit: float = DEFAULT_TIME_LIMIT) -> SolveResult:
        """A board that uses every tile of `hand`, or the best partial board found in time.

        Raises ValueError for a hand that is not letters."""
        started = time.perf_counter()
        hand = normalize_hand(hand)
        attempt = self._solve(hand, started, started + time_limit)
        return self._result(attempt, started)

    def _solve(self, hand: str, started: float, deadline: float) -> _Attempt:
        first_deadline = started + (deadline - started) * FIRST_TRY_SHARE
        search = self._search({}, hand, first_deadline)
        if search.run():
            return _Attempt(search.board, "", "scratch", search.path)
        best = _Attempt(search.best_board, search.best_rack, "scratch", search.best_path)
        # No full board: set the hardest leftover letters aside one by one (they are what a
        # player would DUMP) and try to place all the others.
        rack = Counter(hand)
        aside = ""
        while best.unplaced and time.perf_counter() < deadline:
            letter = hardest_letter((Counter(best.unplaced) - Counter(aside)).elements())
            if letter is None or rack[letter] == 0:
                break
            rack[letter] -= 1
            aside += letter
            if sum(rack.values()) < 2:
                break
            search = self._search({}, _sorted_letters(rack), deadline)
            found = search.run()
            board, left = (search.board, "") if found else (search.best_board, search.best_rack)
            if len(aside) + len(left) < len(best.unplaced):
                path = search.path if found else search.best_path
                best = _Attempt(board, "".join(sorted(aside + left)), "scratch", path)
            if found:
                break
        return best

    def _search(self, board: Board, rack: str, deadline: float, *, widen: bool = True) -> Search:
        return Search(
            self.index,
            board,
            rack,
            deadline,
            valid_words=self.play_words,
            excluded=self.excluded_numbers,
            short_words=self.short_words,
            widen=widen,
        )

    # --- extend ------------------------------------------------------------------------------

    def extend(
        self,
        board: Mapping[Cell, str],
        hand: str,
        *,
        time_limit: float = DEFAULT_TIME_LIMIT,
    ) -> SolveResult:
        """Fit the tiles of `hand` that are not on `board` yet (after a PEEL or a DUMP).

        First attach them to the board as it is; then tear down a few words and rebuild; then
        solve the whole hand from scratch, each under its share of `time_limit`. An invalid
        board cannot be extended and goes straight to the fresh solve.

        Raises ValueError if the hand is not letters or the board uses tiles the hand lacks."""
        started = time.perf_counter()
        hand = normalize_hand(hand)
        cells = grid.from_cells(board)
        rack = self._rack(cells, hand)
        deadline = started + time_limit
        if not cells or not grid.is_valid(cells, self.valid_words):
            return self._result(self._solve(hand, started, deadline), started)
        if not rack:
            return self._result(_Attempt(cells, "", "complete"), started)
        attempts = [self._attach(cells, rack, started + time_limit * ATTACH_SHARE)]
        if not attempts[-1].solved:
            attempts.append(self._rebuild(cells, rack, started + time_limit * REBUILD_SHARE))
        if not attempts[-1].solved:
            attempts.append(self._solve(hand, time.perf_counter(), deadline))
        best = min(attempts, key=lambda a: (not a.solved, len(a.unplaced)))  # first of equals
        return self._result(best, started)

    def _rack(self, cells: Board, hand: str) -> str:
        on_board = Counter(cells.values())
        extra = on_board - Counter(hand)
        if extra:
            raise ValueError(
                f"The board uses tiles that are not in the hand: {_sorted_letters(extra)}. "
                "The hand is every tile the player owns, board tiles included."
            )
        return _sorted_letters(Counter(hand) - on_board)

    def _attach(self, cells: Board, rack: str, deadline: float) -> _Attempt:
        search = self._search(cells, rack, deadline, widen=False)
        if search.run():
            return _Attempt(search.board, "", "attach", search.path)
        return _Attempt(search.best_board, search.best_rack, "attach", search.best_path)

    def _rebuild(self, cells: Board, rack: str, deadline: float) -> _Attempt:
        """Lift words off the board (one, then two, then three) and place their tiles again
        together with the rack. Words whose letters best help the hardest rack letter go first."""
        best = _Attempt(cells, rack, "rebuild")
        frontier: list[tuple[Board, str]] = [(cells, rack)]
        for width in REBUILD_WIDTH:
            next_frontier: list[tuple[Board, str]] = []
            for board, letters in frontier:
                for _word, freed in islice(self._liftable(board, letters), width):
                    if time.perf_counter() >= deadline:
                        return best
                    smaller = {at: c for at, c in board.items() if at not in freed}
                    more = letters + "".join(board[at] for at in freed)
                    slice_end = min(deadline, time.perf_counter() + REBUILD_SLICE)
                    search = self._search(smaller, more, slice_end, widen=False)
                    if search.run():
                        return _Attempt(search.board, "", "rebuild", search.path)
                    if len(search.best_rack) < len(best.unplaced):
                        best = _Attempt(
                            search.best_board, search.best_rack, "rebuild", search.best_path
                        )
                    next_frontier.append((smaller, more))
            frontier = next_frontier
        return best

    def _liftable(self, board: Board, rack: str) -> list[tuple[str, set[Key]]]:
        """Removable words, those whose freed letters spell the most words with the rack's
        hardest letter first."""
        hard = hardest_letter(rack)
        if hard is None:
            return []
        helpers = self._short_words_with(hard)
        ranked = []
        for word, freed in grid.removable_words(board, self.valid_words):
            guarded = GUARDS + pack(rack) + pack(board[at] for at in freed)
            helps = sum(1 for packed in helpers if deficit(guarded, packed) is not None)
            ranked.append((-helps, len(freed), word, set(freed)))
        ranked.sort(key=lambda item: item[:3])
        return [(word, freed) for _, _, word, freed in ranked]

    def _short_words_with(self, letter: str) -> list[int]:
        """Packed counts of short words with `letter` (what a stuck hard letter needs)."""
        if letter not in self._helpers:
            index = self.index
            self._helpers[letter] = [
                index.packed[n] for n, w in enumerate(index.words) if len(w) <= 5 and letter in w
            ][-400:]
        return self._helpers[letter]

    # --- hint --------------------------------------------------------------------------------

    def hint(
        self,
        hand: str,
        board: Mapping[Cell, str] | None = None,
        *,
        time_limit: float = HINT_TIME_LIMIT,
    ) -> Hint | None:
        """One move (a word and where it goes) that keeps the board valid, taken from the best
        plan the solver finds for the tiles not yet on the board: the hardest letter first.

        None when every tile is already placed or no move fits. Raises ValueError for a hand that
        is not letters, a board using tiles the hand lacks, or a board that is not valid (fix it
        first: a move cannot keep an invalid board valid)."""
        started = time.perf_counter()
        hand = normalize_hand(hand)
        cells = grid.from_cells(board or {})
        rack = self._rack(cells, hand)
        if cells and not grid.is_valid(cells, self.valid_words):
            raise ValueError("The board is not valid yet; fix it before asking for a hint.")
        if not rack:
            return None
        search = self._search(cells, rack, started + time_limit)
        path = search.path if search.run() else search.best_path
        if not path:
            return None
        after = dict(cells)
        after.update(path[0])
        return _hint(path[0], after)

    # --- results -----------------------------------------------------------------------------

    def _result(self, attempt: _Attempt, started: float) -> SolveResult:
        board = attempt.board if len(attempt.board) > 1 else {}
        unplaced = attempt.unplaced
        if not board and attempt.board:
            unplaced = "".join(sorted(unplaced + "".join(attempt.board.values())))
        return SolveResult(
            solved=bool(board) and not unplaced,
            cells=grid.to_cells(board),
            unplaced=unplaced,
            dump=hardest_letter(unplaced),
            seconds=time.perf_counter() - started,
            stage=attempt.stage if board else "none",
        )


def _hint(move: list[tuple[Key, str]], after: Board) -> Hint:
    positions = [at for at, _ in move]
    if len(positions) > 1:
        step = ACROSS if positions[1] - positions[0] < DOWN else DOWN
    else:
        # A lone tile: name the longer of the runs it makes.
        at = positions[0]
        lengths = {s: _run_bounds(after, at, s) for s in (ACROSS, DOWN)}
        step = max((ACROSS, DOWN), key=lambda s: lengths[s][1] - lengths[s][0])
    lo, hi = _run_bounds(after, positions[0], step)
    word = "".join(after[at] for at in range(lo, hi + step, step))
    x, y = grid.cell(lo)
    return Hint(
        word=word,
        x=x,
        y=y,
        direction="H" if step == ACROSS else "V",
        tiles={grid.cell(at): letter for at, letter in move},
        cells=grid.to_cells(after),
    )


def _run_bounds(board: Board, at: Key, step: int) -> tuple[Key, Key]:
    lo = at
    while (lo - step) in board:
        lo -= step
    hi = at
    while (hi + step) in board:
        hi += step
    return lo, hi
