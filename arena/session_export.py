"""Exporting a chat session: Markdown, or one self-contained HTML file.

Both are read from the stored events through `Transcript`, the fold the chat screen uses, so an
export shows what the screen showed: each question with its attached files, what the model
said, every tool call (arguments, approval, status, duration, full output), the questions it
asked you and your answers, push-backs, the task list, the answer and what the run cost.

The HTML file has its style inline and nothing else: no scripts, no fonts, no images, and a
Content-Security-Policy that forbids loading anything. Every piece of text is escaped.
Credential values (see `arena.sessions.known_secrets`) are replaced by "[redacted]".
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from arena.chat_transcript import (
    AnswerEntry,
    AskEntry,
    NoticeEntry,
    QuestionEntry,
    ReplyEntry,
    RunStats,
    TaskEntry,
    ToolCallEntry,
    Transcript,
    format_args,
    outcome_words,
)
from arena.export import write_atomic
from arena.sessions import SessionSummary, known_secrets, scrub, session_events, session_summary
from arena.store import Store

FORMATS = {"markdown": ".md", "html": ".html"}


def _date(timestamp: float | None) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M") if timestamp else ""


def _questions(count: int) -> str:
    return f"{count} question" + ("" if count == 1 else "s")


def _stats_line(stats: RunStats) -> str:
    steps = f"{stats.step} step" + ("" if stats.step == 1 else "s")
    parts = [steps, f"{stats.tokens:,} tokens", f"${stats.cost_usd:.4f}"]
    if stats.wall_s:
        parts.append(f"{stats.wall_s:.1f} s")
    if stats.tripped:
        parts.append(f"{stats.tripped.replace('_', ' ')} budget ran out")
    if stats.error:
        parts.append(f"error: {stats.error}")
    return " · ".join(parts)


def _call_head(call: ToolCallEntry) -> str:
    parts = [call.status]
    if call.duration_s is not None and call.status != "denied":
        parts.append(f"{call.duration_s:.2f} s")
    if call.evidence_id:
        parts.append(call.evidence_id)
    return ", ".join(parts)


def _task_mark(task: TaskEntry) -> str:
    return {"completed": "[x]", "skipped": "[-]"}.get(task.status, "[ ]")


def _blocks(transcript: Transcript) -> list[tuple[int, list]]:
    """Entries grouped by run, in order."""
    runs: dict[int, list] = {}
    for entry in transcript.entries:
        runs.setdefault(entry.run, []).append(entry)
    return sorted(runs.items())


def _prepared(summary: SessionSummary, events: Sequence[Mapping[str, Any]], secrets) -> tuple:
    secrets = known_secrets() if secrets is None else tuple(secrets)
    events = [scrub(dict(event), secrets) for event in events]
    summary_fields = scrub(
        {"title": summary.title, "model": summary.model, "policy": summary.policy}, secrets
    )
    return Transcript(events), summary_fields


# --- Markdown ------------------------------------------------------------------------------------


def _fence(text: str, info: str = "") -> str:
    """A fenced block longer than any run of backticks inside `text`."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])


def session_markdown(
    summary: SessionSummary,
    events: Sequence[Mapping[str, Any]],
    secrets: Sequence[str] | None = None,
) -> str:
    transcript, head = _prepared(summary, events, secrets)
    lines = [
        f"# {head['title'] or 'Chat session'}",
        "",
        f"- Session: `{summary.id}`",
        f"- Model: {head['model'] or '?'} · policy: {head['policy'] or '?'}",
        f"- Started: {_date(summary.created_at)} · last used: {_date(summary.updated_at)}",
        f"- {_questions(len(transcript.runs))} · {transcript.tokens:,} tokens · ${transcript.cost_usd:.4f}",
    ]
    for run, entries in _blocks(transcript):
        for entry in entries:
            lines.append("")
            if isinstance(entry, QuestionEntry):
                lines += ["---", "", f"## Question {run + 1}", "", _quote(entry.text)]
                if entry.files:
                    lines += ["", "Attached: " + ", ".join(f"`{name}`" for name in entry.files)]
                if entry.model or entry.policy:
                    lines += ["", f"*{entry.model} · {entry.policy}*"]
            elif isinstance(entry, ReplyEntry):
                lines += [f"**Agent** (step {entry.step}):", "", entry.text.strip()]
            elif isinstance(entry, ToolCallEntry):
                lines.append(
                    f"**Tool** `{entry.tool}` ({entry.risk or 'safe'}): {_call_head(entry)}"
                )
                if entry.approval:
                    lines.append(f"Approval: {entry.approval}")
                lines += ["", _fence(format_args(entry.args), "json")]
                if entry.output:
                    lines += ["", _fence(entry.output, "text")]
            elif isinstance(entry, AskEntry):
                answer = entry.answer if entry.answer is not None else "(no answer)"
                lines += [
                    f"**The agent asked you:** {entry.question}",
                    "",
                    f"**You answered:** {answer}",
                ]
            elif isinstance(entry, NoticeEntry):
                lines.append(f"> **{entry.tone.upper()}** {entry.text}")
            elif isinstance(entry, AnswerEntry):
                tasks = transcript.tasks.get(run, [])
                if tasks:
                    lines += ["**Tasks**", ""]
                    for task in tasks:
                        title = f"~~{task.title}~~" if task.status == "skipped" else task.title
                        note = f": {task.note}" if task.note else ""
                        lines.append(f"- {_task_mark(task)} {task.id} {title}{note}")
                    lines.append("")
                if entry.outcome == "cancelled" and entry.partial_text:
                    lines += [
                        "**Agent** (stopped while replying):",
                        "",
                        entry.partial_text.strip(),
                        "",
                    ]
                words = outcome_words(entry.outcome)
                shown = entry.answer if entry.answer is not None else "(no answer)"
                lines.append(f"**Answer:** {shown}" + (f" *({words})*" if words else ""))
                lines += ["", f"*{_stats_line(transcript.runs[run])}*"]
    return "\n".join(lines).rstrip() + "\n"


# --- HTML ------------------------------------------------------------------------------------------

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1d1d1f; background: #fdfcf7; }
h1 { margin-bottom: .2rem; } h2 { border-top: 2px solid #e8d44d; padding-top: 1rem; }
.meta { color: #666; margin: 0 0 1rem; padding: 0; list-style: none; }
.question { background: #fff6c7; border-left: 4px solid #e8b600; padding: .5rem 1rem; white-space: pre-wrap; }
.reply { white-space: pre-wrap; margin: .6rem 0; }
.who { font-weight: 600; color: #555; font-size: .85rem; }
details { border: 1px solid #ddd; border-radius: 6px; margin: .4rem 0; background: #fff; }
details.error { border-color: #d33; background: #fff3f3; }
summary { cursor: pointer; padding: .3rem .6rem; font-family: ui-monospace, monospace; font-size: .9rem; }
pre { margin: 0; padding: .5rem .8rem; overflow-x: auto; background: #f5f5f0; white-space: pre-wrap;
      word-break: break-word; font-size: .85rem; }
.approval { padding: .2rem .8rem; color: #555; font-size: .85rem; }
.notice { padding: .3rem .8rem; border-left: 4px solid #999; margin: .4rem 0; }
.notice.warning { border-color: #e89b00; background: #fff8e8; }
.notice.error { border-color: #d33; background: #fff3f3; }
.ask { border-left: 4px solid #4a7fd6; padding: .3rem .8rem; background: #f1f6ff; margin: .4rem 0; }
.tasks { list-style: none; padding-left: .5rem; }
.tasks .completed { color: #287a28; } .tasks .skipped { color: #888; text-decoration: line-through; }
.answer { font-size: 1.1rem; padding: .5rem 1rem; background: #eaf7e6; border-left: 4px solid #3a9a3a; }
.answer.none { background: #f3f3f3; border-color: #999; }
.stats { color: #666; font-size: .85rem; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def session_html(
    summary: SessionSummary,
    events: Sequence[Mapping[str, Any]],
    secrets: Sequence[str] | None = None,
) -> str:
    transcript, head = _prepared(summary, events, secrets)
    title = head["title"] or "Chat session"
    body = [
        f"<h1>{_e(title)}</h1>",
        '<ul class="meta">',
        f"<li>Session <code>{_e(summary.id)}</code> · model {_e(head['model'] or '?')} · "
        f"policy {_e(head['policy'] or '?')}</li>",
        f"<li>Started {_e(_date(summary.created_at))} · last used {_e(_date(summary.updated_at))}</li>",
        f"<li>{_questions(len(transcript.runs))} · {transcript.tokens:,} tokens · "
        f"${transcript.cost_usd:.4f}</li>",
        "</ul>",
    ]
    for run, entries in _blocks(transcript):
        for entry in entries:
            if isinstance(entry, QuestionEntry):
                body.append(f"<h2>Question {run + 1}</h2>")
                body.append(f'<div class="question">{_e(entry.text)}</div>')
                if entry.files:
                    names = ", ".join(f"<code>{_e(name)}</code>" for name in entry.files)
                    body.append(f"<p>Attached: {names}</p>")
            elif isinstance(entry, ReplyEntry):
                body.append(
                    f'<div class="who">Agent, step {entry.step}</div>'
                    f'<div class="reply">{_e(entry.text.strip())}</div>'
                )
            elif isinstance(entry, ToolCallEntry):
                css = ' class="error"' if entry.is_error else ""
                body.append(
                    f"<details{css}><summary>{_e(entry.tool)} ({_e(entry.risk or 'safe')}): "
                    f"{_e(_call_head(entry))}</summary>"
                )
                if entry.approval:
                    body.append(f'<div class="approval">Approval: {_e(entry.approval)}</div>')
                body.append(f"<pre>{_e(format_args(entry.args))}</pre>")
                if entry.output:
                    body.append(f"<pre>{_e(entry.output)}</pre>")
                body.append("</details>")
            elif isinstance(entry, AskEntry):
                answer = entry.answer if entry.answer is not None else "(no answer)"
                body.append(
                    f'<div class="ask"><b>The agent asked you:</b> {_e(entry.question)}<br>'
                    f"<b>You answered:</b> {_e(answer)}</div>"
                )
            elif isinstance(entry, NoticeEntry):
                body.append(f'<div class="notice {_e(entry.tone)}">{_e(entry.text)}</div>')
            elif isinstance(entry, AnswerEntry):
                tasks = transcript.tasks.get(run, [])
                if tasks:
                    body.append('<ul class="tasks">')
                    for task in tasks:
                        note = f": {_e(task.note)}" if task.note else ""
                        body.append(
                            f'<li class="{_e(task.status)}">{_e(_task_mark(task))} {_e(task.id)} '
                            f"{_e(task.title)}{note}</li>"
                        )
                    body.append("</ul>")
                if entry.outcome == "cancelled" and entry.partial_text:
                    body.append(
                        '<div class="who">Agent, stopped while replying</div>'
                        f'<div class="reply">{_e(entry.partial_text.strip())}</div>'
                    )
                words = outcome_words(entry.outcome)
                css = "answer" if entry.answer is not None else "answer none"
                shown = entry.answer if entry.answer is not None else "(no answer)"
                suffix = f" <i>({_e(words)})</i>" if words else ""
                body.append(f'<div class="{css}"><b>Answer:</b> {_e(shown)}{suffix}</div>')
                body.append(f'<p class="stats">{_e(_stats_line(transcript.runs[run]))}</p>')
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


# --- files -----------------------------------------------------------------------------------------


def export_file_name(summary: SessionSummary, fmt: str) -> str:
    """`chat-<title>-<id>.md|.html`, the title reduced to letters, digits and dashes."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", summary.title).strip("-").lower()[:40]
    stem = f"chat-{slug}-{summary.id}" if slug else f"chat-{summary.id}"
    return stem + FORMATS[fmt]


def render_session(
    store: Store, session_id: str, fmt: str, secrets: Sequence[str] | None = None
) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose from {', '.join(FORMATS)}")
    summary = session_summary(store, session_id)
    events = session_events(store, session_id)
    render = session_markdown if fmt == "markdown" else session_html
    return render(summary, events, secrets)


def export_session(
    store: Store,
    session_id: str,
    fmt: str,
    folder: Path,
    secrets: Sequence[str] | None = None,
) -> Path:
    """Write the session to `folder` as Markdown or HTML; returns the file's path."""
    text = render_session(store, session_id, fmt, secrets)
    path = Path(folder) / export_file_name(session_summary(store, session_id), fmt)
    write_atomic(path, text)
    return path
