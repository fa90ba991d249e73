"""Reading command-line inputs safely: files or stdin, size-capped, with one-line errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

# Far beyond any real board, small enough to read without trouble.
MAX_INPUT_BYTES = 16 * 1024 * 1024


class InputError(click.ClickException):
    """Bad usage or unreadable input: one line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"arena: {self.format_message()}", err=True)


def read_text(source: str) -> str:
    """Text from a file path, or from stdin when `source` is '-'."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with Path(source).open("rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"no such file: {source}") from None
    except IsADirectoryError:
        raise InputError(f"{source} is a folder, not a file") from None
    except OSError as error:
        raise InputError(f"cannot read {source}: {error.strerror or error}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"input is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MB")
    return data.decode("utf-8", errors="replace")


def letters_option(value: str | None, what: str = "hand") -> str | None:
    """Upper-cased A-Z letters, or an InputError naming what is wrong."""
    if value is None:
        return None
    cleaned = value.strip()
    # Check before upper-casing: 'ß'.upper() is 'SS' and would sneak in as two letters.
    bad = sorted({c for c in cleaned if not (c.isascii() and c.isalpha())})
    cleaned = cleaned.upper()
    if bad:
        shown = "".join(bad)[:10]
        raise InputError(f"the {what} must be letters A-Z only; found {shown!r}")
    return cleaned


def load_word_list(path: str | None):
    """The dictionary for --dictionary, or ENABLE; an unusable list is an InputError."""
    from engines.bananagrams.dictionary import DictionaryError, load_dictionary

    try:
        return load_dictionary(path)
    except DictionaryError as error:
        raise InputError(str(error)) from None


db_option = click.option(
    "--db",
    "db_path",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="The database file (default: $ARENA_DB, else arena.db in the user data folder).",
)


@contextmanager
def store_errors() -> Iterator[None]:
    """Turn a damaged, foreign or unreadable database into one line on stderr and exit 2."""
    import sqlite3  # only commands that open the database pay for it

    from arena.store import StoreError

    try:
        yield
    except StoreError as error:
        raise InputError(str(error)) from None
    except sqlite3.DatabaseError as error:
        raise InputError(f"the database cannot be read ({error})") from None
    except json.JSONDecodeError as error:
        raise InputError(f"the database holds a damaged record ({error})") from None


def open_store(db_path: Path | None, *, create: bool = True, missing_ok: bool = False):
    """The store at --db (else the default). Commands that only read never create a database:
    a missing file is an error, or None with `missing_ok` (only for the default location)."""
    from arena.store import Store, default_db_path

    path = db_path or default_db_path()
    if not create and not path.exists():
        if missing_ok and db_path is None:
            return None
        raise InputError(f"no database at {path}; choose one with --db or ARENA_DB")
    with store_errors():
        return Store.open(path)


def find_match(store, prefix: str) -> str:
    """The full id of the match whose id is or starts with `prefix`."""
    with store_errors():
        return store.find_stream(prefix, kind="match")["id"]


dictionary_option = click.option(
    "--dictionary",
    "dictionary_path",
    metavar="PATH",
    help="A word list file (one word per line) instead of ENABLE.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
