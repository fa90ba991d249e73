"""The state one run works on: trace, evidence, claims, tasks, and the result it ends with."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engines.agent.actions import Action
from engines.agent.llm import Usage

if TYPE_CHECKING:
    from engines.agent.budget import BudgetAxis
    from engines.agent.events import AgentEvent
    from engines.agent.verifiers import Verdict


@dataclass(frozen=True)
class Evidence:
    """Citable tool output. The model sees it tagged `[E3]` and cites it by that id."""

    id: str
    tool: str
    args: dict[str, Any]
    text: str
    step: int


class ClaimKind(StrEnum):
    ANSWER = "answer"  # an answer the model proposed (accepted or not)
    SUPPORT = "support"  # a fact the answer rests on, from final_answer's `claims`
    TASK = "task"  # the result given when completing a plan task


@dataclass(frozen=True)
class Claim:
    text: str
    evidence: tuple[str, ...] = ()
    quote: str = ""
    kind: ClaimKind = ClaimKind.SUPPORT
    step: int = 0


class TaskStatus(StrEnum):
    OPEN = "open"
    COMPLETED = "completed"
    SKIPPED = "skipped"


@dataclass
class Task:
    id: str
    title: str
    status: TaskStatus = TaskStatus.OPEN
    note: str = ""


@dataclass(frozen=True)
class TraceEntry:
    """One step: what the model did and what came back. `action` is None when the reply was
    unusable (`repair` is then True and `observation` says what was wrong)."""

    step: int
    action: Action | None
    observation: str
    repair: bool = False
    reply_text: str = ""


class Trace(Sequence[TraceEntry]):
    """Append-only: entries can be added and read, never changed or removed."""

    def __init__(self) -> None:
        self._entries: list[TraceEntry] = []

    def append(self, entry: TraceEntry) -> None:
        self._entries.append(entry)

    def __getitem__(self, index):  # type: ignore[override]
        return self._entries[index]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[TraceEntry]:
        return iter(self._entries)


@dataclass
class RunState:
    question: str
    files: tuple[str, ...] = ()
    messages: list[dict[str, Any]] = field(default_factory=list)
    trace: Trace = field(default_factory=Trace)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    step: int = 0
    pushbacks: int = 0
    verifier_retries: int = 0
    # Text streamed during the reply in progress; kept if the run is cancelled mid-reply.
    partial_text: str = ""

    def add_evidence(self, tool: str, args: dict[str, Any], text: str) -> Evidence:
        evidence = Evidence(f"E{len(self.evidence) + 1}", tool, args, text, self.step)
        self.evidence[evidence.id] = evidence
        return evidence

    def add_task(self, title: str) -> Task:
        task = Task(f"T{len(self.tasks) + 1}", title)
        self.tasks.append(task)
        return task

    def task(self, task_id: str) -> Task | None:
        wanted = task_id.strip().upper()
        return next((task for task in self.tasks if task.id == wanted), None)

    def open_tasks(self) -> list[Task]:
        return [task for task in self.tasks if task.status is TaskStatus.OPEN]

    def last_claim(self) -> Claim | None:
        """The fallback answer: the latest proposed answer, else the latest claim of any kind."""
        answers = [claim for claim in self.claims if claim.kind is ClaimKind.ANSWER]
        if answers:
            return answers[-1]
        return self.claims[-1] if self.claims else None


class Outcome(StrEnum):
    ANSWERED = "answered"  # the model gave a final answer in the normal loop
    FORCED = "forced"  # the answer came from the one forced attempt after the budget ran out
    FALLBACK = "fallback"  # the answer is the last claim the model made
    NO_ANSWER = "no_answer"  # nothing to answer with
    CANCELLED = "cancelled"
    FAILED = "failed"  # an unexpected error in the engine itself; the exception is re-raised


@dataclass(frozen=True)
class RunResult:
    run: int
    question: str
    answer: str | None
    outcome: Outcome
    steps: int
    usage: Usage
    wall_s: float
    trace: tuple[TraceEntry, ...]
    verdicts: tuple[Verdict, ...]
    evidence: tuple[Evidence, ...]
    claims: tuple[Claim, ...]
    tasks: tuple[Task, ...]
    events: tuple[AgentEvent, ...]
    tripped: BudgetAxis | None = None
    error: str | None = None
    partial_text: str = ""

    @property
    def cost_usd(self) -> float:
        return self.usage.cost_usd

    @property
    def answered(self) -> bool:
        return self.answer is not None
