"""`arena ask` and `arena questions run`: output, files, errors, and the real litellm path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.commands.ask import POLICIES
from engines.agent.policies import POLICIES as ENGINE_POLICIES
from tests.fake_openai import FakeToolCall, Reply

CALCULATE = {
    "text": "I will compute it.",
    "calls": [{"name": "calculator", "arguments": {"expression": "37*49+112"}}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 30, "cost_usd": 0.002},
}
ANSWER = {
    "calls": [{"name": "final_answer", "arguments": {"answer": "1925"}}],
    "usage": {"prompt_tokens": 200, "completion_tokens": 10, "cost_usd": 0.001},
}


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_policy_choices_match_the_engine() -> None:
    assert set(POLICIES) == set(ENGINE_POLICIES)


def test_commands_do_not_load_litellm_or_textual() -> None:
    code = (
        "import sys, arena.cli, arena.commands.ask, arena.commands.questions, arena.questions_run\n"
        "print(sorted(m for m in ('litellm', 'textual', 'arena.llm', 'arena.tools') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_ask_prints_answer_and_streams_progress(tmp_path: Path) -> None:
    replies = write_json(tmp_path / "r.json", [CALCULATE, ANSWER])
    result = invoke("ask", "What is 37*49+112?", "--model", f"scripted:{replies}")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "1925",
        "answered in 2 steps, 360 tokens (320 in, 40 out), $0.0030",
    ]
    progress = result.stderr.splitlines()
    assert "[step 1] calculator({'expression': '37*49+112'})" in progress
    assert any(line.startswith("[step 1] calculator ok") and "= 1925" in line for line in progress)


def test_ask_json_has_the_whole_result(tmp_path: Path) -> None:
    attachment = tmp_path / "notes.txt"
    attachment.write_text("the answer is 1925\n")
    replies = write_json(
        tmp_path / "r.json",
        [{"calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, ANSWER],
    )
    result = invoke(
        "ask",
        "What do the notes say?",
        "-m",
        f"scripted:{replies}",
        "-f",
        str(attachment),
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["answer"] == "1925"
    assert data["files"] == ["notes.txt"]
    assert (data["model"], data["policy"], data["outcome"]) == (
        "scripted:r.json",
        "react",
        "answered",
    )
    assert data["evidence"][0]["text"] == "the answer is 1925\n"
    assert [entry["action"]["kind"] for entry in data["trace"]] == ["tool_call", "final_answer"]
    kinds = [event["kind"] for event in data["events"]]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert "llm_text_delta" not in kinds
    assert data["total_tokens"] == 210


def test_ask_denies_gated_tools_unless_yes(tmp_path: Path) -> None:
    replies = write_json(
        tmp_path / "r.json",
        [{"calls": [{"name": "python", "arguments": {"code": "print(6*7)"}}]}, ANSWER],
    )
    denied = invoke("ask", "Six times seven?", "-m", f"scripted:{replies}", "--json")
    allowed = invoke("ask", "Six times seven?", "-m", f"scripted:{replies}", "--json", "--yes")
    decisions = [
        [e["details"] for e in json.loads(r.stdout)["events"] if e["kind"] == "approval_decided"]
        for r in (denied, allowed)
    ]
    assert [(d["decision"], d["source"]) for d in decisions[0]] == [("deny", "no_person")]
    assert [(d["decision"], d["source"]) for d in decisions[1]] == [("allow_once", "auto")]
    python_output = [
        e["details"]["output"]
        for e in json.loads(allowed.stdout)["events"]
        if e["kind"] == "tool_call_finished"
    ]
    assert python_output and "42" in python_output[0]


def test_ask_without_an_answer_exits_1(tmp_path: Path) -> None:
    replies = write_json(tmp_path / "r.json", [CALCULATE])  # then the script runs out
    result = invoke("ask", "What is 37*49+112?", "-m", f"scripted:{replies}")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] in {"(no answer)", "1925"}
    assert "ran out of replies" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["  "], "the question is empty"),
        (["q", "-f", "/no/such/file.pdf"], "no such file to attach: /no/such/file.pdf"),
        (["q", "-m", "scripted:/no/such.json"], "no such scripted replies file"),
        (["q", "-m", "scripted:BAD"], "not valid JSON"),
        (["q", "-m", "scripted:WRONG"], "reply 1: a reply is a string or an object"),
        (["q", "-m", "scripted:EMPTY"], "ran out of replies"),
        (["q", "-m", "  "], "a model is required"),
        (["q", "-f", "SAME", "-f", "SAME2"], "two attached files are both named"),
    ],
)
def test_ask_bad_input_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bad.json").write_text("{oops")
    write_json(tmp_path / "wrong.json", [42])
    write_json(tmp_path / "empty.json", [])
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_text("1")
    (tmp_path / "x.txt").write_text("2")
    swap = {
        "scripted:BAD": f"scripted:{tmp_path / 'bad.json'}",
        "scripted:WRONG": f"scripted:{tmp_path / 'wrong.json'}",
        "scripted:EMPTY": f"scripted:{tmp_path / 'empty.json'}",
        "SAME": str(tmp_path / "x.txt"),
        "SAME2": str(tmp_path / "a" / "x.txt"),
    }
    result = invoke("ask", *(swap.get(arg, arg) for arg in args))
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.splitlines()[-1].startswith("arena: ")
    assert "Traceback" not in result.output


def test_ask_reports_a_missing_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = invoke("ask", "What is 2+2?", "--model", "openai/gpt-5-nano")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "arena: No API key for openai/gpt-5-nano: set OPENAI_API_KEY in the environment, "
        "or give this player an api_key."
    )
    assert "Traceback" not in result.output


def test_ask_through_litellm_and_a_local_server(fake_openai, tmp_path: Path) -> None:
    fake_openai.script(
        Reply(
            "Let me compute.",
            tool_calls=[FakeToolCall("calculator", '{"expression": "37*49+112"}')],
            prompt_tokens=150,
            completion_tokens=20,
        ),
        Reply(
            tool_calls=[FakeToolCall("final_answer", '{"answer": "1925"}')],
            prompt_tokens=260,
            completion_tokens=12,
        ),
    )
    result = invoke("ask", "What is 37*49+112?", "--model", fake_openai.model)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "1925"
    assert "answered in 2 steps, 442 tokens (410 in, 32 out)" in result.stdout
    assert any("calculator ok" in line for line in result.stderr.splitlines())
    first, second = fake_openai.chat_requests
    offered = {tool["function"]["name"] for tool in first.body["tools"]}
    assert {"calculator", "python", "read_file", "final_answer"} <= offered
    assert first.messages[-1] == {"role": "user", "content": "What is 37*49+112?"}
    assert "37*49+112 = 1925" in str(second.messages[-1]["content"])


# --- questions run ------------------------------------------------------------------------------


def demo_replies(tmp_path: Path) -> Path:
    """Static scripted replies for the first three demo questions (two right, one wrong)."""
    return write_json(
        tmp_path / "demo.json",
        {
            "demo-01": [
                {"calls": [{"name": "read_file", "arguments": {"path": "harvest_report.pdf"}}]},
                {"calls": [{"name": "final_answer", "arguments": {"answer": "1987"}}]},
            ],
            "demo-02": [
                {
                    "calls": [{"name": "calculator", "arguments": {"expression": "412+287+356"}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "cost_usd": 0.25},
                },
                {"calls": [{"name": "final_answer", "arguments": {"answer": "1,055"}}]},
            ],
            "*": [
                "I do not know.",
                {"calls": [{"name": "final_answer", "arguments": {"answer": "7"}}]},
            ],
        },
    )


def test_questions_run_writes_predictions_and_prints_accuracy(tmp_path: Path) -> None:
    output = tmp_path / "predictions.jsonl"
    result = invoke(
        "questions", "run", "demo", "--model", f"scripted:{demo_replies(tmp_path)}",
        "--limit", "3", "--output", str(output), "-j", "2",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("demo: 3 questions, model scripted:")
    assert lines[0].endswith("demo.json, policy react, gaia scoring")
    assert "Level 1: 1/1 100.0%, $0.0000, median 2 steps" in lines
    assert "Level 2: 1/1 100.0%, $0.2500, median 2 steps" in lines
    assert "Level 3: 0/1 0.0%, $0.0000, median 2 steps" in lines
    assert "Total: 2/3 66.7%, $0.2500, median 2 steps" in lines
    assert lines[-1] == f"Predictions: {output}"
    assert "right demo-01 L1 1987" in result.stderr
    assert "wrong demo-03 L3 7" in result.stderr
    assert "3/3" in result.stderr  # the progress bar finished
    assert "pass --yes" in result.stderr

    rows = [json.loads(line) for line in output.read_text().splitlines()]
    by_id = {row["task_id"]: row for row in rows}
    assert set(by_id) == {"demo-01", "demo-02", "demo-03"}
    assert by_id["demo-02"]["model_answer"] == "1,055"
    assert (by_id["demo-02"]["correct"], by_id["demo-02"]["score_mode"]) == (True, "gaia")
    assert by_id["demo-02"]["cost_usd"] == 0.25
    assert by_id["demo-01"]["steps"] == 2
    assert "read_file" in by_id["demo-01"]["reasoning_trace"]

    # the predictions file scores the same way with `questions score`
    scored = json.loads(invoke("questions", "score", "demo", str(output), "--json").stdout)
    assert (scored["correct"], scored["total"], scored["missing"]) == (2, 13, 10)


def test_questions_run_on_a_folder_with_an_unanswered_question(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "metadata.jsonl").write_text(
        json.dumps({"task_id": "a", "Question": "2+2?", "Level": 1, "Final answer": "4"}) + "\n"
        + json.dumps({"task_id": "b", "Question": "Why?", "Level": 2}) + "\n"
    )  # fmt: skip
    replies = write_json(
        tmp_path / "r.json",
        [{"calls": [{"name": "final_answer", "arguments": {"answer": "four"}}]}],
    )
    output = tmp_path / "out.jsonl"
    args = ["questions", "run", str(folder), "-m", f"scripted:{replies}", "-o", str(output)]
    gaia = invoke(*args)
    lenient = invoke(*args, "--mode", "lenient")
    assert gaia.exit_code == 0, gaia.output
    assert "Total: 0/1 0.0%, $0.0000, median 1 steps, 1 unscored" in gaia.stdout
    assert "Total: 1/1 100.0%" in lenient.stdout
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert [(row["task_id"], row["correct"]) for row in rows] == [("a", True), ("b", None)]


def test_questions_run_stops_when_the_model_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    output = tmp_path / "out.jsonl"
    result = invoke(
        "questions", "run", "demo", "-m", "openai/gpt-5-nano", "-o", str(output), "-j", "3"
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith("arena: No API key for openai/gpt-5-nano")
    assert "Traceback" not in result.output
    assert output.read_text() == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuch", "-m", "scripted:R"], "unknown question set 'nosuch'"),
        (["demo", "-m", "scripted:/no/such.json"], "no such scripted replies file"),
        (["demo", "-m", "scripted:R", "-o", "/no/such/dir/out.jsonl"], "cannot write"),
    ],
)
def test_questions_run_bad_input_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    replies = str(write_json(tmp_path / "r.json", ["x"]))
    args = [arg.replace("scripted:R", f"scripted:{replies}") for arg in args]
    result = invoke("questions", "run", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_questions_run_rejects_bad_numbers() -> None:
    assert invoke("questions", "run", "demo", "-m", "x", "--concurrency", "0").exit_code == 2
    assert invoke("questions", "run", "demo", "-m", "x", "--limit", "0").exit_code == 2
    assert invoke("questions", "run", "demo").exit_code == 2  # --model is required


def test_questions_run_is_recorded_in_the_store(tmp_path: Path) -> None:
    from arena.store import Store

    db = tmp_path / "runs.db"
    result = invoke(
        "questions", "run", "demo", "--model", f"scripted:{demo_replies(tmp_path)}",
        "--limit", "2", "--output", str(tmp_path / "p.jsonl"), "--db", str(db),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    store = Store.open(db)
    (row,) = store.db["question_runs"].rows
    assert row["set_name"] == "demo" and row["accuracy"] == 1.0
    assert store.stream(row["id"])["status"] == "finished"
    kinds = [event.kind for event in store.events(row["id"])]
    assert kinds.count("question_finished") == 2
    assert "agent_event" in kinds
    finished = [e.payload for e in store.events(row["id"], kinds=("question_finished",))]
    assert {f["task_id"] for f in finished} == {"demo-01", "demo-02"}


def test_ask_is_saved_as_a_chat_session(tmp_path: Path) -> None:
    from arena.sessions import list_sessions, session_events
    from arena.store import Store

    db = tmp_path / "ask.db"
    replies = write_json(tmp_path / "r.json", [CALCULATE, ANSWER])
    result = invoke("ask", "What is 37*49+112?", "--model", f"scripted:{replies}", "--db", str(db))
    assert result.exit_code == 0, result.output
    store = Store.open(db)
    (session,) = list_sessions(store)
    assert session.title.startswith("What is 37*49+112?")
    kinds = [event["kind"] for event in session_events(store, session.id)]
    assert (
        kinds[0] == "run_started" and "tool_call_finished" in kinds and kinds[-1] == "run_finished"
    )
    assert list_sessions(store, "1925")  # searchable by the answer
