"""Each budget axis trips on its own; exhaustion forces one answer attempt, then falls back."""

import pytest

from engines.agent import AgentSession, Budget, BudgetAxis, Calculator, Outcome
from engines.agent.budget import BudgetMeter
from engines.agent.llm import Usage
from engines.agent.scripted import ScriptedHuman, ScriptedLLM, call, failure, reply
from tests.agent.helpers import ClockTool, FakeClock, SlowTool, kinds, of_kind

UNLIMITED = Budget(
    max_steps=None, max_repairs=None, max_wall_s=None, max_tokens=None, max_cost_usd=None
)


def calc(expression: str = "1+1", usage: Usage | None = None):
    return reply(calls=[call("calculator", expression=expression)], usage=usage)


def answer(text: str):
    return reply(calls=[call("final_answer", answer=text)])


async def run_until_tripped(budget: Budget, script, **options):
    llm = ScriptedLLM(script)
    session = AgentSession(llm, tools=[Calculator()], budget=budget, **options)
    return llm, await session.run("q")


async def test_steps_axis_forces_an_answer() -> None:
    llm, result = await run_until_tripped(Budget(max_steps=2), [calc(), calc(), answer("2")])
    assert result.tripped is BudgetAxis.STEPS
    assert result.outcome is Outcome.FORCED and result.answer == "2"
    # The forced call offers only final_answer and says why.
    assert llm.requests[2].tool_names == ["final_answer"]
    assert llm.requests[2].last["content"].startswith("The steps budget is used up.")
    tripped = of_kind(result.events, "budget_tripped")[0]
    assert (tripped.axis, tripped.used, tripped.limit) == ("steps", 2, 2)
    assert of_kind(result.events, "step_started")[-1].forced


async def test_repairs_axis_counts_consecutive_repairs_only() -> None:
    bad = reply(calls=[call("calculator", wrong="x")])
    # bad, good, bad, bad: never three in a row, so no trip.
    _, result = await run_until_tripped(Budget(max_repairs=3), [bad, calc(), bad, bad, answer("2")])
    assert result.tripped is None and result.outcome is Outcome.ANSWERED
    _, result = await run_until_tripped(Budget(max_repairs=3), [bad, bad, bad, answer("2")])
    assert result.tripped is BudgetAxis.REPAIRS and result.outcome is Outcome.FORCED


async def test_empty_replies_are_repairs() -> None:
    llm, result = await run_until_tripped(Budget(max_repairs=2), ["", "", answer("x")])
    assert result.tripped is BudgetAxis.REPAIRS
    assert llm.requests[1].last["content"].startswith("Your reply was empty.")


async def test_token_axis() -> None:
    _, result = await run_until_tripped(
        Budget(max_tokens=1000),
        [calc(usage=Usage(900, 50)), calc(usage=Usage(40, 20)), answer("2")],
    )
    assert result.tripped is BudgetAxis.TOKENS
    assert result.usage.total_tokens == 1010


async def test_cost_axis() -> None:
    _, result = await run_until_tripped(
        Budget(max_cost_usd=0.05),
        [calc(usage=Usage(1, 1, 0.03)), calc(usage=Usage(1, 1, 0.03)), answer("2")],
    )
    assert result.tripped is BudgetAxis.COST
    assert result.cost_usd == pytest.approx(0.06)


async def test_wall_time_axis_with_an_injected_clock() -> None:
    clock = FakeClock()
    work = ClockTool(clock, seconds=40)
    llm = ScriptedLLM(
        [
            reply(calls=[call("work", value="a")]),
            reply(calls=[call("work", value="b")]),
            answer("done"),
        ]
    )
    session = AgentSession(llm, tools=[work], budget=Budget(max_wall_s=60), clock=clock)
    result = await session.run("q")
    assert result.tripped is BudgetAxis.WALL_TIME
    assert result.wall_s == pytest.approx(80)
    assert result.outcome is Outcome.FORCED


async def test_wall_time_excludes_people_and_backoff() -> None:
    clock = FakeClock()

    def slow_model(request):
        # The client slept 500 s between retries; the budget must not count it.
        clock.advance(500)
        return reply(calls=[call("ask_user", question="Which year?")], backoff_s=500)

    human = ScriptedHuman(answers=["2020"], on_wait=lambda: clock.advance(10_000))
    llm = ScriptedLLM([slow_model, answer("2020")])
    session = AgentSession(
        llm, policy="react+", human=human, budget=Budget(max_wall_s=60), clock=clock
    )
    result = await session.run("q")
    assert result.tripped is None and result.outcome is Outcome.ANSWERED
    assert result.wall_s == pytest.approx(0)


async def test_a_slow_tool_is_stopped_when_wall_time_runs_out() -> None:
    slow = SlowTool()
    llm = ScriptedLLM([reply(calls=[call("slow", value="x")]), answer("gave up")])
    session = AgentSession(llm, tools=[slow], budget=Budget(max_wall_s=0.2))
    result = await session.run("q")
    assert slow.cancelled
    finished = of_kind(result.events, "tool_call_finished")[0]
    assert finished.is_error and "wall-time budget ran out" in finished.output
    assert result.tripped is BudgetAxis.WALL_TIME and result.answer == "gave up"


async def test_failed_forced_attempt_falls_back_to_the_last_claim() -> None:
    wrong = reply("2 + 2 = 5", calls=[call("final_answer", answer="5")])
    # The verifier rejects "5" (a repair step), so the repairs axis trips at once.
    llm = ScriptedLLM([wrong, reply("I cannot say")])
    session = AgentSession(llm, budget=Budget(max_repairs=1), verifier_retries=5)
    result = await session.run("2+2?")
    assert result.tripped is BudgetAxis.REPAIRS
    # A forced reply with plain text and no call: in native mode that text is the answer.
    assert result.outcome is Outcome.FORCED and result.answer == "I cannot say"

    # A forced reply that calls another tool gives no answer: fall back to the last claim.
    llm = ScriptedLLM([wrong, reply(calls=[call("calculator", expression="2+2")])])
    session = AgentSession(
        llm, tools=[Calculator()], budget=Budget(max_repairs=1), verifier_retries=5
    )
    result = await session.run("2+2?")
    assert result.outcome is Outcome.FALLBACK and result.answer == "5"
    assert of_kind(result.events, "final_answer")[0].outcome == "fallback"


async def test_no_claim_means_an_explicit_no_answer() -> None:
    llm = ScriptedLLM([calc(), failure("provider down")])
    result = await AgentSession(llm, tools=[Calculator()], budget=Budget(max_steps=1)).run("q")
    assert result.answer is None and result.outcome is Outcome.NO_ANSWER
    assert kinds(result.events)[-3:] == ["llm_failed", "final_answer", "run_finished"]
    assert of_kind(result.events, "final_answer")[0].summary == "no answer"


async def test_the_forced_attempt_has_a_time_limit() -> None:
    llm = ScriptedLLM([calc(), reply("too slow", delay_s=5)])
    budget = Budget(max_steps=1, forced_answer_timeout_s=0.05)
    result = await AgentSession(llm, tools=[Calculator()], budget=budget).run("q")
    assert result.outcome is Outcome.NO_ANSWER
    assert of_kind(result.events, "llm_failed")[0].error == "the forced answer timed out"


async def test_unlimited_budget_never_trips() -> None:
    _, result = await run_until_tripped(UNLIMITED, [calc()] * 30 + [answer("2")])
    assert result.tripped is None and result.steps == 31


def test_meter_pauses_nest_and_exclusions_add_up() -> None:
    clock = FakeClock()
    meter = BudgetMeter(Budget(max_wall_s=10), clock)
    meter.start()
    clock.advance(3)
    with meter.paused():
        clock.advance(100)
        with meter.paused():
            clock.advance(100)
    meter.exclude(1)
    clock.advance(2)
    assert meter.wall_s == pytest.approx(4)
    assert meter.remaining_wall_s() == pytest.approx(6)
    clock.advance(6)
    assert meter.tripped().axis is BudgetAxis.WALL_TIME


async def test_budget_checks_happen_before_each_model_call() -> None:
    # An answer that arrives on the last allowed step is accepted, not forced.
    _, result = await run_until_tripped(Budget(max_steps=2), [calc(), answer("2")])
    assert result.outcome is Outcome.ANSWERED and result.tripped is None


def _fallback_case(axis: BudgetAxis):
    """A plan run that records a claim ("Paris"), then exhausts `axis`."""
    clock = FakeClock()
    opening = [
        reply(calls=[call("add_tasks", tasks=["find it", "check it"])], usage=Usage(10, 0, 0.01)),
        reply(
            calls=[call("complete_task", task_id="T1", result="Paris")], usage=Usage(10, 0, 0.01)
        ),
    ]
    bad = reply(calls=[call("calculator", wrong="x")])
    cases = {
        BudgetAxis.STEPS: (Budget(max_steps=3), [calc()]),
        BudgetAxis.REPAIRS: (Budget(max_repairs=2), [bad, bad]),
        BudgetAxis.WALL_TIME: (Budget(max_wall_s=60), [reply(calls=[call("work", value="x")])]),
        BudgetAxis.TOKENS: (Budget(max_tokens=100), [calc(usage=Usage(90, 0))]),
        BudgetAxis.COST: (Budget(max_cost_usd=0.1), [calc(usage=Usage(1, 0, 0.1))]),
    }
    budget, tripping = cases[axis]
    # The forced attempt answers with another tool call, so nothing usable comes of it.
    forced = reply(calls=[call("calculator", expression="1")])
    tools = [Calculator(), ClockTool(clock, seconds=100)]
    return ScriptedLLM(opening + tripping + [forced]), budget, tools, clock


@pytest.mark.parametrize("axis", list(BudgetAxis))
async def test_every_axis_falls_back_to_the_last_claim(axis: BudgetAxis) -> None:
    llm, budget, tools, clock = _fallback_case(axis)
    session = AgentSession(llm, tools=tools, policy="plan", budget=budget, clock=clock)
    result = await session.run("Capital of France?")
    assert result.tripped is axis
    assert llm.remaining == 0  # exactly one forced attempt was made
    assert llm.requests[-1].tool_names == ["final_answer"]
    assert result.outcome is Outcome.FALLBACK and result.answer == "Paris"
    assert kinds(result.events)[-3:] == ["llm_replied", "final_answer", "run_finished"]
