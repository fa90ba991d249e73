"""The chat with the agent through the app, driven by a scripted model: streaming, the tool log,
the task list and push-backs, approvals, questions to the person, Esc, resume, switching model
and policy, attachments, MCP failures, the sessions browser and question sets; then snapshots
of the chat's states at 120x40."""

from __future__ import annotations

import asyncio
import io
import itertools
import json

import pytest
from rich.console import Console
from textual.widgets import DataTable, Input

from arena.sessions import list_sessions, session_events, session_workspace
from arena.settings import PROVIDER_KEYS
from engines.agent.llm import LLMReply, TextDelta, Usage
from engines.agent.scripted import ScriptedLLM, call, reply
from screens.app import ArenaApp
from screens.approval import ApprovalScreen
from screens.chat import ChatScreen, PolicyScreen, ReplyGrew
from screens.questions import PersonAnswerScreen, QuestionSetScreen
from screens.sessions import SessionsScreen
from screens.widgets.chat_log import (
    AnswerMessage,
    AskMessage,
    NoticeMessage,
    QuestionMessage,
    ReplyMessage,
)
from screens.widgets.status_bar import StatusBar
from screens.widgets.task_list import TaskList
from screens.widgets.tool_log import ToolCallRow, ToolLog

USAGE = Usage(prompt_tokens=120, completion_tokens=30, cost_usd=0.0012)


class SteppedLLM(ScriptedLLM):
    """A scripted model that waits for the test to let each call through."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.gate = asyncio.Semaphore(0)

    async def complete(self, messages, *, tools=None, on_delta=None):
        await self.gate.acquire()
        return await super().complete(messages, tools=tools, on_delta=on_delta)

    def release(self, calls: int = 1) -> None:
        for _ in range(calls):
            self.gate.release()


class HalfwayLLM:
    """Streams the first half of `text`, waits for `go`, streams the rest and replies with
    `text`; later calls go to a scripted model."""

    model = "scripted"

    def __init__(self, text: str, then=()) -> None:
        self.text = text
        self.go = asyncio.Event()
        self.then = ScriptedLLM(list(then), default_usage=USAGE)
        self.started = False

    async def complete(self, messages, *, tools=None, on_delta=None):
        if self.started:
            return await self.then.complete(messages, tools=tools, on_delta=on_delta)
        self.started = True
        half = len(self.text) // 2
        for start in range(0, half, 4):
            on_delta(TextDelta(self.text[start : min(start + 4, half)]))
        await self.go.wait()
        for start in range(half, len(self.text), 4):
            on_delta(TextDelta(self.text[start : start + 4]))
        return LLMReply(text=self.text, usage=USAGE, model=self.model)


def plain(renderable) -> str:
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def fixed_clock() -> float:
    return 1000.0


async def wait_for(pilot, condition, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition never held")


@pytest.fixture
def app(tmp_path, monkeypatch):
    for variable in PROVIDER_KEYS.values():
        monkeypatch.delenv(variable, raising=False)
    counter = itertools.count(1)
    monkeypatch.setattr("arena.store.new_id", lambda: f"s{next(counter):04d}")
    return ArenaApp(db=tmp_path / "arena.db", settings_file=tmp_path / "settings.yaml")


def chat(app, llm, **options) -> ChatScreen:
    options.setdefault("clock", fixed_clock)
    return ChatScreen(app.store, app.settings, llm_factory=lambda model: llm, **options)


async def open_chat(app, pilot, llm, *, policy: str | None = None, **options) -> ChatScreen:
    screen = chat(app, llm, **options)
    if policy:
        screen.controller.set_policy(policy)
    await app.push_screen(screen)
    await pilot.pause()
    return screen


async def ask(pilot, screen: ChatScreen, question: str) -> None:
    box = screen.query_one("#chat-input", Input)
    box.focus()
    box.value = question
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.running or screen.transcript.runs)


async def finished(pilot, screen: ChatScreen, runs: int = 1) -> None:
    await wait_for(
        pilot,
        lambda: (
            not screen.running
            and len(screen.transcript.runs) >= runs
            and screen.query(AnswerMessage)
            and len(screen.query(AnswerMessage)) >= runs
        ),
    )
    await pilot.pause()


def rows(screen: ChatScreen) -> list[ToolCallRow]:
    return list(screen.query_one("#chat-tools", ToolLog).rows.values())


def texts(screen: ChatScreen, kind) -> list[str]:
    return [str(widget.render()) for widget in screen.query(kind)]


def plan_script(llm_class=ScriptedLLM, **options):
    return llm_class(
        [
            reply(
                "Let me **plan** first.",
                calls=[call("add_tasks", tasks=["Compute 12 * 3", "Check the result"])],
            ),
            reply(
                calls=[
                    call("calculator", expression="12 * 3"),
                    call("complete_task", task_id="T1", result="12 * 3 = 36"),
                ]
            ),
            reply("The answer is 36.", calls=[call("final_answer", answer="36")]),
            reply(calls=[call("skip_task", task_id="T2", reason="the calculator is exact")]),
            reply(calls=[call("final_answer", answer="36")]),
        ],
        default_usage=USAGE,
        **options,
    )


# --- streaming --------------------------------------------------------------------------------------


async def test_a_streamed_answer(app):
    text = "## Working it out\n\nTwelve times three is **36**, because 12 + 12 + 12 = 36."
    llm = HalfwayLLM(text, then=[reply(calls=[call("final_answer", answer="36")])])
    grew: list[str] = []

    def hook(message) -> None:
        if isinstance(message, ReplyGrew):
            grew.append(message.text)

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        screen = await open_chat(app, pilot, llm, policy="react")
        await ask(pilot, screen, "What is 12 * 3?")
        # Half the reply is on screen while the model is still writing.
        half = text[: len(text) // 2]
        await wait_for(
            pilot, lambda: [reply.text for reply in screen.query(ReplyMessage)] == [half]
        )
        assert screen.query_one(ReplyMessage).streaming
        assert screen.query_one(StatusBar).status.state == "thinking"
        llm.go.set()
        await finished(pilot, screen)

        replies = list(screen.query(ReplyMessage))
        assert len(replies) == 1 and replies[0].text == text and not replies[0].streaming
        assert replies[0].source == text  # one full update with the final text
        # Deltas that piled up were merged: fewer redraws than pieces, each the reply so far.
        assert 2 <= len(grew) < len(text) // 4 and grew[-1] == text
        assert all(text.startswith(piece) for piece in grew)
        assert "Answer: 36" in texts(screen, AnswerMessage)[0]
        assert texts(screen, QuestionMessage) == ["You: What is 12 * 3?"]
        status = screen.query_one(StatusBar).status
        assert (status.state, status.tokens, status.policy) == ("idle", 300, "react")
        assert status.cost_usd == pytest.approx(0.0024)

        # Saved as it happened: the session row, its title and every non-transient event.
        [summary] = list_sessions(app.store)
        assert summary.title == "What is 12 * 3?" and summary.policy == "react"
        assert summary.cost_usd == pytest.approx(0.0024)
        kinds = [event["kind"] for event in session_events(app.store, summary.id)]
        assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
        assert "llm_text_delta" not in kinds


# --- tools, tasks, push-back ------------------------------------------------------------------


async def test_tool_calls_tasks_and_push_back(app):
    llm = plan_script(SteppedLLM)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, llm, policy="plan")
        tasks = screen.query_one(TaskList)
        await ask(pilot, screen, "What is 12 * 3?")

        llm.release()  # add_tasks
        await wait_for(pilot, lambda: [task.status for task in tasks.tasks] == ["open", "open"])
        assert tasks.border_title == "Tasks 0/2"
        [add] = rows(screen)
        assert add.entry.tool == "add_tasks" and add.entry.status == "ok"

        llm.release()  # calculator + complete_task
        await wait_for(
            pilot, lambda: [task.status for task in tasks.tasks] == ["completed", "open"]
        )
        calculator = next(row for row in rows(screen) if row.entry.tool == "calculator")
        assert calculator.entry.evidence_id == "E1" and "36" in calculator.entry.preview
        await wait_for(pilot, lambda: tasks.query(".-completed"))
        assert "12 * 3 = 36" in str(tasks.query_one(".-completed").render())

        llm.release()  # an answer with T2 still open: pushed back
        await wait_for(pilot, lambda: screen.query(NoticeMessage))
        assert (
            "Push-back 1" in texts(screen, NoticeMessage)[0]
            and "T2" in texts(screen, NoticeMessage)[0]
        )
        await wait_for(pilot, lambda: tasks.tasks[1].pushed)
        await wait_for(pilot, lambda: tasks.query(".-pushed"))  # the open task stands out
        assert "still open" in str(tasks.query_one(".-pushed").render())
        assert not screen.query(AnswerMessage)

        llm.release(2)  # skip T2, answer again
        await finished(pilot, screen)
        assert [task.status for task in tasks.tasks] == ["completed", "skipped"]
        await wait_for(pilot, lambda: tasks.query(".-skipped"))
        assert tasks.border_title == "Tasks 2/2" and not tasks.query(".-pushed")
        assert [row.entry.tool for row in rows(screen)] == [
            "add_tasks",
            "calculator",
            "complete_task",
            "skip_task",
        ]
        assert all(row.entry.status == "ok" for row in rows(screen))
        assert "Answer: 36" in texts(screen, AnswerMessage)[0]

        # Expanding a row shows everything: arguments and the whole result.
        screen.query_one("#chat-input", Input).focus()
        await pilot.press("ctrl+t")
        assert isinstance(app.focused, ToolCallRow) and app.focused.entry.tool == "skip_task"
        await pilot.press("up", "up", "enter")
        expanded = app.focused
        assert expanded.expanded and expanded.entry.tool == "calculator"
        shown = str(expanded.render())
        assert '"expression": "12 * 3"' in shown and "12 * 3 = 36" in shown and "result:" in shown
        await pilot.press("enter")
        assert not expanded.expanded


async def test_approval_allowed_for_the_session_and_one_denied(app):
    llm = SteppedLLM(
        [
            reply(calls=[call("write_file", path="notes.txt", content="first")]),
            reply(calls=[call("write_file", path="more.txt", content="second")]),
            reply(calls=[call("shell", command="rm -rf /tmp/nothing")]),
            reply(calls=[call("final_answer", answer="done")]),
        ],
        default_usage=USAGE,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, llm, policy="react+")
        await ask(pilot, screen, "Write two notes.")
        llm.release()
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        modal = app.screen
        assert modal.tool == "write_file" and modal.risk == "write"
        assert modal.args == {"path": "notes.txt", "content": "first"}
        await wait_for(pilot, lambda: modal.focused is not None)
        assert modal.focused.id == "deny"  # Enter alone must not allow anything
        [row] = rows(screen)
        assert row.entry.status == "awaiting approval" and row.has_class("-awaiting")
        assert screen.query_one(StatusBar).status.state == "waiting for you"

        await pilot.press("t")  # this tool, for the rest of the session
        await wait_for(pilot, lambda: row.entry.status == "ok")
        assert rows(screen) == [row]  # updated in place
        workspace = session_workspace(app.store, screen.controller.session_id)
        assert (workspace / "notes.txt").read_text() == "first"

        llm.release()  # the second write_file is allowed by the session rule: no modal
        await wait_for(pilot, lambda: (workspace / "more.txt").exists())
        assert not isinstance(app.screen, ApprovalScreen)
        assert "session rule" in rows(screen)[1].entry.approval

        llm.release()
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert app.screen.tool == "shell" and app.screen.risk == "exec"
        await pilot.press("d")
        await wait_for(pilot, lambda: rows(screen)[2].entry.status == "denied")
        denied = rows(screen)[2]
        assert denied.has_class("-denied") and "denied by you" in str(denied.render())
        llm.release()
        await finished(pilot, screen)
        # The model was told about the denial.
        assert "denied this call to shell" in llm.requests[-1].text()
        decisions = [
            (event["details"]["tool"], event["details"]["decision"], event["details"]["source"])
            for event in session_events(app.store, screen.controller.session_id)
            if event["kind"] == "approval_decided"
        ]
        assert decisions == [
            ("write_file", "allow_session_tool", "person"),
            ("write_file", "allow_session_tool", "session"),
            ("shell", "deny", "person"),
        ]


async def test_the_agent_asks_and_the_answer_goes_back(app):
    llm = ScriptedLLM(
        [
            reply(calls=[call("ask_user", question="Which city do you mean?")]),
            reply(calls=[call("final_answer", answer="Paris")]),
        ],
        default_usage=USAGE,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, llm, policy="react+")
        await ask(pilot, screen, "What is the capital?")
        await wait_for(pilot, lambda: screen.query(AskMessage))
        box = screen.query_one("#chat-input", Input)
        await wait_for(pilot, lambda: box.has_class("-answering"))
        assert "Which city do you mean?" in texts(screen, AskMessage)[0]
        assert screen.query_one(StatusBar).status.state == "waiting for you"
        assert box.has_focus
        await pilot.press(*"France", "enter")
        await finished(pilot, screen)
        assert "You answered: France" in texts(screen, AskMessage)[0]
        assert not box.has_class("-answering") and box.placeholder.startswith("Ask a question")
        tool_messages = [m for m in llm.requests[-1].messages if m["role"] == "tool"]
        assert tool_messages[-1]["content"].endswith("France")


async def test_escape_stops_the_run_and_keeps_what_was_said(app):
    words = "Let me think about this carefully, step by step, before I answer anything at all."
    said = words[: len(words) // 2]
    llm = HalfwayLLM(words)  # never told to go on
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, llm, policy="react")
        await ask(pilot, screen, "Think hard.")
        await wait_for(
            pilot, lambda: [reply.text for reply in screen.query(ReplyMessage)] == [said]
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.running and screen.query(AnswerMessage))
        assert app.screen is screen  # the first Esc only stops
        [message] = screen.query(ReplyMessage)
        assert message.text == said and message.source == said and not message.streaming
        assert "Stopped" in texts(screen, AnswerMessage)[0]
        assert screen.query_one(StatusBar).status.state == "idle"
        finished_event = session_events(app.store, screen.controller.session_id)[-1]
        assert finished_event["kind"] == "run_finished"
        assert finished_event["details"]["outcome"] == "cancelled"
        assert finished_event["details"]["partial_text"] == said
        await pilot.press("escape")  # idle: back
        await wait_for(pilot, lambda: app.screen is not screen)


# --- resume --------------------------------------------------------------------------------------


async def test_resume_shows_the_same_panes_and_carries_on(app):
    model = app.settings.chat_model  # the session row keeps the model that answered
    first = SteppedLLM(
        [
            reply("Planning.", calls=[call("add_tasks", tasks=["Save a note"])]),
            reply(calls=[call("write_file", path="a.txt", content="x")]),
            reply(calls=[call("complete_task", task_id="T1", result="saved")]),
            reply(calls=[call("final_answer", answer="saved")]),
        ],
        default_usage=USAGE,
        model=model,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, first, policy="plan")
        await ask(pilot, screen, "Save a note.")
        first.release(2)
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("t")
        first.release(2)
        await finished(pilot, screen)
        session_id = screen.controller.session_id
        before = {
            "tools": [
                (row.entry.key, row.entry.status, row.entry.approval) for row in rows(screen)
            ],
            "tasks": screen.query_one(TaskList).tasks,
            "questions": texts(screen, QuestionMessage),
            "replies": [reply.text for reply in screen.query(ReplyMessage)],
            "answers": texts(screen, AnswerMessage),
            "status": screen.query_one(StatusBar).status,
        }
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not screen)

        second = ScriptedLLM(
            [
                reply(calls=[call("write_file", path="b.txt", content="y")]),
                reply(calls=[call("final_answer", answer="again")]),
            ],
            default_usage=USAGE,
            model=model,
        )
        resumed = await open_chat(app, pilot, second, session_id=session_id)
        after = {
            "tools": [
                (row.entry.key, row.entry.status, row.entry.approval) for row in rows(resumed)
            ],
            "tasks": resumed.query_one(TaskList).tasks,
            "questions": texts(resumed, QuestionMessage),
            "replies": [reply.text for reply in resumed.query(ReplyMessage)],
            "answers": texts(resumed, AnswerMessage),
            "status": resumed.query_one(StatusBar).status,
        }
        assert after == before
        assert resumed.controller.policy == "plan" and session_id in resumed.sub_title

        # The conversation carries on: history, and the session-wide approval of write_file.
        await ask(pilot, resumed, "And another one.")
        await finished(pilot, resumed, runs=2)
        assert not isinstance(app.screen, ApprovalScreen)
        history = second.requests[0].text()
        assert "Save a note." in history and "saved" in history
        assert (session_workspace(app.store, session_id) / "b.txt").read_text() == "y"
        assert list_sessions(app.store)[0].questions == 2


# --- choices: policy, model, budget, files -------------------------------------------------------------


async def test_switch_policy_model_and_budget(app, tmp_path):
    llm = ScriptedLLM([reply(calls=[call("final_answer", answer="4")])], default_usage=USAGE)
    attachment = tmp_path / "numbers.csv"
    attachment.write_text("a,b\n2,2\n")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, llm, attach_from=tmp_path)
        assert screen.controller.policy == "react+"  # the settings' default

        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, PolicyScreen))
        await pilot.press("down", "enter")  # react+ -> plan
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.controller.policy == "plan"
        assert screen.query_one(StatusBar).status.policy == "plan"

        # The command palette switches too.
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"policy react+")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.controller.policy == "react+")

        await pilot.press("f2")
        await wait_for(pilot, lambda: app.screen is not screen)
        app.screen.query_one("#model-name", Input).focus()
        await pilot.press(*"ollama/qwen3", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.controller.model == "ollama/qwen3"

        await pilot.press("f4")
        await wait_for(pilot, lambda: app.screen is not screen)
        app.screen.query_one("#budget-max_steps", Input).value = "5"
        app.screen.query_one("#budget-max_cost_usd", Input).value = ""
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen)
        assert (
            screen.controller.budget.max_steps == 5
            and screen.controller.budget.max_cost_usd is None
        )

        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.screen is not screen)
        await pilot.press(*"numbers.csv", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert "numbers.csv" in str(screen.query_one("#chat-files").render())

        await ask(pilot, screen, "Add the numbers.")
        await finished(pilot, screen)
        started = session_events(app.store, screen.controller.session_id)[0]["details"]
        assert (started["policy"], started["files"]) == ("react+", ["numbers.csv"])
        assert started["budget"]["max_steps"] == 5 and started["budget"]["max_cost_usd"] is None
        workspace = session_workspace(app.store, screen.controller.session_id)
        assert (workspace / "numbers.csv").read_text() == "a,b\n2,2\n"
        assert "numbers.csv" in llm.requests[0].text()
        assert list_sessions(app.store)[0].model == "scripted"
        assert not screen.query_one("#chat-files").display  # used by that question


async def test_a_failing_mcp_server_is_reported_not_fatal(app, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"broken": {"command": "/nonexistent/mcp-server"}}})
    )
    llm = ScriptedLLM([reply(calls=[call("final_answer", answer="fine")])], default_usage=USAGE)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, llm, mcp_config=config)
        tool_log = screen.query_one(ToolLog)
        await wait_for(pilot, lambda: tool_log.query(".tool-note"))
        note = tool_log.query_one(".tool-note")
        assert note.has_class("-error") and "broken" in str(note.render())
        await ask(pilot, screen, "Still there?")
        await finished(pilot, screen)
        assert "Answer: fine" in texts(screen, AnswerMessage)[0]


# --- the sessions browser ---------------------------------------------------------------------------


async def test_sessions_browser_search_export_and_resume(app, tmp_path):
    llm = ScriptedLLM(
        [
            reply(calls=[call("calculator", expression="6 * 7")]),
            reply(calls=[call("final_answer", answer="42")]),
            reply(calls=[call("final_answer", answer="blue")]),
        ],
        default_usage=USAGE,
    )
    exports = tmp_path / "exports"
    exports.mkdir()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(app, pilot, llm, policy="react")
        await ask(pilot, screen, "What is six times seven?")
        await finished(pilot, screen)
        first_id = screen.controller.session_id
        await pilot.press("ctrl+n")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen is not screen
        )
        screen = app.screen
        await ask(pilot, screen, "What colour is the sky?")
        await finished(pilot, screen)

        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        browser = app.screen
        browser.export_dir = exports
        table = browser.query_one("#sessions", DataTable)
        assert table.row_count == 2
        await pilot.press("ctrl+f", *"6 * 7")
        await wait_for(pilot, lambda: table.row_count == 1)
        assert browser.selected().id == first_id
        assert "6 * 7" in str(browser.query_one("#sessions-note").render())
        await pilot.press("enter")  # to the list
        await pilot.press("m", "h")
        await wait_for(pilot, lambda: len(list(exports.iterdir())) == 2)
        markdown = next(exports.glob("*.md")).read_text()
        assert "What is six times seven?" in markdown and "**Answer:** 42" in markdown
        assert "6 * 7 = 42" in markdown
        page = next(exports.glob("*.html")).read_text()
        assert page.startswith("<!DOCTYPE html>") and "6 * 7 = 42" in page

        await pilot.press("enter")  # resume the first session in place of the second
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ChatScreen) and app.screen.controller.session_id == first_id
            ),
        )
        assert texts(app.screen, QuestionMessage) == ["You: What is six times seven?"]
        assert [row.entry.tool for row in rows(app.screen)] == ["calculator"]


# --- question sets ----------------------------------------------------------------------------------


async def test_question_set_agent_run_and_human_baseline(app):
    from arena.questions import resolve_question_set

    demo = resolve_question_set("demo")
    answers = {question.task_id: question.final_answer for question in demo}
    first_id = demo.questions[0].task_id

    def answer(request):
        # Right for every question but the first.
        text = request.text()
        task = next(question for question in demo if question.question in text)
        given = "wrong" if task.task_id == first_id else answers[task.task_id]
        return reply(calls=[call("final_answer", answer=given)], usage=USAGE)

    async with app.run_test(size=(120, 40)) as pilot:
        screen = QuestionSetScreen(
            app.store,
            demo,
            model="scripted",
            policy="react",
            llm_factory=lambda model: ScriptedLLM([answer]),
        )
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("r")
        await wait_for(pilot, lambda: not screen.running and screen.done == len(demo), timeout=30)
        correct = len(demo) - 1
        assert sum(score.correct for score in screen.agent_scores.values()) == correct
        accuracy = plain(screen.query_one("#set-accuracy").content)
        assert "level 1" in accuracy and f"{correct}/{len(demo)}" in accuracy
        table = screen.query_one("#set-questions", DataTable)
        assert str(table.get_cell(first_id, "agent_ok")) == "✗"

        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, PersonAnswerScreen))
        person = app.screen
        first = demo.questions[0]
        await wait_for(
            pilot, lambda: len(str(person.query_one("#baseline-file-text").render())) > 20
        )
        assert first.question in str(person.query_one("#baseline-question").render())
        await pilot.press(*first.final_answer, "enter")
        assert "Correct" in str(person.query_one("#baseline-verdict").render())
        await pilot.press("enter")  # next question
        await pilot.press(*"no idea", "enter")
        assert "Not correct" in str(person.query_one("#baseline-verdict").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert str(table.get_cell(first.task_id, "you_ok")) == "✓"
        accuracy = plain(screen.query_one("#set-accuracy").content)
        assert "You" in accuracy and "1/2 50%" in accuracy
        runs = app.store.db.execute(
            "SELECT model, accuracy FROM question_runs ORDER BY model"
        ).fetchall()
        assert runs == [("human", 0.5), ("scripted", correct / len(demo))]


# --- snapshots ----------------------------------------------------------------------------------------


def _no_blinking(app) -> None:
    for box in app.screen.query(Input):
        box.cursor_blink = False


def snapshot_app(tmp_path, monkeypatch) -> ArenaApp:
    for variable in PROVIDER_KEYS.values():
        monkeypatch.delenv(variable, raising=False)
    counter = itertools.count(1)
    monkeypatch.setattr("arena.store.new_id", lambda: f"s{next(counter):04d}")
    monkeypatch.setattr("screens.sessions._date", lambda timestamp: "2025-06-01 12:00")
    return ArenaApp(db=tmp_path / "arena.db", settings_file=tmp_path / "settings.yaml")


def test_snapshot_new_chat(snap_compare, tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)

    async def run_before(pilot) -> None:
        await open_chat(app, pilot, ScriptedLLM([]))
        _no_blinking(app)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_plan_answered(snap_compare, tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)

    async def run_before(pilot) -> None:
        screen = await open_chat(app, pilot, plan_script(), policy="plan")
        await ask(pilot, screen, "What is 12 * 3?")
        await finished(pilot, screen)
        _no_blinking(app)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_approval(snap_compare, tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)
    llm = ScriptedLLM(
        [
            reply(
                "I will save the result.",
                calls=[call("write_file", path="result.txt", content="36")],
            )
        ],
        default_usage=USAGE,
    )

    async def run_before(pilot) -> None:
        screen = await open_chat(app, pilot, llm, policy="react+")
        await ask(pilot, screen, "Save 12 * 3 to a file.")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_asking_the_person(snap_compare, tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)
    llm = ScriptedLLM(
        [
            reply(
                "Two cities match.",
                calls=[call("ask_user", question="Paris, France or Paris, Texas?")],
            )
        ],
        default_usage=USAGE,
    )

    async def run_before(pilot) -> None:
        screen = await open_chat(app, pilot, llm, policy="react+")
        await ask(pilot, screen, "How many people live in Paris?")
        await wait_for(pilot, lambda: screen.query_one("#chat-input").has_class("-answering"))
        await pilot.pause(0.1)
        _no_blinking(app)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_stopped_mid_reply(snap_compare, tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)
    llm = HalfwayLLM(
        "First I will list the **crates** by colour, then count the red ones, then add."
    )

    async def run_before(pilot) -> None:
        screen = await open_chat(app, pilot, llm, policy="react")
        await ask(pilot, screen, "How many red crates are there?")
        await wait_for(
            pilot, lambda: screen.query(ReplyMessage) and screen.query_one(ReplyMessage).text
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.running and screen.query(AnswerMessage))
        await pilot.pause(0.1)
        _no_blinking(app)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_expanded_error(snap_compare, tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)
    llm = ScriptedLLM(
        [
            reply(
                calls=[
                    call("calculator", expression="1 / 0"),
                    call("calculator", expression="2 + 2"),
                ]
            ),
            reply(calls=[call("final_answer", answer="4")]),
        ],
        default_usage=USAGE,
    )

    async def run_before(pilot) -> None:
        screen = await open_chat(app, pilot, llm, policy="react")
        await ask(pilot, screen, "What is 1 / 0, and 2 + 2?")
        await finished(pilot, screen)
        await pilot.press("ctrl+t", "up", "enter")
        await pilot.pause(0.1)
        _no_blinking(app)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_sessions_browser(snap_compare, tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)
    llm = ScriptedLLM(
        [
            reply(calls=[call("final_answer", answer="36")]),
            reply(calls=[call("final_answer", answer="blue")]),
        ],
        default_usage=USAGE,
    )

    async def run_before(pilot) -> None:
        screen = await open_chat(app, pilot, llm, policy="react")
        await ask(pilot, screen, "What is 12 * 3?")
        await finished(pilot, screen)
        await ask(pilot, screen, "What colour is the sky?")
        await finished(pilot, screen, runs=2)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        await pilot.pause(0.1)
        _no_blinking(app)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_home_menu_opens_the_chat(tmp_path, monkeypatch):
    from screens.home import MENU
    from screens.navigation import screen_for

    app = snapshot_app(tmp_path, monkeypatch)
    assert [key for key, _, _ in MENU].index("chat") == [key for key, _, _ in MENU].index(
        "watch"
    ) + 1

    async def run() -> None:
        async with app.run_test(size=(120, 40)):
            screen = screen_for(app, "chat")
            assert isinstance(screen, ChatScreen) and screen.controller.mcp_config is None
            assert isinstance(screen_for(app, "sessions"), SessionsScreen)

    asyncio.run(run())


def test_chat_ignores_an_unknown_settings_policy(tmp_path, monkeypatch):
    app = snapshot_app(tmp_path, monkeypatch)
    app.settings.chat_policy = "yolo"
    screen = chat(app, ScriptedLLM([]))
    assert screen.controller.policy == "react+"
