"""Events: one typed, ordered stream per session, JSON-ready, rebuildable, for UI and store."""

import json
from contextlib import aclosing

from engines.agent import AgentSession, Calculator
from engines.agent.events import EVENT_TYPES, AgentEvent, event_from_dict
from engines.agent.llm import Usage
from engines.agent.scripted import ScriptedHuman, ScriptedLLM, call, reply
from tests.agent.helpers import ShellTool, kinds


def full_script():
    return [
        reply("Planning.", calls=[call("add_tasks", tasks=["compute"])], usage=Usage(10, 5, 0.001)),
        reply(calls=[call("ask_user", question="Exact or rounded?")]),
        reply(calls=[call("shell", command="date"), call("calculator", expression="12*3")]),
        reply(calls=[call("complete_task", task_id="T1", result="12*3 = 36", evidence=["E3"])]),
        reply(
            "12 * 3 = 36",
            calls=[
                call(
                    "final_answer",
                    answer="36",
                    claims=[{"text": "12 * 3 = 36", "evidence": ["E3"]}],
                )
            ],
        ),
    ]


async def run_full(subscriber=None):
    llm = ScriptedLLM(full_script(), chunk_size=4)
    human = ScriptedHuman(answers=["exact"], decisions=["allow_once"])
    session = AgentSession(llm, tools=[ShellTool(), Calculator()], policy="plan", human=human)
    if subscriber:
        session.subscribe(subscriber)
    return await session.run("What is 12*3?")


async def test_events_arrive_in_order_as_they_happen() -> None:
    received: list[AgentEvent] = []
    result = await run_full(received.append)
    assert tuple(received) == result.events
    assert kinds(received) == [
        "run_started",
        "step_started", "llm_replied", "tool_call_started", "task_added", "tool_call_finished",
        "step_started", "llm_replied", "tool_call_started", "user_asked", "user_answered", "tool_call_finished",
        "step_started", "llm_replied",
        "tool_call_started", "approval_requested", "approval_decided",
        "tool_call_started", "tool_call_finished", "tool_call_finished",
        "step_started", "llm_replied", "tool_call_started", "task_completed", "tool_call_finished",
        "step_started", "llm_replied", "answer_verified", "final_answer",
        "run_finished",
    ]  # fmt: skip
    # Text deltas stream before the reply they belong to.
    with_deltas = kinds(received, transient=True)
    first_reply = with_deltas.index("llm_replied")
    assert with_deltas[1:first_reply] == ["step_started"] + ["llm_text_delta"] * 3
    assert "".join(e.text for e in received if e.kind == "llm_text_delta").startswith("Planning.")
    steps = [event.step for event in received]
    assert steps == sorted(steps)
    assert {event.run for event in received} == {0}


async def test_every_event_is_json_ready_and_round_trips() -> None:
    result = await run_full()
    seen_kinds = set()
    for event in result.events:
        data = json.loads(json.dumps(event.to_dict()))
        assert set(data) == {"kind", "run", "step", "summary", "details"}
        assert data["summary"] and "\n" not in data["summary"]
        assert event_from_dict(data) == event
        seen_kinds.add(event.kind)
    assert {
        "tool_call_finished",
        "approval_decided",
        "answer_verified",
        "run_finished",
    } <= seen_kinds


def test_every_event_kind_is_registered() -> None:
    assert sorted(EVENT_TYPES) == sorted(
        [
            "run_started", "step_started", "llm_text_delta", "llm_replied", "llm_failed",
            "repair_requested", "tool_call_started", "tool_call_finished", "task_added",
            "task_completed", "task_skipped", "pushed_back", "approval_requested",
            "approval_decided", "user_asked", "user_answered", "answer_verified",
            "budget_tripped", "final_answer", "run_finished",
        ]
    )  # fmt: skip
    assert all(cls.kind == kind for kind, cls in EVENT_TYPES.items())
    assert [kind for kind, cls in EVENT_TYPES.items() if cls.transient] == ["llm_text_delta"]


async def test_tool_finished_carries_duration_preview_error_and_evidence() -> None:
    result = await run_full()
    finished = [e for e in result.events if e.kind == "tool_call_finished"]
    calc = next(e for e in finished if e.tool == "calculator")
    assert calc.preview == "12*3 = 36" and not calc.is_error and calc.duration_s >= 0
    assert calc.evidence_id == "E3"
    assert calc.summary.startswith("calculator ok in ")
    replied = next(e for e in result.events if e.kind == "llm_replied")
    assert (replied.prompt_tokens, replied.completion_tokens, replied.cost_usd) == (10, 5, 0.001)


async def test_stream_yields_the_same_events() -> None:
    llm = ScriptedLLM([reply("hi", calls=[call("final_answer", answer="x")])])
    session = AgentSession(llm)
    received = [event async for event in session.stream("q")]
    assert kinds(received) == [
        "run_started",
        "step_started",
        "llm_replied",
        "answer_verified",
        "final_answer",
        "run_finished",
    ]
    assert "llm_text_delta" in kinds(received, transient=True)
    assert session.last_result.answer == "x"
    assert tuple(received) == session.last_result.events


async def test_leaving_a_stream_early_cancels_the_run() -> None:
    llm = ScriptedLLM(["thinking", reply("slow", delay_s=30)])
    session = AgentSession(llm)
    async with aclosing(session.stream("q")) as events:
        async for event in events:
            if event.kind == "step_started" and event.step == 2:
                break
    assert session.last_result.outcome == "cancelled"


async def test_a_failing_subscriber_does_not_stop_the_run() -> None:
    llm = ScriptedLLM([reply(calls=[call("final_answer", answer="x")])] * 2)
    session = AgentSession(llm)
    later: list[str] = []

    def broken(event):
        raise RuntimeError("view crashed")

    session.subscribe(broken)
    unsubscribe = session.subscribe(lambda e: later.append(e.kind))
    result = await session.run("q")
    assert result.answer == "x" and later[-1] == "run_finished"
    unsubscribe()
    await session.run("again")
    assert later.count("run_finished") == 1


async def test_runs_are_numbered_within_the_session() -> None:
    llm = ScriptedLLM([reply(calls=[call("final_answer", answer=a)]) for a in "ab"])
    session = AgentSession(llm)
    first = await session.run("one")
    second = await session.run("two")
    assert (first.run, second.run) == (0, 1)
    assert {e.run for e in second.events} == {1}
    # The second run's model sees the first exchange.
    assert llm.requests[1].messages[1:3] == [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "a"},
    ]
