"""Approvals: allow once, deny, allow for the session (tool or exact arguments), persisting
across runs and rebuilt from stored events."""

import json

import pytest

from engines.agent import AgentSession, Decision, rebuild_approvals
from engines.agent.human import ApprovalMemory
from engines.agent.scripted import ScriptedHuman, ScriptedLLM, call, reply
from engines.agent.tools import Risk
from tests.agent.helpers import LookupTool, ShellTool, of_kind


def shell(command: str):
    return reply(calls=[call("shell", command=command)])


def answer(text: str = "done"):
    return reply(calls=[call("final_answer", answer=text)])


def decisions(result) -> list[tuple[str, str]]:
    return [(event.decision, event.source) for event in of_kind(result.events, "approval_decided")]


async def test_allow_once_runs_the_call_and_asks_again_next_time() -> None:
    tool = ShellTool()
    human = ScriptedHuman(decisions=["allow_once", "allow_once"])
    llm = ScriptedLLM([shell("ls"), shell("ls"), answer()])
    result = await AgentSession(llm, tools=[tool], policy="react+", human=human).run("q")
    assert tool.calls == [{"command": "ls"}, {"command": "ls"}]
    assert human.approvals == [("shell", {"command": "ls"}, Risk.EXEC)] * 2
    assert decisions(result) == [("allow_once", "person")] * 2
    requested = of_kind(result.events, "approval_requested")[0]
    assert (requested.tool, requested.args, requested.risk) == ("shell", {"command": "ls"}, "exec")


async def test_denial_is_a_tool_error_telling_the_model_to_choose_another_way() -> None:
    tool = ShellTool()
    human = ScriptedHuman(decisions=["deny"])
    llm = ScriptedLLM([shell("rm -rf /"), answer("no")])
    result = await AgentSession(llm, tools=[tool], policy="react+", human=human).run("q")
    assert tool.calls == []
    message = llm.requests[1].last
    assert message["role"] == "tool"
    assert message["content"].startswith("Error: The person denied this call to shell.")
    assert "choose another way" in message["content"]
    finished = of_kind(result.events, "tool_call_finished")[0]
    assert finished.is_error
    # A refusal is not the model's fault: the step counts as productive.
    assert not result.trace[0].repair


async def test_allow_session_tool_persists_across_runs() -> None:
    tool = ShellTool()
    human = ScriptedHuman(decisions=["allow_session_tool"])
    llm = ScriptedLLM([shell("ls"), answer(), shell("pwd"), answer()])
    session = AgentSession(llm, tools=[tool], policy="react+", human=human)
    await session.run("first")
    second = await session.run("second")
    assert tool.calls == [{"command": "ls"}, {"command": "pwd"}]
    assert len(human.approvals) == 1
    assert decisions(second) == [("allow_session_tool", "session")]
    assert session.approvals.tools == {"shell"}


async def test_allow_session_exact_only_covers_the_same_arguments() -> None:
    tool = ShellTool()
    human = ScriptedHuman(decisions=["allow_session_exact", "deny"])
    llm = ScriptedLLM([shell("ls"), answer(), shell("ls"), shell("rm x"), answer()])
    session = AgentSession(llm, tools=[tool], policy="react+", human=human)
    await session.run("first")
    second = await session.run("second")
    assert tool.calls == [{"command": "ls"}, {"command": "ls"}]
    assert [args for _, args, _ in human.approvals] == [{"command": "ls"}, {"command": "rm x"}]
    assert decisions(second) == [("allow_session_exact", "session"), ("deny", "person")]


def test_exact_matching_ignores_key_order() -> None:
    memory = ApprovalMemory()
    memory.remember("write_file", {"path": "a", "text": "b"}, Decision.ALLOW_SESSION_EXACT)
    assert memory.recall("write_file", {"text": "b", "path": "a"}) is Decision.ALLOW_SESSION_EXACT
    assert memory.recall("write_file", {"text": "c", "path": "a"}) is None
    memory.remember("shell", {}, Decision.ALLOW_ONCE)
    memory.remember("shell", {}, Decision.DENY)
    assert memory.recall("shell", {}) is None


async def test_a_resumed_session_rebuilds_its_approvals_from_stored_events() -> None:
    stored: list[dict] = []
    human = ScriptedHuman(decisions=["allow_session_tool", "allow_session_exact", "allow_once"])
    llm = ScriptedLLM(
        [
            shell("ls"),
            reply(calls=[call("write", command="notes.txt")]),
            reply(calls=[call("deploy", command="prod")]),
            answer(),
        ]
    )
    tools = [ShellTool(), ShellTool(name="write", risk=Risk.WRITE), ShellTool(name="deploy")]
    session = AgentSession(llm, tools=tools, policy="react+", human=human)
    session.subscribe(lambda event: stored.append(json.loads(json.dumps(event.to_dict()))))
    await session.run("first")

    memory = rebuild_approvals(stored)
    assert memory == session.approvals
    assert memory.tools == {"shell"} and memory.exact == {("write", '{"command":"notes.txt"}')}

    # A new session from the stored events: no one is asked for what was allowed for the session.
    later = ScriptedHuman(decisions=["deny"])
    llm2 = ScriptedLLM(
        [
            shell("whoami"),
            reply(calls=[call("write", command="notes.txt")]),
            reply(calls=[call("deploy", command="prod")]),
            answer(),
        ]
    )
    tools2 = [ShellTool(), ShellTool(name="write", risk=Risk.WRITE), ShellTool(name="deploy")]
    resumed = AgentSession.resume(llm2, stored, tools=tools2, policy="react+", human=later)
    result = await resumed.run("second")
    assert result.run == 1
    assert [tool for tool, _, _ in later.approvals] == ["deploy"]
    assert decisions(result) == [
        ("allow_session_tool", "session"),
        ("allow_session_exact", "session"),
        ("deny", "person"),
    ]
    # The conversation history came back too.
    assert llm2.requests[0].messages[1:3] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "done"},
    ]


async def test_react_has_no_person_so_gated_tools_are_denied() -> None:
    tool = ShellTool()
    human = ScriptedHuman(decisions=["allow_once"])
    llm = ScriptedLLM([shell("ls"), answer()])
    result = await AgentSession(llm, tools=[tool], policy="react", human=human).run("q")
    assert tool.calls == [] and human.approvals == []
    assert decisions(result) == [("deny", "no_person")]
    assert "no one can approve it in this mode" in llm.requests[1].last["content"]
    assert "ask_user" not in llm.requests[0].tool_names


async def test_react_auto_approve_handler_can_say_yes() -> None:
    tool = ShellTool()
    seen = []

    def only_ls(name, args, risk):
        seen.append((name, args, risk))
        return args["command"] == "ls"

    llm = ScriptedLLM([shell("ls"), shell("rm x"), answer()])
    result = await AgentSession(llm, tools=[tool], auto_approve=only_ls).run("q")
    assert tool.calls == [{"command": "ls"}]
    assert decisions(result) == [("allow_once", "auto"), ("deny", "no_person")]
    assert seen[0] == ("shell", {"command": "ls"}, Risk.EXEC)

    tool = ShellTool()
    llm = ScriptedLLM([shell("anything"), answer()])
    await AgentSession(llm, tools=[tool], auto_approve=True).run("q")
    assert tool.calls == [{"command": "anything"}]


async def test_risky_tools_are_gated_even_without_needs_approval() -> None:
    python = ShellTool(name="python", risk=Risk.EXEC, needs_approval=False)
    safe = LookupTool({"q": "found"})
    human = ScriptedHuman(decisions=["deny"])
    llm = ScriptedLLM(
        [reply(calls=[call("python", command="print(1)"), call("lookup", query="q")]), answer()]
    )
    await AgentSession(llm, tools=[python, safe], policy="react+", human=human).run("q")
    assert python.calls == [] and safe.calls == [{"query": "q"}]
    assert [tool for tool, _, _ in human.approvals] == ["python"]

    # The gate is configurable: with no gated risks only needs_approval tools ask.
    python = ShellTool(name="python", risk=Risk.EXEC, needs_approval=False)
    llm = ScriptedLLM([reply(calls=[call("python", command="print(1)")]), answer()])
    await AgentSession(llm, tools=[python], gated_risks=()).run("q")
    assert python.calls == [{"command": "print(1)"}]


async def test_a_failing_approval_prompt_is_a_denial() -> None:
    tool = ShellTool()
    human = ScriptedHuman(decisions=[])  # raises: no decision left
    llm = ScriptedLLM([shell("ls"), answer()])
    result = await AgentSession(llm, tools=[tool], policy="react+", human=human).run("q")
    assert tool.calls == []
    assert decisions(result) == [("deny", "person")]


def test_react_plus_needs_a_person() -> None:
    with pytest.raises(ValueError, match="needs a human"):
        AgentSession(ScriptedLLM([]), policy="react+")
