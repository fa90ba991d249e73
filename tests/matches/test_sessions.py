"""Chat sessions without the UI: saved as they happen, searched, resumed (history, approvals,
run numbers), exported to Markdown and self-contained HTML with secrets kept out; MCP servers
as gated tools; question-set logs."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from arena.chat import ChatController, ChatSetupError, budget_summary, check_attachment
from arena.chat_questions import QuestionRunLog, attachment_text, score_person
from arena.chat_transcript import ERROR, RUNNING, ToolCallEntry, Transcript, budget_left
from arena.questions import resolve_question_set
from arena.session_export import (
    export_file_name,
    export_session,
    render_session,
    session_html,
    session_markdown,
)
from arena.sessions import (
    create_session,
    delete_session,
    known_secrets,
    list_sessions,
    scrub,
    session_events,
    session_summary,
    session_workspace,
)
from arena.store import Store, StoreError
from engines.agent.budget import Budget
from engines.agent.events import event_from_dict
from engines.agent.llm import Usage
from engines.agent.scripted import ScriptedHuman, ScriptedLLM, call, reply

USAGE = Usage(prompt_tokens=100, completion_tokens=20, cost_usd=0.001)
SECRET = "sk-test-0123456789abcdef"
DEMO_SERVER = Path(__file__).parents[1] / "tools" / "mcp_demo_server.py"


@pytest.fixture
def store(tmp_path) -> Store:
    return Store.open(tmp_path / "arena.db")


def controller(store, script, *, policy="react+", human=None, **options) -> ChatController:
    llm = script if isinstance(script, ScriptedLLM) else ScriptedLLM(script, default_usage=USAGE)
    return ChatController(
        store,
        model="scripted",
        policy=policy,
        llm_factory=lambda model: llm,
        human=human or ScriptedHuman(),
        clock=lambda: 50.0,
        **options,
    )


def kinds(store, session_id) -> list[str]:
    return [event["kind"] for event in session_events(store, session_id)]


# --- saving and resuming ---------------------------------------------------------------------


async def test_a_session_is_saved_as_it_happens(store):
    seen: list[tuple[str, list[str]]] = []
    chat = controller(
        store,
        [
            reply("Computing.", calls=[call("calculator", expression="6 * 7")]),
            reply(calls=[call("final_answer", answer="42")]),
        ],
    )
    assert chat.session_id is None  # nothing is created before the first question

    def watch(event) -> None:
        # Each event is already in the database when the view hears of it.
        seen.append((event.kind, kinds(store, chat.session_id)))

    result = await chat.ask("What is six times seven?", on_event=watch)
    assert result.answer == "42"
    for kind, stored in seen:
        if kind != "llm_text_delta":
            assert stored[-1] == kind
    summary = session_summary(store, chat.session_id)
    assert (summary.title, summary.model, summary.policy, summary.questions) == (
        "What is six times seven?",
        "scripted",
        "react+",
        1,
    )
    assert summary.cost_usd == pytest.approx(0.002) and summary.status == "idle"
    assert "llm_text_delta" not in kinds(store, chat.session_id)
    assert session_workspace(store, chat.session_id).is_dir()


async def test_resume_brings_back_history_approvals_and_run_numbers(store):
    human = ScriptedHuman(decisions=["allow_session_tool"])
    first = controller(
        store,
        [
            reply(calls=[call("write_file", path="a.txt", content="one")]),
            reply(calls=[call("final_answer", answer="saved")]),
        ],
        human=human,
    )
    await first.ask("Save a note.")
    assert len(human.approvals) == 1

    llm = ScriptedLLM(
        [
            reply(calls=[call("write_file", path="b.txt", content="two")]),
            reply(calls=[call("final_answer", answer="saved again")]),
        ],
        default_usage=USAGE,
    )
    later = ScriptedHuman()  # would fail if asked: the session rule must answer
    resumed = ChatController.resume(
        store, first.session_id, llm_factory=lambda model: llm, human=later
    )
    assert (resumed.model, resumed.policy) == ("scripted", "react+")
    result = await resumed.ask("Save another.")
    assert result.answer == "saved again" and result.run == 1
    assert later.approvals == []
    history = llm.requests[0].text()
    assert "Save a note." in history and "saved" in history
    decided = [
        e for e in session_events(store, first.session_id) if e["kind"] == "approval_decided"
    ]
    assert [e["details"]["source"] for e in decided] == ["person", "session"]
    assert (session_workspace(store, first.session_id) / "b.txt").read_text() == "two"
    assert session_summary(store, first.session_id).questions == 2


async def test_switching_policy_and_budget_keeps_the_conversation(store):
    llm = ScriptedLLM(
        [
            reply(calls=[call("final_answer", answer="Paris")]),
            reply(calls=[call("add_tasks", tasks=["Look it up"])]),
            reply(calls=[call("complete_task", task_id="T1", result="about 2.1 million")]),
            reply(calls=[call("final_answer", answer="2.1 million")]),
        ],
        default_usage=USAGE,
    )
    chat = controller(store, llm, policy="react")
    await chat.ask("Capital of France?")
    chat.set_policy("plan")
    chat.set_budget(Budget(max_steps=4, max_cost_usd=None))
    chat.set_model("other/model")
    result = await chat.ask("How many people live there?")
    assert result.answer == "2.1 million"
    started = [e for e in session_events(store, chat.session_id) if e["kind"] == "run_started"]
    assert [e["details"]["policy"] for e in started] == ["react", "plan"]
    assert started[1]["details"]["budget"]["max_steps"] == 4
    assert started[1]["run"] == 1
    assert "Capital of France?" in llm.requests[1].text()
    with pytest.raises(ChatSetupError):
        chat.set_policy("yolo")
    with pytest.raises(ChatSetupError):
        chat.set_model("  ")
    assert budget_summary(Budget(max_steps=4, max_cost_usd=None)) == "4 steps, 400k tok, 600 s"


async def test_attached_files_are_copied_into_the_workspace(store, tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("x\n1\n")
    chat = controller(
        store,
        [
            reply(calls=[call("read_file", path="data.csv")]),
            reply(calls=[call("final_answer", answer="1")]),
        ],
    )
    path = check_attachment(data)
    with pytest.raises(ChatSetupError, match="No such file"):
        check_attachment(tmp_path / "missing.csv")
    other = tmp_path / "sub"
    other.mkdir()
    (other / "data.csv").write_text("y")
    with pytest.raises(ChatSetupError, match="already attached"):
        check_attachment(other / "data.csv", [path])
    result = await chat.ask("Read it.", [path])
    assert result.answer == "1"
    finished_call = next(
        e for e in session_events(store, chat.session_id) if e["kind"] == "tool_call_finished"
    )
    assert not finished_call["details"]["is_error"] and "1" in finished_call["details"]["output"]
    with pytest.raises(ChatSetupError):
        await chat.ask("   ")


def test_a_policy_that_needs_a_person_without_one_is_a_setup_error(store):
    chat = ChatController(
        store, model="m", policy="react+", llm_factory=lambda model: ScriptedLLM([])
    )
    with pytest.raises(ChatSetupError, match="human"):
        chat._agent_session(
            session_workspace(store, create_session(store, model="m", policy="react+"))
        )


# --- listing and searching ---------------------------------------------------------------------


async def test_search_over_titles_and_text(store):
    first = controller(
        store,
        [
            reply("Looking at the Café list.", calls=[call("calculator", expression="17 * 3")]),
            reply(calls=[call("final_answer", answer="51 bananas")]),
        ],
    )
    await first.ask("How many BANANAS in three crates?")
    second = controller(store, [reply(calls=[call("final_answer", answer="blue")])])
    await second.ask("What colour is the sky?")
    empty = create_session(store, model="m", policy="react")

    assert {s.id for s in list_sessions(store)} == {first.session_id, second.session_id, empty}
    assert [s.id for s in list_sessions(store, "bananas")] == [first.session_id]  # any case
    assert [s.id for s in list_sessions(store, "17 * 3")] == [first.session_id]  # tool args
    assert [s.id for s in list_sessions(store, "crates 51")] == [first.session_id]  # all words
    assert list_sessions(store, "crates blue") == []
    assert [s.id for s in list_sessions(store, "café")] == [first.session_id]  # not ASCII
    assert [s.id for s in list_sessions(store, "CAFÉ")] == [first.session_id]
    assert [s.id for s in list_sessions(store, "sky")] == [second.session_id]
    # Names of fields and codes are not text: every session has them.
    assert list_sessions(store, "details") == []
    assert list_sessions(store, "react+") == []
    assert list_sessions(store, "%") == [] and list_sessions(store, "_") == []
    found = list_sessions(store, "crates")[0]
    assert "crates" in found.match


def test_damaged_or_missing_sessions_say_so(store):
    with pytest.raises(StoreError):
        session_summary(store, "nope")
    with pytest.raises(StoreError):
        session_events(store, "nope")
    session_id = create_session(store, model="m", policy="react")
    store.append(session_id, "note", {"not": "an agent event"})
    with pytest.raises(StoreError, match="not an agent event"):
        session_events(store, session_id)
    workspace = session_workspace(store, session_id)
    (workspace / "left.txt").write_text("x")
    delete_session(store, session_id)
    assert not workspace.exists() and list_sessions(store) == []


# --- secrets ----------------------------------------------------------------------------------


async def test_secrets_never_reach_the_database_or_exports(store, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    settings_key = "gsk-settings-only-key-42"
    chat = controller(
        store,
        [
            reply(f"My key is {SECRET}.", calls=[call("calculator", expression="1 + 1")]),
            reply(calls=[call("final_answer", answer=f"{settings_key} and 2")]),
        ],
        secrets=[settings_key],
    )
    await chat.ask(f"Repeat {SECRET}")
    raw = "\n".join(
        row[0] for row in store.db.execute("SELECT payload FROM events").fetchall()
    ) + json.dumps(session_summary(store, chat.session_id).__dict__)
    assert SECRET not in raw and settings_key not in raw and "[redacted]" in raw
    for fmt in ("markdown", "html"):
        text = render_session(store, chat.session_id, fmt, known_secrets([settings_key]))
        assert SECRET not in text and settings_key not in text
    assert scrub({"k": [SECRET, 3]}, (SECRET,)) == {"k": ["[redacted]", 3]}
    assert SECRET in known_secrets()
    assert "short" not in known_secrets(["short"])


# --- exports ---------------------------------------------------------------------------------


async def plan_session(store) -> ChatController:
    human = ScriptedHuman(answers=["the red one"], decisions=["deny"])
    chat = controller(
        store,
        [
            reply(
                "Plan: <b>first</b> & ```code```",
                calls=[call("add_tasks", tasks=["Ask which", "Compute", "Write it down"])],
            ),
            reply(calls=[call("ask_user", question="Which <crate>?")]),
            reply(
                calls=[
                    call("calculator", expression="2 * 21"),
                    call("complete_task", task_id="T1", result="the red one"),
                ]
            ),
            reply(calls=[call("complete_task", task_id="T2", result="2 * 21 = 42")]),
            reply(calls=[call("final_answer", answer="42")]),
            reply(calls=[call("write_file", path="x.txt", content="42")]),
            reply(calls=[call("skip_task", task_id="T3", reason="writing was denied")]),
            reply(calls=[call("final_answer", answer="42")]),
        ],
        policy="plan",
        human=human,
    )
    await chat.ask("<script>alert('x')</script> How many in the crate?")
    return chat


async def test_markdown_export(store, tmp_path):
    chat = await plan_session(store)
    path = export_session(store, chat.session_id, "markdown", tmp_path)
    assert path.name == export_file_name(session_summary(store, chat.session_id), "markdown")
    assert path.name.startswith("chat-script-alert") and path.suffix == ".md"
    text = path.read_text()
    assert text.startswith("# <script>alert('x')</script> How many in the crate?")
    for expected in (
        "## Question 1",
        "**The agent asked you:** Which <crate>?",
        "**You answered:** the red one",
        "**Tool** `calculator` (safe): ok, 0.00 s, E2",
        "2 * 21 = 42",
        "**Tool** `write_file` (write): denied",
        "Approval: denied by you",
        "Push-back 1",
        "- [x] T1 Ask which: the red one",
        "- [-] T3 ~~Write it down~~: writing was denied",
        "**Answer:** 42",
        "1 question · ",
    ):
        assert expected in text, expected
    # A reply holding a code fence is quoted with a longer fence.
    assert "````" not in text or "```code```" in text


async def test_html_export_is_self_contained_and_escaped(store, tmp_path):
    chat = await plan_session(store)
    path = export_session(store, chat.session_id, "html", tmp_path)
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<style>" in page and "default-src 'none'" in page
    assert "<script" not in page.lower() and "alert(&#x27;x&#x27;)" in page
    assert "&lt;b&gt;first&lt;/b&gt; &amp;" in page and "Which &lt;crate&gt;?" in page
    # Nothing is loaded from anywhere: no links, sources or imports.
    assert not re.search(r"\b(src|href)\s*=", page) and "@import" not in page and "url(" not in page
    assert '<details class="error"><summary>write_file (write): denied' in page
    assert '<li class="skipped">[-] T3 Write it down: writing was denied</li>' in page
    assert '<div class="answer"><b>Answer:</b> 42</div>' in page
    with pytest.raises(ValueError):
        render_session(store, chat.session_id, "pdf")


def test_exports_of_a_stopped_run_keep_what_was_said(store):
    session_id = create_session(store, model="m", policy="react")
    events = [
        {
            "kind": "run_started",
            "run": 0,
            "step": 0,
            "details": {"question": "Go", "policy": "react", "model": "m"},
        },
        {"kind": "step_started", "run": 0, "step": 1, "details": {}},
        {
            "kind": "tool_call_started",
            "run": 0,
            "step": 1,
            "details": {"call_id": "c1", "tool": "python", "args": {"code": "1"}, "risk": "exec"},
        },
        {
            "kind": "run_finished",
            "run": 0,
            "step": 1,
            "details": {"outcome": "cancelled", "partial_text": "I was saying"},
        },
    ]
    for event in events:
        event["summary"] = event["kind"]
        store.append(session_id, event["kind"], event)
    summary = session_summary(store, session_id)
    text = session_markdown(summary, session_events(store, session_id), ())
    assert "I was saying" in text and "(no answer) *(stopped)*" in text
    assert "python` (exec): error" in text and "stopped before it finished" in text
    assert "I was saying" in session_html(summary, session_events(store, session_id), ())


# --- the transcript fold ------------------------------------------------------------------------


async def test_the_transcript_reads_live_and_stored_events_alike(store):
    chat = await plan_session(store)
    live = chat.events
    stored = session_events(store, chat.session_id)
    assert Transcript(live).entries == Transcript(stored).entries
    assert Transcript([event_from_dict(e) for e in stored]).entries == Transcript(stored).entries
    transcript = Transcript(stored)
    assert [task.status for task in transcript.run_tasks()] == ["completed", "completed", "skipped"]
    calls = transcript.tool_calls()
    assert [c.tool for c in calls] == [
        "add_tasks",
        "ask_user",
        "calculator",
        "complete_task",
        "complete_task",
        "write_file",
        "skip_task",
    ]
    denied = calls[5]
    assert denied.status == "denied" and denied.is_error and denied.approval == "denied by you"
    stats = transcript.last_run
    assert stats.outcome == "answered" and stats.answer == "42" and stats.step == 8
    assert stats.tokens == 8 * 120 and transcript.cost_usd == pytest.approx(0.008)
    assert budget_left(stats) == {
        "steps": 15 - stats.productive_steps,
        "tokens": 400_000 - 960,
        "cost": pytest.approx(0.992),
    }


def test_a_call_without_a_finish_is_running_until_the_run_is_stopped():
    transcript = Transcript()
    transcript.apply(
        {
            "kind": "run_started",
            "run": 0,
            "step": 0,
            "summary": "",
            "details": {"question": "q", "policy": "react", "model": "m"},
        }
    )
    entry = transcript.apply(
        {
            "kind": "tool_call_started",
            "run": 0,
            "step": 1,
            "summary": "",
            "details": {"call_id": "a", "tool": "python", "args": {}},
        }
    )
    assert (
        isinstance(entry, ToolCallEntry) and entry.status == RUNNING and transcript.last_run.running
    )
    transcript.apply(
        {
            "kind": "run_finished",
            "run": 0,
            "step": 1,
            "summary": "",
            "details": {"outcome": "cancelled"},
        }
    )
    assert transcript.entry(entry.key).status == ERROR


# --- MCP servers ------------------------------------------------------------------------------


async def test_mcp_servers_become_gated_tools_and_failures_are_reported(store, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": {"command": sys.executable, "args": [str(DEMO_SERVER)]},
                    "ghost": {"command": str(tmp_path / "no-such-server")},
                }
            }
        )
    )
    human = ScriptedHuman(decisions=["allow_once", "deny"])
    llm = ScriptedLLM(
        [
            reply(calls=[call("demo__add", a=2, b=3)]),
            reply(calls=[call("demo__shout", text="hi")]),
            reply(calls=[call("final_answer", answer="5")]),
        ],
        default_usage=USAGE,
    )
    chat = controller(store, llm, human=human, mcp_config=config)
    try:
        notes = await chat.start_tools()
        assert sorted((note.ok, note.text.split(":")[0]) for note in notes) == [
            (False, "MCP server ghost failed"),
            (True, "MCP server demo"),
        ]
        result = await chat.ask("Add 2 and 3.")
    finally:
        await chat.aclose()
    assert result.answer == "5"
    assert [tool for tool, _, _ in human.approvals] == ["demo__add", "demo__shout"]  # gated
    finished = [
        e["details"]
        for e in session_events(store, chat.session_id)
        if e["kind"] == "tool_call_finished"
    ]
    assert finished[0]["output"] == "5" and not finished[0]["is_error"]
    assert finished[1]["is_error"]
    assert "demo__add" in llm.requests[0].tool_names


async def test_an_unreadable_mcp_file_is_a_note_not_a_failure(store, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text("{not json")
    chat = controller(store, [reply(calls=[call("final_answer", answer="ok")])], mcp_config=config)
    [note] = await chat.start_tools()
    assert not note.ok and "not valid JSON" in note.text
    assert (await chat.ask("Still fine?")).answer == "ok"


# --- question sets from the app -------------------------------------------------------------------


async def test_question_run_logs_for_the_agent_and_a_person(store):
    demo = resolve_question_set("demo")
    first, second = demo.questions[:2]
    person = QuestionRunLog.start(store, demo.name, model="human", policy="human")
    right = person.record_person(first, first.final_answer, seconds=12.5)
    wrong = person.record_person(second, "no idea", seconds=3.0)
    person.finish()
    assert right.correct and not wrong.correct
    assert person.report.accuracy == 0.5
    row = store.db.execute(
        "SELECT set_name, model, accuracy FROM question_runs WHERE id = ?", [person.run_id]
    ).fetchone()
    assert row == ("demo", "human", 0.5)
    payloads = [event.payload for event in store.events(person.run_id)]
    assert [p["correct"] for p in payloads] == [True, False] and payloads[0]["wall_s"] == 12.5
    assert store.stream(person.run_id)["status"] == "finished"
    assert score_person(first, "  " + first.final_answer + " ").correct
    shown = await attachment_text(first)
    assert "Ridgeback" in shown
