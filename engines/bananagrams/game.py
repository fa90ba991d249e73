"""The game state machine: typed actions in, typed events out.

Turn order is not the engine's business: it takes an action from any player at any time, and a
runner decides the tempo (round-robin turns or real time). PEEL and BANANAS happen
automatically when a submitted board is valid and uses every tile, as in Banana-Bench.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import ClassVar

from engines.bananagrams.board import Cell, Grid, render_rows
from engines.bananagrams.dictionary import Dictionary, enable
from engines.bananagrams.tiles import Bunch, hand_size, tiles_not_covered
from engines.bananagrams.verifier import VerifyResult, verify

DUMP_DRAW = 3

# --- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubmitBoard:
    """One turn: a board (text in any notation, or cells from the UI) and an optional DUMP."""

    player: int
    board: str | Mapping[Cell, str]
    dump: str | None = None


@dataclass(frozen=True)
class DumpTile:
    """One turn: return a tile and draw three."""

    player: int
    letter: str


@dataclass(frozen=True)
class CallBananas:
    """An explicit BANANAS call on the player's latest board (people press a key for it)."""

    player: int


@dataclass(frozen=True)
class PassTurn:
    """A turn with no move, e.g. a model that failed to answer."""

    player: int
    reason: str = ""


@dataclass(frozen=True)
class EndGame:
    """The runner stops the game (time limit, abort)."""

    reason: str


Action = SubmitBoard | DumpTile | CallBananas | PassTurn | EndGame

# --- events -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class GameStarted(Event):
    kind: ClassVar[str] = "game_started"
    players: list[str]
    seed: int
    hand_size: int
    max_turns: int | None
    rotten_banana: bool


@dataclass(frozen=True)
class TilesDealt(Event):
    kind: ClassVar[str] = "tiles_dealt"
    player: int
    tiles: str
    bunch_size: int


@dataclass(frozen=True)
class BoardSubmitted(Event):
    kind: ClassVar[str] = "board_submitted"
    player: int
    turn: int
    board: str
    dump: str | None


@dataclass(frozen=True)
class BoardVerified(Event):
    kind: ClassVar[str] = "board_verified"
    player: int
    valid: bool
    complete: bool
    errors: list[dict]
    warnings: list[dict]
    feedback: list[str]
    grid: list[str]
    words: list[str]
    tiles_used: int


@dataclass(frozen=True)
class TilesPeeled(Event):
    kind: ClassVar[str] = "tiles_peeled"
    player: int
    drawn: dict[int, str]
    bunch_size: int


@dataclass(frozen=True)
class TileDumped(Event):
    kind: ClassVar[str] = "tile_dumped"
    player: int
    letter: str
    drawn: str
    bunch_size: int


@dataclass(frozen=True)
class DumpRefused(Event):
    kind: ClassVar[str] = "dump_refused"
    player: int
    letter: str
    reason: str


@dataclass(frozen=True)
class BananasCalled(Event):
    kind: ClassVar[str] = "bananas_called"
    player: int
    valid: bool
    reason: str


@dataclass(frozen=True)
class PlayerEliminated(Event):
    kind: ClassVar[str] = "player_eliminated"
    player: int
    reason: str
    returned: str
    bunch_size: int


@dataclass(frozen=True)
class TurnPassed(Event):
    kind: ClassVar[str] = "turn_passed"
    player: int
    turn: int
    reason: str


@dataclass(frozen=True)
class ActionRejected(Event):
    kind: ClassVar[str] = "action_rejected"
    player: int | None
    reason: str


@dataclass(frozen=True)
class Standing:
    player: int
    name: str
    rank: int
    tiles_left: int
    won: bool
    out: bool


@dataclass(frozen=True)
class GameEnded(Event):
    kind: ClassVar[str] = "game_ended"
    reason: str
    winner: int | None
    turns: int
    standings: list[Standing]


# --- state --------------------------------------------------------------------------------------


@dataclass
class PlayerState:
    name: str
    hand: list[str] = field(default_factory=list)
    board: Grid = field(default_factory=dict)  # latest submitted board, valid or not
    valid_board: Grid = field(default_factory=dict)  # latest valid board
    last_result: VerifyResult | None = None
    out: bool = False

    @property
    def hand_letters(self) -> str:
        return "".join(self.hand)

    @property
    def tiles_left(self) -> int:
        """Tiles in hand not covered by the latest valid board."""
        return tiles_not_covered(self.hand, self.valid_board.values())


class GameError(ValueError):
    """A game that cannot be set up (bad player count, ...)."""


class Game:
    """One game of Bananagrams. `start()` deals; `apply(action)` returns the events it caused."""

    def __init__(
        self,
        players: list[str],
        seed: int,
        *,
        max_turns: int | None = None,
        rotten_banana: bool = False,
        dictionary: Dictionary | None = None,
    ) -> None:
        try:
            self.hand_size = hand_size(len(players))
        except ValueError as error:
            raise GameError(str(error)) from None
        if max_turns is not None and max_turns < 1:
            raise GameError(f"max_turns must be at least 1, not {max_turns}.")
        self.players = [PlayerState(name) for name in players]
        self.seed = seed
        self.max_turns = max_turns
        self.rotten_banana = rotten_banana
        self.dictionary = dictionary or enable()
        self.bunch = Bunch.new(seed)
        self.turns = 0
        self.started = False
        self.ended: GameEnded | None = None

    @property
    def over(self) -> bool:
        return self.ended is not None

    @property
    def active_players(self) -> list[int]:
        return [i for i, player in enumerate(self.players) if not player.out]

    def start(self) -> list[Event]:
        if self.started:
            return [ActionRejected(None, "The game has already started.")]
        self.started = True
        events: list[Event] = [
            GameStarted(
                [p.name for p in self.players],
                self.seed,
                self.hand_size,
                self.max_turns,
                self.rotten_banana,
            )
        ]
        for index, player in enumerate(self.players):
            player.hand = self.bunch.draw(self.hand_size)
            events.append(TilesDealt(index, player.hand_letters, len(self.bunch)))
        return events

    def apply(self, action: Action) -> list[Event]:
        if isinstance(action, EndGame):
            return [] if self.over else [self._end(action.reason, None)]
        rejection = self._rejection(action.player)
        if rejection:
            return [ActionRejected(action.player, rejection)]
        match action:
            case SubmitBoard():
                events = self._submit(action)
            case DumpTile():
                self.turns += 1
                events = self._dump(action.player, action.letter)
            case CallBananas():
                events = self._call_bananas(action.player)
            case PassTurn():
                self.turns += 1
                events = [TurnPassed(action.player, self.turns, action.reason)]
        return events + self._check_turn_limit()

    def _rejection(self, player: int) -> str | None:
        if not self.started:
            return "The game has not started."
        if self.over:
            return "The game is over."
        if not 0 <= player < len(self.players):
            return f"There is no player {player}."
        if self.players[player].out:
            return f"{self.players[player].name} is out of the game."
        return None

    def _submit(self, action: SubmitBoard) -> list[Event]:
        self.turns += 1
        player = self.players[action.player]
        text = (
            action.board if isinstance(action.board, str) else "\n".join(render_rows(action.board))
        )
        events: list[Event] = [BoardSubmitted(action.player, self.turns, text, action.dump)]
        result = verify(action.board, dictionary=self.dictionary, hand=player.hand_letters)
        player.board, player.last_result = dict(result.cells), result
        if result.valid:
            player.valid_board = dict(result.cells)
        feedback = list(result.feedback)
        if result.complete and action.dump:
            feedback.append(
                f"Note: DUMP {action.dump.upper()} was ignored because your board used every tile."
            )
        events.append(
            BoardVerified(
                action.player,
                result.valid,
                result.complete,
                [e.to_dict() for e in result.errors],
                [w.to_dict() for w in result.warnings],
                feedback,
                result.grid,
                result.words,
                result.tiles_used,
            )
        )
        if result.complete:
            if len(self.bunch) >= len(self.active_players):
                events.append(self._peel(action.player))
            else:
                events += self._win(action.player)
        elif action.dump:
            events += self._dump(action.player, action.dump)
        return events

    def _peel(self, peeler: int) -> TilesPeeled:
        drawn: dict[int, str] = {}
        for index in self.active_players:
            (letter,) = self.bunch.draw(1)
            self.players[index].hand.append(letter)
            drawn[index] = letter
        return TilesPeeled(peeler, drawn, len(self.bunch))

    def _win(self, player: int) -> list[Event]:
        called = BananasCalled(
            player, True, "A valid board with every tile and too few tiles to PEEL."
        )
        return [called, self._end("bananas", player)]

    def _dump(self, index: int, letter: str) -> list[Event]:
        player, letter = self.players[index], letter.strip().upper()
        if len(letter) != 1 or letter not in player.hand:
            return [DumpRefused(index, letter, f"You have no {letter!r} tile to dump.")]
        if len(self.bunch) < DUMP_DRAW:
            reason = f"DUMP needs {DUMP_DRAW} tiles in the bunch; it has {len(self.bunch)}."
            return [DumpRefused(index, letter, reason)]
        drawn = self.bunch.draw(DUMP_DRAW)  # draw first, then the tile goes back
        player.hand.remove(letter)
        self.bunch.put_back([letter])
        player.hand.extend(drawn)
        return [TileDumped(index, letter, "".join(drawn), len(self.bunch))]

    def _call_bananas(self, index: int) -> list[Event]:
        player = self.players[index]
        result = verify(player.board, dictionary=self.dictionary, hand=player.hand_letters)
        if len(self.bunch) >= len(self.active_players):
            return [BananasCalled(index, False, "Too early: the bunch can still PEEL.")]
        if result.complete:
            return self._win(index)
        reason = "The board is not valid with every tile." + (
            " " + result.feedback[0] if result.feedback else ""
        )
        if not self.rotten_banana:
            return [BananasCalled(index, False, reason)]
        returned = player.hand_letters
        self.bunch.put_back(player.hand)
        player.hand, player.out = [], True
        events: list[Event] = [
            BananasCalled(index, False, reason),
            PlayerEliminated(index, "Rotten banana: " + reason, returned, len(self.bunch)),
        ]
        if not self.active_players:
            events.append(self._end("all_out", None))
        return events

    def _check_turn_limit(self) -> list[Event]:
        if not self.over and self.max_turns is not None and self.turns >= self.max_turns:
            return [self._end("max_turns", None)]
        return []

    def _end(self, reason: str, winner: int | None) -> GameEnded:
        self.ended = GameEnded(reason, winner, self.turns, self.standings(winner))
        return self.ended

    def standings(self, winner: int | None = None) -> list[Standing]:
        """Winner first, then by fewest tiles not covered by the latest valid board; out last."""
        if winner is None and self.ended is not None:
            winner = self.ended.winner
        order = sorted(
            range(len(self.players)),
            key=lambda i: (i != winner, self.players[i].out, self.players[i].tiles_left, i),
        )
        return [
            Standing(
                i,
                self.players[i].name,
                rank,
                self.players[i].tiles_left,
                i == winner,
                self.players[i].out,
            )
            for rank, i in enumerate(order, start=1)
        ]

    # --- exact save and restore ----------------------------------------------------------------

    def to_state(self) -> dict:
        return {
            "players": [
                {
                    "name": p.name,
                    "hand": p.hand_letters,
                    "board": _cells_to_rows(p.board),
                    "valid_board": _cells_to_rows(p.valid_board),
                    "out": p.out,
                }
                for p in self.players
            ],
            "seed": self.seed,
            "max_turns": self.max_turns,
            "rotten_banana": self.rotten_banana,
            "bunch": self.bunch.to_state(),
            "turns": self.turns,
            "started": self.started,
            "ended": self.ended.to_dict() if self.ended else None,
        }

    @classmethod
    def from_state(cls, state: dict, dictionary: Dictionary | None = None) -> Game:
        game = cls(
            [p["name"] for p in state["players"]],
            state["seed"],
            max_turns=state["max_turns"],
            rotten_banana=state["rotten_banana"],
            dictionary=dictionary,
        )
        for player, saved in zip(game.players, state["players"], strict=True):
            player.hand = list(saved["hand"])
            player.board = _rows_to_cells(saved["board"])
            player.valid_board = _rows_to_cells(saved["valid_board"])
            player.out = saved["out"]
        game.bunch = Bunch.from_state(state["bunch"])
        game.turns, game.started = state["turns"], state["started"]
        if state["ended"]:
            ended = dict(state["ended"])
            ended.pop("kind")
            ended["standings"] = [Standing(**s) for s in ended["standings"]]
            game.ended = GameEnded(**ended)
        return game


def _cells_to_rows(cells: Grid) -> list[list]:
    return [[x, y, letter] for (x, y), letter in sorted(cells.items())]


def _rows_to_cells(rows: list[list]) -> Grid:
    return {(x, y): letter for x, y, letter in rows}


# --- actions as data (for storage and exact resume) ---------------------------------------------


def action_to_dict(action: Action) -> dict:
    match action:
        case SubmitBoard():
            board = (
                action.board
                if isinstance(action.board, str)
                else {"cells": _cells_to_rows(dict(action.board))}
            )
            return {"type": "submit", "player": action.player, "board": board, "dump": action.dump}
        case DumpTile():
            return {"type": "dump", "player": action.player, "letter": action.letter}
        case CallBananas():
            return {"type": "bananas", "player": action.player}
        case PassTurn():
            return {"type": "pass", "player": action.player, "reason": action.reason}
        case EndGame():
            return {"type": "end", "reason": action.reason}
    raise TypeError(f"not an action: {action!r}")


def action_from_dict(data: dict) -> Action:
    match data["type"]:
        case "submit":
            board = data["board"]
            board = board if isinstance(board, str) else _rows_to_cells(board["cells"])
            return SubmitBoard(data["player"], board, data.get("dump"))
        case "dump":
            return DumpTile(data["player"], data["letter"])
        case "bananas":
            return CallBananas(data["player"])
        case "pass":
            return PassTurn(data["player"], data.get("reason", ""))
        case "end":
            return EndGame(data["reason"])
    raise ValueError(f"unknown action type {data['type']!r}")
