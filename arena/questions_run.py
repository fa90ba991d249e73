"""Headless agent runs: one question (`arena ask`) or a whole question set (`arena questions run`).

Every question gets a fresh temporary workspace holding only copies of its attached files (so
the model can never read a set's answers), the built-in tools over that workspace plus the
calculator, and its own `AgentSession`. Nobody is there to approve risky calls: python, shell
and write_file calls are denied unless `allow_risky` is set (the commands' `--yes`), and
`ask_user` gets a reply saying no person is available.

Models are named by a spec: a litellm model name (`openai/gpt-5-nano`), reached through
`arena.llm.LiteLLM`, or `scripted:PATH` for a JSON file of scripted replies replayed by
`engines.agent.scripted.ScriptedLLM` (see `load_scripted_replies` for the format).
"""

from __future__ import annotations

import asyncio
import json
import math
import shutil
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engines.agent.budget import Budget
from engines.agent.events import AgentEvent, LLMReplied
from engines.agent.human import Decision
from engines.agent.llm import LLM, Usage
from engines.agent.policies import POLICIES, PersonRole, make_policy
from engines.agent.scripted import ScriptedLLM, ScriptedReply, call, failure, reply
from engines.agent.state import RunResult
from engines.agent.tools import Risk
from engines.questions import (
    Question,
    QuestionSet,
    ScoreMode,
    ScoreResult,
    accuracy_by_level,
    score_answer,
)

SCRIPTED_PREFIX = "scripted:"
ANY_TASK = "*"
NO_PERSON_REPLY = (
    "No person is available in this headless run. Decide on your own and carry on, or answer "
    "with what you have."
)
POLICY_NAMES: tuple[str, ...] = tuple(POLICIES)

# Makes a model for one task (the task id, or None for a single `arena ask`).
LLMFactory = Callable[[str | None], LLM]
EventCallback = Callable[[AgentEvent], None]


class RunSetupError(ValueError):
    """A model spec, scripted replies file or attached file that cannot be used."""


class ModelUnavailable(RuntimeError):
    """The model failed before it ever replied (missing API key, unknown model, no server)."""


# --- models ------------------------------------------------------------------------------------


def _scripted_item(raw: Any, where: str) -> ScriptedReply:
    if isinstance(raw, str):
        return reply(raw)
    if not isinstance(raw, dict):
        raise RunSetupError(f"{where}: a reply is a string or an object, not {type(raw).__name__}")
    unknown = set(raw) - {"text", "calls", "usage", "error", "reasoning"}
    if unknown:
        raise RunSetupError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    if raw.get("error") is not None:
        return failure(str(raw["error"]))
    calls = []
    for index, item in enumerate(raw.get("calls") or ()):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise RunSetupError(f'{where}: call {index + 1} needs a "name"')
        arguments = item.get("arguments", {})
        if not isinstance(arguments, dict | str):
            raise RunSetupError(f"{where}: call {index + 1} arguments must be an object or text")
        calls.append(call(item["name"], arguments))
    usage = raw.get("usage")
    if usage is not None:
        try:
            usage = Usage(
                int(usage.get("prompt_tokens", 0)),
                int(usage.get("completion_tokens", 0)),
                float(usage.get("cost_usd", 0.0)),
            )
        except (AttributeError, TypeError, ValueError):
            raise RunSetupError(f"{where}: usage must hold numbers") from None
    return reply(
        str(raw.get("text") or ""),
        calls=calls,
        usage=usage,
        reasoning=str(raw.get("reasoning") or ""),
    )


def load_scripted_replies(path: Path) -> dict[str, list[ScriptedReply]]:
    """Scripted replies by task id from a JSON file.

    The file holds either a list of replies (every question gets a fresh copy) or an object
    mapping task ids to lists of replies, with "*" for any other task. A reply is a string (plain
    text) or `{"text", "calls": [{"name", "arguments"}], "usage": {"prompt_tokens",
    "completion_tokens", "cost_usd"}, "reasoning"}`, or `{"error": "..."}` for a failed call:

        [{"calls": [{"name": "calculator", "arguments": {"expression": "37*49+112"}}]},
         {"calls": [{"name": "final_answer", "arguments": {"answer": "1925"}}]}]
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunSetupError(f"no such scripted replies file: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise RunSetupError(f"cannot read {path}: {error}") from None
    except json.JSONDecodeError as error:
        raise RunSetupError(f"{path}: not valid JSON ({error.msg}, line {error.lineno})") from None
    scripts = {ANY_TASK: data} if isinstance(data, list) else data
    if not isinstance(scripts, dict):
        raise RunSetupError(f"{path}: expected a list of replies or an object of task ids")
    parsed: dict[str, list[ScriptedReply]] = {}
    for key, items in scripts.items():
        if not isinstance(items, list):
            raise RunSetupError(f"{path}: the replies for {key!r} must be a list")
        parsed[key] = [
            _scripted_item(item, f"{path} [{key}] reply {index + 1}")
            for index, item in enumerate(items)
        ]
    return parsed


def llm_factory(spec: str, **params: Any) -> LLMFactory:
    """A factory of models for `spec` (see the module docstring); `params` go to LiteLLM."""
    spec = spec.strip()
    if not spec:
        raise RunSetupError("a model is required, for example --model openai/gpt-5-nano")
    if spec.startswith(SCRIPTED_PREFIX):
        path = Path(spec[len(SCRIPTED_PREFIX) :]).expanduser()
        scripts = load_scripted_replies(path)
        name = f"{SCRIPTED_PREFIX}{path.name}"

        def scripted(task_id: str | None) -> LLM:
            script = scripts.get(task_id or ANY_TASK, scripts.get(ANY_TASK))
            if script is None:
                script = [failure(f"{path} has no scripted replies for task {task_id!r}")]
            return ScriptedLLM(list(script), model=name)

        return scripted

    from arena.llm import LiteLLM

    try:
        shared = LiteLLM(spec, **params)
    except ValueError as error:
        raise RunSetupError(str(error)) from None
    return lambda task_id: shared


# --- one question ------------------------------------------------------------------------------


class HeadlessHuman:
    """Stands in for the absent person: no answers, and every approval denied."""

    async def ask(self, question: str) -> str:
        return NO_PERSON_REPLY

    async def approve(self, tool: str, args: dict[str, Any], risk: Risk) -> Decision:
        return Decision.DENY


@dataclass(frozen=True)
class AgentOptions:
    policy: str = "react"
    allow_risky: bool = False  # --yes: approve every gated call (python, shell, write_file)
    budget: Budget = field(default_factory=Budget)


def check_files(files: Sequence[Path | str]) -> list[Path]:
    """Attached files as paths; missing ones and clashing names are a `RunSetupError`."""
    paths = [Path(file).expanduser() for file in files]
    seen: dict[str, Path] = {}
    for path in paths:
        if not path.is_file():
            raise RunSetupError(f"no such file to attach: {path}")
        if path.name in seen:
            raise RunSetupError(f"two attached files are both named {path.name!r}")
        seen[path.name] = path
    return paths


async def answer_question(
    question: str,
    files: Sequence[Path],
    llm: LLM,
    options: AgentOptions,
    on_event: EventCallback | None = None,
) -> RunResult:
    """Run the agent once on `question` with copies of `files` in a temporary workspace."""
    from arena.tools import default_tools
    from engines.agent.calculator import Calculator
    from engines.agent.session import AgentSession

    policy = make_policy(options.policy)
    human = HeadlessHuman() if policy.person is PersonRole.REQUIRED else None
    with tempfile.TemporaryDirectory(prefix="arena-question-") as folder:
        workspace = Path(folder)
        for file in files:
            await asyncio.to_thread(shutil.copyfile, file, workspace / file.name)
        session = AgentSession(
            llm,
            tools=[Calculator(), *default_tools(workspace)],
            policy=policy,
            human=human,
            budget=options.budget,
            auto_approve=options.allow_risky,
        )
        return await session.run(question, [file.name for file in files], on_event=on_event)


def replied(result: RunResult) -> bool:
    """Whether the model replied at least once during the run."""
    return any(isinstance(event, LLMReplied) for event in result.events)


def result_to_dict(result: RunResult) -> dict[str, Any]:
    """The whole result, JSON-ready: answer, usage, trace, evidence, claims, tasks, events."""
    return {
        "question": result.question,
        "answer": result.answer,
        "outcome": result.outcome.value,
        "steps": result.steps,
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "total_tokens": result.usage.total_tokens,
        "cost_usd": result.usage.cost_usd,
        "wall_s": round(result.wall_s, 3),
        "tripped": result.tripped.value if result.tripped else None,
        "error": result.error,
        "verdicts": [verdict.to_dict() for verdict in result.verdicts],
        "evidence": [asdict(evidence) for evidence in result.evidence],
        "claims": [{**asdict(claim), "kind": claim.kind.value} for claim in result.claims],
        "tasks": [{**asdict(task), "status": task.status.value} for task in result.tasks],
        "trace": [
            {
                "step": entry.step,
                "action": entry.action.to_dict() if entry.action else None,
                "observation": entry.observation,
                "repair": entry.repair,
                "reply_text": entry.reply_text,
            }
            for entry in result.trace
        ],
        "events": [event.to_dict() for event in result.events if not event.transient],
    }


# --- a question set ----------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionRun:
    """One question of a set, run: the agent's result (None if it crashed) and its score."""

    question: Question
    result: RunResult | None
    model: str
    policy: str
    score: ScoreResult | None = None
    crash: str | None = None

    @property
    def answer(self) -> str | None:
        return self.result.answer if self.result else None

    @property
    def steps(self) -> int:
        return self.result.steps if self.result else 0

    @property
    def cost_usd(self) -> float:
        return self.result.usage.cost_usd if self.result else 0.0

    @property
    def error(self) -> str | None:
        return self.crash or (self.result.error if self.result else None)

    def prediction_row(self) -> dict[str, Any]:
        """A GAIA-style predictions row with what the run cost and how it ended."""
        result = self.result
        trace = [event.summary for event in result.events if not event.transient] if result else []
        return {
            "task_id": self.question.task_id,
            "model_answer": self.answer,
            "reasoning_trace": "\n".join(trace),
            "level": self.question.level,
            "model": self.model,
            "policy": self.policy,
            "outcome": result.outcome.value if result else "failed",
            "steps": self.steps,
            "prompt_tokens": result.usage.prompt_tokens if result else 0,
            "completion_tokens": result.usage.completion_tokens if result else 0,
            "cost_usd": self.cost_usd,
            "wall_s": round(result.wall_s, 3) if result else 0.0,
            "error": self.error,
            "correct": self.score.correct if self.score else None,
            "score_mode": str(self.score.mode) if self.score else None,
        }


async def run_question_set(
    questions: Sequence[Question],
    make_llm: LLMFactory,
    options: AgentOptions,
    *,
    concurrency: int = 1,
    mode: ScoreMode | str = ScoreMode.GAIA,
    on_started: Callable[[Question], None] | None = None,
    on_finished: Callable[[QuestionRun], None] | None = None,
    on_event: Callable[[Question, AgentEvent], None] | None = None,
) -> list[QuestionRun]:
    """Answer `questions` with at most `concurrency` at a time; results in question order.

    Raises `ModelUnavailable` (after cancelling the rest) when a model call fails before the
    model has replied even once in the whole run: then every question would fail the same way.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    gate = asyncio.Semaphore(concurrency)
    results: dict[str, QuestionRun] = {}
    any_reply = False

    async def one(question: Question) -> None:
        nonlocal any_reply
        async with gate:
            if on_started is not None:
                on_started(question)
            llm = make_llm(question.task_id)
            model = str(getattr(llm, "model", ""))

            def forward(event: AgentEvent) -> None:
                nonlocal any_reply
                if isinstance(event, LLMReplied):
                    any_reply = True
                if on_event is not None:
                    on_event(question, event)

            files = [question.file_path] if question.file_path else []
            try:
                result = await answer_question(question.question, files, llm, options, forward)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # an engine or tool crash must not sink the whole set
                done = QuestionRun(
                    question, None, model, options.policy, crash=f"{type(error).__name__}: {error}"
                )
            else:
                if result.error and not any_reply and not replied(result):
                    raise ModelUnavailable(result.error)
                score = (
                    score_answer(result.answer, question.final_answer, mode)
                    if question.final_answer is not None
                    else None
                )
                done = QuestionRun(question, result, model, options.policy, score)
            results[question.task_id] = done
            if on_finished is not None:
                on_finished(done)

    try:
        async with asyncio.TaskGroup() as group:
            for question in questions:
                group.create_task(one(question))
    except* ModelUnavailable as errors:
        raise errors.exceptions[0] from None
    return [results[question.task_id] for question in questions]


@dataclass(frozen=True)
class LevelStats:
    level: int
    questions: int
    correct: int
    scored: int
    cost_usd: float
    median_steps: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.scored if self.scored else 0.0


def level_stats(
    runs: Sequence[QuestionRun], mode: ScoreMode | str = ScoreMode.GAIA
) -> list[LevelStats]:
    """Accuracy, cost and median steps by level, then one row (level 0) for all of them."""
    report = accuracy_by_level(
        ((run.question.level, run.score) for run in runs if run.score is not None), mode
    )
    accuracy = {level.level: level for level in report.levels}
    rows = []
    groups: dict[int, list[QuestionRun]] = {}
    for run in runs:
        groups.setdefault(run.question.level, []).append(run)
    for level, members in [*sorted(groups.items()), (0, list(runs))]:
        if level == 0:
            correct, scored = report.correct, report.total
        else:
            entry = accuracy.get(level)
            correct, scored = (entry.correct, entry.total) if entry else (0, 0)
        steps = [run.steps for run in members]
        rows.append(
            LevelStats(
                level=level,
                questions=len(members),
                correct=correct,
                scored=scored,
                cost_usd=math.fsum(run.cost_usd for run in members),
                median_steps=statistics.median(steps) if steps else 0.0,
            )
        )
    return rows


def default_predictions_path(set_name: str, model: str, stamp: str) -> Path:
    slug = "".join(char if char.isalnum() or char in "-_." else "-" for char in model).strip("-")
    return Path(f"predictions-{set_name}-{slug or 'model'}-{stamp}.jsonl")


def pick_questions(question_set: QuestionSet, limit: int | None) -> list[Question]:
    questions = list(question_set.questions)
    return questions if limit is None else questions[:limit]
