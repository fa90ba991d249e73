"""`AgentSession`: the public entry point. A session outlives one question: its runs share the
conversation history and the session-wide approval memory, and every event of every run goes to
its subscribers in order, as it happens.

    session = AgentSession(llm, tools=[Calculator()], policy="react+", human=handler)
    result = await session.run("What is 12 * 3?")
    async for event in session.stream("And times 2?"):
        ...
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from os import PathLike, fspath
from typing import Any

from engines.agent.actions import ASK_USER, FINAL_ANSWER
from engines.agent.budget import Budget, Clock
from engines.agent.events import AgentEvent
from engines.agent.human import ApprovalMemory, AutoApprove, Human, rebuild_approvals
from engines.agent.llm import LLM
from engines.agent.loop import AgentRun, RunConfig
from engines.agent.policies import PersonRole, Policy, make_policy
from engines.agent.prompts import SYSTEM_PROMPT
from engines.agent.state import RunResult
from engines.agent.tools import Risk, Tool
from engines.agent.verifiers import DEFAULT_VERIFIERS, Verifier

logger = logging.getLogger(__name__)

Subscriber = Callable[[AgentEvent], None]
# Running code or changing things always needs a yes, even for tools that do not insist.
DEFAULT_GATED_RISKS = frozenset({Risk.EXEC, Risk.WRITE})
NO_ANSWER_TEXT = "(no answer)"
_DONE = object()


class AgentSession:
    def __init__(
        self,
        llm: LLM,
        *,
        tools: Iterable[Tool] = (),
        policy: str | Policy = "react",
        human: Human | None = None,
        budget: Budget | None = None,
        auto_approve: bool | AutoApprove = False,
        text_actions: bool = False,
        gated_risks: Iterable[Risk] = DEFAULT_GATED_RISKS,
        verifiers: Sequence[Verifier] = DEFAULT_VERIFIERS,
        verifier_retries: int = 1,
        system_prompt: str = SYSTEM_PROMPT,
        approvals: ApprovalMemory | None = None,
        history: Sequence[dict[str, Any]] = (),
        first_run: int = 0,
        clock: Clock = time.monotonic,
    ) -> None:
        chosen = make_policy(policy)
        if chosen.person is PersonRole.REQUIRED and human is None:
            raise ValueError(f"the {chosen.name!r} policy needs a human handler")
        by_name: dict[str, Tool] = {}
        reserved = {FINAL_ANSWER, ASK_USER, *(spec.name for spec in chosen.tool_specs())}
        for tool in tools:
            name = tool.spec.name
            if name in reserved or name in by_name:
                raise ValueError(f"tool name {name!r} is used twice or reserved by the engine")
            by_name[name] = tool
        if auto_approve is True:
            decide: AutoApprove | None = _allow_all
        elif auto_approve is False:
            decide = None
        else:
            decide = auto_approve
        self.config = RunConfig(
            llm=llm,
            tools=by_name,
            policy=chosen,
            human=human,
            budget=budget or Budget(),
            auto_approve=decide,
            text_actions=text_actions,
            gated_risks=frozenset(gated_risks),
            verifiers=tuple(verifiers),
            verifier_retries=verifier_retries,
            system_prompt=system_prompt,
            clock=clock,
        )
        self.approvals = approvals if approvals is not None else ApprovalMemory()
        self.history: list[dict[str, Any]] = list(history)
        self.results: list[RunResult] = []
        self._next_run = first_run
        self._subscribers: list[Subscriber] = []
        self._lock = asyncio.Lock()

    @classmethod
    def resume(cls, llm: LLM, events: Iterable[AgentEvent | Mapping[str, Any]], **options: Any):
        """A session that continues from stored events: approvals, history and run numbering."""
        stored = list(events)
        runs = [event["run"] if isinstance(event, Mapping) else event.run for event in stored]
        return cls(
            llm,
            approvals=rebuild_approvals(stored),
            history=rebuild_history(stored),
            first_run=max(runs) + 1 if runs else 0,
            **options,
        )

    @property
    def policy(self) -> Policy:
        return self.config.policy

    @property
    def last_result(self) -> RunResult | None:
        return self.results[-1] if self.results else None

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Receive every event of every run, in order, as it happens; returns an unsubscribe."""
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

        return unsubscribe

    async def run(
        self,
        question: str,
        files: Sequence[str | PathLike[str]] = (),
        *,
        on_event: Subscriber | None = None,
    ) -> RunResult:
        """Answer one question. Runs in a session take turns; cancelling stops promptly and
        still records a `run_finished` event and a cancelled result."""
        async with self._lock:
            index = self._next_run
            self._next_run += 1

            def sink(event: AgentEvent) -> None:
                for subscriber in [*self._subscribers, *([on_event] if on_event else [])]:
                    try:
                        subscriber(event)
                    except Exception:
                        # A broken view must not stop the agent; the failure is logged.
                        logger.exception("event subscriber failed on %s", event.kind)

            run = AgentRun(
                self.config,
                index=index,
                question=question,
                files=[fspath(name) for name in files],
                history=self.history,
                approvals=self.approvals,
                sink=sink,
            )
            try:
                return await run.execute()
            finally:
                if run.result is not None:
                    self.results.append(run.result)
                    self.history.extend(_exchange(run.result.question, run.result))

    async def stream(
        self, question: str, files: Sequence[str | PathLike[str]] = ()
    ) -> AsyncIterator[AgentEvent]:
        """Yield the run's events as they happen; the result is then `last_result`.

        Leaving the loop early cancels the run."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        task = asyncio.ensure_future(self.run(question, files, on_event=queue.put_nowait))
        task.add_done_callback(lambda _: queue.put_nowait(_DONE))
        try:
            while (item := await queue.get()) is not _DONE:
                yield item
            task.result()  # re-raise an engine failure
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


def _allow_all(tool: str, args: dict[str, Any], risk: Risk) -> bool:
    return True


def _as_dict(event: AgentEvent | Mapping[str, Any]) -> Mapping[str, Any]:
    return event if isinstance(event, Mapping) else event.to_dict()


def _exchange(question: str, result: RunResult | Mapping[str, Any]) -> list[dict[str, Any]]:
    """The two history messages a finished run leaves: the question and what came of it."""
    if isinstance(result, RunResult):
        answer, outcome, partial = result.answer, result.outcome.value, result.partial_text
    else:
        answer, outcome = result.get("answer"), result.get("outcome")
        partial = result.get("partial_text") or ""
    if answer is not None:
        reply = answer
    elif outcome == "cancelled":
        reply = "(stopped by the person before answering)" + (f" {partial}" if partial else "")
    else:
        reply = NO_ANSWER_TEXT
    return [{"role": "user", "content": question}, {"role": "assistant", "content": reply}]


def rebuild_history(events: Iterable[AgentEvent | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation history a session had, from its stored events."""
    questions: dict[int, str] = {}
    history: list[dict[str, Any]] = []
    for event in events:
        data = _as_dict(event)
        details = data.get("details") or {}
        if data.get("kind") == "run_started":
            questions[data["run"]] = details.get("question", "")
        elif data.get("kind") == "run_finished" and data["run"] in questions:
            history.extend(_exchange(questions.pop(data["run"]), details))
    return history
