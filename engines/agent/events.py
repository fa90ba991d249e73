"""Typed events for everything a run does, in the order it happens.

Every event has `kind`, `run` (the run's index in its session), `step`, a one-line `summary` and
JSON-ready `details`. `to_dict()` is what a store appends; `event_from_dict()` turns it back into
the same event, so live views and replay go through the same handlers.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

EVENT_TYPES: dict[str, type[AgentEvent]] = {}
PREVIEW_CHARS = 120


def one_line(text: str | None, width: int = PREVIEW_CHARS) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, kw_only=True)
class AgentEvent:
    kind: ClassVar[str] = ""
    # Transient events (text deltas) are for live views; the reply event repeats their content.
    transient: ClassVar[bool] = False

    run: int
    step: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind:
            EVENT_TYPES[cls.kind] = cls

    @property
    def summary(self) -> str:
        return self.kind.replace("_", " ")

    @property
    def details(self) -> dict[str, Any]:
        return {
            item.name: _jsonable(getattr(self, item.name))
            for item in fields(self)
            if item.name not in ("run", "step")
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "run": self.run,
            "step": self.step,
            "summary": self.summary,
            "details": self.details,
        }


def event_from_dict(data: dict[str, Any]) -> AgentEvent:
    """Rebuild an event from `to_dict()` output (for example after a JSON round trip)."""
    cls = EVENT_TYPES.get(data.get("kind", ""))
    if cls is None:
        raise ValueError(f"unknown event kind {data.get('kind')!r}")
    details = data.get("details") or {}
    values: dict[str, Any] = {}
    for item in fields(cls):
        if item.name in details:
            value = details[item.name]
            # Sequence fields are tuples on events (they stay hashable and immutable).
            values[item.name] = tuple(value) if isinstance(value, list) else value
    return cls(run=data["run"], step=data["step"], **values)


@dataclass(frozen=True, kw_only=True)
class RunStarted(AgentEvent):
    kind: ClassVar[str] = "run_started"
    question: str
    files: tuple[str, ...] = ()
    policy: str = ""
    model: str = ""
    tools: tuple[str, ...] = ()
    text_actions: bool = False
    budget: dict[str, Any] | None = None

    @property
    def summary(self) -> str:
        return f"run {self.run} started ({self.policy}): {one_line(self.question, 80)}"


@dataclass(frozen=True, kw_only=True)
class StepStarted(AgentEvent):
    kind: ClassVar[str] = "step_started"
    forced: bool = False

    @property
    def summary(self) -> str:
        return f"step {self.step}" + (" (forced answer)" if self.forced else "")


@dataclass(frozen=True, kw_only=True)
class LLMTextDelta(AgentEvent):
    kind: ClassVar[str] = "llm_text_delta"
    transient: ClassVar[bool] = True
    text: str

    @property
    def summary(self) -> str:
        return one_line(self.text, 60)


@dataclass(frozen=True, kw_only=True)
class LLMReplied(AgentEvent):
    kind: ClassVar[str] = "llm_replied"
    text: str
    tool_calls: tuple[dict[str, Any], ...] = ()
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    backoff_s: float = 0.0
    finish_reason: str | None = None
    reasoning: str = ""

    @property
    def summary(self) -> str:
        calls = ", ".join(call.get("name", "?") for call in self.tool_calls)
        said = one_line(self.text, 60) if self.text.strip() else "(no text)"
        tokens = self.prompt_tokens + self.completion_tokens
        return f"reply: {said}" + (f" + calls {calls}" if calls else "") + f" [{tokens} tok]"


@dataclass(frozen=True, kw_only=True)
class LLMFailed(AgentEvent):
    kind: ClassVar[str] = "llm_failed"
    error: str

    @property
    def summary(self) -> str:
        return f"model call failed: {one_line(self.error, 100)}"


@dataclass(frozen=True, kw_only=True)
class RepairRequested(AgentEvent):
    kind: ClassVar[str] = "repair_requested"
    reason: str
    nudge: str

    @property
    def summary(self) -> str:
        return f"repair: {one_line(self.reason, 100)}"


@dataclass(frozen=True, kw_only=True)
class ToolCallStarted(AgentEvent):
    kind: ClassVar[str] = "tool_call_started"
    call_id: str
    tool: str
    args: Any = None
    risk: str = ""

    @property
    def summary(self) -> str:
        return f"{self.tool}({one_line(str(self.args), 80)})"


@dataclass(frozen=True, kw_only=True)
class ToolCallFinished(AgentEvent):
    kind: ClassVar[str] = "tool_call_finished"
    call_id: str
    tool: str
    output: str
    preview: str = ""
    is_error: bool = False
    duration_s: float = 0.0
    evidence_id: str | None = None

    @property
    def summary(self) -> str:
        status = "error" if self.is_error else "ok"
        tag = f" [{self.evidence_id}]" if self.evidence_id else ""
        return f"{self.tool} {status} in {self.duration_s:.2f}s{tag}: {self.preview}"


@dataclass(frozen=True, kw_only=True)
class TaskAdded(AgentEvent):
    kind: ClassVar[str] = "task_added"
    task_id: str
    title: str

    @property
    def summary(self) -> str:
        return f"task {self.task_id} added: {one_line(self.title, 80)}"


@dataclass(frozen=True, kw_only=True)
class TaskCompleted(AgentEvent):
    kind: ClassVar[str] = "task_completed"
    task_id: str
    title: str
    result: str = ""

    @property
    def summary(self) -> str:
        return f"task {self.task_id} completed: {one_line(self.result or self.title, 80)}"


@dataclass(frozen=True, kw_only=True)
class TaskSkipped(AgentEvent):
    kind: ClassVar[str] = "task_skipped"
    task_id: str
    title: str
    reason: str = ""

    @property
    def summary(self) -> str:
        return f"task {self.task_id} skipped: {one_line(self.reason, 80)}"


@dataclass(frozen=True, kw_only=True)
class PushedBack(AgentEvent):
    kind: ClassVar[str] = "pushed_back"
    reason: str
    open_tasks: tuple[str, ...] = ()
    count: int = 1

    @property
    def summary(self) -> str:
        return f"push-back {self.count}: {one_line(self.reason, 100)}"


@dataclass(frozen=True, kw_only=True)
class ApprovalRequested(AgentEvent):
    kind: ClassVar[str] = "approval_requested"
    call_id: str
    tool: str
    args: dict[str, Any]
    risk: str

    @property
    def summary(self) -> str:
        return f"approve {self.tool} ({self.risk})? {one_line(str(self.args), 80)}"


@dataclass(frozen=True, kw_only=True)
class ApprovalDecided(AgentEvent):
    kind: ClassVar[str] = "approval_decided"
    call_id: str
    tool: str
    args: dict[str, Any]
    risk: str
    decision: str
    # person | session (remembered decision) | auto (auto-approve) | no_person (denied by policy)
    source: str

    @property
    def summary(self) -> str:
        return f"{self.tool}: {self.decision} ({self.source})"


@dataclass(frozen=True, kw_only=True)
class UserAsked(AgentEvent):
    kind: ClassVar[str] = "user_asked"
    call_id: str
    question: str

    @property
    def summary(self) -> str:
        return f"asks the person: {one_line(self.question, 100)}"


@dataclass(frozen=True, kw_only=True)
class UserAnswered(AgentEvent):
    kind: ClassVar[str] = "user_answered"
    call_id: str
    answer: str

    @property
    def summary(self) -> str:
        return f"the person answered: {one_line(self.answer, 100)}"


@dataclass(frozen=True, kw_only=True)
class AnswerVerified(AgentEvent):
    kind: ClassVar[str] = "answer_verified"
    answer: str
    verdicts: tuple[dict[str, Any], ...] = ()
    retry: bool = False

    @property
    def summary(self) -> str:
        failed = [verdict["check"] for verdict in self.verdicts if not verdict["passed"]]
        if not failed:
            return f"{len(self.verdicts)} checks passed"
        then = ", retrying" if self.retry else ""
        return f"checks failed: {', '.join(failed)}{then}"


@dataclass(frozen=True, kw_only=True)
class BudgetTripped(AgentEvent):
    kind: ClassVar[str] = "budget_tripped"
    axis: str
    used: float
    limit: float

    @property
    def summary(self) -> str:
        return f"budget exhausted: {self.axis} {self.used:g}/{self.limit:g}"


@dataclass(frozen=True, kw_only=True)
class FinalAnswerGiven(AgentEvent):
    kind: ClassVar[str] = "final_answer"
    answer: str | None
    outcome: str
    claims: tuple[dict[str, Any], ...] = ()
    open_tasks: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        if self.answer is None:
            return "no answer"
        return f"answer ({self.outcome}): {one_line(self.answer, 100)}"


@dataclass(frozen=True, kw_only=True)
class RunFinished(AgentEvent):
    kind: ClassVar[str] = "run_finished"
    outcome: str
    answer: str | None = None
    steps: int = 0
    productive_steps: int = 0
    repair_steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0
    tripped: str | None = None
    error: str | None = None
    partial_text: str = ""

    @property
    def summary(self) -> str:
        tokens = self.prompt_tokens + self.completion_tokens
        return (
            f"run {self.run} {self.outcome} after {self.steps} steps, {tokens} tokens, "
            f"${self.cost_usd:.4f}, {self.wall_s:.1f}s"
        )
