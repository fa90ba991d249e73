"""`arena matches`: list stored matches."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import click

from arena.commands.inputs import db_option, open_store, store_errors


def _date(timestamp: float | None) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M") if timestamp else ""


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def match_rows(store) -> list[dict]:
    rows = []
    for match in store.matches(limit=10_000):
        names = [p["name"] for p in match["players"]]
        winner = match["winner"]
        rows.append(
            {
                "id": match["id"],
                "created_at": match["created_at"],
                "date": _date(match["created_at"]),
                "title": match["title"],
                "mode": match["mode"],
                "status": match["status"],
                "players": names,
                "winner": names[winner]
                if winner is not None and 0 <= winner < len(names)
                else None,
                "end_reason": match["end_reason"],
                "turns": match["turns"],
            }
        )
    return rows


def matches_table(rows: list[dict]) -> str:
    headers = ["id", "date", "title", "mode", "status", "players", "winner", "turns"]
    body = [
        [
            row["id"],
            row["date"],
            _short(row["title"], 32),
            row["mode"],
            row["status"],
            _short(", ".join(row["players"]), 40),
            row["winner"] or ("-" if row["status"] == "finished" else ""),
            str(row["turns"]) if row["status"] == "finished" else "",
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [headers, *body]) for i in range(len(headers))]
    right = {len(headers) - 1}
    lines = [
        "  ".join(
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ).rstrip()
        for line in [headers, *body]
    ]
    return "\n".join(lines)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@db_option
def matches(as_json: bool, db_path: Path | None) -> None:
    """List stored matches, newest first."""
    store = open_store(db_path, create=False, missing_ok=True)
    rows = []
    if store is not None:
        with store_errors():
            rows = match_rows(store)
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    elif not rows:
        click.echo("No matches stored yet.")
    else:
        click.echo(matches_table(rows))
