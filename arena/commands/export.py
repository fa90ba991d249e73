"""`arena export`: a stored match as Banana-Bench results JSON, or as our full JSON dump."""

from __future__ import annotations

from pathlib import Path

import click

from arena.commands.inputs import InputError, db_option, find_match, open_store, store_errors
from arena.export import FORMATS


@click.command()
@click.argument("match_id")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="banana-bench",
    show_default=True,
    help="banana-bench: Banana-Bench's results shape; json: the match row and every event.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write to FILE (atomically) instead of stdout.",
)
@db_option
def export(match_id: str, fmt: str, output: Path | None, db_path: Path | None) -> None:
    """Export a stored match. MATCH_ID may be a unique prefix."""
    from arena.export import export_match, to_json_text, write_atomic

    store = open_store(db_path, create=False)
    full_id = find_match(store, match_id)
    with store_errors():
        text = to_json_text(export_match(store, full_id, fmt))
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        write_atomic(output, text)
    except OSError as error:
        raise InputError(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"Wrote match {full_id} ({fmt}) to {output}", err=True)
