"""Policies: small objects that shape one loop over the same state.

- `react`: tools and a final answer, no person. Calls that need approval are denied unless the
  session's auto-approve says yes.
- `react+`: adds the `ask_user` tool and routes approvals to the person (a `Human` is required).
- `plan`: react+ (the person is optional) plus a task list the model manages with `add_tasks`,
  `complete_task` and `skip_task`; a final answer is accepted only when every task is completed
  or skipped, otherwise the loop pushes back, at most `max_pushbacks` times.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol

from engines.agent.actions import ASK_USER, FINAL_ANSWER
from engines.agent.events import AgentEvent, TaskAdded, TaskCompleted, TaskSkipped
from engines.agent.llm import ToolSpec
from engines.agent.state import Claim, ClaimKind, RunState, TaskStatus
from engines.agent.tools import ToolError, ToolResult

FINAL_ANSWER_SPEC = ToolSpec(
    name=FINAL_ANSWER,
    description=(
        "Give your final answer and end the task. `answer` is only the answer itself; `claims` "
        "are the facts it rests on, citing evidence ids."
    ),
    parameters={
        "type": "object",
        "properties": {
            "answer": {"type": "string", "description": "Just the answer, no explanation."},
            "claims": {
                "type": "array",
                "description": "Facts the answer rests on.",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "evidence": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "Evidence ids such as E1.",
                        },
                        "quote": {
                            "type": "string",
                            "description": "Words copied exactly from the cited evidence.",
                        },
                    },
                    "required": ["text"],
                },
            },
        },
        "required": ["answer"],
    },
)

ASK_USER_SPEC = ToolSpec(
    name=ASK_USER,
    description=(
        "Ask the person a question when the task is ambiguous or you need something only they "
        "know. Returns their answer."
    ),
    parameters={
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    },
)

ADD_TASKS_SPEC = ToolSpec(
    name="add_tasks",
    description="Add tasks to your plan, one short sentence each. Returns their ids (T1, ...).",
    parameters={
        "type": "object",
        "properties": {"tasks": {"type": "array", "items": {"type": "string"}}},
        "required": ["tasks"],
    },
)

COMPLETE_TASK_SPEC = ToolSpec(
    name="complete_task",
    description="Mark a task completed, with what you found and the evidence ids for it.",
    parameters={
        "type": "object",
        "properties": {
            "task_id": {"type": "string"},
            "result": {"type": "string"},
            "evidence": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["task_id"],
    },
)

SKIP_TASK_SPEC = ToolSpec(
    name="skip_task",
    description="Skip a task that turned out to be unnecessary or impossible, saying why.",
    parameters={
        "type": "object",
        "properties": {"task_id": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["task_id", "reason"],
    },
)


class PersonRole(StrEnum):
    NONE = "none"
    OPTIONAL = "optional"
    REQUIRED = "required"


class RunContext(Protocol):
    """What a policy may touch while handling its tools: the state, and the event stream."""

    state: RunState

    def emit(self, event_type: type[AgentEvent], **fields: Any) -> None: ...


class Policy:
    name = "react"
    person = PersonRole.NONE
    notes = ""

    def __init__(self, *, max_pushbacks: int = 3) -> None:
        self.max_pushbacks = max_pushbacks

    def tool_specs(self) -> list[ToolSpec]:
        """Engine tools this policy adds, besides ask_user and final_answer."""
        return []

    async def handle(self, name: str, args: dict[str, Any], context: RunContext) -> ToolResult:
        """Run one of `tool_specs()`; arguments are already validated."""
        raise ToolError(f"unknown tool {name!r}")

    def review_answer(self, state: RunState) -> str | None:
        """Why a final answer cannot be accepted yet, or None to accept it."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(max_pushbacks={self.max_pushbacks})"


class ReactPolicy(Policy):
    name = "react"
    person = PersonRole.NONE


class ReactPlusPolicy(Policy):
    name = "react+"
    person = PersonRole.REQUIRED
    notes = (
        "If the question is ambiguous, or you need something only the person knows, call "
        "ask_user. Some tools need the person's approval; if a call is denied, choose another way."
    )


class PlanPolicy(Policy):
    name = "plan"
    person = PersonRole.OPTIONAL
    notes = (
        "Plan first: call add_tasks with the steps you need. Close each task with complete_task "
        "(give the result and its evidence ids) or skip_task (say why). final_answer is accepted "
        "only when every task is completed or skipped."
    )

    def tool_specs(self) -> list[ToolSpec]:
        return [ADD_TASKS_SPEC, COMPLETE_TASK_SPEC, SKIP_TASK_SPEC]

    async def handle(self, name: str, args: dict[str, Any], context: RunContext) -> ToolResult:
        state = context.state
        if name == "add_tasks":
            titles = [title.strip() for title in args["tasks"] if title.strip()]
            if not titles:
                raise ToolError("give at least one non-empty task")
            added = []
            for title in titles:
                task = state.add_task(title)
                context.emit(TaskAdded, task_id=task.id, title=task.title)
                added.append(f"{task.id}: {task.title}")
            return ToolResult("Added " + "; ".join(added), citable=False)
        if name not in ("complete_task", "skip_task"):
            return await super().handle(name, args, context)
        task = state.task(args["task_id"])
        if task is None:
            known = ", ".join(task.id for task in state.tasks) or "none yet"
            raise ToolError(f"no task {args['task_id']!r} (tasks: {known})")
        if task.status is not TaskStatus.OPEN:
            raise ToolError(f"task {task.id} is already {task.status.value}")
        if name == "skip_task":
            task.status, task.note = TaskStatus.SKIPPED, args["reason"].strip()
            context.emit(TaskSkipped, task_id=task.id, title=task.title, reason=task.note)
            return ToolResult(f"Skipped {task.id}.", citable=False)
        task.status, task.note = TaskStatus.COMPLETED, str(args.get("result", "")).strip()
        if task.note:
            evidence = tuple(str(ident).strip().upper() for ident in args.get("evidence") or ())
            state.claims.append(Claim(task.note, evidence, kind=ClaimKind.TASK, step=state.step))
        context.emit(TaskCompleted, task_id=task.id, title=task.title, result=task.note)
        remaining = len(state.open_tasks())
        return ToolResult(f"Completed {task.id}; {remaining} open tasks left.", citable=False)

    def review_answer(self, state: RunState) -> str | None:
        open_tasks = state.open_tasks()
        if not open_tasks:
            return None
        listed = "; ".join(f"{task.id} ({task.title})" for task in open_tasks)
        return (
            f"Your answer is not accepted yet: these tasks are still open: {listed}. Complete "
            "each with complete_task or skip it with skip_task, then call final_answer again."
        )


POLICIES: dict[str, type[Policy]] = {
    "react": ReactPolicy,
    "react+": ReactPlusPolicy,
    "plan": PlanPolicy,
}


def make_policy(policy: str | Policy) -> Policy:
    if isinstance(policy, Policy):
        return policy
    try:
        return POLICIES[policy]()
    except KeyError:
        raise ValueError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}") from None
