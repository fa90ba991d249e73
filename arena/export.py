"""Exporting a stored match: Banana-Bench's results shape, or our own full dump.

Banana-Bench shape (its `results/*.json`): `config, winner, total_turns, end_reason,
player_results, turn_history, game_state, conversation_history, started_at, ended_at,
duration_seconds, total_prompt_tokens, total_completion_tokens, total_tokens`. Players are
identified by name (names are unique within a match); `player_results`, `game_state.players`
and `conversation_history` are keyed by that name. Each move a player made (a `turn` record in
the stream) is one entry of `turn_history`.

Secrets: the config comes from the matches table, which the store redacts when the match is
created; the `match_started` event's copy of the config is replaced by that redacted one.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.replay import (
    PlayerReplay,
    ReplayError,
    ReplayState,
    apply_event,
    initial_state,
    read_events,
)
from arena.store import Store, StoredEvent

FORMATS = ("banana-bench", "json")
DUMP_FORMAT = "banana-arena/match"
DUMP_VERSION = 1


# --- our own dump ------------------------------------------------------------------------------


def export_json(store: Store, match_id: str) -> dict[str, Any]:
    """The match row, its players, and every event as stored (damaged events refuse)."""
    match = store.match(match_id)
    events, damage = read_events(store, match_id)
    if damage is not None:
        raise damage
    players = match.pop("players")
    return {
        "format": DUMP_FORMAT,
        "version": DUMP_VERSION,
        "match": match,
        "players": players,
        "events": [
            {
                "seq": event.seq,
                "time": event.time,
                "kind": event.kind,
                "payload": _without_raw_config(event, match["config"]),
            }
            for event in events
        ],
    }


def _without_raw_config(event: StoredEvent, redacted_config: dict) -> Any:
    if (
        event.kind == "match_started"
        and isinstance(event.payload, dict)
        and "config" in event.payload
    ):
        return {**event.payload, "config": redacted_config}
    return event.payload


# --- Banana-Bench ------------------------------------------------------------------------------


@dataclass
class _Move:
    """One player's move: its `turn` record and the events it caused."""

    seat: int
    record: dict[str, Any]
    tiles_before: str
    events: list[StoredEvent] = field(default_factory=list)
    tiles_after: str = ""


def export_banana_bench(store: Store, match_id: str) -> dict[str, Any]:
    """The match in Banana-Bench's results shape."""
    match = store.match(match_id)
    events, damage = read_events(store, match_id)
    if damage is not None:
        raise damage
    state, moves = _fold_moves(match, events)
    names = [player.name for player in state.players]
    history = [_turn_entry(move, names) for move in moves]
    started_at = next((e.time for e in events if e.kind == "match_started"), match["created_at"])
    ended_at = match.get("finished_at") or next(
        (e.time for e in events if e.kind == "game_ended"), None
    )
    totals = {
        key: sum(entry[key] for entry in history)
        for key in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    return {
        "config": match["config"],
        "winner": names[state.winner] if state.winner is not None else None,
        "total_turns": state.turn,
        "end_reason": state.end_reason,
        "player_results": {
            player.name: _player_result(player, state, moves) for player in state.players
        },
        "turn_history": history,
        "game_state": _game_state(state, match),
        "conversation_history": {
            player.name: _conversation([m for m in moves if m.seat == player.seat])
            for player in state.players
        },
        "started_at": _iso(started_at),
        "ended_at": _iso(ended_at) if ended_at is not None else None,
        "duration_seconds": round(ended_at - started_at, 3) if ended_at is not None else None,
        "total_prompt_tokens": totals["prompt_tokens"],
        "total_completion_tokens": totals["completion_tokens"],
        "total_tokens": totals["total_tokens"],
    }


def _fold_moves(match: dict, events: list[StoredEvent]) -> tuple[ReplayState, list[_Move]]:
    """Fold the whole match, grouping events into moves with the hands before and after."""
    state = initial_state(match)
    moves: list[_Move] = []
    current: _Move | None = None
    previous_kind = ""

    def close() -> None:
        if current is not None:
            current.tiles_after = state.players[current.seat].hand_letters

    for event in events:
        if event.kind == "turn" or (event.kind == "action" and previous_kind != "turn"):
            close()
            current = None
        apply_event(state, event)
        if event.kind == "turn":
            seat = event.payload["seat"]
            current = _Move(seat, event.payload, state.players[seat].hand_letters)
            moves.append(current)
        elif current is not None:
            current.events.append(event)
        previous_kind = event.kind
    close()
    return state, moves


def _turn_entry(move: _Move, names: list[str]) -> dict[str, Any]:
    record = move.record
    action = next((e.payload for e in move.events if e.kind == "action"), {})
    verified = next((e.payload for e in move.events if e.kind == "board_verified"), None)
    mine = [e for e in move.events if e.payload.get("player") == move.seat]
    usage = record.get("usage") or {}
    prompt, completion = usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0
    calls = [c for c in record.get("calls") or [] if isinstance(c, dict)]
    dump = action.get("letter") if action.get("type") == "dump" else action.get("dump")
    submitted = action.get("type") == "submit"
    return {
        "player_id": names[move.seat],
        "turn_number": record.get("turn"),
        "action": _action_name(action),
        "dump_tile": dump.upper() if isinstance(dump, str) else None,
        "board_spec": _board_spec(record, action),
        "validation": {k: v for k, v in verified.items() if k not in ("kind", "player")}
        if verified
        else None,
        "thinking": record.get("plan")
        or "\n\n".join(c["reasoning"] for c in calls if c.get("reasoning")),
        "tiles_before": move.tiles_before,
        "tiles_after": move.tiles_after,
        "raw_response": calls[-1].get("reply", "") if calls else "",
        "error": record.get("error") or ("; ".join(record.get("problems") or []) or None),
        "auto_peeled": submitted and any(e.kind == "tiles_peeled" for e in mine),
        "auto_bananas": submitted
        and any(e.kind == "bananas_called" and e.payload.get("valid") for e in mine),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _action_name(action: dict) -> str:
    """Banana-Bench's `<action>` word: NONE or DUMP; and PASS / BANANAS for our other moves."""
    match action.get("type"):
        case "submit":
            return "DUMP" if action.get("dump") else "NONE"
        case "dump":
            return "DUMP"
        case "bananas":
            return "BANANAS"
        case _:
            return "PASS"


def _board_spec(record: dict, action: dict) -> str | None:
    if isinstance(record.get("board"), str):
        return record["board"]
    board = action.get("board") if action.get("type") == "submit" else None
    if isinstance(board, str):
        return board
    if isinstance(board, dict) and isinstance(board.get("cells"), list):
        return "\n".join(_rows(board["cells"]))  # a board built cell by cell in the UI
    return None


def _rows(cells: list) -> list[str]:
    """Cells [[x, y, letter], ...] drawn as grid rows ('.' for empty)."""
    if not cells:
        return []
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    rows = [["."] * (max(xs) - min(xs) + 1) for _ in range(max(ys) - min(ys) + 1)]
    for x, y, letter in cells:
        rows[y - min(ys)][x - min(xs)] = letter
    return ["".join(row) for row in rows]


def _player_result(player: PlayerReplay, state: ReplayState, moves: list[_Move]) -> dict:
    standing = next((s for s in state.standings if s["player"] == player.seat), None)
    return {
        "seat": player.seat,
        "name": player.name,
        "kind": player.kind,
        "model": player.model,
        "policy": player.policy,
        "rank": standing["rank"] if standing else None,
        "won": state.winner == player.seat,
        "tiles_left": player.tiles_left,
        "out": player.out,
        "turns": sum(1 for m in moves if m.seat == player.seat),
        "boards_submitted": player.boards,
        "valid_boards": player.valid_boards,
        "valid_board_rate": round(player.valid_boards / player.boards, 4)
        if player.boards
        else None,
        "dumps": player.dumps,
        "peels": player.peels,
        "prompt_tokens": player.prompt_tokens,
        "completion_tokens": player.completion_tokens,
        "total_tokens": player.total_tokens,
        "cost_usd": round(player.cost_usd, 6),
    }


def _game_state(state: ReplayState, match: dict) -> dict[str, Any]:
    return {
        "status": match.get("status"),
        "over": state.over,
        "turn": state.turn,
        "max_turns": state.max_turns,
        "bunch_size": state.bunch,
        "standings": state.standings,
        "players": {
            p.name: {
                "hand": p.hand_letters,
                "board": list(p.grid),
                "valid_board": list(p.valid_grid),
                "board_valid": p.verdict.valid if p.verdict else None,
                "tiles_left": p.tiles_left,
                "out": p.out,
            }
            for p in state.players
        },
    }


def _conversation(moves: list[_Move]) -> list[dict[str, Any]]:
    """A player's exchanges with its model in order: each call's prompt messages, then the
    reply. A system prompt identical to the previous one is not repeated."""
    messages: list[dict[str, Any]] = []
    system = None
    for move in moves:
        for call in move.record.get("calls") or []:
            if not isinstance(call, dict):
                continue
            for message in call.get("messages") or []:
                if isinstance(message, dict) and message.get("role") == "system":
                    if message == system:
                        continue
                    system = message
                messages.append(message)
            if call.get("reply") or call.get("tool_calls"):
                reply: dict[str, Any] = {"role": "assistant", "content": call.get("reply", "")}
                if call.get("tool_calls"):
                    reply["tool_calls"] = call["tool_calls"]
                messages.append(reply)
    return messages


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


# --- entry point -------------------------------------------------------------------------------


def export_match(store: Store, match_id: str, fmt: str = "banana-bench") -> dict[str, Any]:
    """The match as `fmt` ('banana-bench' or 'json'). Raises StoreError/ReplayError."""
    if fmt == "json":
        return export_json(store, match_id)
    if fmt == "banana-bench":
        try:
            return export_banana_bench(store, match_id)
        except (KeyError, TypeError, AttributeError) as error:
            raise ReplayError(
                f"Match {match_id} cannot be exported: a record is damaged ({error})."
            ) from None
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")


def to_json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` to `path` so readers see the old file or the whole new one, never half:
    write a temporary file in the same folder, flush it to disk, then rename it over `path`."""
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, _file_mode(path))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _file_mode(path: Path) -> int:
    """The mode the file would get from a plain open(): the old file's, else 0o666 less umask
    (temporary files are created private)."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
