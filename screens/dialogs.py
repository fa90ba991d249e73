"""Small modal screens: confirm, pick a tile to dump, game over."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from arena.replay import ReplayState


class ConfirmScreen(ModalScreen[bool]):
    AUTO_FOCUS = "#no"  # a stray Enter must not confirm something destructive
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question)
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="error")
                yield Button("No (n)", id="no", variant="primary")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class DumpScreen(ModalScreen[str | None]):
    """Press the letter of the tile to return to the bunch."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="dump.cancel")]

    def __init__(self, hand: str) -> None:
        super().__init__()
        self.hand = hand.upper()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("DUMP: press the letter to return (you draw three). Esc cancels.")
            yield Static("  ".join(sorted(self.hand)), id="dump-letters")

    def on_key(self, event: events.Key) -> None:
        char = (event.character or "").upper()
        if len(char) == 1 and char in self.hand:
            event.stop()
            self.dismiss(char)


class GameOverScreen(ModalScreen[str]):
    """Standings, and what next: replay, play again, or home."""

    BINDINGS = [
        Binding("r", "choose('replay')", "Replay", id="over.replay"),
        Binding("a", "choose('again')", "Play again", id="over.again"),
        Binding("h,escape", "choose('home')", "Home", id="over.home"),
    ]

    def __init__(self, state: ReplayState, match_id: str) -> None:
        super().__init__()
        self.state = state
        self.match_id = match_id

    def compose(self) -> ComposeResult:
        state = self.state
        winner = state.players[state.winner].name if state.winner is not None else None
        head = (
            f"{winner} wins: BANANAS!"
            if winner
            else f"No winner ({(state.end_reason or '').replace('_', ' ')})"
        )
        rows = [
            f"{s['rank']}. {s['name']:<16} {s['tiles_left']:>3} tile{'' if s['tiles_left'] == 1 else 's'} left"
            for s in state.standings
        ]
        with Vertical(classes="dialog"):
            yield Label(head, id="over-title")
            yield Static("\n".join(rows), id="standings")
            with Horizontal(classes="buttons"):
                yield Button("Replay (r)", id="over-replay")
                yield Button("Play again (a)", id="over-again", variant="primary")
                yield Button("Home (h)", id="over-home")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "over-home").removeprefix("over-"))
