"""`arena questions score`, and bad input to the question commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.questions import resolve_question_set


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def write_predictions(path: Path, answers: dict[str, str | None]) -> Path:
    path.write_text(
        "".join(json.dumps({"task_id": k, "model_answer": v}) + "\n" for k, v in answers.items())
    )
    return path


def test_perfect_predictions_score_full_marks(tmp_path: Path) -> None:
    demo = resolve_question_set("demo")
    answers = {q.task_id: q.final_answer for q in demo}
    result = invoke(
        "questions", "score", "demo", str(write_predictions(tmp_path / "p.jsonl", answers))
    )
    assert result.exit_code == 0, result.output
    assert f"Total: {len(demo)}/{len(demo)} 100.0% (gaia scoring)" in result.output
    assert "wrong" not in result.output


def test_per_question_lines_and_json(tmp_path: Path) -> None:
    predictions = write_predictions(
        tmp_path / "p.jsonl", {"demo-01": "1987", "demo-04": "Banana", "demo-07": "1925 apples"}
    )
    text = invoke("questions", "score", "demo", str(predictions))
    assert text.exit_code == 0
    lines = text.output.splitlines()
    assert any(line.startswith("right demo-01 L1") for line in lines)
    assert any(line.startswith("wrong demo-07 L1") for line in lines)
    assert any(line.startswith("miss  demo-02 L2") for line in lines)
    assert "Level 1: 2/5 40.0%" in lines

    gaia = json.loads(invoke("questions", "score", "demo", str(predictions), "--json").output)
    lenient = json.loads(
        invoke("questions", "score", "demo", str(predictions), "--json", "--mode", "lenient").output
    )
    assert (gaia["mode"], gaia["correct"], gaia["total"]) == ("gaia", 2, 13)
    assert (lenient["mode"], lenient["correct"]) == ("lenient", 3)
    by_id = {row["task_id"]: row for row in gaia["questions"]}
    assert by_id["demo-07"] == {
        "task_id": "demo-07",
        "level": 1,
        "model_answer": "1925 apples",
        "final_answer": "1925",
        "answered": True,
        "correct": False,
        "rule": "number",
        "mode": "gaia",
    }
    assert by_id["demo-02"]["answered"] is False
    assert gaia["missing"] == 10
    assert [level["level"] for level in gaia["levels"]] == [1, 2, 3]


def test_folder_set_with_unscored_question(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "metadata.jsonl").write_text(
        json.dumps({"task_id": "x", "Question": "q?", "Level": 1, "Final answer": "A"})
        + "\n"
        + json.dumps({"task_id": "y", "Question": "q?", "Level": 2, "Final answer": "?"})
        + "\n"
    )
    predictions = write_predictions(tmp_path / "p.jsonl", {"x": "a", "y": "b"})
    result = invoke("questions", "score", str(folder), str(predictions))
    assert result.exit_code == 0, result.output
    assert "Total: 1/1 100.0%" in result.output
    assert "1 without a known answer" in result.output
    assert "n/a   y L2" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"task_id": "demo-01", "model_answer": "1"}\n{oops\n', "line 2: not valid JSON"),
        ('{"task_id": "nope", "model_answer": "1"}\n', "task_id 'nope' is not in the question set"),
        ('{"task_id": "demo-01"}\n', 'line 1: missing "model_answer"'),
    ],
)
def test_bad_predictions_exit_2_with_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(content)
    result = invoke("questions", "score", "demo", str(path))
    assert result.exit_code == 2
    assert message in result.output
    assert result.output.count("\n") == 1
    assert result.output.startswith("arena: ")
    assert "Traceback" not in result.output


def test_unknown_set_and_missing_file_exit_2(tmp_path: Path) -> None:
    result = invoke("questions", "score", "no-such-set", str(tmp_path / "p.jsonl"))
    assert result.exit_code == 2
    assert "unknown question set 'no-such-set'" in result.output
    result = invoke("questions", "score", "demo", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2
    assert "no such predictions file" in result.output


def test_broken_set_folder_exit_2(tmp_path: Path) -> None:
    (tmp_path / "metadata.jsonl").write_text(
        json.dumps({"task_id": "x", "Question": "q", "Level": 1, "file_name": "gone.csv"}) + "\n"
    )
    result = invoke("questions", "score", str(tmp_path), str(tmp_path / "metadata.jsonl"))
    assert result.exit_code == 2
    assert "line 1: attached file 'gone.csv' not found" in result.output


def test_bad_mode_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("questions", "score", "demo", "x.jsonl", "--mode", "strict")
    assert result.exit_code == 2
