"""`arena verify`: check a board in any notation, as a person or a model would submit it."""

from __future__ import annotations

import json
import sys

import click

from arena.commands.inputs import (
    dictionary_option,
    json_option,
    letters_option,
    load_word_list,
    read_text,
)


@click.command()
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--hand", help="The player's tiles, e.g. AEINRST; checks the board uses only these.")
@dictionary_option
@json_option
def verify(source: str, hand: str | None, dictionary_path: str | None, as_json: bool) -> None:
    """Verify a Bananagrams board from FILE or stdin.

    Accepts anchor notation (CAT H / TAR[1] @ CAT[1] V), the legacy notation, or a drawn grid,
    with or without <board> tags. Exit status: 0 valid, 1 invalid, 2 bad usage or input.
    """
    from engines.bananagrams.verifier import verify as verify_board

    hand = letters_option(hand)
    dictionary = load_word_list(dictionary_path)
    result = verify_board(read_text(source), dictionary=dictionary, hand=hand)
    if as_json:
        click.echo(json.dumps(result.to_dict()))
    else:
        click.echo(report(result, dictionary.name))
    sys.exit(0 if result.valid else 1)


def report(result, dictionary_name: str) -> str:
    """A readable report: the verdict, the grid, the words and every issue."""
    verdict = "VALID" if result.valid else f"INVALID ({len(result.errors)} errors)"
    lines = [f"{verdict}: {result.tiles_used} tiles, {len(result.words)} words ({dictionary_name})"]
    if result.grid:
        lines += ["", *(f"  {row}" for row in result.grid), ""]
    if result.words:
        lines.append("Words: " + ", ".join(result.words))
    for title, issues in (("Errors", result.errors), ("Warnings", result.warnings)):
        if issues:
            lines.append(f"{title}:")
            for issue in issues:
                where = f" line {issue.line}" if issue.line is not None else ""
                lines.append(f"  [{issue.level}] {issue.code}{where}: {issue.message}")
    if not result.valid:
        lines.append("What a model would be shown:")
        lines += [f"  {line}" for line in result.feedback]
    return "\n".join(lines)
