"""Question sets from the app: the agent answers a set, or a person answers it for a baseline.

Both are scored by `engines.questions.score_answer`, the same official scorer `arena questions`
uses, and both are saved as a `questions` stream (one `question_answered` event per question)
with a row in `question_runs` (set, model or "human", policy, accuracy, cost).

    log = QuestionRunLog.start(store, question_set.name, model="human", policy="human")
    score = log.record_person(question, "1987", seconds=41.0)
    log.finish()
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from arena.questions import resolve_question_set, shipped_set_names
from arena.questions_run import QuestionRun
from arena.store import Store
from engines.questions import (
    AccuracyReport,
    Question,
    QuestionSet,
    QuestionSetError,
    ScoreResult,
    accuracy_by_level,
    score_answer,
)

HUMAN = "human"

__all__ = [
    "HUMAN",
    "QuestionRunLog",
    "QuestionSetError",
    "attachment_text",
    "available_sets",
    "level_lines",
    "open_set",
    "score_person",
]


def available_sets() -> list[str]:
    """The question sets shipped with the app."""
    return shipped_set_names()


def open_set(spec: str) -> QuestionSet:
    """A shipped set by name, or a GAIA-layout folder; `QuestionSetError` says what is wrong."""
    return resolve_question_set(spec.strip())


def score_person(question: Question, answer: str) -> ScoreResult | None:
    """The person's answer scored like the agent's (None when the set has no answer for it)."""
    if question.final_answer is None:
        return None
    return score_answer(answer, question.final_answer)


async def attachment_text(question: Question) -> str:
    """The question's attached file as the agent's read_file tool shows it (text, CSV as a
    table, JSON pretty-printed, PDF text per page), or why it cannot be shown."""
    if question.file_path is None:
        return ""
    from arena.tools import ReadFileTool
    from engines.agent.tools import ToolError

    reader = ReadFileTool(question.file_path.parent)
    try:
        result = await reader.run({"path": question.file_path.name})
    except ToolError as error:
        return f"(cannot show {question.file_name}: {error})"
    return result.output


@dataclass
class QuestionRunLog:
    """One pass over a set, saved as it goes."""

    store: Store
    run_id: str
    set_name: str
    model: str
    policy: str
    scores: list[tuple[int, ScoreResult]] = field(default_factory=list)
    cost_usd: float = 0.0

    @classmethod
    def start(cls, store: Store, set_name: str, *, model: str, policy: str) -> QuestionRunLog:
        who = "you" if model == HUMAN else model
        with store.transaction():
            run_id = store.create_stream("questions", f"{set_name} · {who}")
            store.db["question_runs"].insert(
                {
                    "id": run_id,
                    "set_name": set_name,
                    "model": model,
                    "policy": policy,
                    "cost_usd": 0.0,
                }
            )
        return cls(store, run_id, set_name, model, policy)

    @property
    def report(self) -> AccuracyReport:
        return accuracy_by_level(self.scores)

    def _save(self, payload: dict[str, Any], score: ScoreResult | None, level: int) -> None:
        if score is not None:
            self.scores.append((level, score))
        with self.store.transaction():
            self.store.append(self.run_id, "question_answered", payload)
            self.store.db["question_runs"].update(
                self.run_id,
                {
                    "accuracy": self.report.accuracy if self.scores else None,
                    "cost_usd": self.cost_usd,
                },
            )

    def record_agent(self, run: QuestionRun) -> None:
        self.cost_usd = math.fsum([self.cost_usd, run.cost_usd])
        self._save(run.prediction_row(), run.score, run.question.level)

    def record_person(
        self, question: Question, answer: str, *, seconds: float
    ) -> ScoreResult | None:
        score = score_person(question, answer)
        payload = {
            "task_id": question.task_id,
            "model_answer": answer,
            "level": question.level,
            "model": HUMAN,
            "policy": HUMAN,
            "wall_s": round(seconds, 3),
            "correct": score.correct if score else None,
            "score_mode": str(score.mode) if score else None,
        }
        self._save(payload, score, question.level)
        return score

    def finish(self, status: str = "finished") -> None:
        self.store.set_status(self.run_id, status)


def level_lines(report: AccuracyReport) -> list[str]:
    """'Level 1: 2/3 (66.7%)' lines and a total, for the screen."""

    def percent(correct: int, total: int) -> str:
        return f"{100 * correct / total:.1f}%" if total else "n/a"

    lines = [
        f"Level {level.level}: {level.correct}/{level.total} ({percent(level.correct, level.total)})"
        for level in report.levels
    ]
    lines.append(f"All: {report.correct}/{report.total} ({percent(report.correct, report.total)})")
    return lines
