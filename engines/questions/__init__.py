"""Question sets in the GAIA layout and their scoring (official GAIA rules or lenient)."""

from engines.questions.loader import (
    METADATA_FILE,
    Prediction,
    Question,
    QuestionSet,
    QuestionSetError,
    load_predictions,
    load_question_set,
)
from engines.questions.scoring import (
    AccuracyReport,
    LevelAccuracy,
    ScoreMode,
    ScoreResult,
    accuracy_by_level,
    lenient_scorer,
    question_scorer,
    score_answer,
)
from engines.questions.sheet import ScoreSheet, SheetRow, score_set

__all__ = [
    "METADATA_FILE",
    "AccuracyReport",
    "LevelAccuracy",
    "Prediction",
    "Question",
    "QuestionSet",
    "QuestionSetError",
    "ScoreMode",
    "ScoreResult",
    "ScoreSheet",
    "SheetRow",
    "accuracy_by_level",
    "lenient_scorer",
    "load_predictions",
    "load_question_set",
    "question_scorer",
    "score_answer",
    "score_set",
]
