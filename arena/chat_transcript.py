"""A chat session's events folded into what people read: questions, replies, tool calls, tasks,
approvals, questions to the person, answers and what each run cost.

The live chat screen, a resumed session and the exports all read events through
`Transcript.apply`, so they cannot disagree. Entries are frozen: an update (a tool call that
finishes, a task that is completed) replaces the entry, which views redraw by its key.

    transcript = Transcript()
    for event in events:          # AgentEvent objects or their to_dict() form
        entry = transcript.apply(event)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engines.agent.events import AgentEvent, event_from_dict, one_line

# Tool-call statuses, in the order a call goes through them.
RUNNING = "running"
AWAITING_APPROVAL = "awaiting approval"
OK = "ok"
ERROR = "error"
DENIED = "denied"

# Where an approval decision came from, as people read it.
_SOURCES = {
    "person": "by you",
    "session": "by a session rule",
    "auto": "automatically",
    "no_person": "nobody can approve in this policy",
}
_DECISIONS = {
    "allow_once": "allowed once",
    "allow_session_tool": "allowed for the session (tool)",
    "allow_session_exact": "allowed for the session (exact call)",
    "deny": "denied",
}
_OUTCOMES = {
    "answered": "",
    "forced": "forced when the budget ran out",
    "fallback": "the last claim, after the model stopped",
    "no_answer": "no answer",
    "cancelled": "stopped",
    "failed": "failed",
}


def as_event(event: AgentEvent | Mapping[str, Any]) -> AgentEvent:
    return event if isinstance(event, AgentEvent) else event_from_dict(dict(event))


def format_args(args: Any) -> str:
    """Tool arguments as readable JSON (or the raw text the model sent when it was not JSON)."""
    if isinstance(args, str):
        return args
    return json.dumps(args, indent=2, ensure_ascii=False, default=str)


def args_line(args: Any, width: int = 80) -> str:
    if isinstance(args, Mapping):
        text = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
            for key, value in args.items()
        )
    else:
        text = str(args if args is not None else "")
    return one_line(text, width)


def outcome_words(outcome: str) -> str:
    return _OUTCOMES.get(outcome, outcome.replace("_", " "))


# --- entries ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionEntry:
    run: int
    text: str
    files: tuple[str, ...] = ()
    policy: str = ""
    model: str = ""

    @property
    def key(self) -> str:
        return f"question-{self.run}"


@dataclass(frozen=True)
class ReplyEntry:
    """What the model said on one step (its text; tool calls are separate entries)."""

    run: int
    step: int
    text: str

    @property
    def key(self) -> str:
        return f"reply-{self.run}-{self.step}"


@dataclass(frozen=True)
class ToolCallEntry:
    run: int
    step: int
    call_id: str
    tool: str
    args: Any
    risk: str = ""
    status: str = RUNNING
    approval: str = ""
    output: str = ""
    preview: str = ""
    duration_s: float | None = None
    evidence_id: str | None = None

    @property
    def key(self) -> str:
        # Call ids repeat across runs in text-action mode (s1_0, ...), so the run is part of it.
        return f"call-{self.run}-{self.call_id}"

    @property
    def finished(self) -> bool:
        return self.status in (OK, ERROR, DENIED)

    @property
    def is_error(self) -> bool:
        return self.status in (ERROR, DENIED)


@dataclass(frozen=True)
class AskEntry:
    """A question the agent asked the person, and their answer once given."""

    run: int
    step: int
    call_id: str
    question: str
    answer: str | None = None

    @property
    def key(self) -> str:
        return f"ask-{self.run}-{self.call_id}"


@dataclass(frozen=True)
class NoticeEntry:
    """Something the engine did that a person should see: push-backs, repairs, failures."""

    run: int
    step: int
    kind: str  # the event kind it came from
    text: str
    tone: str = "info"  # info | warning | error

    @property
    def key(self) -> str:
        return f"notice-{self.run}-{self.step}-{self.kind}"


@dataclass(frozen=True)
class AnswerEntry:
    run: int
    answer: str | None
    outcome: str
    partial_text: str = ""

    @property
    def key(self) -> str:
        return f"answer-{self.run}"


@dataclass(frozen=True)
class TaskEntry:
    id: str
    title: str
    status: str = "open"  # open | completed | skipped
    note: str = ""
    pushed: bool = False  # still open when the last answer was pushed back


Entry = QuestionEntry | ReplyEntry | ToolCallEntry | AskEntry | NoticeEntry | AnswerEntry


@dataclass
class RunStats:
    """What one run used; live while it runs, exact once `run_finished` arrives."""

    run: int
    question: str = ""
    policy: str = ""
    model: str = ""
    budget: dict[str, Any] = field(default_factory=dict)
    step: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    outcome: str | None = None  # None while running
    answer: str | None = None
    productive_steps: int | None = None
    wall_s: float = 0.0
    tripped: str | None = None
    error: str | None = None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def running(self) -> bool:
        return self.outcome is None


# --- the fold ----------------------------------------------------------------------------------------


class Transcript:
    def __init__(self, events: Iterable[AgentEvent | Mapping[str, Any]] = ()) -> None:
        self.entries: list[Entry] = []
        self.runs: dict[int, RunStats] = {}
        self.tasks: dict[int, list[TaskEntry]] = {}
        self._index: dict[str, int] = {}
        for event in events:
            self.apply(event)

    # --- reading -------------------------------------------------------------------------------

    def entry(self, key: str) -> Entry | None:
        index = self._index.get(key)
        return self.entries[index] if index is not None else None

    @property
    def last_run(self) -> RunStats | None:
        return self.runs[max(self.runs)] if self.runs else None

    def run_tasks(self, run: int | None = None) -> tuple[TaskEntry, ...]:
        """The task list of a run (the latest by default)."""
        if run is None:
            run = max(self.runs) if self.runs else -1
        return tuple(self.tasks.get(run, ()))

    def tool_calls(self) -> list[ToolCallEntry]:
        return [entry for entry in self.entries if isinstance(entry, ToolCallEntry)]

    @property
    def prompt_tokens(self) -> int:
        return sum(stats.prompt_tokens for stats in self.runs.values())

    @property
    def completion_tokens(self) -> int:
        return sum(stats.completion_tokens for stats in self.runs.values())

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost_usd(self) -> float:
        return sum(stats.cost_usd for stats in self.runs.values())

    @property
    def steps(self) -> int:
        return sum(stats.step for stats in self.runs.values())

    # --- writing -------------------------------------------------------------------------------

    def _put(self, entry: Entry) -> Entry:
        index = self._index.get(entry.key)
        if index is None:
            self._index[entry.key] = len(self.entries)
            self.entries.append(entry)
        else:
            self.entries[index] = entry
        return entry

    def _stats(self, run: int) -> RunStats:
        return self.runs.setdefault(run, RunStats(run))

    def _call(self, run: int, call_id: str) -> ToolCallEntry | None:
        entry = self.entry(f"call-{run}-{call_id}")
        return entry if isinstance(entry, ToolCallEntry) else None

    def _set_task(self, run: int, task_id: str, **changes: Any) -> None:
        tasks = self.tasks.setdefault(run, [])
        for index, task in enumerate(tasks):
            if task.id == task_id:
                tasks[index] = replace(task, **changes)
                return

    def apply(self, event: AgentEvent | Mapping[str, Any]) -> Entry | None:
        """Fold one event in; returns the entry it added or replaced (None if none)."""
        event = as_event(event)
        data = event.details
        run, step, kind = event.run, event.step, event.kind
        stats = self._stats(run)
        match kind:
            case "run_started":
                stats.question, stats.policy, stats.model = (
                    data["question"],
                    data["policy"],
                    data["model"],
                )
                stats.budget = dict(data.get("budget") or {})
                self.tasks[run] = []
                return self._put(
                    QuestionEntry(
                        run,
                        data["question"],
                        tuple(data.get("files") or ()),
                        data["policy"],
                        data["model"],
                    )
                )
            case "step_started":
                stats.step = max(stats.step, step)
                return None
            case "llm_replied":
                stats.prompt_tokens += int(data.get("prompt_tokens") or 0)
                stats.completion_tokens += int(data.get("completion_tokens") or 0)
                stats.cost_usd += float(data.get("cost_usd") or 0.0)
                text = data.get("text") or ""
                return self._put(ReplyEntry(run, step, text)) if text.strip() else None
            case "llm_failed":
                return self._put(
                    NoticeEntry(run, step, kind, f"The model call failed: {data['error']}", "error")
                )
            case "repair_requested":
                return self._put(
                    NoticeEntry(run, step, kind, f"Repair: {data['reason']}", "warning")
                )
            case "tool_call_started":
                return self._put(
                    ToolCallEntry(
                        run,
                        step,
                        data["call_id"],
                        data["tool"],
                        data.get("args"),
                        data.get("risk") or "",
                    )
                )
            case "approval_requested":
                call = self._call(run, data["call_id"])
                if call is None:
                    return None
                return self._put(
                    replace(call, status=AWAITING_APPROVAL, approval="waiting for you")
                )
            case "approval_decided":
                call = self._call(run, data["call_id"])
                if call is None:
                    return None
                decision, source = data["decision"], data["source"]
                words = f"{_DECISIONS.get(decision, decision)} {_SOURCES.get(source, source)}"
                status = (
                    DENIED
                    if decision == "deny"
                    else (RUNNING if not call.finished else call.status)
                )
                return self._put(replace(call, status=status, approval=words))
            case "tool_call_finished":
                call = self._call(run, data["call_id"]) or ToolCallEntry(
                    run, step, data["call_id"], data["tool"], None
                )
                # A denied call finishes as an error; it stays "denied" so people see why.
                status = (
                    DENIED if call.status == DENIED else (ERROR if data.get("is_error") else OK)
                )
                return self._put(
                    replace(
                        call,
                        status=status,
                        output=data.get("output") or "",
                        preview=data.get("preview") or one_line(data.get("output") or ""),
                        duration_s=float(data.get("duration_s") or 0.0),
                        evidence_id=data.get("evidence_id"),
                    )
                )
            case "user_asked":
                return self._put(AskEntry(run, step, data["call_id"], data["question"]))
            case "user_answered":
                asked = self.entry(f"ask-{run}-{data['call_id']}")
                if not isinstance(asked, AskEntry):
                    asked = AskEntry(run, step, data["call_id"], "")
                return self._put(replace(asked, answer=data["answer"]))
            case "task_added":
                self.tasks.setdefault(run, []).append(TaskEntry(data["task_id"], data["title"]))
                return None
            case "task_completed":
                self._set_task(
                    run,
                    data["task_id"],
                    status="completed",
                    note=data.get("result") or "",
                    pushed=False,
                )
                return None
            case "task_skipped":
                self._set_task(
                    run,
                    data["task_id"],
                    status="skipped",
                    note=data.get("reason") or "",
                    pushed=False,
                )
                return None
            case "pushed_back":
                open_ids = set(data.get("open_tasks") or ())
                self.tasks[run] = [
                    replace(task, pushed=task.id in open_ids) for task in self.tasks.get(run, [])
                ]
                return self._put(
                    NoticeEntry(
                        run,
                        step,
                        kind,
                        f"Push-back {data.get('count', 1)}: {data['reason']}",
                        "warning",
                    )
                )
            case "answer_verified":
                failed = [v for v in data.get("verdicts") or () if not v.get("passed")]
                if not failed:
                    return None
                lines = "; ".join(
                    f"{v.get('check')}: {v.get('message') or v.get('nudge') or ''}".strip()
                    for v in failed
                )
                then = " The model may try again." if data.get("retry") else ""
                return self._put(
                    NoticeEntry(run, step, kind, f"Checks failed: {lines}.{then}", "warning")
                )
            case "budget_tripped":
                axis = str(data["axis"]).replace("_", " ")
                text = f"The {axis} budget ran out ({data['used']:g} of {data['limit']:g}); asking for an answer now."
                return self._put(NoticeEntry(run, step, kind, text, "warning"))
            case "final_answer":
                stats.answer = data.get("answer")
                return None
            case "run_finished":
                stats.outcome = data["outcome"]
                stats.answer = data.get("answer")
                stats.step = max(stats.step, int(data.get("steps") or 0))
                stats.prompt_tokens = int(data.get("prompt_tokens") or 0)
                stats.completion_tokens = int(data.get("completion_tokens") or 0)
                stats.cost_usd = float(data.get("cost_usd") or 0.0)
                stats.productive_steps = data.get("productive_steps")
                stats.wall_s = float(data.get("wall_s") or 0.0)
                stats.tripped = data.get("tripped")
                stats.error = data.get("error")
                if data["outcome"] == "cancelled":
                    # Tool calls cut short by the stop never finish; say so instead of "running".
                    for entry in list(self.entries):
                        if (
                            isinstance(entry, ToolCallEntry)
                            and entry.run == run
                            and not entry.finished
                        ):
                            self._put(
                                replace(entry, status=ERROR, output="stopped before it finished")
                            )
                return self._put(
                    AnswerEntry(
                        run, data.get("answer"), data["outcome"], data.get("partial_text") or ""
                    )
                )
        return None


def budget_left(stats: RunStats) -> dict[str, float]:
    """What the run may still use on each limited axis: steps, tokens, cost (USD)."""
    budget = stats.budget
    left: dict[str, float] = {}
    if budget.get("max_steps") is not None:
        used = stats.productive_steps if stats.productive_steps is not None else stats.step
        left["steps"] = max(0, int(budget["max_steps"]) - used)
    if budget.get("max_tokens") is not None:
        left["tokens"] = max(0, int(budget["max_tokens"]) - stats.tokens)
    if budget.get("max_cost_usd") is not None:
        left["cost"] = max(0.0, float(budget["max_cost_usd"]) - stats.cost_usd)
    return left
