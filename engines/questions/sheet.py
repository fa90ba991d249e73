"""Scoring a whole set of predictions against a question set."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engines.questions.loader import Prediction, Question, QuestionSet
from engines.questions.scoring import (
    AccuracyReport,
    ScoreMode,
    ScoreResult,
    accuracy_by_level,
    score_answer,
)


@dataclass(frozen=True)
class SheetRow:
    """One question's outcome. `result` is None for questions without a known answer."""

    question: Question
    prediction: str | None
    answered: bool
    result: ScoreResult | None

    @property
    def correct(self) -> bool | None:
        return None if self.result is None else self.result.correct


@dataclass(frozen=True)
class ScoreSheet:
    mode: ScoreMode
    rows: tuple[SheetRow, ...]
    report: AccuracyReport

    @property
    def unscored(self) -> int:
        """Questions that have no known answer, so count towards no total."""
        return sum(1 for row in self.rows if row.result is None)

    @property
    def missing(self) -> int:
        """Scorable questions with no prediction at all (they score as wrong)."""
        return sum(1 for row in self.rows if row.result is not None and not row.answered)


def score_set(
    question_set: QuestionSet,
    answers: Mapping[str, Prediction | str | None],
    mode: ScoreMode | str = ScoreMode.GAIA,
) -> ScoreSheet:
    """Score `answers` (by task id) for every question; missing answers score as wrong."""
    mode = ScoreMode(mode)
    rows: list[SheetRow] = []
    for question in question_set:
        answered = question.task_id in answers
        raw = answers.get(question.task_id)
        prediction = raw.model_answer if isinstance(raw, Prediction) else raw
        result = (
            score_answer(prediction, question.final_answer, mode)
            if question.final_answer is not None
            else None
        )
        rows.append(SheetRow(question, prediction, answered, result))
    report = accuracy_by_level(
        ((row.question.level, row.result) for row in rows if row.result is not None), mode
    )
    return ScoreSheet(mode=mode, rows=tuple(rows), report=report)
