"""The react loop with native tool calls: acting, observing, repairing, answering."""

import asyncio
import json

import pytest

from engines.agent import AgentSession, Budget, Calculator, Outcome
from engines.agent.actions import ActionKind
from engines.agent.llm import Usage
from engines.agent.scripted import ScriptedLLM, call, failure, reply
from engines.agent.tools import ToolResult
from tests.agent.helpers import GateTool, LookupTool, kinds, of_kind


async def test_tool_then_answer() -> None:
    llm = ScriptedLLM(
        [
            reply("I'll compute it.", calls=[call("calculator", expression="12*3")]),
            reply(calls=[call("final_answer", answer="36")]),
        ]
    )
    result = await AgentSession(llm, tools=[Calculator()]).run("What is 12*3?")
    assert result.answer == "36"
    assert result.outcome is Outcome.ANSWERED
    assert result.steps == 2
    assert [entry.action.kind for entry in result.trace] == [
        ActionKind.TOOL_CALL,
        ActionKind.FINAL_ANSWER,
    ]
    assert result.evidence[0].id == "E1" and result.evidence[0].text == "12*3 = 36"
    # The model saw the tool result tagged with its evidence id, in OpenAI tool-message shape.
    second = llm.requests[1].messages
    assert second[-2]["tool_calls"][0]["function"]["name"] == "calculator"
    assert second[-1] == {
        "role": "tool",
        "tool_call_id": second[-2]["tool_calls"][0]["id"],
        "content": "[E1] 12*3 = 36",
    }
    assert llm.requests[0].tool_names == ["calculator", "final_answer"]


async def test_files_are_listed_in_the_question() -> None:
    llm = ScriptedLLM([reply(calls=[call("final_answer", answer="ok")])])
    await AgentSession(llm).run("Summarise", files=["data/report.pdf"])
    assert "- data/report.pdf" in llm.requests[0].last["content"]


async def test_thinking_is_a_step_and_gets_a_reminder() -> None:
    llm = ScriptedLLM(["Let me think about this.", reply(calls=[call("final_answer", answer="4")])])
    result = await AgentSession(llm).run("2+2?")
    assert result.answer == "4"
    assert result.trace[0].action.kind is ActionKind.THINK
    assert llm.requests[1].last == {
        "role": "system",
        "content": "Continue: call a tool, or call final_answer when you have the answer.",
    }


async def test_parallel_tool_batch_runs_concurrently() -> None:
    peers = {"left": asyncio.Event(), "right": asyncio.Event()}
    llm = ScriptedLLM(
        [
            reply(calls=[call("left", value="a"), call("right", value="b")]),
            reply(calls=[call("final_answer", answer="a b")]),
        ]
    )
    session = AgentSession(llm, tools=[GateTool("left", peers), GateTool("right", peers)])
    result = await session.run("both")
    # Each tool waits for the other to start: run one after the other, they would time out.
    assert {e.text for e in result.evidence} == {"left:a", "right:b"}
    tool_messages = [m for m in llm.requests[1].messages if m["role"] == "tool"]
    assert [m["content"].split("] ")[1] for m in tool_messages] == ["left:a", "right:b"]
    started = of_kind(result.events, "tool_call_started")
    finished = of_kind(result.events, "tool_call_finished")
    assert len(started) == len(finished) == 2
    assert not any(event.is_error for event in finished)


async def test_schema_violation_is_repaired_with_the_exact_problem() -> None:
    llm = ScriptedLLM(
        [
            reply(calls=[call("calculator", expr="2+2")]),
            reply(calls=[call("calculator", expression="2+2")]),
            reply(calls=[call("final_answer", answer="4")]),
        ]
    )
    result = await AgentSession(llm, tools=[Calculator()]).run("2+2?")
    assert result.answer == "4"
    error = llm.requests[1].last["content"]
    assert error.startswith(
        "Error: invalid arguments for calculator: $.expression: required property is missing"
    )
    assert '"required":["expression"]' in error
    assert result.trace[0].repair and not result.trace[1].repair
    repairs = of_kind(result.events, "repair_requested")
    assert len(repairs) == 1 and "$.expression" in repairs[0].reason


async def test_malformed_native_arguments_are_repaired_or_recovered() -> None:
    llm = ScriptedLLM(
        [
            reply(calls=[call("calculator", "not json at all")]),
            # Truncated JSON is recovered rather than bounced.
            reply(calls=[call("calculator", '{"expression": "6*7"')]),
            reply(calls=[call("final_answer", answer="42")]),
        ]
    )
    result = await AgentSession(llm, tools=[Calculator()]).run("6*7?")
    assert "the arguments are not valid JSON" in llm.requests[1].last["content"]
    assert llm.requests[2].last["content"] == "[E1] 6*7 = 42"
    assert result.answer == "42"


async def test_unknown_tools_and_tool_errors_reach_the_model() -> None:
    lookup = LookupTool({"paris": "Paris has 2,102,650 inhabitants."})
    llm = ScriptedLLM(
        [
            reply(calls=[call("search_web", query="x")]),
            reply(calls=[call("lookup", query="lyon")]),
            reply(calls=[call("final_answer", answer="unknown")]),
        ]
    )
    result = await AgentSession(llm, tools=[lookup]).run("Population?")
    assert (
        "there is no tool named 'search_web'; the tools are: lookup, final_answer"
        in llm.requests[1].last["content"]
    )
    assert llm.requests[2].last["content"] == "Error: nothing found for 'lyon'"
    # A failing tool is a real step (not a repair) and produces no evidence.
    assert not result.trace[1].repair
    assert result.evidence == ()


async def test_a_crashing_tool_does_not_end_the_run() -> None:
    class Broken:
        spec = Calculator.spec.__class__(
            name="broken", description="", parameters={"type": "object"}
        )
        risk = Calculator.risk
        needs_approval = False

        async def run(self, args):
            raise KeyError("boom")

    llm = ScriptedLLM(
        [reply(calls=[call("broken")]), reply(calls=[call("final_answer", answer="ok")])]
    )
    result = await AgentSession(llm, tools=[Broken()]).run("q")
    assert "broken crashed: KeyError" in llm.requests[1].last["content"]
    assert result.answer == "ok"


async def test_uncitable_output_is_shown_but_not_evidence() -> None:
    class Note:
        spec = Calculator.spec.__class__(name="note", description="", parameters={"type": "object"})
        risk = Calculator.risk
        needs_approval = False

        async def run(self, args):
            return ToolResult("noted", citable=False)

    llm = ScriptedLLM(
        [reply(calls=[call("note")]), reply(calls=[call("final_answer", answer="ok")])]
    )
    result = await AgentSession(llm, tools=[Note()]).run("q")
    assert llm.requests[1].last["content"] == "noted"
    assert result.evidence == ()


async def test_numbers_given_for_string_answers_are_accepted() -> None:
    llm = ScriptedLLM([reply(calls=[call("final_answer", answer=42)])])
    result = await AgentSession(llm).run("q")
    assert result.answer == "42"


async def test_verifier_failure_nudges_once_then_accepts_the_fix() -> None:
    llm = ScriptedLLM(
        [
            reply("12 * 3 = 35", calls=[call("final_answer", answer="35")]),
            reply("12 * 3 = 36", calls=[call("final_answer", answer="36")]),
        ]
    )
    result = await AgentSession(llm).run("12*3?")
    assert result.answer == "36"
    nudge = llm.requests[1].last
    assert nudge["role"] == "system"
    assert "12 * 3 = 35 does not hold (it is 36)" in nudge["content"]
    verified = of_kind(result.events, "answer_verified")
    assert [event.retry for event in verified] == [True, False]
    assert all(v.passed for v in result.verdicts)


async def test_verifier_retries_are_bounded() -> None:
    wrong = reply("2 + 2 = 5", calls=[call("final_answer", answer="5")])
    llm = ScriptedLLM([wrong, wrong, wrong])
    result = await AgentSession(llm, verifier_retries=1).run("2+2?")
    # One retry, then the answer stands with its failed verdict recorded.
    assert len(llm.requests) == 2
    assert result.answer == "5" and result.outcome is Outcome.ANSWERED
    assert [v.check for v in result.verdicts if not v.passed] == ["arithmetic"]


async def test_no_verifiers_means_no_checks() -> None:
    llm = ScriptedLLM([reply("2 + 2 = 5", calls=[call("final_answer", answer="5")])])
    result = await AgentSession(llm, verifiers=()).run("2+2?")
    assert result.answer == "5" and result.verdicts == ()
    assert of_kind(result.events, "answer_verified") == []


async def test_citations_are_checked_against_the_run_evidence() -> None:
    lookup = LookupTool({"pop": "The census counted 1,234,567 residents (2020)."})
    claims = [{"text": "1234567 people lived there in 2020", "evidence": ["E1"]}]
    llm = ScriptedLLM(
        [
            reply(calls=[call("lookup", query="pop")]),
            reply(
                calls=[
                    call(
                        "final_answer",
                        answer="1234567",
                        claims=[{"text": "It had 999 people", "evidence": ["E1"]}],
                    )
                ]
            ),
            reply(calls=[call("final_answer", answer="1234567", claims=claims)]),
        ]
    )
    result = await AgentSession(llm, tools=[lookup]).run("How many?")
    assert "not in the cited evidence: 999" in llm.requests[2].last["content"]
    assert result.answer == "1234567"
    assert result.claims[-1].evidence == ("E1",)


async def test_model_failure_falls_back_or_says_no_answer() -> None:
    llm = ScriptedLLM([failure("rate limited for good")])
    result = await AgentSession(llm).run("q")
    assert result.answer is None and result.outcome is Outcome.NO_ANSWER
    assert result.error == "rate limited for good"
    assert kinds(result.events)[-3:] == ["llm_failed", "final_answer", "run_finished"]


async def test_usage_and_cost_add_up() -> None:
    llm = ScriptedLLM(
        [
            reply("hm", usage=Usage(100, 10, 0.01)),
            reply(calls=[call("final_answer", answer="x")], usage=Usage(200, 20, 0.02)),
        ]
    )
    result = await AgentSession(llm).run("q")
    assert result.usage == Usage(300, 30, pytest.approx(0.03))
    assert result.cost_usd == pytest.approx(0.03)
    finished = of_kind(result.events, "run_finished")[0]
    assert (finished.prompt_tokens, finished.completion_tokens) == (300, 30)
    json.dumps(finished.to_dict())


def test_tool_names_must_be_unique_and_not_reserved() -> None:
    llm = ScriptedLLM([])
    with pytest.raises(ValueError, match="reserved"):
        AgentSession(llm, tools=[Calculator(), Calculator()])
    with pytest.raises(ValueError, match="reserved"):
        AgentSession(llm, tools=[LookupTool({}, name="final_answer")])
    with pytest.raises(ValueError, match="unknown policy"):
        AgentSession(llm, policy="reflexion")


async def test_budget_steps_are_stated_in_the_prompt() -> None:
    llm = ScriptedLLM([reply(calls=[call("final_answer", answer="x")])])
    await AgentSession(llm, budget=Budget(max_steps=7)).run("q")
    assert "at most 7 steps" in llm.requests[0].messages[0]["content"]


async def test_a_malformed_final_answer_is_a_repair() -> None:
    llm = ScriptedLLM(
        [
            reply(calls=[call("final_answer", reply="4")]),
            reply(calls=[call("final_answer", answer="4")]),
        ]
    )
    result = await AgentSession(llm).run("2+2?")
    assert result.answer == "4"
    assert result.trace[0].repair
    repair = of_kind(result.events, "repair_requested")[0]
    assert repair.reason.startswith("invalid arguments for final_answer: $.answer: required")
    assert llm.requests[1].last["content"].startswith("Error: invalid arguments for final_answer")
