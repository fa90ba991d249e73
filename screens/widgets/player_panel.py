"""A player at a glance: name, tiles left, a small view of their latest board, their verdict,
and whether they are thinking. Fed from `arena.replay.PlayerReplay`, live or replayed."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from arena.replay import PlayerReplay

MINI_ROWS = 9
MINI_COLUMNS = 18


def mini_board(grid: list[str], rows: int = MINI_ROWS, columns: int = MINI_COLUMNS) -> list[str]:
    """The top-left of a board, cut to fit, with a note when it doesn't."""
    shown = [row[:columns].replace(".", "·") for row in grid[:rows]]
    if len(grid) > rows or any(len(row) > columns for row in grid):
        shown.append(f"… {len(grid)}×{max(map(len, grid))} board")
    return shown


class PlayerPanel(Widget):
    DEFAULT_CSS = """
    PlayerPanel { height: auto; border: round $primary 40%; padding: 0 1; }
    PlayerPanel.-to-move { border: round $accent; }
    PlayerPanel.-winner { border: double $success; }
    """
    thinking: reactive[bool] = reactive(False)

    def __init__(
        self, player: PlayerReplay, *, compact: bool = True, show_board: bool = True, **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self.player = player
        self.compact = compact
        self.show_board = show_board  # False when a full BoardView sits beside the panel
        self.live_text = ""

    def update_player(
        self, player: PlayerReplay, *, to_move: bool = False, winner: bool = False
    ) -> None:
        self.player = player
        self.set_class(to_move, "-to-move")
        self.set_class(winner, "-winner")
        self.border_title = player.name
        self.refresh(layout=True)

    def set_live_text(self, text: str) -> None:
        self.live_text = text
        self.refresh(layout=True)

    def render(self) -> Text:
        player = self.player
        text = Text()
        who = player.model or player.kind
        status = "out" if player.out else ("thinking…" if self.thinking else "")
        text.append(f"{who}", style="dim")
        if status:
            text.append(f"  {status}", style="italic bold")
        text.append(
            f"\ntiles {len(player.hand)}  left {player.tiles_left}  boards {player.valid_boards}/{player.boards}"
        )
        if player.total_tokens:
            text.append(f"\ntokens {player.total_tokens:,}  ${player.cost_usd:.4f}")
        verdict = player.verdict
        if verdict is not None:
            if verdict.valid:
                text.append(
                    "\n✓ valid" + (" and complete" if verdict.complete else ""), style="green"
                )
            else:
                text.append("\n✗ " + ", ".join(dict.fromkeys(verdict.errors)), style="red")
        if self.show_board:
            for row in mini_board(player.grid) if player.grid else ["(no board yet)"]:
                text.append("\n" + row)
        if not self.compact:
            if player.plan:
                text.append(f"\nplan: {player.plan[:240]}", style="italic")
            if verdict is not None and not verdict.valid:
                for line in verdict.feedback[:4]:
                    text.append(f"\n• {line[:160]}", style="dim")
        if self.live_text:
            text.append("\n" + self.live_text[-400:], style="cyan")
        return text
