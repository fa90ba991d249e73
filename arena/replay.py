"""Rebuild what everyone could see at any point of a stored match, from its events alone.

A match stream is folded event by event into a `ReplayState`: hands, boards, verdicts, plans,
tokens, the bunch, whose turn it is, and the result once the game has ended. Nothing is
re-verified or re-drawn: every fact comes from a stored event, so a replay shows exactly what
happened even if the dictionary or the engine has changed since.

`Replay` reads a match once and keeps a snapshot of the state every `CHECKPOINT_EVERY` events,
so seeking to any event folds at most that many events from the nearest snapshot.

Damaged events (payloads that are not JSON, or lack or mistype what their kind needs) stop the
fold with a `ReplayError` naming the event; states before it stay reachable.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.store import DamagedEvent, Store, StoredEvent, StoreError
from engines.bananagrams.tiles import TOTAL_TILES, tiles_not_covered

CHECKPOINT_EVERY = 64
LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class ReplayError(StoreError):
    """A stored match cannot be replayed; the message names the event and what is wrong, and
    `seq` is that event's number (None when no single event is to blame)."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq


class _Damaged(Exception):
    """Raised inside an event handler; turned into a ReplayError naming the event."""


# --- state -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The verifier's result for a player's latest board, as stored in `board_verified`."""

    valid: bool
    complete: bool
    errors: tuple[str, ...]  # error codes, in the verifier's order
    warnings: tuple[str, ...]
    feedback: tuple[str, ...]  # what the player was shown
    words: tuple[str, ...]
    tiles_used: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "complete": self.complete,
            "errors": list(self.errors),
            "warnings": list(self.warnings),
            "feedback": list(self.feedback),
            "words": list(self.words),
            "tiles_used": self.tiles_used,
        }


@dataclass
class PlayerReplay:
    """One seat as everyone could see it. Lists are replaced, never changed in place, except
    `hand` (copied by `copy()`), so snapshots may share the rest."""

    seat: int
    name: str
    kind: str = ""
    model: str | None = None
    policy: str | None = None
    hand: list[str] = field(default_factory=list)
    grid: list[str] = field(default_factory=list)  # latest submitted board, valid or not
    valid_grid: list[str] = field(default_factory=list)  # latest valid board
    verdict: Verdict | None = None
    plan: str = ""
    reply: str = ""  # the raw model reply of the latest move ("" for bots and people)
    error: str | None = None  # what went wrong with the latest move's reply, if anything
    last_move: str = ""  # a short description of the latest move and its outcome
    moves: int = 0
    boards: int = 0
    valid_boards: int = 0
    dumps: int = 0
    peels: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    out: bool = False

    @property
    def hand_letters(self) -> str:
        return "".join(self.hand)

    @property
    def tiles_left(self) -> int:
        """Tiles in hand not covered by the latest valid board (how standings rank players)."""
        return tiles_not_covered(self.hand, "".join(self.valid_grid).replace(".", ""))

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def copy(self) -> PlayerReplay:
        clone = PlayerReplay.__new__(PlayerReplay)
        clone.__dict__.update(self.__dict__)
        clone.hand = list(self.hand)
        return clone

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "model": self.model,
            "policy": self.policy,
            "hand": self.hand_letters,
            "tiles": len(self.hand),
            "tiles_left": self.tiles_left,
            "grid": list(self.grid),
            "valid_grid": list(self.valid_grid),
            "verdict": self.verdict.to_dict() if self.verdict else None,
            "plan": self.plan,
            "reply": self.reply,
            "error": self.error,
            "last_move": self.last_move,
            "moves": self.moves,
            "boards": self.boards,
            "valid_boards": self.valid_boards,
            "dumps": self.dumps,
            "peels": self.peels,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "out": self.out,
        }


@dataclass
class ReplayState:
    """Everything visible after event `seq` of a match (seq 0: before the first event)."""

    match_id: str
    mode: str
    players: list[PlayerReplay]
    seq: int = 0
    time: float | None = None
    bunch: int = TOTAL_TILES
    turn: int = 0  # moves counted by the game so far (all players together)
    max_turns: int | None = None
    last_seat: int | None = None  # the seat that moved last
    started: bool = False
    over: bool = False
    winner: int | None = None
    end_reason: str | None = None
    standings: list[dict[str, Any]] = field(default_factory=list)
    # The type of the latest `action` record: a DUMP action counts a turn when it resolves.
    pending_action: str | None = None

    @property
    def to_move(self) -> int | None:
        """Whose turn it is: in turns mode the next active seat after the one that moved last
        (the first active seat before anyone moved); None in realtime, before the deal, and
        once the game is over."""
        if self.mode != "turns" or not self.started or self.over:
            return None
        active = [p.seat for p in self.players if not p.out]
        if not active:
            return None
        if self.last_seat is None:
            return active[0]
        later = [seat for seat in active if seat > self.last_seat]
        return (later or active)[0]

    @property
    def tiles_in_hands(self) -> int:
        return sum(len(p.hand) for p in self.players)

    def copy(self) -> ReplayState:
        clone = ReplayState.__new__(ReplayState)
        clone.__dict__.update(self.__dict__)
        clone.players = [p.copy() for p in self.players]
        return clone

    def to_dict(self) -> dict[str, Any]:
        to_move = self.to_move
        return {
            "match_id": self.match_id,
            "mode": self.mode,
            "seq": self.seq,
            "time": self.time,
            "turn": self.turn,
            "max_turns": self.max_turns,
            "bunch": self.bunch,
            "to_move": to_move,
            "to_move_name": self.players[to_move].name if to_move is not None else None,
            "last_seat": self.last_seat,
            "started": self.started,
            "over": self.over,
            "winner": self.winner,
            "winner_name": self.players[self.winner].name
            if self.winner is not None and 0 <= self.winner < len(self.players)
            else None,
            "end_reason": self.end_reason,
            "standings": [dict(s) for s in self.standings],
            "players": [p.to_dict() for p in self.players],
        }


def initial_state(match: dict[str, Any]) -> ReplayState:
    """The state before the first event, from a match row (`Store.match`)."""
    players = [
        PlayerReplay(
            seat=index,
            name=str(row.get("name", f"player {index + 1}")),
            kind=str(row.get("kind") or ""),
            model=row.get("model"),
            policy=row.get("policy"),
        )
        for index, row in enumerate(match.get("players") or [])
    ]
    config = match.get("config") if isinstance(match.get("config"), dict) else {}
    return ReplayState(
        match_id=str(match.get("id", "")),
        mode=str(match.get("mode") or config.get("mode") or "turns"),
        players=players,
        max_turns=config.get("max_turns") if isinstance(config.get("max_turns"), int) else None,
    )


# --- the fold ----------------------------------------------------------------------------------


def apply_event(state: ReplayState, event: StoredEvent) -> None:
    """Fold one event into `state` (in place). Unknown kinds are skipped, so older code can
    replay streams that carry newer events; a damaged event raises ReplayError."""
    handler = _HANDLERS.get(event.kind)
    if handler is not None:
        payload = event.payload
        try:
            if not isinstance(payload, dict):
                raise _Damaged(f"payload is a {type(payload).__name__}, not an object")
            handler(state, payload)
        except _Damaged as problem:
            raise ReplayError(_damage_message(state, event, str(problem)), event.seq) from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as problem:
            detail = f"missing {problem}" if isinstance(problem, KeyError) else str(problem)
            raise ReplayError(_damage_message(state, event, detail), event.seq) from None
    state.seq, state.time = event.seq, event.time


def fold(match: dict[str, Any], events: Iterable[StoredEvent]) -> ReplayState:
    """The state after all `events`, folded from scratch."""
    state = initial_state(match)
    for event in events:
        apply_event(state, event)
    return state


def _damage_message(state: ReplayState, event: StoredEvent, detail: str) -> str:
    return (
        f"Match {state.match_id or event.stream_id}: event #{event.seq} ({event.kind}) is damaged: "
        f"{detail}."
    )


def _get(payload: dict, key: str, kind: type | tuple[type, ...], *, optional: bool = False) -> Any:
    if key not in payload:
        if optional:
            return None
        raise _Damaged(f"`{key}` is missing")
    value = payload[key]
    if value is None and optional:
        return None
    # bool is an int subclass: a flag where a number belongs (or the reverse) is damage too.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _types(kind)):
        raise _Damaged(f"`{key}` should be {_type_names(kind)}, not {value!r:.40}")
    return value


def _types(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _type_names(kind: type | tuple[type, ...]) -> str:
    return " or ".join(t.__name__ for t in _types(kind))


def _seat(state: ReplayState, payload: dict, key: str = "player") -> int:
    seat = _get(payload, key, int)
    if not 0 <= seat < len(state.players):
        raise _Damaged(f"there is no seat {seat} (the match has {len(state.players)} players)")
    return seat


def _letters(payload: dict, key: str) -> str:
    letters = _get(payload, key, str)
    if not set(letters) <= LETTERS:
        raise _Damaged(f"`{key}` should be letters A-Z, not {letters!r:.40}")
    return letters


def _count(payload: dict, key: str) -> int:
    value = _get(payload, key, int)
    if not 0 <= value <= TOTAL_TILES:
        raise _Damaged(f"`{key}` = {value} is not a tile count")
    return value


def _strings(payload: dict, key: str) -> tuple[str, ...]:
    values = _get(payload, key, list)
    if not all(isinstance(v, str) for v in values):
        raise _Damaged(f"`{key}` should be a list of strings")
    return tuple(values)


def _codes(payload: dict, key: str) -> tuple[str, ...]:
    """Issue codes from a list of issue objects (`board_verified`) or of codes."""
    codes = []
    for issue in _get(payload, key, list):
        code = issue.get("code") if isinstance(issue, dict) else issue
        if not isinstance(code, str):
            raise _Damaged(f"`{key}` holds an issue without a code")
        codes.append(code)
    return tuple(codes)


def _on_match_started(state: ReplayState, payload: dict) -> None:
    names = payload.get("players")
    if state.players or not isinstance(names, list):
        return
    state.players = [PlayerReplay(seat, str(name)) for seat, name in enumerate(names)]


def _on_game_started(state: ReplayState, payload: dict) -> None:
    names = _strings(payload, "players")
    if not state.players:
        state.players = [PlayerReplay(seat, name) for seat, name in enumerate(names)]
    elif len(names) != len(state.players):
        raise _Damaged(f"{len(names)} players, but the match has {len(state.players)}")
    max_turns = _get(payload, "max_turns", int, optional=True)
    state.max_turns = max_turns if max_turns is not None else state.max_turns
    state.started, state.bunch = True, TOTAL_TILES


def _on_tiles_dealt(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    player.hand = list(_letters(payload, "tiles"))
    state.bunch = _count(payload, "bunch_size")


def _on_turn(state: ReplayState, payload: dict) -> None:
    seat = _seat(state, payload, "seat")
    player = state.players[seat]
    calls = _get(payload, "calls", list, optional=True) or []
    last_call = calls[-1] if calls and isinstance(calls[-1], dict) else {}
    usage = _get(payload, "usage", dict, optional=True) or {}
    problems = _get(payload, "problems", list, optional=True) or []
    error = _get(payload, "error", str, optional=True)
    player.plan = _get(payload, "plan", str, optional=True) or ""
    player.reply = str(last_call.get("reply") or "")
    player.error = error or ("; ".join(str(p) for p in problems) or None)
    player.prompt_tokens += _get(usage, "prompt_tokens", int, optional=True) or 0
    player.completion_tokens += _get(usage, "completion_tokens", int, optional=True) or 0
    player.cost_usd += _get(usage, "cost_usd", (int, float), optional=True) or 0.0
    player.moves += 1
    player.last_move = ""  # the move itself follows in this batch
    state.last_seat = seat


def _on_action(state: ReplayState, payload: dict) -> None:
    kind = _get(payload, "type", str)
    state.pending_action = kind
    if kind != "end":
        seat = _seat(state, payload)
        state.last_seat = seat
        state.players[seat].last_move = ""


def _on_board_submitted(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    state.turn = _get(payload, "turn", int)
    dump = _get(payload, "dump", str, optional=True)
    _note(player, "submitted a board" + (f" and asked to DUMP {dump.upper()}" if dump else ""))


def _on_board_verified(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    verdict = Verdict(
        valid=_get(payload, "valid", bool),
        complete=_get(payload, "complete", bool),
        errors=_codes(payload, "errors"),
        warnings=_codes(payload, "warnings"),
        feedback=_strings(payload, "feedback"),
        words=_strings(payload, "words"),
        tiles_used=_get(payload, "tiles_used", int),
    )
    grid = list(_strings(payload, "grid"))
    player.verdict, player.grid = verdict, grid
    player.boards += 1
    if verdict.valid:
        player.valid_grid = grid
        player.valid_boards += 1
    outcome = "valid" if verdict.valid else "invalid: " + ", ".join(verdict.errors[:3])
    player.last_move += f" ({outcome})"


def _on_tiles_peeled(state: ReplayState, payload: dict) -> None:
    peeler = _seat(state, payload)
    drawn = _get(payload, "drawn", dict)
    for seat_key, letter in drawn.items():
        seat = int(seat_key)
        if not 0 <= seat < len(state.players) or not (
            isinstance(letter, str) and len(letter) == 1 and letter in LETTERS
        ):
            raise _Damaged(f"`drawn` has a bad entry {seat_key!r}: {letter!r:.20}")
        state.players[seat].hand = [*state.players[seat].hand, letter]
    state.bunch = _count(payload, "bunch_size")
    state.players[peeler].peels += 1
    _note(state.players[peeler], "PEEL: everyone drew a tile")


def _on_tile_dumped(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    letter, drawn = _letters(payload, "letter"), _letters(payload, "drawn")
    if letter not in player.hand:
        raise _Damaged(f"{player.name} dumped {letter!r} without holding one")
    hand = list(player.hand)
    hand.remove(letter)
    player.hand = hand + list(drawn)
    player.dumps += 1
    state.bunch = _count(payload, "bunch_size")
    _count_dump_turn(state)
    _note(player, f"dumped {letter} and drew {drawn}")


def _on_dump_refused(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    letter = _get(payload, "letter", str)
    _count_dump_turn(state)
    _note(player, f"DUMP {letter} refused: {_get(payload, 'reason', str)}")


def _count_dump_turn(state: ReplayState) -> None:
    # A DUMP action is a turn of its own; a DUMP sent with a board was counted by the board.
    if state.pending_action == "dump":
        state.turn += 1


def _note(player: PlayerReplay, text: str) -> None:
    player.last_move = f"{player.last_move}, {text}" if player.last_move else text


def _on_bananas_called(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    valid = _get(payload, "valid", bool)
    reason = _get(payload, "reason", str)
    _note(player, "BANANAS!" if valid else f"BANANAS refused: {reason}")


def _on_player_eliminated(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    returned = _letters(payload, "returned")
    if Counter(returned) != Counter(player.hand):
        raise _Damaged(f"returned tiles {returned!r} are not {player.name}'s hand")
    player.hand, player.out = [], True
    _note(player, f"out: {_get(payload, 'reason', str)}")
    state.bunch = _count(payload, "bunch_size")


def _on_turn_passed(state: ReplayState, payload: dict) -> None:
    player = state.players[_seat(state, payload)]
    state.turn = _get(payload, "turn", int)
    reason = _get(payload, "reason", str, optional=True)
    _note(player, f"passed ({reason})" if reason else "passed")


def _on_action_rejected(state: ReplayState, payload: dict) -> None:
    seat = _get(payload, "player", int, optional=True)
    reason = _get(payload, "reason", str)
    if seat is not None and 0 <= seat < len(state.players):
        _note(state.players[seat], f"move rejected: {reason}")


def _on_game_ended(state: ReplayState, payload: dict) -> None:
    winner = _get(payload, "winner", int, optional=True)
    if winner is not None and not 0 <= winner < len(state.players):
        raise _Damaged(f"winner {winner} is not a seat")
    standings = []
    for row in _get(payload, "standings", list):
        if not isinstance(row, dict):
            raise _Damaged("a standing is not an object")
        standing = {
            "player": _seat(state, row),
            "name": _get(row, "name", str),
            "rank": _get(row, "rank", int),
            "tiles_left": _get(row, "tiles_left", int),
            "won": _get(row, "won", bool),
            "out": _get(row, "out", bool),
        }
        standings.append(standing)
    state.over, state.winner = True, winner
    state.end_reason = _get(payload, "reason", str)
    state.turn = _get(payload, "turns", int)
    state.standings = standings


_HANDLERS: dict[str, Callable[[ReplayState, dict], None]] = {
    "match_started": _on_match_started,
    "game_started": _on_game_started,
    "tiles_dealt": _on_tiles_dealt,
    "turn": _on_turn,
    "action": _on_action,
    "board_submitted": _on_board_submitted,
    "board_verified": _on_board_verified,
    "tiles_peeled": _on_tiles_peeled,
    "tile_dumped": _on_tile_dumped,
    "dump_refused": _on_dump_refused,
    "bananas_called": _on_bananas_called,
    "player_eliminated": _on_player_eliminated,
    "turn_passed": _on_turn_passed,
    "action_rejected": _on_action_rejected,
    "game_ended": _on_game_ended,
}


# --- reading a match ---------------------------------------------------------------------------


def read_events(store: Store, match_id: str) -> tuple[list[StoredEvent], ReplayError | None]:
    """All events of a stream, and the problem that stopped the reading early, if any (a
    payload that is not JSON). The events before a damaged one are returned."""
    events: list[StoredEvent] = []
    try:
        for event in store.events(match_id):
            events.append(event)
    except DamagedEvent as error:
        return events, ReplayError(str(error), error.seq)
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{store.path} is damaged ({error}).") from None
    return events, None


class Replay:
    """A stored match, read once, that can show the state after any event quickly.

    `state_at(seq)` copies the nearest earlier snapshot and folds the few events after it. When
    an event is damaged, states before it still work and later ones raise `damage`."""

    def __init__(
        self,
        match: dict[str, Any],
        events: Sequence[StoredEvent],
        *,
        checkpoint_every: int = CHECKPOINT_EVERY,
        damage: ReplayError | None = None,
    ) -> None:
        if checkpoint_every < 1:
            raise ValueError("checkpoint_every must be at least 1")
        self.match = match
        self.events = list(events)
        self.every = checkpoint_every
        self.damage = damage
        self._seqs = [event.seq for event in self.events]
        state = initial_state(match)
        self._checkpoints = [state.copy()]
        folded = 0
        for event in self.events:
            try:
                apply_event(state, event)
            except ReplayError as error:
                self.damage = error
                break
            folded += 1
            if folded % checkpoint_every == 0:
                self._checkpoints.append(state.copy())
        self._folded = folded  # events before the first damaged one
        self._final = state

    @classmethod
    def load(cls, store: Store, match_id: str, **options: Any) -> Replay:
        """Read a match (a full id; see `Store.find_stream` for prefixes)."""
        try:
            match = store.match(match_id)
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{store.path} is damaged ({error}).") from None
        except ValueError as error:
            raise ReplayError(
                f"Match {match_id}: its stored config is damaged ({error})."
            ) from None
        events, damage = read_events(store, match_id)
        return cls(match, events, damage=damage, **options)

    @property
    def match_id(self) -> str:
        return str(self.match.get("id", ""))

    @property
    def last_seq(self) -> int:
        """The number of the last event read (0 when there is none; a payload that is not
        JSON stops the reading, see `damage`)."""
        return self._seqs[-1] if self._seqs else 0

    @property
    def last_good_seq(self) -> int:
        """The number of the last event before any damage."""
        return self._seqs[self._folded - 1] if self._folded else 0

    def state_at(self, seq: int | None = None) -> ReplayState:
        """The state after event `seq` (0: before the first event; None: after the last)."""
        damaged_at = self.damage.seq if self.damage is not None else None
        if seq is None:
            if self.damage is not None:
                raise self.damage
            seq = self.last_seq
        if damaged_at is not None and seq >= damaged_at:
            raise self.damage
        if not 0 <= seq <= self.last_seq:
            raise ValueError(
                f"event {seq} is out of range: this match has events 0 to {self.last_seq}"
            )
        position = bisect_right(self._seqs, seq)  # events with a number <= seq
        if position > self._folded:
            assert self.damage is not None
            raise self.damage
        if position == self._folded:
            return self._final.copy()
        index = position // self.every
        state = self._checkpoints[index].copy()
        for event in self.events[index * self.every : position]:
            apply_event(state, event)
        return state

    def final(self) -> ReplayState:
        """The state after the last event; raises `damage` if any event is damaged."""
        return self.state_at(None)
