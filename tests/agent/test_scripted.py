"""The ScriptedLLM and ScriptedHuman other tests and demos rely on."""

import pytest

from engines.agent.human import Decision
from engines.agent.llm import LLMError, LLMReply, TextDelta, ToolCallDelta, ToolSpec, Usage
from engines.agent.scripted import ScriptedHuman, ScriptedLLM, call, failure, reply
from engines.agent.tools import Risk


async def test_replays_replies_streams_chunks_and_records_requests() -> None:
    llm = ScriptedLLM(
        [
            reply(
                "Hello there",
                calls=[call("calculator", expression="1+1", id="c1")],
                usage=Usage(3, 4, 0.5),
            ),
            "plain text",
            LLMReply(text="a ready reply", backoff_s=2.0),
        ],
        chunk_size=4,
        default_usage=Usage(1, 1),
    )
    deltas = []
    messages = [{"role": "user", "content": "hi"}]
    tools = [ToolSpec("calculator", "calc")]
    first = await llm.complete(messages, tools=tools, on_delta=deltas.append)
    messages.append({"role": "assistant", "content": "changed later"})
    assert first.text == "Hello there" and first.usage == Usage(3, 4, 0.5)
    assert first.tool_calls[0].id == "c1" and first.finish_reason == "tool_calls"
    assert [d.text for d in deltas if isinstance(d, TextDelta)] == ["Hell", "o th", "ere"]
    assert [d for d in deltas if isinstance(d, ToolCallDelta)] == [
        ToolCallDelta(0, "c1", "calculator", '{"expression": "1+1"}')
    ]
    # Requests are copied: later changes to the list do not show.
    assert llm.requests[0].messages == [{"role": "user", "content": "hi"}]
    assert llm.requests[0].tool_names == ["calculator"]
    second = await llm.complete(messages)
    assert second.text == "plain text" and second.usage == Usage(1, 1)
    third = await llm.complete(messages)
    assert third.backoff_s == 2.0 and llm.remaining == 0
    with pytest.raises(LLMError, match="ran out of replies after 3 calls"):
        await llm.complete(messages)


async def test_callable_items_see_the_request_and_failures_raise() -> None:
    llm = ScriptedLLM([lambda request: f"you said {request.last['content']}", failure("quota")])
    assert (await llm.complete([{"role": "user", "content": "ping"}])).text == "you said ping"
    with pytest.raises(LLMError, match="quota"):
        await llm.complete([])


def test_call_builds_tool_calls() -> None:
    assert call("f", x=1, id="a").arguments == '{"x": 1}'
    assert call("f", '{"broken', id="b").arguments == '{"broken'
    assert call("f", {"y": 2}).arguments == '{"y": 2}'
    assert call("f").id != call("f").id


async def test_scripted_human_answers_in_order_and_records() -> None:
    human = ScriptedHuman(answers=["yes"], decisions=["allow_session_tool"])
    assert await human.ask("ok?") == "yes"
    assert await human.approve("shell", {"c": 1}, Risk.EXEC) is Decision.ALLOW_SESSION_TOOL
    assert human.questions == ["ok?"]
    assert human.approvals == [("shell", {"c": 1}, Risk.EXEC)]
    with pytest.raises(RuntimeError):
        await human.ask("again?")
