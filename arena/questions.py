"""Finding question sets: a folder in the GAIA layout, or the name of a set shipped in configs."""

from __future__ import annotations

from pathlib import Path

from configs import configs_dir
from engines.questions import METADATA_FILE, QuestionSet, QuestionSetError, load_question_set


def shipped_sets_dir() -> Path:
    return configs_dir() / "questions"


def shipped_set_names() -> list[str]:
    """Names of the question sets shipped with the app (folders holding a metadata.jsonl)."""
    folder = shipped_sets_dir()
    if not folder.is_dir():
        return []
    return sorted(path.name for path in folder.iterdir() if (path / METADATA_FILE).is_file())


def resolve_question_set(spec: str) -> QuestionSet:
    """A question set from a folder path, else from a shipped set's name.

    Raises `QuestionSetError` with a one-line message when neither exists or the set is broken.
    """
    path = Path(spec).expanduser()
    if path.is_dir():
        return load_question_set(path)
    if spec in shipped_set_names():
        return load_question_set(shipped_sets_dir() / spec, name=spec)
    shipped = ", ".join(shipped_set_names()) or "none"
    raise QuestionSetError(
        f"unknown question set {spec!r}: not a folder, nor a shipped set (shipped: {shipped})"
    )
