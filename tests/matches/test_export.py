"""Export: Banana-Bench's results shape and our full dump, with values checked against the
stream, secrets kept out, and atomic writes."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from arena.export import export_match, to_json_text, write_atomic
from arena.replay import Replay
from arena.store import Store
from tests.matches.conftest import SCRIPTED_REPLIES, SCRIPTED_USAGE

BANANA_BENCH_KEYS = {
    "config",
    "winner",
    "total_turns",
    "end_reason",
    "player_results",
    "turn_history",
    "game_state",
    "conversation_history",
    "started_at",
    "ended_at",
    "duration_seconds",
    "total_prompt_tokens",
    "total_completion_tokens",
    "total_tokens",
}
TURN_KEYS = {
    "player_id",
    "turn_number",
    "action",
    "dump_tile",
    "board_spec",
    "validation",
    "thinking",
    "tiles_before",
    "tiles_after",
    "raw_response",
    "error",
    "auto_peeled",
    "auto_bananas",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
}


def _moves(store: Store, match_id: str) -> list[list]:
    """The stream cut into moves: each starts at a `turn` record."""
    moves: list[list] = []
    for event in store.events(match_id):
        if event.kind == "turn":
            moves.append([event])
        elif moves and not (event.kind == "action" and moves[-1][-1].kind != "turn"):
            moves[-1].append(event)
    return moves


def test_banana_bench_shape_and_values_for_a_bot_match(bot_match):
    store = bot_match.store()
    data = export_match(store, bot_match.match_id)
    assert set(data) == BANANA_BENCH_KEYS
    json.loads(to_json_text(data))  # JSON all the way down
    match = store.match(bot_match.match_id)
    moves = _moves(store, bot_match.match_id)
    history = data["turn_history"]
    assert all(set(entry) == TURN_KEYS for entry in history)
    assert len(history) == len(moves) == match["turns"] == data["total_turns"]
    names = [p["name"] for p in match["players"]]
    assert data["winner"] == names[match["winner"]]
    assert data["end_reason"] == "bananas"
    assert [e["turn_number"] for e in history] == list(range(1, len(history) + 1))
    for entry, move in zip(history, moves, strict=True):
        seat = move[0].payload["seat"]
        assert entry["player_id"] == names[seat]
        kinds = {e.kind for e in move if e.payload.get("player") == seat}
        assert entry["auto_peeled"] == ("tiles_peeled" in kinds)
        assert entry["auto_bananas"] == ("bananas_called" in kinds)
        verified = next((e.payload for e in move if e.kind == "board_verified"), None)
        if verified is None:
            assert entry["validation"] is None
        else:
            assert entry["validation"]["grid"] == verified["grid"]
            assert entry["validation"]["valid"] == verified["valid"]
        assert entry["board_spec"] == move[0].payload["board"]
        # A PEEL gives the peeler exactly one more tile.
        grown = Counter(entry["tiles_after"]) - Counter(entry["tiles_before"])
        assert sum(grown.values()) == (1 if entry["auto_peeled"] else 0)
    assert sum(e["auto_bananas"] for e in history) == 1 and history[-1]["auto_bananas"]
    peels = list(store.events(bot_match.match_id, kinds=("tiles_peeled",)))
    assert sum(e["auto_peeled"] for e in history) == len(peels) > 10
    final = Replay.load(store, bot_match.match_id).final()
    for player in final.players:
        assert data["game_state"]["players"][player.name]["hand"] == player.hand_letters
        assert data["game_state"]["players"][player.name]["board"] == player.grid
        result = data["player_results"][player.name]
        assert result["turns"] == sum(1 for e in history if e["player_id"] == player.name)
        assert result["won"] == (data["winner"] == player.name)
    assert data["game_state"]["bunch_size"] == final.bunch
    assert data["total_tokens"] == data["total_prompt_tokens"] == 0
    assert data["duration_seconds"] >= 0
    assert data["started_at"] <= data["ended_at"]


def test_banana_bench_for_a_scripted_model(scripted_match):
    store = scripted_match.store()
    data = export_match(store, scripted_match.match_id)
    mine = [e for e in data["turn_history"] if e["player_id"] == "script"]
    assert len(mine) == 7
    assert mine[0]["thinking"] == "Start small."
    assert mine[0]["raw_response"] == SCRIPTED_REPLIES[0]
    assert mine[0]["board_spec"] == "CAT H" and mine[0]["action"] == "NONE"
    assert mine[2]["action"] == "DUMP" and mine[2]["dump_tile"] == "Q"
    assert mine[2]["board_spec"] is None and mine[2]["validation"] is None
    assert mine[3]["action"] == "DUMP" and mine[3]["dump_tile"] == "E"
    assert mine[3]["validation"] is not None
    assert mine[4]["action"] == "PASS"
    assert "ran out of replies" in mine[6]["error"] and mine[6]["total_tokens"] == 0
    for entry in mine[:6]:
        assert entry["prompt_tokens"] == SCRIPTED_USAGE.prompt_tokens
        assert (
            entry["total_tokens"] == SCRIPTED_USAGE.prompt_tokens + SCRIPTED_USAGE.completion_tokens
        )
    history = data["turn_history"]
    assert data["total_prompt_tokens"] == sum(e["prompt_tokens"] for e in history) == 6 * 120
    assert data["total_completion_tokens"] == sum(e["completion_tokens"] for e in history) == 6 * 30
    assert data["total_tokens"] == data["total_prompt_tokens"] + data["total_completion_tokens"]
    result = data["player_results"]["script"]
    assert result["prompt_tokens"] == 720 and result["cost_usd"] == pytest.approx(6 * 0.0015)
    assert data["end_reason"] == "max_turns" and data["winner"] is None
    # A DUMP that happened: the hand lost the letter and gained three.
    dumped = mine[2]
    if dumped["tiles_before"].count("Q"):
        assert len(dumped["tiles_after"]) == len(dumped["tiles_before"]) + 2
    conversation = data["conversation_history"]["script"]
    replies = [m["content"] for m in conversation if m["role"] == "assistant"]
    assert replies == SCRIPTED_REPLIES
    assert sum(m["role"] == "system" for m in conversation) == 1  # not repeated every call
    assert data["conversation_history"]["bot-easy"] == []


def test_json_dump_has_every_event(bot_match):
    store = bot_match.store()
    data = export_match(store, bot_match.match_id, "json")
    stored = list(store.events(bot_match.match_id))
    assert [(e["seq"], e["kind"], e["payload"]) for e in data["events"][1:]] == [
        (e.seq, e.kind, e.payload) for e in stored[1:]
    ]
    assert data["match"]["id"] == bot_match.match_id
    assert [p["seat"] for p in data["players"]] == [0, 1]
    assert data["events"][0]["payload"]["config"] == data["match"]["config"]
    with pytest.raises(ValueError, match="unknown export format"):
        export_match(store, bot_match.match_id, "csv")


def test_no_secret_reaches_an_export(tmp_path):
    """The runner puts the raw config in `match_started`; exports must show the redacted one."""
    store = Store.open(tmp_path / "a.db")
    config = {
        "players": [{"kind": "llm", "model": "openai/gpt-4o", "api_key": "sk-TOPSECRET"}],
        "seed": 1,
    }
    match_id = store.create_match(
        title="t",
        mode="turns",
        seed=1,
        config=config,
        players=[
            {
                "name": "gpt-4o",
                "kind": "llm",
                "model": "openai/gpt-4o",
                "settings": config["players"][0],
            }
        ],
    )
    store.append(match_id, "match_started", {"config": config, "players": ["gpt-4o"]})
    for fmt in ("json", "banana-bench"):
        text = to_json_text(export_match(store, match_id, fmt))
        assert "sk-TOPSECRET" not in text
        assert "[redacted]" in text


def test_write_atomic_replaces_whole_files_and_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    write_atomic(target, "first")
    assert target.read_text() == "first"
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # not the temp file's private mode
    write_atomic(target, "second")
    assert target.read_text() == "second"

    def broken_replace(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        write_atomic(target, "third")
    assert target.read_text() == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
