"""Chat sessions in the store: created on the first question, every agent event appended as it
happens, listed and searched, loaded again to resume or export.

A session is a `session` stream plus its row in the `sessions` table (model, policy, cost). Its
events are the agent's own `to_dict()` records (transient text deltas are not kept: the reply
event repeats their text), so `AgentSession.resume` and `Transcript` read them back directly.
Each session has a workspace folder beside the database (`sessions/<id>/`) holding the files
attached to its questions and whatever its tools wrote.

Secrets: values of credential-like environment variables (and any extra keys given) are
replaced by "[redacted]" in every payload before it is written.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.store import Store, StoreError
from engines.agent.events import AgentEvent, one_line

log = logging.getLogger(__name__)

SESSION_KIND = "session"
REDACTED = "[redacted]"
TITLE_CHARS = 60
# Event kinds whose text people may search for; their string values are the searchable text.
TEXT_KINDS = (
    "run_started",
    "llm_replied",
    "tool_call_started",
    "tool_call_finished",
    "user_asked",
    "user_answered",
    "task_added",
    "task_completed",
    "task_skipped",
    "pushed_back",
    "final_answer",
)
# Detail fields that hold names and codes rather than text.
_NOT_TEXT = frozenset(
    {
        "model",
        "policy",
        "risk",
        "decision",
        "source",
        "outcome",
        "finish_reason",
        "tools",
        "tool_calls",  # the same arguments are searched in tool_call_started, as readable values
        "call_id",
        "id",
        "kind",
    }
)
_SECRET_VARIABLE = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|API_?KEY", re.I)
_MIN_SECRET_CHARS = 8


# --- secrets ---------------------------------------------------------------------------------------


def known_secrets(extra: Iterable[str] = ()) -> tuple[str, ...]:
    """Credential values that must never be written: credential-like environment variables and
    `extra` (keys from the settings file). Longest first, so overlapping values go whole."""
    values = {value for name, value in os.environ.items() if _SECRET_VARIABLE.search(name)}
    values.update(extra)
    return tuple(
        sorted((v for v in values if v and len(v) >= _MIN_SECRET_CHARS), key=len, reverse=True)
    )


def scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """A copy of `value` with every secret replaced by "[redacted]" in its strings and keys."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, Mapping):
        return {scrub(str(key), secrets): scrub(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(item, secrets) for item in value]
    return value


# --- sessions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionSummary:
    id: str
    title: str
    model: str
    policy: str
    cost_usd: float
    created_at: float
    updated_at: float
    status: str
    questions: int = 0
    match: str = ""  # the text a search found, when listed by a search

    @property
    def label(self) -> str:
        return self.title or "(untitled session)"


def session_title(question: str) -> str:
    return one_line(question, TITLE_CHARS)


def create_session(store: Store, *, model: str, policy: str, title: str = "") -> str:
    """A new, empty session; returns its id."""
    with store.transaction():
        session_id = store.create_stream(SESSION_KIND, title)
        store.db["sessions"].insert(
            {"id": session_id, "model": model, "policy": policy, "cost_usd": 0.0}
        )
        store.set_status(session_id, "idle")
    return session_id


_SUMMARY_SQL = (
    "SELECT s.id, s.title, x.model, x.policy, x.cost_usd, s.created_at, s.updated_at, s.status, "
    "(SELECT COUNT(*) FROM events e WHERE e.stream_id = s.id AND e.kind = 'run_started') "
    "FROM streams s JOIN sessions x ON x.id = s.id WHERE s.kind = 'session'"
)


def _summary(row: tuple, match: str = "") -> SessionSummary:
    session_id, title, model, policy, cost, created, updated, status, questions = row
    return SessionSummary(
        session_id,
        title or "",
        model or "",
        policy or "",
        float(cost or 0.0),
        created,
        updated,
        status,
        questions,
        match,
    )


def session_summary(store: Store, session_id: str) -> SessionSummary:
    row = store.db.execute(_SUMMARY_SQL + " AND s.id = ?", [session_id]).fetchone()
    if row is None:
        raise StoreError(f"No chat session {session_id!r} in {store.path}.")
    return _summary(row)


def _like(text: str) -> str:
    """A LIKE pattern finding `text` inside a JSON payload (escaped as json.dumps writes it)."""
    import json

    inner = json.dumps(text)[1:-1]
    return "%" + inner.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _strings(value: Any, key: str = "") -> Iterable[str]:
    if key in _NOT_TEXT:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for name, item in value.items():
            yield from _strings(item, str(name))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, key)


def event_text(payload: Mapping[str, Any]) -> list[str]:
    """The searchable text of one stored event (empty for events without any)."""
    if payload.get("kind") not in TEXT_KINDS:
        return []
    return [text for text in _strings(payload.get("details") or {}) if text.strip()]


def _snippet(text: str, word: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    at = flat.casefold().find(word)
    if at < 0:
        return one_line(flat, width)
    start = max(0, at - width // 3)
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def list_sessions(store: Store, search: str = "", limit: int = 200) -> list[SessionSummary]:
    """Sessions, most recently used first. `search` keeps those whose title or text (questions,
    replies, tool calls and results, answers, tasks) holds every word of it, in any case."""
    words = [word.casefold() for word in search.split()]
    if not words:
        rows = store.db.execute(
            _SUMMARY_SQL + " ORDER BY s.updated_at DESC LIMIT ?", [limit]
        ).fetchall()
        return [_summary(row) for row in rows]
    # SQL narrows the candidates (LIKE ignores case for ASCII only, so words with other letters
    # are left to the exact check below); Python then reads the real text.
    sql, args = _SUMMARY_SQL, []
    kinds = ", ".join("?" * len(TEXT_KINDS))
    for word in words:
        if not word.isascii():
            continue
        sql += (
            " AND (s.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM events e WHERE e.stream_id = s.id"
            f" AND e.kind IN ({kinds}) AND e.payload LIKE ? ESCAPE '\\'))"
        )
        args += [_like(word), *TEXT_KINDS, _like(word)]
    rows = store.db.execute(sql + " ORDER BY s.updated_at DESC", args).fetchall()
    found = []
    for row in rows:
        texts = [row[1] or ""]
        for event in store.events(row[0], kinds=TEXT_KINDS):
            texts.extend(event_text(event.payload))
        folded = [text.casefold() for text in texts]
        if all(any(word in text for text in folded) for word in words):
            first = next(text for text, low in zip(texts, folded, strict=True) if words[0] in low)
            found.append(_summary(row, _snippet(first, words[0])))
            if len(found) >= limit:
                break
    return found


def session_events(store: Store, session_id: str) -> list[dict[str, Any]]:
    """The session's agent events in order, as `AgentEvent.to_dict()` records."""
    if store.stream(session_id) is None:
        raise StoreError(f"No chat session {session_id!r} in {store.path}.")
    events = []
    for stored in store.events(session_id):
        payload = stored.payload
        if not isinstance(payload, dict) or "kind" not in payload or "run" not in payload:
            raise StoreError(f"Session {session_id}: event {stored.seq} is not an agent event.")
        events.append(payload)
    return events


def sessions_dir(store: Store) -> Path:
    """Where session workspaces live: `sessions/` beside the database file."""
    return Path(store.path).resolve().parent / "sessions"


def session_workspace(store: Store, session_id: str) -> Path:
    folder = sessions_dir(store) / session_id
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def delete_session(store: Store, session_id: str) -> None:
    """Delete the session's events, row and workspace folder."""
    store.delete_stream(session_id)
    folder = sessions_dir(store) / session_id
    if folder.is_dir() and folder.parent == sessions_dir(store):
        shutil.rmtree(folder, ignore_errors=True)


# --- recording ----------------------------------------------------------------------------------


class SessionRecorder:
    """An `AgentSession` subscriber: appends each non-transient event at once and keeps the
    session's row current (title from its first question, model, policy, cost).

    A failed write is logged and kept in `error`: the agent carries on and the view says so."""

    def __init__(self, store: Store, session_id: str, secrets: tuple[str, ...] = ()) -> None:
        self.store = store
        self.session_id = session_id
        self.secrets = secrets
        self.error: Exception | None = None

    def __call__(self, event: AgentEvent) -> None:
        if event.transient:
            return
        payload = scrub(event.to_dict(), self.secrets)
        try:
            with self.store.transaction():
                self.store.append(self.session_id, event.kind, payload)
                self._update_row(event, payload["details"])
        except Exception as error:  # sqlite3 errors, a full disk: keep the agent going
            log.exception("cannot save event %s of session %s", event.kind, self.session_id)
            self.error = error

    def _update_row(self, event: AgentEvent, details: dict[str, Any]) -> None:
        db, session_id = self.store.db, self.session_id
        if event.kind == "run_started":
            db.execute(
                "UPDATE sessions SET model = ?, policy = ? WHERE id = ?",
                [details.get("model") or "", details.get("policy") or "", session_id],
            )
            db.execute(
                "UPDATE streams SET title = ? WHERE id = ? AND title = ''",
                [session_title(details.get("question") or ""), session_id],
            )
            self.store.set_status(session_id, "running")
        elif event.kind == "run_finished":
            db.execute(
                "UPDATE sessions SET cost_usd = cost_usd + ? WHERE id = ?",
                [float(details.get("cost_usd") or 0.0), session_id],
            )
            self.store.set_status(session_id, "idle")
