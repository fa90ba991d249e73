"""Loading GAIA-layout question sets and prediction files, and scoring whole sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.questions import resolve_question_set, shipped_set_names
from engines.questions import (
    QuestionSetError,
    load_predictions,
    load_question_set,
    score_set,
)


def write_set(folder: Path, rows: list[dict | str], files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    (folder / "metadata.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, text in (files or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def row(task_id: str = "t1", **overrides) -> dict:
    base = {
        "task_id": task_id,
        "Question": f"Question {task_id}?",
        "Level": 1,
        "Final answer": "42",
        "file_name": "",
    }
    base.update(overrides)
    return base


def test_loads_rows_files_and_extras(tmp_path: Path) -> None:
    folder = write_set(
        tmp_path / "mini",
        [
            row("a", file_name="data.csv", **{"Annotator Metadata": {"steps": 3}}),
            "",
            row("b", Level="2", **{"Final answer": None}),
            row("c", Level=3, **{"Final answer": "?"}),
            row("d", **{"Final answer": 3.5}),
        ],
        files={"data.csv": "x,y\n1,2\n"},
    )
    question_set = load_question_set(folder)
    assert question_set.name == "mini"
    assert [q.task_id for q in question_set] == ["a", "b", "c", "d"]
    first = question_set.questions[0]
    assert first.file_path == folder / "data.csv"
    assert first.extra == {"Annotator Metadata": {"steps": 3}}
    assert [q.level for q in question_set] == [1, 2, 3, 1]
    assert [q.has_answer for q in question_set] == [True, False, False, True]
    assert question_set.questions[3].final_answer == "3.5"
    assert question_set.levels == (1, 2, 3)
    assert question_set.questions[1].file_path is None


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([row("a"), "{not json"], r"metadata.jsonl line 2: not valid JSON"),
        ([row("a"), "[1, 2]"], r"line 2: expected a JSON object"),
        ([row("a"), row("a")], r"line 2: task_id 'a' already used on line 1"),
        ([{"Question": "q", "Level": 1}], r'line 1: missing "task_id"'),
        ([row("a", Question="  ")], r'line 1: "Question" is empty'),
        ([row("")], r'line 1: "task_id" is empty'),
        ([row("a"), row("b", Level=None)], r'line 2: missing "Level"'),
        ([row("a", Level="hard")], r'line 1: "Level" must be a whole number'),
        ([row("a", Level=0)], r'line 1: "Level" must be a whole number'),
        ([row("a", Level=True)], r'line 1: "Level" must be a whole number'),
        ([row("a", Question=["x"])], r'line 1: "Question" must be text, not list'),
        ([row("a"), "", row("b", file_name="gone.pdf")], r"line 3: attached file 'gone.pdf'"),
        ([row("a", file_name="../secret.txt")], r'line 1: "file_name" must be a plain name'),
        ([row("a", file_name="/etc/passwd")], r'line 1: "file_name" must be a plain name'),
        (["", "  "], r"no questions"),
    ],
)
def test_bad_rows_name_their_line(tmp_path: Path, rows: list, message: str) -> None:
    folder = write_set(tmp_path / "bad", rows)
    with pytest.raises(QuestionSetError, match=message):
        load_question_set(folder)


def test_missing_folder_and_metadata(tmp_path: Path) -> None:
    with pytest.raises(QuestionSetError, match="not a folder"):
        load_question_set(tmp_path / "nowhere")
    with pytest.raises(QuestionSetError, match="no metadata.jsonl"):
        load_question_set(tmp_path)
    (tmp_path / "metadata.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(QuestionSetError, match="not UTF-8"):
        load_question_set(tmp_path)


def test_predictions(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"task_id": "a", "model_answer": "42", "steps": 3}\n\n'
        '{"task_id": "b", "model_answer": null}\n{"task_id": "c", "model_answer": 7}\n'
    )
    predictions = load_predictions(path, {"a", "b", "c"})
    assert predictions["a"].model_answer == "42"
    assert predictions["a"].extra == {"steps": 3}
    assert predictions["b"].model_answer is None
    assert predictions["c"].model_answer == "7"
    assert predictions["c"].line == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"task_id": "a"}\n', r'line 1: missing "model_answer"'),
        ('{"model_answer": "x"}\n', r'line 1: missing "task_id"'),
        (
            '{"task_id": "a", "model_answer": "x"}\n{"task_id": "a", "model_answer": "y"}\n',
            r"line 2: task_id 'a' already answered on line 1",
        ),
        (
            '{"task_id": "zz", "model_answer": "x"}\n',
            r"line 1: task_id 'zz' is not in the question set",
        ),
        ('{"task_id": "a", "model_answer": {"x": 1}}\n', r'line 1: "model_answer" must be text'),
        ("task_id,model_answer\n", r"line 1: not valid JSON"),
    ],
)
def test_bad_predictions(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(text)
    with pytest.raises(QuestionSetError, match=message):
        load_predictions(path, {"a", "b"})


def test_missing_predictions_file(tmp_path: Path) -> None:
    with pytest.raises(QuestionSetError, match="no such predictions file"):
        load_predictions(tmp_path / "none.jsonl")


def test_score_set_counts_missing_and_unscored(tmp_path: Path) -> None:
    folder = write_set(
        tmp_path / "s",
        [row("a"), row("b", Level=2), row("c", Level=2), row("d", **{"Final answer": None})],
    )
    question_set = load_question_set(folder)
    sheet = score_set(question_set, {"a": "42", "b": "41", "d": "whatever"})
    assert [r.correct for r in sheet.rows] == [True, False, False, None]
    assert (sheet.missing, sheet.unscored) == (1, 1)
    assert [(lvl.level, lvl.correct, lvl.total) for lvl in sheet.report.levels] == [
        (1, 1, 1),
        (2, 0, 2),
    ]
    assert score_set(question_set, {"b": "42.0 "}, "lenient").rows[1].correct is True


def test_shipped_demo_set() -> None:
    assert "demo" in shipped_set_names()
    demo = resolve_question_set("demo")
    assert demo.name == "demo"
    assert len(demo) >= 10
    assert all(question.has_answer for question in demo)
    suffixes = {q.file_path.suffix for q in demo if q.file_path is not None}
    assert {".pdf", ".csv"} <= suffixes
    assert demo.levels == (1, 2, 3)


def test_shipped_pdf_has_extractable_text() -> None:
    from pypdf import PdfReader

    demo = resolve_question_set("demo")
    pdf = next(q.file_path for q in demo if q.file_name.endswith(".pdf"))
    text = PdfReader(pdf, strict=True).pages[0].extract_text()
    assert "founded in 1987" in text
    assert "Plot C (Riverside): 356" in text


def test_resolve_by_folder_and_unknown(tmp_path: Path) -> None:
    folder = write_set(tmp_path / "mine", [row("a")])
    assert resolve_question_set(str(folder)).name == "mine"
    with pytest.raises(QuestionSetError, match=r"unknown question set 'nosuch'.*shipped: .*demo"):
        resolve_question_set("nosuch")
