"""`arena leaderboard`: Plackett-Luce ratings over every finished match in the database."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena.commands.inputs import db_option, open_store, store_errors

HEADERS = ["#", "player", "rating", "mu", "sigma", "games", "wins", "valid", "tok/turn", "cost"]


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, best first.")
@db_option
def leaderboard(as_json: bool, db_path: Path | None) -> None:
    """Ratings (openskill Plackett-Luce; rating = mu - 3 sigma) of bots, models and people.

    Each player of a match is ranked by the final standings; matches that did not finish are
    left out. Valid = valid boards / boards submitted."""
    from arena.ratings import leaderboard as compute

    store = open_store(db_path, create=False, missing_ok=True)
    standings = []
    if store is not None:
        with store_errors():
            standings = compute(store)
    if as_json:
        rows = [{"rank": rank, **s.to_dict()} for rank, s in enumerate(standings, start=1)]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    elif not standings:
        click.echo("No finished matches yet.")
    else:
        click.echo(leaderboard_table(standings))


def leaderboard_table(standings) -> str:
    body = [
        [
            str(rank),
            s.identity,
            f"{s.rating:.2f}",
            f"{s.mu:.2f}",
            f"{s.sigma:.2f}",
            str(s.games),
            str(s.wins),
            f"{100 * s.valid_board_rate:.0f}%" if s.valid_board_rate is not None else "-",
            f"{s.tokens_per_turn:,.0f}" if s.tokens_per_turn is not None else "-",
            f"${s.cost_usd:.4f}",
        ]
        for rank, s in enumerate(standings, start=1)
    ]
    widths = [max(len(line[i]) for line in [HEADERS, *body]) for i in range(len(HEADERS))]
    return "\n".join(
        "  ".join(
            cell.ljust(widths[i]) if i == 1 else cell.rjust(widths[i])
            for i, cell in enumerate(line)
        ).rstrip()
        for line in [HEADERS, *body]
    )
