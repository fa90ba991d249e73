"""The SQLite store: schema versions and upgrades, pragmas, refusal of files that aren't ours,
atomic batches, cascading deletes and following a stream."""

import sqlite3
import threading
import time

import pytest
import sqlite_utils

from arena.store import APP_ID, MIGRATIONS, SCHEMA_VERSION, Store, StoreError


def test_a_new_database_is_current_with_wal_and_foreign_keys(tmp_path):
    store = Store.open(tmp_path / "sub" / "a.db")
    pragma = lambda name: store.db.execute(f"PRAGMA {name}").fetchone()[0]  # noqa: E731
    assert pragma("user_version") == SCHEMA_VERSION
    assert pragma("application_id") == APP_ID
    assert pragma("journal_mode") == "wal"
    assert pragma("foreign_keys") == 1
    assert {
        "streams",
        "events",
        "matches",
        "players",
        "sessions",
        "question_runs",
        "live_replies",
    } <= set(store.db.table_names())


def test_an_older_database_is_upgraded_in_place(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite_utils.Database(sqlite3.connect(path, isolation_level=None))
    MIGRATIONS[0](db)  # as the first release left it
    db.execute("PRAGMA user_version = 1")
    db.execute(f"PRAGMA application_id = {APP_ID}")
    db.execute("INSERT INTO streams VALUES ('s1', 'session', 'old', 'finished', 1, 1)")
    db.execute("""INSERT INTO events VALUES ('s1', 1, 1, 'note', '{"kept": true}')""")
    db.conn.close()
    store = Store.open(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [e.payload for e in store.events("s1")] == [{"kept": True}]
    store.set_live_reply("s1", 0, "hello")  # the table the upgrade added
    assert store.live_replies("s1") == {0: "hello"}


def test_files_that_are_not_ours_are_refused_clearly(tmp_path):
    newer = tmp_path / "newer.db"
    Store.open(newer).close()
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer Banana Arena"):
        Store.open(newer)
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (x)")
    conn.close()
    with pytest.raises(StoreError, match="another program"):
        Store.open(foreign)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a Banana Arena database"):
        Store.open(garbage)
    with pytest.raises(StoreError, match="folder"):
        Store.open(tmp_path)


def test_a_batch_is_all_or_nothing(tmp_path):
    store = Store.open(tmp_path / "a.db")
    stream = store.create_stream("session")
    store.append(stream, "first", {})
    store._next_seq[stream] = 1  # make the batch collide with event 1 half-way
    with pytest.raises(sqlite3.IntegrityError):
        store.append_many(stream, [("second", {}), ("third", {})])
    assert [e.kind for e in store.events(stream)] == ["first"]


def test_deleting_a_stream_deletes_its_events_and_rows(tmp_path):
    store = Store.open(tmp_path / "a.db")
    match = store.create_match(
        title="t", mode="turns", seed=1, config={}, players=[{"name": "a", "kind": "bot"}]
    )
    store.append(match, "x", {})
    store.delete_stream(match)
    assert store.last_seq(match) == 0
    assert list(store.db["players"].rows) == [] and list(store.db["matches"].rows) == []


def test_follow_sees_what_another_connection_appends_and_stops_when_the_stream_does(tmp_path):
    path = tmp_path / "a.db"
    writer = Store.open(path)
    stream = writer.create_stream("match")

    def write() -> None:
        other = Store.open(path)
        for n in range(5):
            other.append(stream, "tick", {"n": n})
            time.sleep(0.02)
        other.set_status(stream, "finished")

    thread = threading.Thread(target=write)
    thread.start()
    seen = [e.payload["n"] for e in Store.open(path).follow(stream, poll_s=0.01)]
    thread.join()
    assert seen == [0, 1, 2, 3, 4]


def test_a_running_stream_whose_writer_died_reads_as_stopped(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "a.db"
    code = (
        f"from arena.store import Store; s = Store.open({str(path)!r}); "
        "print(s.create_match(title='t', mode='turns', seed=1, config={}, players=[]))"
    )
    match_id = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    store = Store.open(path)
    assert store.stream(match_id)["status"] == "stopped"  # that process has exited
    assert (
        store.match(match_id)["status"] == "stopped" and store.matches()[0]["status"] == "stopped"
    )
    assert list(store.follow(match_id, poll_s=0.01)) == []  # nobody waits on it
    store.set_status(match_id, "running")  # resumed here: this process writes it now
    assert store.stream(match_id)["status"] == "running"
