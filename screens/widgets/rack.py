"""The rack: tiles in hand that are not on the board."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


class RackView(Widget):
    DEFAULT_CSS = """
    RackView { height: 3; padding: 0 1; border: round $warning 50%; }
    """
    letters: reactive[str] = reactive("", layout=False)
    bunch: reactive[int] = reactive(0)

    def render(self) -> Text:
        text = Text()
        if not self.letters:
            text.append("Rack empty: every tile is on the board.", style="italic")
        for letter in self.letters:
            text.append(f" {letter} ", style="bold reverse")
            text.append(" ")
        text.append(f"   bunch {self.bunch}", style="dim")
        return text
