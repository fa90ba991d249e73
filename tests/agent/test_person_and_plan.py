"""ask_user in react+, and the plan policy's task list with push-back."""

from engines.agent import AgentSession, Budget, Outcome, PlanPolicy
from engines.agent.scripted import ScriptedHuman, ScriptedLLM, call, reply
from engines.agent.state import ClaimKind, TaskStatus
from tests.agent.helpers import LookupTool, kinds, of_kind


def answer(text: str, **extra):
    return reply(calls=[call("final_answer", answer=text, **extra)])


async def test_ask_user_reaches_the_person_and_their_answer_is_evidence() -> None:
    human = ScriptedHuman(answers=["The 2020 census"])
    llm = ScriptedLLM(
        [
            reply(calls=[call("ask_user", question="Which census do you mean?")]),
            answer("1,234", claims=[{"text": "the 2020 census", "evidence": ["E1"]}]),
        ]
    )
    result = await AgentSession(llm, policy="react+", human=human).run("Population?")
    assert human.questions == ["Which census do you mean?"]
    assert "ask_user" in llm.requests[0].tool_names
    assert llm.requests[1].last["content"] == "[E1] The 2020 census"
    assert result.answer == "1,234"
    assert result.evidence[0].tool == "ask_user"
    assert kinds(result.events)[3:7] == [
        "tool_call_started",
        "user_asked",
        "user_answered",
        "tool_call_finished",
    ]
    assert result.trace[0].action.kind == "ask_user"


async def test_react_does_not_offer_ask_user() -> None:
    llm = ScriptedLLM([reply(calls=[call("ask_user", question="?")]), answer("x")])
    await AgentSession(llm, policy="react").run("q")
    assert "there is no tool named 'ask_user'" in llm.requests[1].last["content"]


async def test_a_person_who_does_not_answer_is_reported() -> None:
    human = ScriptedHuman(answers=[])
    llm = ScriptedLLM([reply(calls=[call("ask_user", question="?")]), answer("x")])
    await AgentSession(llm, policy="react+", human=human).run("q")
    assert llm.requests[1].last["content"].startswith("Error: the person did not answer")


async def test_plan_pushes_back_until_every_task_is_closed() -> None:
    lookup = LookupTool({"paris": "Paris has 2,102,650 inhabitants."})
    llm = ScriptedLLM(
        [
            reply(calls=[call("add_tasks", tasks=["Find the population", "Check the year"])]),
            reply(calls=[call("lookup", query="paris")]),
            reply(
                calls=[
                    call(
                        "complete_task",
                        task_id="T1",
                        result="2,102,650 inhabitants",
                        evidence=["E1"],
                    )
                ]
            ),
            answer("2102650"),
            reply(calls=[call("skip_task", task_id="t2", reason="the source has one figure")]),
            answer("2102650"),
        ]
    )
    result = await AgentSession(llm, tools=[lookup], policy="plan").run("Population of Paris?")
    assert result.answer == "2102650" and result.outcome is Outcome.ANSWERED
    assert {"add_tasks", "complete_task", "skip_task"} <= set(llm.requests[0].tool_names)
    # The push-back is a system message naming the open task.
    pushback = llm.requests[4].last
    assert pushback["role"] == "system"
    assert "T2 (Check the year)" in pushback["content"]
    assert llm.requests[4].messages[-2]["content"] == "Not accepted yet; see the next message."
    assert [(t.id, t.status) for t in result.tasks] == [
        ("T1", TaskStatus.COMPLETED),
        ("T2", TaskStatus.SKIPPED),
    ]
    assert [e.kind for e in result.events if e.kind.startswith(("task", "pushed"))] == [
        "task_added",
        "task_added",
        "task_completed",
        "pushed_back",
        "task_skipped",
    ]
    pushed = of_kind(result.events, "pushed_back")[0]
    assert pushed.open_tasks == ("T2",) and pushed.count == 1
    # The completed task's result became a claim, checked by citation against E1.
    task_claim = [c for c in result.claims if c.kind is ClaimKind.TASK][0]
    assert task_claim.evidence == ("E1",)
    assert all(v.passed for v in result.verdicts)


async def test_push_backs_are_bounded() -> None:
    llm = ScriptedLLM(
        [
            reply(calls=[call("add_tasks", tasks=["one"])]),
            answer("x"),
            answer("x"),
            answer("x"),
        ]
    )
    result = await AgentSession(llm, policy=PlanPolicy(max_pushbacks=2)).run("q")
    assert len(of_kind(result.events, "pushed_back")) == 2
    assert result.answer == "x" and result.outcome is Outcome.ANSWERED
    # Accepted with the task still open, and that is on record.
    assert of_kind(result.events, "final_answer")[0].open_tasks == ("T1",)


async def test_task_tool_errors_are_explained() -> None:
    llm = ScriptedLLM(
        [
            reply(calls=[call("complete_task", task_id="T9")]),
            reply(calls=[call("add_tasks", tasks=["a"])]),
            reply(calls=[call("complete_task", task_id="T1")]),
            reply(calls=[call("complete_task", task_id="T1")]),
            answer("x"),
        ]
    )
    await AgentSession(llm, policy="plan").run("q")
    assert "no task 'T9' (tasks: none yet)" in llm.requests[1].last["content"]
    assert llm.requests[2].last["content"] == "Added T1: a"
    assert llm.requests[3].last["content"] == "Completed T1; 0 open tasks left."
    assert "task T1 is already completed" in llm.requests[4].last["content"]


async def test_a_task_result_is_the_fallback_answer() -> None:
    llm = ScriptedLLM(
        [
            reply(calls=[call("add_tasks", tasks=["find it"])]),
            reply(calls=[call("complete_task", task_id="T1", result="Paris")]),
            reply(calls=[call("add_tasks", tasks=["double-check"])]),
            # The forced attempt calls another tool instead of answering.
            reply(calls=[call("add_tasks", tasks=["more"])]),
        ]
    )
    result = await AgentSession(llm, policy="plan", budget=Budget(max_steps=3)).run("Capital?")
    assert result.outcome is Outcome.FALLBACK and result.answer == "Paris"


async def test_plan_works_without_a_person() -> None:
    llm = ScriptedLLM([answer("x")])
    result = await AgentSession(llm, policy="plan").run("q")
    assert result.answer == "x"
    assert "ask_user" not in llm.requests[0].tool_names
