"""One run of the agent loop: ask the model, act, observe, until an answer or the budget ends.

The same loop serves every policy and both action formats (native tool calls, or JSON actions
written in text). Each step is traced and announced as events. Whatever happens, a run ends
with an answer (normal, forced or fallback), an explicit "no answer", or a cancellation that
keeps what was said so far.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.agent.actions import ASK_USER, FINAL_ANSWER, Action, ActionKind, ParsedCall
from engines.agent.budget import Budget, BudgetMeter, Clock, Trip
from engines.agent.events import (
    AgentEvent,
    AnswerVerified,
    ApprovalDecided,
    ApprovalRequested,
    BudgetTripped,
    FinalAnswerGiven,
    LLMFailed,
    LLMReplied,
    LLMTextDelta,
    PushedBack,
    RepairRequested,
    RunFinished,
    RunStarted,
    StepStarted,
    ToolCallFinished,
    ToolCallStarted,
    UserAnswered,
    UserAsked,
    one_line,
)
from engines.agent.human import ApprovalMemory, AutoApprove, Decision, Human
from engines.agent.llm import LLM, Delta, LLMError, LLMReply, TextDelta, ToolSpec
from engines.agent.parsing import extract_json_object, parse_text_action
from engines.agent.policies import ASK_USER_SPEC, FINAL_ANSWER_SPEC, PersonRole, Policy
from engines.agent.prompts import (
    ACTION_EXAMPLE,
    DENIED,
    EMPTY_REPLY,
    FORCED_ANSWER,
    NO_PERSON,
    TEXT_FORCED_ANSWER,
    TEXT_THINK_REMINDER,
    THINK_REMINDER,
    question_message,
    system_prompt,
    text_action_instructions,
)
from engines.agent.replies import call_problem, read_native_calls, read_text_action
from engines.agent.state import (
    Claim,
    ClaimKind,
    Outcome,
    RunResult,
    RunState,
    TraceEntry,
)
from engines.agent.tools import Risk, Tool, ToolError, ToolResult
from engines.agent.verifiers import AnswerContext, Verdict, Verifier, run_verifiers

EventSink = Callable[[AgentEvent], None]
WALL_TIME_STOP = "stopped: the wall-time budget ran out before the tool finished"


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs that outlives it; built by `AgentSession`."""

    llm: LLM
    tools: Mapping[str, Tool]
    policy: Policy
    human: Human | None
    budget: Budget
    auto_approve: AutoApprove | None
    text_actions: bool
    gated_risks: frozenset[Risk]
    verifiers: tuple[Verifier, ...]
    verifier_retries: int
    system_prompt: str
    clock: Clock

    @property
    def with_person(self) -> bool:
        return self.human is not None and self.policy.person is not PersonRole.NONE

    def needs_approval(self, tool: Tool) -> bool:
        return bool(tool.needs_approval) or tool.risk in self.gated_risks


@dataclass(frozen=True)
class _CallResult:
    content: str  # what the model is told
    is_error: bool
    valid: bool  # well-formed (it ran, or a person refused it); invalid calls are repairs
    problem: str = ""


@dataclass(frozen=True)
class _Proposal:
    accepted: bool
    answer: str
    tool_content: str = ""
    feedback: str = ""  # why it was not accepted; sent as a system message
    problem: str = ""  # the call itself was unusable (a repair)


class AgentRun:
    def __init__(
        self,
        config: RunConfig,
        *,
        index: int,
        question: str,
        files: Sequence[str],
        history: Sequence[dict[str, Any]],
        approvals: ApprovalMemory,
        sink: EventSink,
    ) -> None:
        self.config = config
        self.index = index
        self.approvals = approvals
        self._sink = sink
        self.state = RunState(question=question, files=tuple(files))
        self.meter = BudgetMeter(config.budget, config.clock)
        self.events: list[AgentEvent] = []
        self.verdicts: tuple[Verdict, ...] = ()
        self.tripped: Trip | None = None
        self.error: str | None = None
        self.result: RunResult | None = None

        specs = [tool.spec for tool in config.tools.values()]
        if config.with_person:
            specs.append(ASK_USER_SPEC)
        specs.extend(config.policy.tool_specs())
        specs.append(FINAL_ANSWER_SPEC)
        self.specs: dict[str, ToolSpec] = {spec.name: spec for spec in specs}

        prompt = system_prompt(config.system_prompt, config.budget.max_steps, config.policy.notes)
        if config.text_actions:
            prompt = f"{prompt}\n\n{text_action_instructions(specs)}"
        self.state.messages = [
            {"role": "system", "content": prompt},
            *history,
            {"role": "user", "content": question_message(question, self.state.files)},
        ]

    # --- events ----------------------------------------------------------------------------

    def emit(self, event_type: type[AgentEvent], **fields: Any) -> None:
        event = event_type(run=self.index, step=self.state.step, **fields)
        self.events.append(event)
        self._sink(event)

    # --- the run ---------------------------------------------------------------------------

    async def execute(self) -> RunResult:
        config = self.config
        self.emit(
            RunStarted,
            question=self.state.question,
            files=self.state.files,
            policy=config.policy.name,
            model=str(getattr(config.llm, "model", "")),
            tools=tuple(self.specs),
            text_actions=config.text_actions,
            budget=dataclasses.asdict(config.budget),
        )
        self.meter.start()
        try:
            answer, outcome = await self._loop()
        except asyncio.CancelledError:
            if self.state.partial_text:
                self.state.trace.append(
                    TraceEntry(
                        self.state.step,
                        None,
                        "cancelled while the model was replying",
                        reply_text=self.state.partial_text,
                    )
                )
            self._finish(None, Outcome.CANCELLED)
            raise
        except Exception as error:
            self.error = f"{type(error).__name__}: {error}"
            self._finish(None, Outcome.FAILED)
            raise
        return self._finish(answer, outcome)

    async def _loop(self) -> tuple[str | None, Outcome]:
        while True:
            trip = self.meter.tripped()
            if trip is not None:
                return await self._exhausted(trip)
            try:
                reply = await self._ask_model(list(self.specs.values()))
            except LLMError as error:
                self.error = str(error)
                return self._fall_back()
            finished = await self._take_step(reply)
            if finished is not None:
                return finished

    def _finish(self, answer: str | None, outcome: Outcome) -> RunResult:
        state, meter = self.state, self.meter
        partial = state.partial_text if outcome is Outcome.CANCELLED else ""
        self.emit(
            RunFinished,
            outcome=outcome.value,
            answer=answer,
            steps=state.step,
            productive_steps=meter.productive_steps,
            repair_steps=meter.repair_steps,
            prompt_tokens=meter.usage.prompt_tokens,
            completion_tokens=meter.usage.completion_tokens,
            cost_usd=meter.usage.cost_usd,
            wall_s=round(meter.wall_s, 3),
            tripped=self.tripped.axis.value if self.tripped else None,
            error=self.error,
            partial_text=partial,
        )
        self.result = RunResult(
            run=self.index,
            question=state.question,
            answer=answer,
            outcome=outcome,
            steps=state.step,
            usage=meter.usage,
            wall_s=meter.wall_s,
            trace=tuple(state.trace),
            verdicts=self.verdicts,
            evidence=tuple(state.evidence.values()),
            claims=tuple(state.claims),
            tasks=tuple(dataclasses.replace(task) for task in state.tasks),
            events=tuple(self.events),
            tripped=self.tripped.axis if self.tripped else None,
            error=self.error,
            partial_text=partial,
        )
        return self.result

    # --- talking to the model --------------------------------------------------------------

    async def _ask_model(self, specs: list[ToolSpec] | None, *, forced: bool = False) -> LLMReply:
        state = self.state
        state.step += 1
        state.partial_text = ""
        self.emit(StepStarted, forced=forced)

        def on_delta(delta: Delta) -> None:
            if isinstance(delta, TextDelta) and delta.text:
                state.partial_text += delta.text
                self.emit(LLMTextDelta, text=delta.text)

        offered = None if self.config.text_actions else specs
        try:
            reply = await self.config.llm.complete(
                list(state.messages), tools=offered or None, on_delta=on_delta
            )
        except LLMError as error:
            failure = str(error) or "the model call failed"
        except Exception as error:
            # The protocol asks for LLMError; anything else is treated the same so a broken
            # client still ends the run with an answer or an explicit "no answer".
            failure = f"{type(error).__name__}: {error}"
        else:
            state.partial_text = ""
            self.meter.add_usage(reply.usage)
            self.meter.exclude(reply.backoff_s)
            self.emit(
                LLMReplied,
                text=reply.text,
                tool_calls=tuple(
                    {"id": call.id, "name": call.name, "arguments": call.arguments}
                    for call in reply.tool_calls
                ),
                model=reply.model,
                prompt_tokens=reply.usage.prompt_tokens,
                completion_tokens=reply.usage.completion_tokens,
                cost_usd=reply.usage.cost_usd,
                latency_s=reply.latency_s,
                backoff_s=reply.backoff_s,
                finish_reason=reply.finish_reason,
                reasoning=reply.reasoning,
            )
            return reply
        self.emit(LLMFailed, error=failure)
        raise LLMError(failure)

    def _note(self, text: str) -> None:
        """An engine message to the model (push-backs, nudges, reminders)."""
        self.state.messages.append({"role": "system", "content": text})

    # --- one step --------------------------------------------------------------------------

    async def _take_step(self, reply: LLMReply) -> tuple[str | None, Outcome] | None:
        state = self.state
        text_mode = self.config.text_actions
        if text_mode:
            thought, calls, problem = read_text_action(reply.text, self.specs, state.step)
            if reply.text.strip():
                state.messages.append({"role": "assistant", "content": reply.text})
        else:
            thought, calls = reply.text, read_native_calls(reply.tool_calls, self.specs, state.step)
            problem = "" if calls or reply.text.strip() else "the reply was empty"
            self._record_native_reply(reply, calls)

        if problem:
            if not text_mode:
                nudge = EMPTY_REPLY
            else:
                nudge = (
                    f"I could not read an action from your reply: {problem}. Reply with one "
                    f"JSON object, for example {ACTION_EXAMPLE}"
                )
            self.emit(RepairRequested, reason=problem, nudge=nudge)
            self._note(nudge)
            self.meter.repair()
            state.trace.append(TraceEntry(state.step, None, problem, True, reply.text))
            return None

        action = Action.from_calls(thought, calls)
        if action.kind is ActionKind.THINK:
            self.meter.productive()
            self._note(TEXT_THINK_REMINDER if text_mode else THINK_REMINDER)
            state.trace.append(TraceEntry(state.step, action, "", False, reply.text))
            return None

        work = [call for call in calls if call.name != FINAL_ANSWER]
        finals = [call for call in calls if call.name == FINAL_ANSWER]
        results = await self._execute(work)
        proposal = None
        if finals:
            proposal = await self._propose(finals[0], reply.text)
            results[finals[0].id] = _CallResult(
                proposal.tool_content, not proposal.accepted, not proposal.problem, proposal.problem
            )
            for extra in finals[1:]:
                results[extra.id] = _CallResult(
                    "Error: only one final_answer per reply is read; this one was ignored.",
                    True,
                    True,
                )

        observation = "\n".join(f"{call.name}: {results[call.id].content}" for call in calls)
        productive = any(results[call.id].valid for call in work) or bool(
            proposal and proposal.accepted
        )
        state.trace.append(TraceEntry(state.step, action, observation, not productive, reply.text))
        if proposal is not None and proposal.accepted:
            self.meter.productive()
            return proposal.answer, Outcome.ANSWERED

        self._feed_back(calls, results)
        if proposal is not None and proposal.feedback:
            self._note(proposal.feedback)
        if productive:
            self.meter.productive()
            return None
        self.meter.repair()
        invalid = [results[call.id].problem for call in calls if not results[call.id].valid]
        if invalid:
            self.emit(
                RepairRequested,
                reason="; ".join(invalid),
                nudge="Fix the call and try again: " + invalid[0],
            )
        return None

    def _record_native_reply(self, reply: LLMReply, calls: tuple[ParsedCall, ...]) -> None:
        if not calls:
            if reply.text.strip():
                self.state.messages.append({"role": "assistant", "content": reply.text})
            return
        self.state.messages.append(
            {
                "role": "assistant",
                "content": reply.text or None,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.raw or "{}"},
                    }
                    for call in calls
                ],
            }
        )

    def _feed_back(self, calls: Sequence[ParsedCall], results: Mapping[str, _CallResult]) -> None:
        if not calls:
            return
        if not self.config.text_actions:
            for call in calls:
                self.state.messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": results[call.id].content}
                )
            return
        blocks = [f"{call.name} ({call.id}): {results[call.id].content}" for call in calls]
        self.state.messages.append(
            {"role": "user", "content": "Observations:\n" + "\n\n".join(blocks)}
        )

    # --- tool calls ------------------------------------------------------------------------

    async def _execute(self, calls: Sequence[ParsedCall]) -> dict[str, _CallResult]:
        """Check, ask and approve in order (a person handles one thing at a time), then run the
        approved tools concurrently."""
        results: dict[str, _CallResult] = {}
        runnable: list[tuple[ParsedCall, Tool]] = []
        for call in calls:
            tool = self.config.tools.get(call.name)
            risk = tool.risk if tool is not None else Risk.SAFE
            shown = call.args if call.args is not None else call.raw
            self.emit(ToolCallStarted, call_id=call.id, tool=call.name, args=shown, risk=risk.value)
            problem = call_problem(call, self.specs)
            if problem:
                refusal = ToolResult(problem, is_error=True)
                results[call.id] = self._finish_call(call, refusal, 0.0, valid=False)
            elif call.name == ASK_USER:
                results[call.id] = await self._ask_person(call)
            elif tool is None:
                results[call.id] = await self._run_policy_tool(call)
            else:
                allowed, refusal = await self._approve(call, tool)
                if allowed:
                    runnable.append((call, tool))
                else:
                    results[call.id] = self._finish_call(
                        call, ToolResult(refusal, is_error=True), 0.0
                    )
        results.update(await self._run_concurrently(runnable))
        return results

    def _finish_call(
        self, call: ParsedCall, result: ToolResult, duration: float, *, valid: bool = True
    ) -> _CallResult:
        evidence_id = None
        if not result.is_error and result.citable:
            evidence_id = self.state.add_evidence(call.name, call.args or {}, result.output).id
        self.emit(
            ToolCallFinished,
            call_id=call.id,
            tool=call.name,
            output=result.output,
            preview=one_line(result.output),
            is_error=result.is_error,
            duration_s=round(duration, 4),
            evidence_id=evidence_id,
        )
        if evidence_id:
            content = f"[{evidence_id}] {result.output}"
        elif result.is_error:
            content = f"Error: {result.output}"
        else:
            content = result.output
        return _CallResult(content, result.is_error, valid, "" if valid else result.output)

    async def _run_tool(self, call: ParsedCall, tool: Tool) -> _CallResult:
        clock = self.config.clock
        started = clock()
        try:
            result = await tool.run(dict(call.args or {}))
            if not isinstance(result, ToolResult):
                result = ToolResult(str(result))
        except ToolError as error:
            result = ToolResult(str(error) or f"{call.name} failed", is_error=True)
        except Exception as error:
            # A broken tool must not end the run: the model hears about it and moves on.
            result = ToolResult(
                f"{call.name} crashed: {type(error).__name__}: {error}", is_error=True
            )
        return self._finish_call(call, result, clock() - started)

    async def _run_concurrently(
        self, runnable: Sequence[tuple[ParsedCall, Tool]]
    ) -> dict[str, _CallResult]:
        if not runnable:
            return {}
        clock = self.config.clock
        started = clock()
        tasks = {asyncio.ensure_future(self._run_tool(call, tool)): call for call, tool in runnable}
        try:
            done, _ = await asyncio.wait(list(tasks), timeout=self.meter.remaining_wall_s())
        finally:
            # Also reached when the run itself is cancelled: no tool may outlive it.
            leftovers = [task for task in tasks if not task.done()]
            for task in leftovers:
                task.cancel()
            if leftovers:
                await asyncio.gather(*leftovers, return_exceptions=True)
        results = {}
        for task, call in tasks.items():
            if task in done:
                results[call.id] = task.result()
            else:
                stop = ToolResult(WALL_TIME_STOP, is_error=True)
                results[call.id] = self._finish_call(call, stop, clock() - started)
        return results

    async def _run_policy_tool(self, call: ParsedCall) -> _CallResult:
        clock = self.config.clock
        started = clock()
        try:
            result = await self.config.policy.handle(call.name, dict(call.args or {}), self)
        except ToolError as error:
            result = ToolResult(str(error), is_error=True)
        return self._finish_call(call, result, clock() - started)

    async def _ask_person(self, call: ParsedCall) -> _CallResult:
        assert self.config.human is not None and call.args is not None
        question = str(call.args["question"])
        self.emit(UserAsked, call_id=call.id, question=question)
        clock = self.config.clock
        started = clock()
        with self.meter.paused():
            try:
                answer = str(await self.config.human.ask(question))
            except Exception as error:
                # The person closed the prompt or the UI failed; the model should carry on.
                failure = ToolResult(f"the person did not answer ({error})", is_error=True)
                return self._finish_call(call, failure, clock() - started)
        self.emit(UserAnswered, call_id=call.id, answer=answer)
        return self._finish_call(call, ToolResult(answer), clock() - started)

    async def _approve(self, call: ParsedCall, tool: Tool) -> tuple[bool, str]:
        """Whether a call may run, and what to tell the model when it may not."""
        config = self.config
        if not config.needs_approval(tool):
            return True, ""
        args = dict(call.args or {})
        about = {"call_id": call.id, "tool": call.name, "args": args, "risk": tool.risk.value}
        remembered = self.approvals.recall(call.name, args)
        if remembered is not None:
            self.emit(ApprovalDecided, **about, decision=remembered.value, source="session")
            return True, ""
        if config.auto_approve is not None and config.auto_approve(call.name, args, tool.risk):
            self.emit(ApprovalDecided, **about, decision=Decision.ALLOW_ONCE.value, source="auto")
            return True, ""
        if not config.with_person:
            self.emit(ApprovalDecided, **about, decision=Decision.DENY.value, source="no_person")
            return False, NO_PERSON.format(tool=call.name)
        assert config.human is not None
        self.emit(ApprovalRequested, **about)
        with self.meter.paused():
            try:
                decision = Decision(await config.human.approve(call.name, dict(args), tool.risk))
            except Exception:
                # An unreadable answer or a failed prompt is not a yes.
                decision = Decision.DENY
        self.approvals.remember(call.name, args, decision)
        self.emit(ApprovalDecided, **about, decision=decision.value, source="person")
        return decision.allows, DENIED.format(tool=call.name)

    # --- answers ---------------------------------------------------------------------------

    def _claims_from(self, args: Mapping[str, Any]) -> tuple[Claim, ...]:
        claims = []
        for item in args.get("claims") or ():
            if not isinstance(item, dict) or not str(item.get("text", "")).strip():
                continue
            evidence = item.get("evidence") or ()
            if isinstance(evidence, str):
                evidence = (evidence,)
            claims.append(
                Claim(
                    text=str(item["text"]).strip(),
                    evidence=tuple(str(ident).strip().upper() for ident in evidence),
                    quote=str(item.get("quote") or "").strip(),
                    kind=ClaimKind.SUPPORT,
                    step=self.state.step,
                )
            )
        return tuple(claims)

    def _verify(
        self, answer: str, claims: tuple[Claim, ...], reasoning: str
    ) -> tuple[Verdict, ...]:
        # Task results are claims too; reasoning is only this reply's text, because earlier
        # steps may hold mistakes the model has since corrected.
        task_claims = tuple(claim for claim in self.state.claims if claim.kind is ClaimKind.TASK)
        context = AnswerContext(answer, claims + task_claims, self.state.evidence, reasoning)
        self.verdicts = run_verifiers(context, self.config.verifiers)
        return self.verdicts

    async def _propose(self, call: ParsedCall, reasoning: str) -> _Proposal:
        state = self.state
        problem = call_problem(call, self.specs)
        if problem:
            return _Proposal(False, "", tool_content=f"Error: {problem}", problem=problem)
        assert call.args is not None
        answer = str(call.args["answer"]).strip()
        claims = self._claims_from(call.args)
        state.claims.append(Claim(answer, kind=ClaimKind.ANSWER, step=state.step))
        state.claims.extend(claims)

        reason = self.config.policy.review_answer(state)
        if reason and state.pushbacks < self.config.policy.max_pushbacks:
            state.pushbacks += 1
            open_ids = tuple(task.id for task in state.open_tasks())
            self.emit(PushedBack, reason=reason, open_tasks=open_ids, count=state.pushbacks)
            return _Proposal(False, answer, "Not accepted yet; see the next message.", reason)

        verdicts = self._verify(answer, claims, reasoning)
        failed = [verdict for verdict in verdicts if not verdict.passed]
        retry = bool(failed) and state.verifier_retries < self.config.verifier_retries
        if verdicts:
            as_dicts = tuple(verdict.to_dict() for verdict in verdicts)
            self.emit(AnswerVerified, answer=answer, verdicts=as_dicts, retry=retry)
        if retry:
            state.verifier_retries += 1
            nudges = "\n".join(f"- {verdict.nudge}" for verdict in failed)
            feedback = f"Your answer did not pass these checks:\n{nudges}"
            return _Proposal(
                False, answer, "Not accepted yet: checks failed; see the next message.", feedback
            )

        self.emit(
            FinalAnswerGiven,
            answer=answer,
            outcome=Outcome.ANSWERED.value,
            claims=tuple(_claim_dict(claim) for claim in claims),
            open_tasks=tuple(task.id for task in state.open_tasks()),
        )
        return _Proposal(True, answer, "Accepted.")

    async def _exhausted(self, trip: Trip) -> tuple[str | None, Outcome]:
        """One bounded forced-answer attempt, then the last claim, then an explicit no answer."""
        self.tripped = trip
        self.emit(
            BudgetTripped, axis=trip.axis.value, used=float(trip.used), limit=float(trip.limit)
        )
        axis = trip.axis.value.replace("_", " ")
        template = TEXT_FORCED_ANSWER if self.config.text_actions else FORCED_ANSWER
        self._note(template.format(axis=axis))
        try:
            async with asyncio.timeout(self.config.budget.forced_answer_timeout_s):
                reply = await self._ask_model([FINAL_ANSWER_SPEC], forced=True)
        except TimeoutError:
            self.state.partial_text = ""
            self.emit(LLMFailed, error="the forced answer timed out")
            return self._fall_back()
        except LLMError:
            return self._fall_back()
        answer, claims = self._read_forced(reply)
        observation = "forced answer" if answer is not None else "no usable forced answer"
        self.state.trace.append(TraceEntry(self.state.step, None, observation, False, reply.text))
        if answer is None:
            return self._fall_back()
        self.state.claims.append(Claim(answer, kind=ClaimKind.ANSWER, step=self.state.step))
        self.state.claims.extend(claims)
        verdicts = self._verify(answer, claims, reply.text)
        if verdicts:
            as_dicts = tuple(verdict.to_dict() for verdict in verdicts)
            self.emit(AnswerVerified, answer=answer, verdicts=as_dicts, retry=False)
        self.emit(
            FinalAnswerGiven,
            answer=answer,
            outcome=Outcome.FORCED.value,
            claims=tuple(_claim_dict(claim) for claim in claims),
            open_tasks=tuple(task.id for task in self.state.open_tasks()),
        )
        return answer, Outcome.FORCED

    def _read_forced(self, reply: LLMReply) -> tuple[str | None, tuple[Claim, ...]]:
        """The answer in a forced reply: a final_answer call, or failing that its plain text."""
        if self.config.text_actions:
            parsed = parse_text_action(reply.text)
            calls = [(call.name, call.args) for call in parsed.calls]
            plain_text_ok = not parsed.calls and "no JSON" in parsed.problem
        else:
            calls = [(call.name, extract_json_object(call.arguments)) for call in reply.tool_calls]
            plain_text_ok = not reply.tool_calls
        for name, args in calls:
            if name == FINAL_ANSWER and isinstance(args, dict) and "answer" in args:
                answer = str(args["answer"]).strip()
                if answer:
                    return answer, self._claims_from(args)
        if plain_text_ok and reply.text.strip():
            return reply.text.strip(), ()
        return None, ()

    def _fall_back(self) -> tuple[str | None, Outcome]:
        claim = self.state.last_claim()
        open_ids = tuple(task.id for task in self.state.open_tasks())
        if claim is not None:
            self.emit(
                FinalAnswerGiven,
                answer=claim.text,
                outcome=Outcome.FALLBACK.value,
                open_tasks=open_ids,
            )
            return claim.text, Outcome.FALLBACK
        self.emit(
            FinalAnswerGiven, answer=None, outcome=Outcome.NO_ANSWER.value, open_tasks=open_ids
        )
        return None, Outcome.NO_ANSWER


def _claim_dict(claim: Claim) -> dict[str, Any]:
    return {"text": claim.text, "evidence": list(claim.evidence), "quote": claim.quote}
