"""The SQLite event store: one database file, append-only event streams, and small tables for
matches, players, chat sessions and question runs.

Every stream (a match, a chat session, a question run) is a sequence of events numbered from 1.
Writers commit each batch at once, so a crash loses nothing already said; readers in other
processes follow a stream by polling for higher sequence numbers (WAL lets them read while a
match is being written).
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

APP_ID = 0x42414E41  # "BANA": marks the file as ours in PRAGMA application_id
STREAM_KINDS = ("match", "session", "questions")


class StoreError(Exception):
    """The database cannot be used; the message says why and what to do."""


class DamagedEvent(StoreError):
    """A stored event whose payload cannot be read."""

    def __init__(self, stream_id: str, seq: int, kind: str) -> None:
        super().__init__(
            f"Match {stream_id}: event #{seq} ({kind}) is damaged: its payload is not JSON."
        )
        self.seq = seq


def default_db_path() -> Path:
    """ARENA_DB if set, else arena.db in the user data folder."""
    if env := os.environ.get("ARENA_DB"):
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("banana-arena", appauthor=False)) / "arena.db"


# --- secrets ---------------------------------------------------------------------------------------

# Names of settings that hold secrets; `max_tokens` and `budget_tokens` are counts, not secrets.
SECRET_KEY = re.compile(
    r"(api[_-]?key|secret|password|passwd|authorization|bearer|credential|(^|[_-])token$)", re.I
)
ENV_REFERENCE = re.compile(
    r"^(\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*|env:[A-Za-z_][A-Za-z0-9_]*)$"
)


def redact(value: Any) -> Any:
    """A copy of settings with secrets removed. A reference to an environment variable
    (`${NAME}`, `$NAME`, `env:NAME`) is kept, since it is not the secret itself."""
    if isinstance(value, dict):
        return {
            key: (
                item
                if not SECRET_KEY.search(str(key))
                or (isinstance(item, str) and ENV_REFERENCE.match(item))
                else "[redacted]"
            )
            if not isinstance(item, dict | list)
            else redact(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact(item) for item in value]
    return value


# --- schema ------------------------------------------------------------------------------------------


def _v1(db: sqlite_utils.Database) -> None:
    db.execute(
        """CREATE TABLE streams (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'running',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE events (
            stream_id TEXT NOT NULL REFERENCES streams(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            time REAL NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            PRIMARY KEY (stream_id, seq)
        ) WITHOUT ROWID"""
    )
    db.execute(
        """CREATE TABLE matches (
            id TEXT PRIMARY KEY REFERENCES streams(id) ON DELETE CASCADE,
            mode TEXT NOT NULL,
            seed INTEGER NOT NULL,
            config TEXT NOT NULL,
            winner INTEGER,
            end_reason TEXT,
            turns INTEGER NOT NULL DEFAULT 0,
            finished_at REAL
        )"""
    )
    db.execute(
        """CREATE TABLE players (
            match_id TEXT NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            model TEXT,
            policy TEXT,
            settings TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (match_id, seat)
        )"""
    )
    db.execute(
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY REFERENCES streams(id) ON DELETE CASCADE,
            model TEXT,
            policy TEXT,
            cost_usd REAL NOT NULL DEFAULT 0
        )"""
    )
    db.execute(
        """CREATE TABLE question_runs (
            id TEXT PRIMARY KEY REFERENCES streams(id) ON DELETE CASCADE,
            set_name TEXT NOT NULL,
            model TEXT,
            policy TEXT,
            accuracy REAL,
            cost_usd REAL NOT NULL DEFAULT 0
        )"""
    )
    db.execute("CREATE INDEX streams_kind ON streams(kind, created_at)")


def _v2(db: sqlite_utils.Database) -> None:
    # In-progress model replies, so a spectator in another process can watch text stream in.
    # Not part of any event stream: rows are overwritten while a reply grows.
    db.execute(
        """CREATE TABLE live_replies (
            stream_id TEXT NOT NULL REFERENCES streams(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            text TEXT NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (stream_id, seat)
        )"""
    )


def _v3(db: sqlite_utils.Database) -> None:
    # Which process writes a running stream ("host:pid"), so a crashed writer can be told apart
    # from a slow one.
    db.execute("ALTER TABLE streams ADD COLUMN owner TEXT NOT NULL DEFAULT ''")


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1, _v2, _v3]
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class StoredEvent:
    stream_id: str
    seq: int
    time: float
    kind: str
    payload: dict[str, Any]


class Store:
    """A Banana Arena database. Open with `Store.open(path)`; safe to use from one thread."""

    def __init__(self, db: sqlite_utils.Database, path: Path) -> None:
        self.db = db
        self.path = path
        self._next_seq: dict[str, int] = {}

    @classmethod
    def open(cls, path: str | Path | None = None) -> Store:
        path = Path(path) if path is not None else default_db_path()
        if path.exists() and path.is_dir():
            raise StoreError(f"{path} is a folder, not a database file.")
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
            db = sqlite_utils.Database(conn)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            tables = db.table_names()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path} is not a Banana Arena database ({error}).") from None
        if tables and app_id != APP_ID:
            raise StoreError(
                f"{path} is an SQLite database of another program; choose another file with --db."
            )
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} was written by a newer Banana Arena (schema {version}, this one knows "
                f"{SCHEMA_VERSION}); upgrade banana-arena."
            )
        store = cls(db, path)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            store._upgrade(version)
            if version == SCHEMA_VERSION:
                db.execute("SELECT 1 FROM events LIMIT 1").fetchall()  # a damaged file fails here
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{path} is damaged ({error}); move it away or choose another --db."
            ) from None
        return store

    def _upgrade(self, version: int) -> None:
        if version == SCHEMA_VERSION:
            return
        with self.transaction():
            # Another process may have upgraded since we looked: re-read under the write lock.
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            for step in range(version, SCHEMA_VERSION):
                MIGRATIONS[step](self.db)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.execute(f"PRAGMA application_id = {APP_ID}")

    def close(self) -> None:
        self.db.conn.close()

    def transaction(self):
        """A write transaction: everything inside commits together or not at all."""
        return _Transaction(self.db.conn)

    # --- streams -----------------------------------------------------------------------------

    def create_stream(self, kind: str, title: str = "", stream_id: str | None = None) -> str:
        if kind not in STREAM_KINDS:
            raise ValueError(f"unknown stream kind {kind!r}")
        stream_id = stream_id or new_id()
        now = time.time()
        self.db["streams"].insert(
            {
                "id": stream_id,
                "kind": kind,
                "title": title,
                "status": "running",
                "created_at": now,
                "updated_at": now,
                "owner": this_process(),
            }
        )
        self._next_seq[stream_id] = 1
        return stream_id

    def set_status(self, stream_id: str, status: str) -> None:
        """Set a stream's status; setting it running (a resume) makes this process its writer."""
        change: dict[str, Any] = {"status": status, "updated_at": time.time()}
        if status == "running":
            change["owner"] = this_process()
        self.db["streams"].update(stream_id, change)

    def stream(self, stream_id: str) -> dict | None:
        rows = list(self.db["streams"].rows_where("id = ?", [stream_id]))
        return _with_live_status(rows[0]) if rows else None

    def find_stream(self, prefix: str, kind: str | None = None) -> dict:
        """The stream whose id is `prefix` or starts with it; StoreError when none or several."""
        where, args = (
            "id LIKE ? ESCAPE '\\'",
            [prefix.replace("%", "\\%").replace("_", "\\_") + "%"],
        )
        if kind:
            where, args = where + " AND kind = ?", [*args, kind]
        rows = list(self.db["streams"].rows_where(where, args, limit=2))
        if not rows:
            raise StoreError(f"No {kind or 'stream'} with id {prefix!r} in {self.path}.")
        if len(rows) > 1 and rows[0]["id"] != prefix:
            raise StoreError(f"Id {prefix!r} is ambiguous; give more characters.")
        return rows[0]

    def delete_stream(self, stream_id: str) -> None:
        with self.transaction():
            self.db.execute("DELETE FROM streams WHERE id = ?", [stream_id])
        self._next_seq.pop(stream_id, None)

    # --- events ------------------------------------------------------------------------------

    def append(self, stream_id: str, kind: str, payload: dict[str, Any]) -> int:
        """Append one event and commit it; returns its sequence number."""
        return self.append_many(stream_id, [(kind, payload)])[-1]

    def append_many(self, stream_id: str, events: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """Append events in one transaction (all or nothing); returns their sequence numbers."""
        with self.transaction():
            seq = self._next_seq.get(stream_id) or self.last_seq(stream_id) + 1
            now = time.time()
            rows = [
                (stream_id, seq + k, now, kind, json.dumps(payload, default=_json_default))
                for k, (kind, payload) in enumerate(events)
            ]
            self.db.conn.executemany(
                "INSERT INTO events (stream_id, seq, time, kind, payload) VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            self.db.conn.execute("UPDATE streams SET updated_at = ? WHERE id = ?", (now, stream_id))
        self._next_seq[stream_id] = seq + len(events)
        return [seq + k for k in range(len(events))]

    def last_seq(self, stream_id: str) -> int:
        row = self.db.execute(
            "SELECT MAX(seq) FROM events WHERE stream_id = ?", [stream_id]
        ).fetchone()
        return row[0] or 0

    def events(
        self, stream_id: str, after: int = 0, until: int | None = None, kinds: tuple[str, ...] = ()
    ) -> Iterator[StoredEvent]:
        sql = "SELECT seq, time, kind, payload FROM events WHERE stream_id = ? AND seq > ?"
        args: list[Any] = [stream_id, after]
        if until is not None:
            sql, args = sql + " AND seq <= ?", [*args, until]
        if kinds:
            sql += f" AND kind IN ({', '.join('?' * len(kinds))})"
            args += list(kinds)
        for seq, at, kind, payload in self.db.execute(sql + " ORDER BY seq", args):
            try:
                data = json.loads(payload)
            except (TypeError, ValueError):
                raise DamagedEvent(stream_id, seq, kind) from None
            yield StoredEvent(stream_id, seq, at, kind, data)

    def follow(
        self,
        stream_id: str,
        after: int = 0,
        *,
        poll_s: float = 0.1,
        stop: Callable[[], bool] | None = None,
    ) -> Iterator[StoredEvent]:
        """Yield events as another process appends them, until the stream stops running."""
        while True:
            batch = list(self.events(stream_id, after))
            yield from batch
            if batch:
                after = batch[-1].seq
                continue
            info = self.stream(stream_id)
            if info is None or info["status"] != "running" or (stop and stop()):
                yield from self.events(stream_id, after)
                return
            time.sleep(poll_s)

    # --- live replies ------------------------------------------------------------------------

    def set_live_reply(self, stream_id: str, seat: int, text: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO live_replies (stream_id, seat, text, updated_at) VALUES (?, ?, ?, ?)",
            [stream_id, seat, text, time.time()],
        )

    def live_replies(self, stream_id: str) -> dict[int, str]:
        rows = self.db.execute(
            "SELECT seat, text FROM live_replies WHERE stream_id = ?", [stream_id]
        )
        return {seat: text for seat, text in rows}

    def clear_live_reply(self, stream_id: str, seat: int) -> None:
        self.db.execute(
            "DELETE FROM live_replies WHERE stream_id = ? AND seat = ?", [stream_id, seat]
        )

    # --- matches -----------------------------------------------------------------------------

    def create_match(
        self, *, title: str, mode: str, seed: int, config: dict, players: list[dict]
    ) -> str:
        with self.transaction():
            match_id = self.create_stream("match", title)
            self.db["matches"].insert(
                {"id": match_id, "mode": mode, "seed": seed, "config": json.dumps(redact(config))}
            )
            self.db["players"].insert_all(
                {
                    "match_id": match_id,
                    "seat": seat,
                    "name": player["name"],
                    "kind": player["kind"],
                    "model": player.get("model"),
                    "policy": player.get("policy"),
                    "settings": json.dumps(redact(player.get("settings", {}))),
                }
                for seat, player in enumerate(players)
            )
        return match_id

    def finish_match(
        self, match_id: str, *, winner: int | None, end_reason: str, turns: int
    ) -> None:
        with self.transaction():
            self.db["matches"].update(
                match_id,
                {
                    "winner": winner,
                    "end_reason": end_reason,
                    "turns": turns,
                    "finished_at": time.time(),
                },
            )
            self.set_status(match_id, "finished")

    def match(self, match_id: str) -> dict:
        rows = self.db.execute(
            "SELECT m.*, s.title, s.status, s.owner, s.created_at, s.updated_at FROM matches m "
            "JOIN streams s ON s.id = m.id WHERE m.id = ?",
            [match_id],
        )
        columns = [c[0] for c in rows.description]
        row = rows.fetchone()
        if row is None:
            raise StoreError(f"No match {match_id!r} in {self.path}.")
        match = _with_live_status(dict(zip(columns, row, strict=True)))
        match["config"] = json.loads(match["config"])
        match["players"] = self.match_players(match_id)
        return match

    def match_players(self, match_id: str) -> list[dict]:
        players = list(self.db["players"].rows_where("match_id = ?", [match_id], order_by="seat"))
        for player in players:
            player["settings"] = json.loads(player["settings"])
        return players

    def matches(self, limit: int = 200) -> list[dict]:
        rows = self.db.execute(
            "SELECT m.id, s.title, s.status, s.owner, s.created_at, m.mode, m.seed, m.winner, m.end_reason, m.turns "
            "FROM matches m JOIN streams s ON s.id = m.id ORDER BY s.created_at DESC LIMIT ?",
            [limit],
        )
        columns = [c[0] for c in rows.description]
        return [
            _with_live_status(dict(zip(columns, row, strict=True)))
            | {"players": self.match_players(row[0])}
            for row in rows.fetchall()
        ]

    # --- question runs ------------------------------------------------------------------------

    def create_question_run(self, *, set_name: str, model: str, policy: str) -> str:
        with self.transaction():
            run_id = self.create_stream("questions", f"{set_name} · {model} · {policy}")
            self.db["question_runs"].insert(
                {"id": run_id, "set_name": set_name, "model": model, "policy": policy}
            )
        return run_id

    def finish_question_run(self, run_id: str, *, accuracy: float | None, cost_usd: float) -> None:
        with self.transaction():
            self.db["question_runs"].update(run_id, {"accuracy": accuracy, "cost_usd": cost_usd})
            self.set_status(run_id, "finished")


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.outer = False

    def __enter__(self) -> sqlite3.Connection:
        self.outer = not self.conn.in_transaction
        if self.outer:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self.outer:
            return
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _with_live_status(row: dict) -> dict:
    """A stream marked running whose writer process is gone (killed, crashed) is reported as
    stopped, so nobody waits on it; `arena resume` continues it."""
    if row.get("status") == "running" and _writer_gone(row.get("owner") or ""):
        row["status"] = "stopped"
    return row


def _writer_gone(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine, or written before owners were recorded: can't tell
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # it exists but belongs to someone else
    return False


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)
