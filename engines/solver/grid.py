"""The solver's own board: a dict from an integer cell key to a letter.

Integer keys make neighbours one addition away (right is +1, down is +ROW) and hash faster than
(x, y) tuples. Boards cross this module's boundary as the engine's `dict[(x, y), letter]`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from engines.bananagrams.board import Cell

ROW = 1 << 12
OFFSET = ROW // 2  # coordinates from -2048 to 2047 fit; a 144-tile board spans at most 144
ACROSS = 1
DOWN = ROW

Key = int
Board = dict[Key, str]


def key(x: int, y: int) -> Key:
    return (y + OFFSET) * ROW + (x + OFFSET)


def cell(position: Key) -> Cell:
    y, x = divmod(position, ROW)
    return (x - OFFSET, y - OFFSET)


def from_cells(cells: Mapping[Cell, str]) -> Board:
    return {key(x, y): letter.upper() for (x, y), letter in cells.items()}


def to_cells(board: Mapping[Key, str]) -> dict[Cell, str]:
    """Cells in grid order (row, then column), in the same coordinates as `from_cells` took."""
    return {
        xy: letter
        for xy, letter in sorted(
            ((cell(p), letter) for p, letter in board.items()),
            key=lambda item: (item[0][1], item[0][0]),
        )
    }


def runs(board: Mapping[Key, str]) -> Iterator[tuple[Key, int, str]]:
    """Every maximal run of 2+ letters as (start, step, word)."""
    for position in board:
        for step in (ACROSS, DOWN):
            if (position - step) in board or (position + step) not in board:
                continue
            letters = []
            at = position
            while at in board:
                letters.append(board[at])
                at += step
            yield position, step, "".join(letters)


def run_cells(start: Key, step: int, length: int) -> list[Key]:
    return [start + k * step for k in range(length)]


def connected(board: Mapping[Key, str]) -> bool:
    if not board:
        return True
    start = next(iter(board))
    seen = {start}
    frontier = [start]
    while frontier:
        at = frontier.pop()
        for near in (at + ACROSS, at - ACROSS, at + DOWN, at - DOWN):
            if near in board and near not in seen:
                seen.add(near)
                frontier.append(near)
    return len(seen) == len(board)


def is_valid(board: Mapping[Key, str], words: frozenset[str] | set[str]) -> bool:
    """Every run is a word and the tiles form one group. A lone tile is valid, as the verifier
    has it (it is where a person's board starts); an empty board is not."""
    if not board:
        return False
    return all(word in words for _, _, word in runs(board)) and connected(board)


def removable_words(board: Mapping[Key, str], words: frozenset[str]) -> list[tuple[str, list[Key]]]:
    """Words that can be lifted off: removing their tiles that no crossing word holds leaves a
    valid board of two or more tiles. Returns (word, tiles freed) pairs in grid order."""
    found = []
    for start, step, word in runs(board):
        perp = DOWN if step == ACROSS else ACROSS
        span = run_cells(start, step, len(word))
        kept = [(at - perp) in board or (at + perp) in board for at in span]
        freed = [at for at, stays in zip(span, kept, strict=True) if not stays]
        if not freed or len(board) - len(freed) < 2:
            continue
        # Freed tiles touch nothing across, so only this line changes: what is left of it must
        # read as words, and the rest must still hang together.
        if not all(piece in words for piece in _pieces(word, kept)):
            continue
        rest = {at: letter for at, letter in board.items()}
        for at in freed:
            del rest[at]
        if connected(rest):
            found.append((word, freed))
    return found


def _pieces(word: str, kept: list[bool]) -> list[str]:
    """The runs of 2+ letters that remain of `word` when only the `kept` letters stay."""
    pieces, current = [], ""
    for letter, stays in zip(word, kept, strict=True):
        if stays:
            current += letter
        else:
            if len(current) > 1:
                pieces.append(current)
            current = ""
    if len(current) > 1:
        pieces.append(current)
    return pieces
