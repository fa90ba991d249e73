"""Matches run to completion in both modes, reproduce from a seed, survive kill -9, can be
followed from another process, and never store a secret."""

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from arena.config import parse_config
from arena.runner import MatchRunner
from arena.store import Store
from tests.fake_openai import HttpError, Reply, giant_reply

ARENA = [sys.executable, "-c", "from arena.cli import main; main()"]
BOTS = {
    "seed": 5,
    "max_turns": 300,
    "players": [{"kind": "bot", "level": "hard"}, {"kind": "bot", "level": "normal"}],
}


def run(store, data):
    runner = MatchRunner.create(store, parse_config(data))
    ended = asyncio.run(runner.run())
    return runner, ended


def replayable(store, match_id):
    """The part of a stream that must be identical between runs: actions and engine events."""
    return [
        (e.kind, e.payload)
        for e in store.events(match_id)
        if e.kind not in ("turn", "match_started")
    ]


def write_replies(path: Path, replies: list[str]) -> str:
    path.write_text(yaml.safe_dump(replies))
    return str(path)


def test_bot_vs_bot_turns_mode_completes_and_is_reproducible(tmp_path):
    store = Store.open(tmp_path / "a.db")
    first, ended = run(store, BOTS)
    assert ended.reason == "bananas" and ended.winner is not None
    second, _ = run(store, BOTS)
    assert replayable(store, first.match_id) == replayable(store, second.match_id)
    seqs = [e.seq for e in store.events(first.match_id)]
    assert seqs == list(range(1, len(seqs) + 1))
    assert store.match(first.match_id)["status"] == "finished"
    other, _ = run(store, {**BOTS, "seed": 6})
    assert replayable(store, other.match_id) != replayable(store, first.match_id)


def test_turns_alternate_strictly(tmp_path):
    store = Store.open(tmp_path / "a.db")
    runner, _ = run(store, BOTS)
    seats = [e.payload["seat"] for e in store.events(runner.match_id, kinds=("turn",))]
    assert seats == [i % 2 for i in range(len(seats))]


def test_scripted_player_vs_bot_and_max_turns(tmp_path):
    replies = write_replies(
        tmp_path / "r.yaml",
        [
            "<game_plan>start</game_plan><action>NONE</action><board>CAT H</board>",
            "no tags at all",
            "<action>DUMP Q</action>",
            "<board>\nCAT H\nTAR[0] @ CAT[2] V\n</board>",
        ],
    )
    store = Store.open(tmp_path / "a.db")
    data = {
        "seed": 3,
        "max_turns": 8,
        "players": [{"kind": "scripted", "replies": replies}, {"kind": "bot", "level": "easy"}],
    }
    runner, ended = run(store, data)
    assert ended.reason == "max_turns" and ended.turns == 8
    turns = [
        e.payload for e in store.events(runner.match_id, kinds=("turn",)) if e.payload["seat"] == 0
    ]
    assert [t["board"] for t in turns[:2]] == ["CAT H", None]
    assert "No <board>" in turns[1]["problems"][0]
    assert turns[0]["calls"][0]["reply"].startswith("<game_plan>start")
    assert turns[0]["calls"][0]["messages"][0]["role"] == "system"
    # The next prompt tells the model what went wrong with its reply.
    assert "No <board>" in turns[2]["calls"][0]["messages"][-1]["content"]


def test_realtime_bots_finish(tmp_path):
    store = Store.open(tmp_path / "a.db")
    data = {
        **BOTS,
        "mode": "realtime",
        "time_limit": 60,
        "players": [
            {"kind": "bot", "level": "hard", "pace": 0},
            {"kind": "bot", "level": "normal", "pace": 0.01},
        ],
    }
    runner, ended = run(store, data)
    assert ended.reason == "bananas"
    assert store.match(runner.match_id)["mode"] == "realtime"


def test_realtime_time_limit(tmp_path):
    store = Store.open(tmp_path / "a.db")
    data = {
        **BOTS,
        "mode": "realtime",
        "time_limit": 1.5,
        "players": [{"kind": "bot", "level": "easy"}],
    }
    started = time.monotonic()
    _, ended = run(store, data)  # the easy bot thinks for seconds per move
    assert ended.reason == "time_limit" and ended.winner is None
    assert time.monotonic() - started < 10


def test_realtime_scripted_players_run_concurrently(tmp_path):
    replies = write_replies(tmp_path / "r.yaml", ["<board>ZZZ H</board>"] * 3)
    store = Store.open(tmp_path / "a.db")
    data = {
        "seed": 1,
        "mode": "realtime",
        "time_limit": 20,
        "players": [
            {"kind": "scripted", "replies": replies, "name": "a"},
            {"kind": "scripted", "replies": replies, "name": "b"},
        ],
    }
    runner, ended = run(store, data)
    # Both exhaust their replies (then fail every call) and the runner ends the stalled game.
    assert ended.reason == "stalled"
    seats = {e.payload["seat"] for e in store.events(runner.match_id, kinds=("turn",))}
    assert seats == {0, 1}


def test_kill_9_then_resume_gives_the_uninterrupted_match(tmp_path):
    config = tmp_path / "m.yaml"
    config.write_text(yaml.safe_dump(BOTS))
    reference_store = Store.open(tmp_path / "ref.db")
    reference, _ = run(reference_store, BOTS)
    db = tmp_path / "killed.db"
    process = subprocess.Popen(
        [*ARENA, "match", str(config), "--headless", "--db", str(db)],
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if db.exists():
                watcher = Store.open(db)
                matches = watcher.matches()
                if matches and watcher.last_seq(matches[0]["id"]) >= 60:
                    break
                watcher.close()
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        process.kill()
    store = Store.open(db)
    (match,) = store.matches()
    assert match["status"] == "stopped"  # killed mid-match: marked running, but its writer is gone
    runner = MatchRunner.resume(store, match["id"])
    asyncio.run(runner.run())
    assert replayable(store, match["id"]) == replayable(reference_store, reference.match_id)
    seqs = [e.seq for e in store.events(match["id"])]
    assert seqs == list(range(1, len(seqs) + 1))
    assert store.match(match["id"])["status"] == "finished"


def test_resume_via_cli_and_finished_match_refused(tmp_path):
    store = Store.open(tmp_path / "a.db")
    runner, _ = run(store, BOTS)
    done = subprocess.run(
        [*ARENA, "resume", runner.match_id[:6], "--db", str(tmp_path / "a.db")],
        capture_output=True,
        text=True,
    )
    assert (
        done.returncode == 2
        and "already finished" in done.stderr
        and "Traceback" not in done.stderr
    )


def test_second_process_follows_a_live_match(tmp_path):
    config = tmp_path / "m.yaml"
    realtime = {
        **BOTS,
        "mode": "realtime",
        "time_limit": 60,
        "players": [
            {"kind": "bot", "level": "hard", "pace": 0.05},
            {"kind": "bot", "level": "hard", "pace": 0.05},
        ],
    }
    config.write_text(yaml.safe_dump(realtime))
    db = tmp_path / "live.db"
    process = subprocess.Popen(
        [*ARENA, "match", str(config), "--headless", "--db", str(db)],
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        while not db.exists() or not Store.open(db).matches():
            time.sleep(0.02)
        store = Store.open(db)
        match_id = store.matches()[0]["id"]
        seen_while_running = 0
        followed = []
        for event in store.follow(match_id, poll_s=0.02):
            followed.append(event)
            if store.stream(match_id)["status"] == "running":
                seen_while_running += 1
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
    assert seen_while_running > 10
    assert [e.seq for e in followed] == list(range(1, len(followed) + 1))
    assert followed[-1].kind == "game_ended"
    assert len(followed) == store.last_seq(match_id)


def test_llm_players_through_litellm_survive_bad_replies_and_keep_secrets(tmp_path, fake_openai):
    secret = "sk-very-secret-key-0123456789"
    good = "<game_plan>go</game_plan><action>NONE</action><board>CAT H</board>"
    fake_openai.api_key = secret  # the server accepts only this key: it must reach the server...
    fake_openai.script(
        Reply("this is not the format"),
        Reply("<game_plan>oops</game_plan><action>NONE</action>"),
        giant_reply(300_000),
        HttpError(429, retry_after=0.01),
        Reply(good),
        HttpError(500),
        HttpError(500),
    )
    fake_openai.default = Reply(good)
    data = {
        "seed": 2,
        "max_turns": 12,
        "players": [
            {
                "kind": "llm",
                "model": fake_openai.model,
                "api_base": fake_openai.base_url,
                "api_key": secret,
                "num_retries": 1,
                "timeout": 5,
                "reasoning_effort": "low",
            },
            {"kind": "bot", "level": "normal"},
        ],
    }
    store = Store.open(tmp_path / "a.db")
    runner, ended = run(store, data)
    assert ended.reason == "max_turns"
    turns = [
        e.payload for e in store.events(runner.match_id, kinds=("turn",)) if e.payload["seat"] == 0
    ]
    assert len(turns) == 6
    assert turns[0]["board"] is None and turns[1]["board"] is None  # garbage and a missing board
    assert (
        turns[3]["board"] == "CAT H" and turns[3]["calls"][0]["backoff_s"] > 0
    )  # 429 then success
    assert (
        turns[4]["error"] and "failed" in turns[4]["error"]
    )  # 500 after retries: the turn is lost
    assert turns[5]["board"] == "CAT H"  # ... but not the match
    assert (
        fake_openai.last_chat.body.get("reasoning_effort") == "low"
    )  # pass-through keys reach the model
    store.close()
    for path in tmp_path.glob("a.db*"):
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in (tmp_path / "a.db").read_bytes().decode("latin-1")


def test_bad_configs_name_the_field(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("players:\n  - kind: bot\n    level: godlike\n")
    done = subprocess.run(
        [*ARENA, "match", str(config), "--headless", "--db", str(tmp_path / "a.db")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "players[0].level" in done.stderr and "Traceback" not in done.stderr
    config.write_text("players: [\n")
    done = subprocess.run(
        [*ARENA, "match", str(config), "--headless", "--db", str(tmp_path / "a.db")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "not valid YAML" in done.stderr


def test_banana_bench_config_works_unchanged():
    config = parse_config(
        {
            "max_turns": 100,
            "seed": 42,
            "players": [
                {"model": "gpt-5.2", "name": "high", "reasoning_effort": "high"},
                {"model": "gpt-5.2", "name": "none", "temperature": 0.5, "max_tokens": 4000},
            ],
        }
    )
    assert [p.kind for p in config.players] == ["llm", "llm"]
    assert config.players[0].llm_params == {"reasoning_effort": "high", "temperature": 1.0}
    assert config.players[1].llm_params == {"temperature": 0.5, "max_tokens": 4000}
    assert config.player_names() == ["high", "none"]


@pytest.mark.parametrize(
    "bad",
    [
        {"players": [{}] * 9},
        {"players": [{"kind": "human"}, {"kind": "human"}]},
        {"players": [{"kind": "scripted"}]},
    ],
)
def test_config_refusals(bad):
    from arena.config import ConfigError

    with pytest.raises(ConfigError):
        parse_config(bad)


def test_shipped_configs_parse():
    from arena.config import load_config
    from configs import configs_dir

    shipped = sorted(configs_dir().glob("*.yaml"))
    assert len(shipped) >= 5
    kinds = {tuple(p.kind for p in load_config(path).players) for path in shipped}
    assert ("bot", "bot") in kinds and ("human", "bot") in kinds and ("llm",) * 4 in kinds


def test_agent_policy_player_through_litellm_with_tool_calls(tmp_path, fake_openai):
    from tests.fake_openai import FakeToolCall

    fake_openai.script(
        Reply("Checking.", tool_calls=[FakeToolCall("verify_board", '{"board": "CAT H"}')]),
        Reply(tool_calls=[FakeToolCall("submit_board", '{"board": "CAT H"}')]),
        Reply(tool_calls=[FakeToolCall("final_answer", '{"answer": "Played CAT."}')]),
    )
    fake_openai.default = Reply(tool_calls=[FakeToolCall("final_answer", '{"answer": "pass"}')])
    data = {
        "seed": 2,
        "max_turns": 4,
        "players": [
            {
                "kind": "llm",
                "model": fake_openai.model,
                "policy": "agent",
                "step_budget": 4,
                "num_retries": 0,
            },
            {"kind": "bot", "level": "normal"},
        ],
    }
    store = Store.open(tmp_path / "a.db")
    runner, ended = run(store, data)
    assert ended.reason == "max_turns"
    first = next(
        e.payload for e in store.events(runner.match_id, kinds=("turn",)) if e.payload["seat"] == 0
    )
    assert first["board"] == "CAT H" and first["plan"] == "Played CAT."
    assert len(first["calls"]) == 3 and first["calls"][0]["tool_calls"][0]["name"] == "verify_board"
    tools = [
        e["details"]["tool"] for e in first["agent_events"] if e["kind"] == "tool_call_finished"
    ]
    assert tools == ["verify_board", "submit_board"]
    # The tools were offered to the model over HTTP.
    offered = {tool["function"]["name"] for tool in fake_openai.chat_requests[0].body["tools"]}
    assert {"verify_board", "submit_board", "dump", "show_hand", "final_answer"} <= offered


def test_scripted_agent_player_from_a_replies_file(tmp_path):
    replies = tmp_path / "agent.yaml"
    replies.write_text(
        yaml.safe_dump(
            [
                {"calls": [{"name": "submit_board", "arguments": {"board": "CAT H"}}]},
                {"calls": [{"name": "final_answer", "arguments": {"answer": "done"}}]},
            ]
        )
    )
    store = Store.open(tmp_path / "a.db")
    data = {
        "seed": 1,
        "max_turns": 2,
        "players": [
            {"kind": "scripted", "policy": "agent", "replies": str(replies)},
            {"kind": "bot"},
        ],
    }
    runner, _ = run(store, data)
    first = next(
        e.payload for e in store.events(runner.match_id, kinds=("turn",)) if e.payload["seat"] == 0
    )
    assert first["board"] == "CAT H"


def test_redaction_strips_secrets_but_keeps_token_counts():
    from arena.store import redact

    settings = {
        "api_key": "sk-1",
        "openai_api_key": "sk-2",
        "access_token": "t",
        "token": "t",
        "password": "p",
        "extra_headers": {"Authorization": "Bearer x"},
        "max_tokens": 4000,
        "thinking": {"type": "enabled", "budget_tokens": 2000},
        "api_key_env": "${OPENAI_API_KEY}",
    }
    clean = redact(settings)
    assert clean["max_tokens"] == 4000 and clean["thinking"]["budget_tokens"] == 2000
    assert clean["api_key_env"] == "${OPENAI_API_KEY}"
    for key in ("api_key", "openai_api_key", "access_token", "token", "password"):
        assert clean[key] == "[redacted]", key
    assert clean["extra_headers"]["Authorization"] == "[redacted]"


def test_resume_keeps_token_limits(tmp_path):
    from arena.runner import MatchRunner

    store = Store.open(tmp_path / "a.db")
    data = {
        **BOTS,
        "players": [
            {"kind": "bot"},
            {
                "kind": "llm",
                "model": "openai/x",
                "max_tokens": 4000,
                "thinking": {"type": "enabled", "budget_tokens": 2000},
            },
        ],
    }
    runner = MatchRunner.create(store, parse_config(data))
    store.set_status(runner.match_id, "stopped")
    resumed = MatchRunner.resume(store, runner.match_id)
    player = resumed.config.players[1]
    assert player.max_tokens == 4000 and player.llm_params["thinking"] == {
        "type": "enabled",
        "budget_tokens": 2000,
    }


def test_realtime_match_finishes_as_soon_as_the_game_ends(tmp_path):
    # The person never moves, so their task is always parked waiting: the bot's BANANAS must
    # still end the match at once, not at the time limit.
    store = Store.open(tmp_path / "a.db")
    data = {
        "seed": 1,
        "mode": "realtime",
        "time_limit": 60,
        "players": [{"kind": "human"}, {"kind": "bot", "level": "hard", "pace": 0}],
    }
    started = time.monotonic()
    runner, ended = run(store, data)
    assert ended.reason == "bananas" and ended.winner == 1
    game_ended = next(store.events(runner.match_id, kinds=("game_ended",)))
    assert store.match(runner.match_id)["finished_at"] - game_ended.time < 2.0
    assert time.monotonic() - started < 40
