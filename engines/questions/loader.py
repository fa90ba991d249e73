"""Question sets in the GAIA layout, and prediction files.

A question set is a folder holding `metadata.jsonl`, one JSON object a line:
`{"task_id", "Question", "Level", "Final answer", "file_name"}` (other keys are kept in
`Question.extra`), with each row's attached file (if any) beside it. A question whose
"Final answer" is missing, null, empty or "?" (as in GAIA's test split) has no answer: it can be
run but not scored.

A predictions file is JSON lines `{"task_id", "model_answer", ...}`, as the GAIA leaderboard
takes them. Every problem is reported as a `QuestionSetError` naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

METADATA_FILE = "metadata.jsonl"
_NO_ANSWER = {"", "?"}


class QuestionSetError(ValueError):
    """A question set or predictions file that cannot be used; the message is for people."""


@dataclass(frozen=True)
class Question:
    task_id: str
    question: str
    level: int
    final_answer: str | None
    file_name: str = ""
    file_path: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def has_answer(self) -> bool:
        return self.final_answer is not None


@dataclass(frozen=True)
class QuestionSet:
    name: str
    folder: Path
    questions: tuple[Question, ...]

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def by_id(self) -> dict[str, Question]:
        return {question.task_id: question for question in self.questions}

    @property
    def levels(self) -> tuple[int, ...]:
        return tuple(sorted({question.level for question in self.questions}))


def _json_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; bad JSON names its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise QuestionSetError(f"{path}: not UTF-8 text ({error.reason})") from None
    except OSError as error:
        raise QuestionSetError(f"{path}: cannot read ({error.strerror})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise QuestionSetError(f"{path} line {number}: not valid JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise QuestionSetError(f"{path} line {number}: expected a JSON object")
        yield number, row


def _text_field(row: dict[str, Any], key: str, where: str, *, required: bool) -> str | None:
    value = row.get(key)
    if value is None:
        if required:
            raise QuestionSetError(f'{where}: missing "{key}"')
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuestionSetError(f'{where}: "{key}" must be text, not {type(value).__name__}')
    return str(value)


def _level(row: dict[str, Any], where: str) -> int:
    value = row.get("Level")
    if value is None:
        raise QuestionSetError(f'{where}: missing "Level"')
    if isinstance(value, bool):
        raise QuestionSetError(f'{where}: "Level" must be a whole number, not {value!r}')
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or value < 1:
        raise QuestionSetError(f'{where}: "Level" must be a whole number from 1, not {value!r}')
    return value


def _attachment(folder: Path, file_name: str, where: str) -> Path:
    relative = Path(file_name)
    if relative.is_absolute() or ".." in relative.parts:
        raise QuestionSetError(f'{where}: "file_name" must be a plain name inside the set folder')
    path = folder / relative
    if not path.is_file():
        raise QuestionSetError(f"{where}: attached file {file_name!r} not found in {folder}")
    return path


def load_question_set(folder: Path | str, name: str | None = None) -> QuestionSet:
    """Read a GAIA-layout folder; raise `QuestionSetError` naming the line of any bad row."""
    folder = Path(folder)
    metadata = folder / METADATA_FILE
    if not folder.is_dir():
        raise QuestionSetError(f"{folder}: not a folder")
    if not metadata.is_file():
        raise QuestionSetError(f"{folder}: no {METADATA_FILE} in this folder")
    questions: list[Question] = []
    first_line: dict[str, int] = {}
    for number, row in _json_rows(metadata):
        where = f"{metadata} line {number}"
        task_id = _text_field(row, "task_id", where, required=True) or ""
        if not task_id.strip():
            raise QuestionSetError(f'{where}: "task_id" is empty')
        if task_id in first_line:
            raise QuestionSetError(
                f"{where}: task_id {task_id!r} already used on line {first_line[task_id]}"
            )
        first_line[task_id] = number
        text = _text_field(row, "Question", where, required=True) or ""
        if not text.strip():
            raise QuestionSetError(f'{where}: "Question" is empty')
        answer = _text_field(row, "Final answer", where, required=False)
        if answer is not None and answer.strip() in _NO_ANSWER:
            answer = None
        file_name = _text_field(row, "file_name", where, required=False) or ""
        file_path = _attachment(folder, file_name, where) if file_name.strip() else None
        known = {"task_id", "Question", "Level", "Final answer", "file_name"}
        questions.append(
            Question(
                task_id=task_id,
                question=text,
                level=_level(row, where),
                final_answer=answer,
                file_name=file_name,
                file_path=file_path,
                extra={key: value for key, value in row.items() if key not in known},
            )
        )
    if not questions:
        raise QuestionSetError(f"{metadata}: no questions")
    return QuestionSet(name=name or folder.name, folder=folder, questions=tuple(questions))


@dataclass(frozen=True)
class Prediction:
    task_id: str
    model_answer: str | None
    line: int
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


def load_predictions(path: Path | str, known_ids: set[str] | None = None) -> dict[str, Prediction]:
    """Read a predictions file; with `known_ids`, reject task ids that are not in the set."""
    path = Path(path)
    if not path.is_file():
        raise QuestionSetError(f"{path}: no such predictions file")
    predictions: dict[str, Prediction] = {}
    for number, row in _json_rows(path):
        where = f"{path} line {number}"
        task_id = _text_field(row, "task_id", where, required=True) or ""
        if "model_answer" not in row:
            raise QuestionSetError(f'{where}: missing "model_answer"')
        answer = _text_field(row, "model_answer", where, required=False)
        if task_id in predictions:
            raise QuestionSetError(
                f"{where}: task_id {task_id!r} already answered on line {predictions[task_id].line}"
            )
        if known_ids is not None and task_id not in known_ids:
            raise QuestionSetError(f"{where}: task_id {task_id!r} is not in the question set")
        extra = {key: value for key, value in row.items() if key not in {"task_id", "model_answer"}}
        predictions[task_id] = Prediction(task_id, answer, number, extra)
    return predictions
