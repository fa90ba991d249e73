"""`arena matches | replay | export | leaderboard`: output, exit codes, and bad ids or databases
reported in one line."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.store import Store


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli, list(args), env=env or {"ARENA_DB": "/nonexistent/arena.db"})


def one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: "), result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_matches_lists_stored_matches(bot_match):
    db = str(bot_match.path)
    result = invoke("matches", "--db", db)
    assert result.exit_code == 0, result.output
    header, row = result.output.strip().splitlines()
    assert header.split() == ["id", "date", "title", "mode", "status", "players", "winner", "turns"]
    assert row.startswith(bot_match.match_id) and "finished" in row and "bot-hard" in row
    (listed,) = json.loads(invoke("matches", "--json", "--db", db).output)
    match = bot_match.store().match(bot_match.match_id)
    assert listed["id"] == bot_match.match_id and listed["turns"] == match["turns"]
    assert listed["players"] == ["bot-hard", "bot-normal"]
    assert listed["winner"] == listed["players"][match["winner"]]
    # ARENA_DB is used when --db is not given.
    assert invoke("matches", env={"ARENA_DB": db}).output == result.output


def test_replay_text_and_json(bot_match):
    db, prefix = str(bot_match.path), bot_match.match_id[:6]
    result = invoke("replay", prefix, "--db", db, "--at", "9")
    assert result.exit_code == 0, result.output
    assert "After event 9 of" in result.output and "Next to move: bot-normal" in result.output
    assert "--json" in result.output  # points at machine output
    board = next(iter(bot_match.store().events(bot_match.match_id, kinds=("board_verified",))))
    assert board.payload["grid"][0] in result.output
    state = json.loads(invoke("replay", prefix, "--db", db, "--json").output)
    assert state["over"] and state["seq"] == bot_match.store().last_seq(bot_match.match_id)
    assert state["winner_name"] in ("bot-hard", "bot-normal")
    early = json.loads(invoke("replay", prefix, "--db", db, "--json", "--at", "0").output)
    assert early["seq"] == 0 and not early["started"] and early["bunch"] == 144


def test_export_to_stdout_and_file(bot_match, tmp_path):
    db = str(bot_match.path)
    result = invoke("export", bot_match.match_id, "--db", db)
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["total_turns"] == len(data["turn_history"])
    target = tmp_path / "match.json"
    result = invoke("export", bot_match.match_id, "--format", "json", "-o", str(target), "--db", db)
    assert result.exit_code == 0, result.output
    dump = json.loads(target.read_text())
    assert dump["match"]["id"] == bot_match.match_id and len(dump["events"]) > 100
    missing = tmp_path / "no" / "such" / "folder.json"
    one_line_error(
        invoke("export", bot_match.match_id, "-o", str(missing), "--db", db), "cannot write"
    )


def test_leaderboard_text_and_json(bot_match):
    db = str(bot_match.path)
    result = invoke("leaderboard", "--db", db)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0].split() == [
        "#", "player", "rating", "mu", "sigma", "games", "wins", "valid", "tok/turn", "cost",
    ]  # fmt: skip
    assert {line.split()[1] for line in lines[1:]} == {"bot:hard", "bot:normal"}
    rows = json.loads(invoke("leaderboard", "--json", "--db", db).output)
    assert [r["rank"] for r in rows] == [1, 2] and rows[0]["rating"] >= rows[1]["rating"]
    assert sum(r["wins"] for r in rows) == 1


def test_empty_or_missing_default_database():
    assert invoke("matches").output.strip() == "No matches stored yet."
    assert invoke("leaderboard").output.strip() == "No finished matches yet."
    assert json.loads(invoke("matches", "--json").output) == []


@pytest.mark.parametrize("command", ["matches", "leaderboard", "replay", "export"])
def test_bad_databases_are_one_line_and_exit_2(command, tmp_path):
    args = [command] + (["abc"] if command in ("replay", "export") else [])
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not sqlite" * 100)
    one_line_error(invoke(*args, "--db", str(garbage)), "not a Banana Arena database")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    one_line_error(invoke(*args, "--db", str(foreign)), "another program")
    one_line_error(invoke(*args, "--db", str(tmp_path)), "folder")
    one_line_error(invoke(*args, "--db", str(tmp_path / "missing.db")), "no database at")
    assert not (tmp_path / "missing.db").exists()  # reading never creates a database


def test_bad_ids_and_event_numbers(bot_match, tmp_path):
    db = str(bot_match.path)
    for command in ("replay", "export"):
        one_line_error(invoke(command, "zzzz", "--db", db), "No match with id 'zzzz'")
    one_line_error(
        invoke("replay", bot_match.match_id, "--at", "100000", "--db", db), "out of range"
    )
    one_line_error(invoke("replay", bot_match.match_id, "--at", "-3", "--db", db), "out of range")
    # An empty prefix matches every match: ambiguous once there are two.
    copy = bot_match.copy_to(tmp_path)
    store = copy.store()
    store.create_match(title="other", mode="turns", seed=1, config={}, players=[])
    one_line_error(invoke("replay", "", "--db", str(copy.path)), "ambiguous")


def test_a_damaged_event_is_one_line(bot_match, tmp_path):
    copy = bot_match.copy_to(tmp_path)
    store = copy.store()
    seq = next(iter(store.events(copy.match_id, kinds=("board_verified",)))).seq
    store.db.execute(
        "UPDATE events SET payload = '{\"player\": 0}' WHERE stream_id = ? AND seq = ?",
        [copy.match_id, seq],
    )
    for args in (["replay", copy.match_id], ["export", copy.match_id]):
        one_line_error(invoke(*args, "--db", str(copy.path)), f"event #{seq} (board_verified)")
    # The events before the damage still replay.
    result = invoke("replay", copy.match_id, "--at", str(seq - 1), "--json", "--db", str(copy.path))
    assert result.exit_code == 0 and json.loads(result.output)["seq"] == seq - 1
    # Our own dump does not interpret events, so it still works.
    assert (
        invoke("export", copy.match_id, "--format", "json", "--db", str(copy.path)).exit_code == 0
    )


def test_commands_load_neither_textual_nor_litellm(bot_match):
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from arena.cli import cli\n"
        f"db = {str(bot_match.path)!r}\n"
        f"for args in (['matches'], ['leaderboard'], ['replay', {bot_match.match_id!r}], "
        f"['export', {bot_match.match_id!r}]):\n"
        "    assert CliRunner().invoke(cli, [*args, '--db', db]).exit_code == 0, args\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'litellm'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_running_match_can_be_listed_and_replayed(tmp_path):
    store = Store.open(tmp_path / "a.db")
    match_id = store.create_match(
        title="live", mode="turns", seed=1, config={}, players=[{"name": "x", "kind": "human"}]
    )
    result = invoke("matches", "--db", str(tmp_path / "a.db"))
    assert "running" in result.output
    state = json.loads(invoke("replay", match_id, "--json", "--db", str(tmp_path / "a.db")).output)
    assert state["seq"] == 0 and state["players"][0]["name"] == "x"
    assert invoke("leaderboard", "--db", str(tmp_path / "a.db")).output.strip() == (
        "No finished matches yet."
    )


def test_damaged_rows_and_events_are_one_line_for_every_command(bot_match, tmp_path):
    copy = bot_match.copy_to(tmp_path)
    store, db = copy.store(), str(copy.path)
    store.db.execute(
        "UPDATE events SET payload = 'oops' WHERE stream_id = ? AND kind = 'game_ended'",
        [copy.match_id],
    )
    one_line_error(invoke("leaderboard", "--db", db), copy.match_id, "not JSON")
    one_line_error(invoke("replay", copy.match_id, "--db", db), "(game_ended) is damaged")
    store.db.execute("UPDATE players SET settings = '{' WHERE match_id = ?", [copy.match_id])
    for args in (["matches"], ["leaderboard"], ["export", copy.match_id, "--format", "json"]):
        one_line_error(invoke(*args, "--db", db), "damaged")
