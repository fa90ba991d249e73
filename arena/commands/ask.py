"""`arena ask`: one headless agent run on one question.

The agent, litellm and the tools are imported only when the command runs.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import click

from arena.commands.inputs import InputError, db_option, open_store

POLICIES = ("react", "react+", "plan")
POLICY_HELP = (
    "react: tools, no person; react+: adds ask_user and approvals (nobody answers headless); "
    "plan: a task list the agent must close before answering."
)
# Events worth a progress line on stderr; the rest (text deltas, step numbers) are noise there.
PROGRESS_KINDS = frozenset(
    {
        "llm_replied",
        "llm_failed",
        "repair_requested",
        "tool_call_started",
        "tool_call_finished",
        "approval_decided",
        "user_asked",
        "task_added",
        "task_completed",
        "task_skipped",
        "pushed_back",
        "answer_verified",
        "budget_tripped",
    }
)


def progress_line(event) -> str | None:
    """One stderr line for an agent event, or None for events not shown."""
    if event.kind not in PROGRESS_KINDS:
        return None
    return f"[step {event.step}] {event.summary}"


def budget_options(function):
    """--max-steps and --max-cost, shared by `ask` and `questions run`."""
    function = click.option(
        "--max-cost",
        type=click.FloatRange(min=0, min_open=True),
        default=1.0,
        show_default=True,
        help="Force an answer once a question has cost this many US dollars.",
    )(function)
    return click.option(
        "--max-steps",
        type=click.IntRange(min=1),
        default=15,
        show_default=True,
        help="Productive steps before the agent must answer.",
    )(function)


def agent_options(policy: str, yes: bool, max_steps: int, max_cost: float):
    from arena.questions_run import AgentOptions
    from engines.agent.budget import Budget

    budget = Budget(max_steps=max_steps, max_cost_usd=max_cost)
    return AgentOptions(policy=policy, allow_risky=yes, budget=budget)


def make_models(model: str):
    from arena.questions_run import RunSetupError, llm_factory

    try:
        return llm_factory(model)
    except RunSetupError as error:
        raise InputError(str(error)) from None


def model_option(**options):
    return click.option(
        "--model",
        "-m",
        help="A litellm model name, or scripted:REPLIES.json for scripted replies.",
        **options,
    )


policy_option = click.option(
    "--policy",
    "-p",
    type=click.Choice(POLICIES),
    default="react",
    show_default=True,
    help=POLICY_HELP,
)


@click.command()
@click.argument("question")
@db_option
@model_option(default="openai/gpt-5-nano", show_default=True)
@policy_option
@click.option(
    "--file",
    "-f",
    "files",
    multiple=True,
    metavar="PATH",
    help="Attach a file (repeatable); the agent gets a copy in its workspace.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the whole result as one JSON object.")
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Approve every gated tool call (python, shell, write_file); otherwise they are denied.",
)
@budget_options
def ask(
    question: str,
    model: str,
    policy: str,
    files: tuple[str, ...],
    as_json: bool,
    yes: bool,
    max_steps: int,
    max_cost: float,
    db_path: Path | None,
) -> None:
    """Answer QUESTION with the agent, headless.

    Progress (steps, tool calls) goes to stderr; the answer, steps, tokens and cost to stdout.
    Exit status: 0 answered, 1 no answer, 2 bad input or a model that cannot be reached.
    """
    from arena.questions_run import (
        RunSetupError,
        answer_question,
        check_files,
        replied,
        result_to_dict,
    )

    if not question.strip():
        raise InputError("the question is empty")
    try:
        paths = check_files(files)
    except RunSetupError as error:
        raise InputError(str(error)) from None
    llm = make_models(model)(None)
    options = agent_options(policy, yes, max_steps, max_cost)

    from arena.sessions import SessionRecorder, create_session, session_title

    # Saved like a chat session, so the app's sessions browser can resume or export it.
    store = open_store(db_path)
    session_id = create_session(store, model=model, policy=policy, title=session_title(question))
    record = SessionRecorder(store, session_id)

    def show(event) -> None:
        record(event)
        line = progress_line(event)
        if line is not None:
            click.echo(line, err=True)

    result = asyncio.run(answer_question(question, paths, llm, options, show))
    store.set_status(session_id, "finished")
    if result.error and not replied(result):
        raise InputError(result.error)
    if as_json:
        data = {
            "model": str(getattr(llm, "model", model)),
            "policy": policy,
            **result_to_dict(result),
        }
        data["files"] = [path.name for path in paths]
        click.echo(json.dumps(data, ensure_ascii=False, default=str))
    else:
        click.echo(result.answer if result.answer is not None else "(no answer)")
        usage = result.usage
        click.echo(
            f"{result.outcome.value} in {result.steps} steps, {usage.total_tokens} tokens "
            f"({usage.prompt_tokens} in, {usage.completion_tokens} out), ${usage.cost_usd:.4f}"
        )
        if result.error:
            click.echo(f"arena: the run ended early: {result.error}", err=True)
    sys.exit(0 if result.answer is not None else 1)
