"""`arena questions run|score`: run a model over a question set, and score predictions.

Nothing heavy is imported at module level: the agent, litellm and the tools load only when
`run` starts.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena.commands.ask import (
    agent_options,
    budget_options,
    make_models,
    model_option,
    policy_option,
)
from arena.commands.inputs import InputError, db_option, open_store


def _load_set(spec: str):
    from arena.questions import resolve_question_set
    from engines.questions import QuestionSetError

    try:
        return resolve_question_set(spec)
    except QuestionSetError as error:
        raise InputError(str(error)) from None


def _short(text: str | None, width: int = 40) -> str:
    if text is None:
        return "(none)"
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _percent(correct: int, total: int) -> str:
    return f"{100 * correct / total:.1f}%" if total else "n/a"


def accuracy_lines(report) -> list[str]:
    """'Level N: c/t p%' lines and a total line for an `AccuracyReport`."""
    lines = [
        f"Level {level.level}: {level.correct}/{level.total} {_percent(level.correct, level.total)}"
        for level in report.levels
    ]
    lines.append(
        f"Total: {report.correct}/{report.total} {_percent(report.correct, report.total)}"
        f" ({report.mode} scoring)"
    )
    return lines


def sheet_to_dict(sheet, set_name: str) -> dict:
    report = sheet.report
    return {
        "set": set_name,
        "mode": str(sheet.mode),
        "questions": [
            {
                "task_id": row.question.task_id,
                "level": row.question.level,
                "model_answer": row.prediction,
                "final_answer": row.question.final_answer,
                "answered": row.answered,
                "correct": row.correct,
                "rule": row.result.rule if row.result else None,
                "mode": str(row.result.mode) if row.result else None,
            }
            for row in sheet.rows
        ],
        "levels": [
            {
                "level": level.level,
                "correct": level.correct,
                "total": level.total,
                "accuracy": level.accuracy,
            }
            for level in report.levels
        ],
        "correct": report.correct,
        "total": report.total,
        "accuracy": report.accuracy,
        "missing": sheet.missing,
        "unscored": sheet.unscored,
    }


def sheet_lines(sheet) -> list[str]:
    """One line per question: verdict, task id, level, prediction and truth."""
    width = max(len(row.question.task_id) for row in sheet.rows)
    lines = []
    for row in sheet.rows:
        if row.result is None:
            verdict = "n/a  "
        elif not row.answered:
            verdict = "miss "
        else:
            verdict = "right" if row.result.correct else "wrong"
        truth = row.question.final_answer
        detail = f"answer {_short(row.prediction)}"
        if truth is not None:
            detail += f" | truth {_short(truth)}"
        lines.append(f"{verdict} {row.question.task_id:<{width}} L{row.question.level} {detail}")
    return lines


@click.group()
def questions() -> None:
    """Question sets in the GAIA layout: run a model over one, or score predictions."""


@questions.command()
@click.argument("set_spec", metavar="SET")
@click.argument("predictions_path", metavar="PREDICTIONS.jsonl")
@click.option(
    "--mode",
    type=click.Choice(["gaia", "lenient"]),
    default="gaia",
    show_default=True,
    help="gaia: the official leaderboard scorer; lenient: adds tolerance and aliases.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def score(set_spec: str, predictions_path: str, mode: str, as_json: bool) -> None:
    """Score PREDICTIONS.jsonl (rows {task_id, model_answer}) against SET.

    SET is a folder with metadata.jsonl or the name of a shipped set (e.g. demo). Questions
    without a prediction score as wrong; questions without a known answer are not counted.
    """
    from engines.questions import QuestionSetError, load_predictions, score_set

    question_set = _load_set(set_spec)
    try:
        predictions = load_predictions(Path(predictions_path), set(question_set.by_id()))
    except QuestionSetError as error:
        raise InputError(str(error)) from None
    sheet = score_set(question_set, predictions, mode)
    if as_json:
        click.echo(json.dumps(sheet_to_dict(sheet, question_set.name), ensure_ascii=False))
        return
    click.echo(f"{question_set.name}: {len(question_set)} questions, {mode} scoring")
    for line in sheet_lines(sheet):
        click.echo(line)
    for line in accuracy_lines(sheet.report):
        click.echo(line)
    notes = []
    if sheet.missing:
        notes.append(f"{sheet.missing} without a prediction")
    if sheet.unscored:
        notes.append(f"{sheet.unscored} without a known answer")
    if notes:
        click.echo("(" + "; ".join(notes) + ")")


@questions.command()
@click.argument("set_spec", metavar="SET")
@model_option(required=True)
@policy_option
@click.option("--limit", type=click.IntRange(min=1), help="Run only the first N questions.")
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(min=1, max=64),
    default=1,
    show_default=True,
    help="Questions answered at the same time.",
)
@click.option(
    "--output",
    "-o",
    "output_path",
    type=click.Path(dir_okay=False, writable=True),
    help="Predictions file to write (default: predictions-SET-MODEL-TIME.jsonl here).",
)
@click.option(
    "--mode",
    type=click.Choice(["gaia", "lenient"]),
    default="gaia",
    show_default=True,
    help="How answers are scored.",
)
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Approve every gated tool call (python, shell, write_file); otherwise they are denied.",
)
@budget_options
@db_option
def run(
    set_spec: str,
    model: str,
    policy: str,
    limit: int | None,
    concurrency: int,
    output_path: str | None,
    mode: str,
    yes: bool,
    max_steps: int,
    max_cost: float,
    db_path: Path | None,
) -> None:
    """Answer every question of SET with the agent and score the answers.

    SET is a folder with metadata.jsonl or the name of a shipped set (e.g. demo). Writes a
    predictions file (rows {task_id, model_answer, ...}, scorable with `arena questions
    score`) and prints accuracy by level with cost and steps. Each question gets a fresh
    workspace holding only its attached file.
    """
    import time

    from arena.questions_run import ModelUnavailable, default_predictions_path, pick_questions

    question_set = _load_set(set_spec)
    chosen = pick_questions(question_set, limit)
    models = make_models(model)
    options = agent_options(policy, yes, max_steps, max_cost)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path(output_path or default_predictions_path(question_set.name, model, stamp))
    try:
        handle = path.open("w", encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}") from None
    if not yes:
        click.echo(
            "arena: python, shell and write_file calls will be denied; pass --yes to allow them",
            err=True,
        )
    from arena.question_log import QuestionRunLog

    log = QuestionRunLog(
        open_store(db_path), set_name=question_set.name, model=model, policy=policy
    )
    with handle:
        try:
            runs = _run_with_progress(chosen, models, options, concurrency, mode, handle, log)
        except ModelUnavailable as error:
            log.close(stopped=True)
            raise InputError(str(error)) from None
        except KeyboardInterrupt:
            log.close(stopped=True)
            raise
    log.close()
    click.echo(
        f"{question_set.name}: {len(runs)} questions, model {model}, policy {policy}, "
        f"{mode} scoring"
    )
    for line in stats_lines(runs, mode):
        click.echo(line)
    failed = [run for run in runs if run.error]
    if failed:
        click.echo(f"({len(failed)} runs ended with an error; see the predictions file)")
    click.echo(f"Predictions: {path}")


def _run_with_progress(chosen, models, options, concurrency: int, mode: str, handle, log) -> list:
    """Run the questions under a progress bar on stderr, writing each prediction as it lands."""
    import asyncio

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from arena.questions_run import run_question_set

    console = Console(stderr=True)
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("${task.fields[cost]:.4f}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("questions", total=len(chosen), cost=0.0)
        spent = 0.0

        def started(question) -> None:
            progress.update(task, description=f"{question.task_id} running")

        def finished(done) -> None:
            nonlocal spent
            log.on_finished(done)
            handle.write(json.dumps(done.prediction_row(), ensure_ascii=False) + "\n")
            handle.flush()
            spent += done.cost_usd
            progress.update(task, advance=1, cost=spent, description=done.question.task_id)
            verdict = (
                "n/a  " if done.score is None else ("right" if done.score.correct else "wrong")
            )
            tail = f" ({done.error})" if done.error else ""
            progress.console.print(
                f"{verdict} {done.question.task_id} L{done.question.level} "
                f"{_short(done.answer)} [{done.steps} steps, ${done.cost_usd:.4f}]{tail}",
                markup=False,
                highlight=False,
            )

        return asyncio.run(
            run_question_set(
                chosen,
                models,
                options,
                concurrency=concurrency,
                mode=mode,
                on_started=started,
                on_finished=finished,
                on_event=log.on_event,
            )
        )


def stats_lines(runs, mode: str) -> list[str]:
    """Accuracy, cost and median steps by level, then the totals."""
    from arena.questions_run import level_stats

    lines = []
    for stats in level_stats(runs, mode):
        name = "Total" if stats.level == 0 else f"Level {stats.level}"
        unscored = stats.questions - stats.scored
        extra = f", {unscored} unscored" if unscored else ""
        lines.append(
            f"{name}: {stats.correct}/{stats.scored} {_percent(stats.correct, stats.scored)}, "
            f"${stats.cost_usd:.4f}, median {stats.median_steps:g} steps{extra}"
        )
    return lines
