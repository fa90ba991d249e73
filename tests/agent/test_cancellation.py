"""Cancelling a run stops it promptly and leaves a coherent, recorded state."""

import asyncio

import pytest

from engines.agent import AgentSession, Outcome
from engines.agent.scripted import ScriptedHuman, ScriptedLLM, call, reply
from tests.agent.helpers import SlowTool, kinds, of_kind


async def wait_for(condition, timeout: float = 2.0) -> None:
    async def poll():
        while not condition():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), timeout)


async def test_cancel_mid_reply_keeps_what_was_said() -> None:
    llm = ScriptedLLM([reply("The answer is surely forty-two, because", delay_s=2)], chunk_size=5)
    session = AgentSession(llm)
    received = []
    session.subscribe(received.append)
    task = asyncio.create_task(session.run("q"))
    await wait_for(lambda: sum(e.kind == "llm_text_delta" for e in received) >= 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 1)
    result = session.last_result
    assert result.outcome is Outcome.CANCELLED and result.answer is None
    assert result.partial_text.startswith("The answer") and len(result.partial_text) < 39
    assert result.partial_text == "".join(e.text for e in received if e.kind == "llm_text_delta")
    assert result.trace[-1].reply_text == result.partial_text
    finished = of_kind(received, "run_finished")[0]
    assert finished.outcome == "cancelled" and finished.partial_text == result.partial_text
    # The session is still usable and remembers the interrupted exchange.
    assert session.history[-2:] == [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": f"(stopped by the person before answering) {result.partial_text}",
        },
    ]


async def test_cancel_during_a_tool_cancels_the_tool() -> None:
    slow = SlowTool()
    llm = ScriptedLLM([reply(calls=[call("slow", value="x")])])
    session = AgentSession(llm, tools=[slow])
    task = asyncio.create_task(session.run("q"))
    await asyncio.wait_for(slow.started.wait(), 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 1)
    assert slow.cancelled
    assert kinds(session.last_result.events)[-2:] == ["tool_call_started", "run_finished"]


async def test_cancel_while_waiting_for_the_person() -> None:
    human = ScriptedHuman(answers=["never used"], delay_s=30)
    llm = ScriptedLLM([reply(calls=[call("ask_user", question="Which one?")])])
    session = AgentSession(llm, policy="react+", human=human)
    task = asyncio.create_task(session.run("q"))
    await wait_for(lambda: human.questions)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 1)
    result = session.last_result
    assert result.outcome is Outcome.CANCELLED
    assert kinds(result.events)[-2:] == ["user_asked", "run_finished"]


async def test_after_a_cancel_the_next_run_works() -> None:
    llm = ScriptedLLM([reply("slow", delay_s=30), reply(calls=[call("final_answer", answer="ok")])])
    session = AgentSession(llm)
    task = asyncio.create_task(session.run("first"))
    await wait_for(lambda: llm.requests)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    result = await session.run("second")
    assert result.answer == "ok" and result.run == 1
    assert [r.outcome for r in session.results] == [Outcome.CANCELLED, Outcome.ANSWERED]
