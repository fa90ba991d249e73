"""The text-Action fallback for models without native tool calls."""

import json

from engines.agent import AgentSession, Budget, Calculator, Outcome
from engines.agent.scripted import ScriptedLLM
from tests.agent.helpers import LookupTool, of_kind


def action(name: str, **args) -> str:
    return json.dumps({"thought": f"use {name}", "action": name, "action_input": args})


async def test_text_actions_run_tools_and_answer() -> None:
    llm = ScriptedLLM(
        [
            "I'll use the calculator.\n```json\n"
            + action("calculator", expression="12*3")
            + "\n```",
            action("final_answer", answer="36"),
        ]
    )
    result = await AgentSession(llm, tools=[Calculator()], text_actions=True).run("12*3?")
    assert result.answer == "36"
    # No native tools are offered; the prompt describes the format and the tools instead.
    assert llm.requests[0].tools is None
    system = llm.requests[0].messages[0]["content"]
    assert '"action": "<tool name>"' in system and "- calculator:" in system
    observation = llm.requests[1].last
    assert observation["role"] == "user"
    assert observation["content"].startswith("Observations:\ncalculator (s1_0): [E1] 12*3 = 36")
    assert result.trace[0].action.text == "use calculator"


async def test_prose_without_json_gets_a_specific_repair() -> None:
    llm = ScriptedLLM(["The answer is probably 4.", action("final_answer", answer="4")])
    result = await AgentSession(llm, text_actions=True).run("2+2?")
    assert result.answer == "4"
    nudge = llm.requests[1].last
    assert nudge["role"] == "system"
    assert nudge["content"].startswith(
        "I could not read an action from your reply: the reply contains no JSON object."
    )
    assert result.trace[0].repair and result.trace[0].action is None
    assert [event.reason for event in of_kind(result.events, "repair_requested")] == [
        "the reply contains no JSON object"
    ]


async def test_truncated_and_sloppy_json_is_accepted() -> None:
    llm = ScriptedLLM(
        [
            # Cut off mid-object, trailing comma, Python True: still readable.
            '```json\n{"thought": "look", "action": "lookup", "action_input": {"query": "paris",},',
            "{'action': 'final_answer', 'action_input': {'answer': 'Paris'}}",
        ]
    )
    lookup = LookupTool({"paris": "Paris is the capital of France."})
    result = await AgentSession(llm, tools=[lookup], text_actions=True).run("Capital?")
    assert lookup.calls == [{"query": "paris"}]
    assert result.answer == "Paris"


async def test_schema_violations_are_explained() -> None:
    llm = ScriptedLLM(
        [
            action("calculator", expression=12),
            action("calculator", formula="1+1"),
            action("calculator", expression="1+1"),
            action("final_answer", answer="2"),
        ]
    )
    result = await AgentSession(llm, tools=[Calculator()], text_actions=True).run("1+1?")
    # A number where a string is declared is harmless and accepted...
    assert "[E1] 12 = 12" in llm.requests[1].last["content"]
    # ...a wrong field name is not.
    assert "$.expression: required property is missing" in llm.requests[2].last["content"]
    assert result.answer == "2"


async def test_string_input_for_single_argument_tools() -> None:
    llm = ScriptedLLM(
        [
            json.dumps({"action": "calculator", "action_input": "7*6"}),
            json.dumps({"action": "final_answer", "action_input": "42"}),
        ]
    )
    result = await AgentSession(llm, tools=[Calculator()], text_actions=True).run("7*6?")
    assert "[E1] 7*6 = 42" in llm.requests[1].last["content"]
    assert result.answer == "42"


async def test_text_batches_run_every_call() -> None:
    batch = json.dumps(
        {
            "actions": [
                {"action": "calculator", "action_input": {"expression": "1+1"}},
                {"action": "calculator", "action_input": {"expression": "2+2"}},
            ]
        }
    )
    llm = ScriptedLLM([batch, action("final_answer", answer="2 and 4")])
    result = await AgentSession(llm, tools=[Calculator()], text_actions=True).run("q")
    assert [e.text for e in result.evidence] == ["1+1 = 2", "2+2 = 4"]


async def test_repairs_are_bounded_by_the_budget() -> None:
    llm = ScriptedLLM(["no json"] * 3 + ["still no json, but an answer: 4"])
    budget = Budget(max_repairs=3)
    result = await AgentSession(llm, text_actions=True, budget=budget).run("2+2?")
    assert result.tripped == "repairs"
    # The forced attempt accepts plain text in text mode.
    assert result.outcome is Outcome.FORCED
    assert result.answer == "still no json, but an answer: 4"
    forced_prompt = llm.requests[3].last["content"]
    assert "The repairs budget is used up" in forced_prompt
    assert '"action": "final_answer"' in forced_prompt


async def test_thought_only_reply_is_thinking() -> None:
    llm = ScriptedLLM([json.dumps({"thought": "plan first"}), action("final_answer", answer="x")])
    result = await AgentSession(llm, text_actions=True).run("q")
    assert result.trace[0].action.text == "plan first" and not result.trace[0].repair
    assert "reply with a JSON action" in llm.requests[1].last["content"]


async def test_an_empty_text_reply_is_told_about_the_json_format() -> None:
    llm = ScriptedLLM(["", action("final_answer", answer="x")])
    result = await AgentSession(llm, text_actions=True).run("q")
    assert result.answer == "x"
    assert (
        llm.requests[1]
        .last["content"]
        .startswith(
            "I could not read an action from your reply: the reply was empty. Reply with one JSON object"
        )
    )
    # Nothing empty is put into the conversation as the assistant's turn.
    assert [m["role"] for m in llm.requests[1].messages] == ["system", "user", "system"]
