"""What one player knows at the start of a turn, kept up to date from the game's events."""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.bananagrams.board import format_anchor
from engines.bananagrams.game import (
    BananasCalled,
    BoardSubmitted,
    BoardVerified,
    DumpRefused,
    Event,
    Game,
    PlayerEliminated,
    TileDumped,
    TilesPeeled,
    TurnPassed,
)


@dataclass(frozen=True)
class PlayerView:
    name: str
    hand: str
    board: str | None
    grid: list[str]
    board_valid: bool | None
    feedback: list[str]
    notes: list[str]
    bunch: int
    opponents: list[tuple[str, int]]
    turn: int
    max_turns: int | None
    peels: int
    dictionary_name: str
    last_plan: str = ""

    @property
    def tiles_off_board(self) -> str:
        """Hand letters the current board does not cover, as sorted letters."""
        remaining = list(self.hand)
        for letter in "".join(self.grid).replace(".", ""):
            if letter in remaining:
                remaining.remove(letter)
        return "".join(sorted(remaining))


@dataclass
class Notebook:
    """One player's memory of the game: their last board and verdict, and news since their last
    turn. Fed every game event; read with `view()` when it is their turn."""

    player: int
    board_text: str | None = None
    board_valid: bool | None = None
    feedback: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    last_plan: str = ""
    peels: int = 0

    def observe(self, event: Event, game: Game) -> None:
        mine = getattr(event, "player", None) == self.player
        name = game.players[event.player].name if hasattr(event, "player") else ""
        match event:
            case BoardSubmitted() if mine:
                self.board_text, self.notes = event.board, []
            case BoardVerified() if mine:
                self.board_valid, self.feedback = event.valid, list(event.feedback)
            case TilesPeeled():
                self.peels += 1
                who = "You" if mine else name
                if self.player in event.drawn:
                    self.notes.append(f"{who} PEELed: you drew {event.drawn[self.player]}.")
            case TileDumped() if mine:
                self.notes.append(f"You dumped {event.letter} and drew {event.drawn}.")
            case TileDumped():
                self.notes.append(f"{name} dumped a tile.")
            case DumpRefused() if mine:
                self.notes.append(f"Your DUMP {event.letter} was refused: {event.reason}")
            case TurnPassed() if mine and event.reason:
                self.notes.append(f"Your last turn was lost: {event.reason}")
            case BananasCalled() if not event.valid:
                self.notes.append(
                    f"{'You' if mine else name} called BANANAS too soon: {event.reason}"
                )
            case PlayerEliminated():
                self.notes.append(f"{'You are' if mine else name + ' is'} out: {event.reason}")

    def note(self, text: str) -> None:
        """News that doesn't come from the engine (e.g. a reply in the wrong format)."""
        self.notes.append(text)

    def view(self, game: Game) -> PlayerView:
        me = game.players[self.player]
        board = self.board_text
        if board is None and me.board:
            board = format_anchor(me.board)
        return PlayerView(
            name=me.name,
            hand="".join(sorted(me.hand)),
            board=board,
            grid=game.players[self.player].last_result.grid if me.last_result else [],
            board_valid=self.board_valid,
            feedback=list(self.feedback),
            notes=list(self.notes),
            bunch=len(game.bunch),
            opponents=[
                (p.name, len(p.hand))
                for i, p in enumerate(game.players)
                if i != self.player and not p.out
            ],
            turn=game.turns + 1,
            max_turns=game.max_turns,
            peels=self.peels,
            dictionary_name=game.dictionary.name,
            last_plan=self.last_plan,
        )
