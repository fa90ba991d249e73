"""Building a board cell by cell, as a person does in the UI: a cursor, a direction, and a rack
that is always the hand minus the tiles on the board."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engines.bananagrams.board import STEP, Cell, Grid, bounds


@dataclass
class BoardEdit:
    hand: list[str] = field(default_factory=list)
    cells: Grid = field(default_factory=dict)
    cursor: Cell = (0, 0)
    direction: str = "H"

    @property
    def rack(self) -> str:
        """Tiles not on the board, sorted."""
        return "".join(sorted((Counter(self.hand) - Counter(self.cells.values())).elements()))

    def set_hand(self, hand: list[str] | str) -> None:
        """New tiles arrived (PEEL, DUMP). Board tiles the hand no longer has are lifted off."""
        self.hand = list(hand)
        spare = Counter(self.hand)
        for cell, letter in sorted(self.cells.items(), key=lambda item: (item[0][1], item[0][0])):
            if spare[letter]:
                spare[letter] -= 1
            else:
                del self.cells[cell]

    def step(self, sign: int = 1) -> None:
        dx, dy = STEP[self.direction]
        self.cursor = (self.cursor[0] + sign * dx, self.cursor[1] + sign * dy)

    def move(self, dx: int, dy: int) -> None:
        self.cursor = (self.cursor[0] + dx, self.cursor[1] + dy)

    def toggle_direction(self) -> None:
        self.direction = "V" if self.direction == "H" else "H"

    def place(self, letter: str) -> bool:
        """Put `letter` from the rack at the cursor (swapping out a tile already there) and step
        on. Typing over the same letter just steps on. False when the rack has no such tile."""
        letter = letter.upper()
        here = self.cells.get(self.cursor)
        if here != letter and letter not in self.rack:
            return False
        self.cells[self.cursor] = letter
        self.step()
        return True

    def erase(self) -> str | None:
        """Backspace: return the tile under the cursor, or else the one just before it."""
        if self.cursor not in self.cells:
            self.step(-1)
        return self.cells.pop(self.cursor, None)

    def clear_word(self) -> list[str]:
        """Return to the rack the tiles of the word through the cursor in the current direction,
        except those that also belong to a crossing word."""
        if self.cursor not in self.cells:
            return []
        dx, dy = STEP[self.direction]
        x, y = self.cursor
        while (x - dx, y - dy) in self.cells:
            x, y = x - dx, y - dy
        run: list[Cell] = []
        while (x, y) in self.cells:
            run.append((x, y))
            x, y = x + dx, y + dy
        cross_dx, cross_dy = dy, dx
        lifted = []
        for cx, cy in run:
            crossed = (cx - cross_dx, cy - cross_dy) in self.cells or (
                cx + cross_dx,
                cy + cross_dy,
            ) in self.cells
            if not crossed or len(run) == 1:
                lifted.append(self.cells.pop((cx, cy)))
        return lifted

    def clear(self) -> None:
        self.cells.clear()

    def load(self, cells: Grid) -> None:
        """Show a board (e.g. a hint applied, or the board last submitted)."""
        self.cells = dict(cells)

    def centre(self) -> Cell:
        """The middle of the tiles (the origin on an empty board)."""
        if not self.cells:
            return (0, 0)
        min_x, min_y, max_x, max_y = bounds(self.cells)
        return ((min_x + max_x) // 2, (min_y + max_y) // 2)
