"""The board grid: one Line-API widget over an unbounded plane of cells.

It draws a `BoardEdit` (cells, cursor, direction) and highlights cells the verifier flagged.
Keys edit the board when `editable`; every change is posted as `BoardView.Changed`.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engines.bananagrams.board import Cell
from engines.bananagrams.editing import BoardEdit

RADIUS = 80  # cells each way from the origin: far more than 144 tiles can reach
CELL_WIDTH = 2  # a letter and a gap, so the grid looks square in a terminal
SIDE = 2 * RADIUS + 1


class BoardView(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {
        "board--tile",
        "board--empty",
        "board--cursor",
        "board--error",
        "board--cursor-empty",
        "board--blank",  # no rules of its own: the widget's style, cached by Textual per refresh
    }
    DEFAULT_CSS = """
    BoardView { background: $surface; }
    BoardView > .board--tile { color: $text; text-style: bold; background: $warning 25%; }
    BoardView > .board--empty { color: $text-disabled; }
    BoardView > .board--cursor { color: $background; background: $accent; text-style: bold; }
    BoardView > .board--cursor-empty { color: $background; background: $accent 70%; }
    BoardView > .board--error { color: $text; background: $error 60%; text-style: bold; }
    """
    BINDINGS = [
        Binding("up", "move(0, -1)", "Up", show=False),
        Binding("down", "move(0, 1)", "Down", show=False),
        Binding("left", "move(-1, 0)", "Left", show=False),
        Binding("right", "move(1, 0)", "Right", show=False),
        Binding(
            "space", "toggle_direction", "H/V", id="board.toggle", tooltip="Type across or down"
        ),
        Binding("backspace", "erase", "Take back", show=False, id="board.erase"),
        Binding(
            "ctrl+w",
            "clear_word",
            "Clear word",
            id="board.clear_word",
            tooltip="Return a word's tiles",
        ),
        Binding("ctrl+r", "recentre", "Centre", id="board.recentre", tooltip="Centre the board"),
    ]

    class Changed(Message):
        """The person changed the board (placed, erased or cleared tiles)."""

        def __init__(self, board: BoardView) -> None:
            super().__init__()
            self.board = board

        @property
        def control(self) -> BoardView:
            return self.board

    def __init__(self, edit: BoardEdit | None = None, *, editable: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.edit = edit or BoardEdit()
        self.editable = editable
        self.error_cells: set[Cell] = set()
        self.show_cursor = editable
        self.virtual_size = Size(SIDE * CELL_WIDTH, SIDE)

    # --- drawing -----------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.call_after_refresh(self.action_recentre)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y - RADIUS
        width = self.size.width
        styles = self._styles()
        # Not self.rich_style: it walks every ancestor on each call, which was ~40% of a redraw.
        blank = styles["board--blank"]
        if not -RADIUS <= row <= RADIUS:
            return Strip.blank(width, blank)
        first = scroll_x // CELL_WIDTH - RADIUS
        last = (scroll_x + width) // CELL_WIDTH - RADIUS + 1
        cells, cursor = self.edit.cells, self.edit.cursor if self.show_cursor else None
        segments: list[Segment] = []
        text, style = "", None
        for x in range(max(first, -RADIUS), min(last, RADIUS) + 1):
            cell = (x, row)
            letter = cells.get(cell)
            if cell == cursor:
                piece_style = styles["board--cursor"] if letter else styles["board--cursor-empty"]
                piece = f"{letter or ('›' if self.edit.direction == 'H' else '⌄')} "
            elif letter:
                piece_style = (
                    styles["board--error"] if cell in self.error_cells else styles["board--tile"]
                )
                piece = f"{letter} "
            else:
                piece_style, piece = styles["board--empty"], "· "
            if piece_style is not style and text:
                segments.append(Segment(text, style))
                text = ""
            text, style = text + piece, piece_style
        if text:
            segments.append(Segment(text, style))
        start = (max(first, -RADIUS) + RADIUS) * CELL_WIDTH
        strip = Strip(segments).crop(scroll_x - start, scroll_x - start + width)
        return strip.extend_cell_length(width, blank)

    def _styles(self) -> dict[str, Style]:
        return {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}

    def show(self, cells: dict[Cell, str], *, errors: set[Cell] | None = None) -> None:
        """Display a board (read-only views call this on every update)."""
        self.edit.load(cells)
        self.error_cells = errors or set()
        self.refresh()

    def flag(self, cells: set[Cell]) -> None:
        self.error_cells = set(cells)
        self.refresh()

    # --- editing -------------------------------------------------------------------------------

    def _changed(self) -> None:
        self.error_cells.clear()
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Changed(self))

    def _scroll_to_cursor(self) -> None:
        x, y = self.edit.cursor
        region = Region((x + RADIUS) * CELL_WIDTH, y + RADIUS, CELL_WIDTH, 1)
        self.scroll_to_region(region, animate=False, spacing=None)

    def action_move(self, dx: int, dy: int) -> None:
        self.edit.move(dx, dy)
        self._scroll_to_cursor()
        self.refresh()

    def action_toggle_direction(self) -> None:
        self.edit.toggle_direction()
        self.refresh()

    def action_erase(self) -> None:
        if self.editable and self.edit.erase():
            self._changed()

    def action_clear_word(self) -> None:
        if self.editable and self.edit.clear_word():
            self._changed()

    def action_recentre(self) -> None:
        cx, cy = self.edit.centre()
        self.scroll_to(
            (cx + RADIUS) * CELL_WIDTH - self.size.width // 2,
            cy + RADIUS - self.size.height // 2,
            animate=False,
        )

    def on_key(self, event: events.Key) -> None:
        char = event.character or ""
        if self.editable and len(char) == 1 and char.isascii() and char.isalpha():
            event.stop()
            if self.edit.place(char):
                self._changed()
            else:
                self.notify(f"No {char.upper()} in your rack.", severity="warning", timeout=2)

    def on_click(self, event: events.Click) -> None:
        x = (event.x + self.scroll_offset.x) // CELL_WIDTH - RADIUS
        y = event.y + self.scroll_offset.y - RADIUS
        self.edit.cursor = (x, y)
        self.focus()
        self.refresh()
