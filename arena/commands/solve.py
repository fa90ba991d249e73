"""`arena solve`: turn a hand into a valid board, or extend a board with the tiles it lacks."""

from __future__ import annotations

import json
import sys

import click

from arena.commands.inputs import (
    InputError,
    dictionary_option,
    json_option,
    letters_option,
    load_word_list,
    read_text,
)


@click.command()
@click.argument("letters", required=False)
@click.option(
    "--board",
    "board_source",
    metavar="FILE|-",
    help="A current board to extend (any notation `arena verify` reads); - for stdin.",
)
@click.option(
    "--time-limit",
    "time_limit_text",
    default="1",
    metavar="SECONDS",
    show_default=True,
    help="Give up and report the best partial board after this long.",
)
@dictionary_option
@json_option
def solve(
    letters: str | None,
    board_source: str | None,
    time_limit_text: str,
    dictionary_path: str | None,
    as_json: bool,
) -> None:
    """Build a valid board that uses every tile of LETTERS (e.g. AEINRSTQUIZ), any case.

    LETTERS is the whole hand: with --board it includes the tiles already on the board. The
    board goes to stdout as a drawn grid followed by the same board in anchor notation inside
    <board> tags (what `arena verify --hand LETTERS` checks); a summary goes to stderr. When
    not every tile fits, the best partial board is printed with the tile to DUMP.

    Exit status: 0 every tile placed, 1 not, 2 bad input.
    """
    hand = _hand(letters)
    time_limit = _time_limit(time_limit_text)
    dictionary = load_word_list(dictionary_path)

    from engines.solver.solver import Solver

    solver = Solver(dictionary)
    if board_source is None:
        result = solver.solve(hand, time_limit=time_limit)
    else:
        result = solver.extend(_board(board_source, hand, dictionary), hand, time_limit=time_limit)

    if as_json:
        click.echo(json.dumps(result.to_dict()))
    else:
        if result.cells:
            click.echo("\n".join(result.rows))
            click.echo(f"\n<board>\n{result.anchor}\n</board>")
        click.echo(_summary(result, len(hand)), err=True)
    sys.exit(0 if result.solved else 1)


def _hand(letters: str | None) -> str:
    from engines.bananagrams.tiles import check_tiles

    hand = letters_option(letters, "hand")
    if not hand:
        raise InputError("give the hand as LETTERS, e.g. `arena solve AEINRSTQUIZ`")
    reason = check_tiles(hand)
    if reason:
        raise InputError(f"the hand cannot come from one Bananagrams set: {reason}")
    return hand


def _time_limit(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise InputError(f"--time-limit must be a number of seconds; got {text!r}") from None
    if not 0 < seconds <= 3600:
        raise InputError(f"--time-limit must be more than 0 and at most 3600 seconds; got {text}")
    return seconds


def _board(source: str, hand: str, dictionary) -> dict:
    from collections import Counter

    from engines.bananagrams.verifier import verify

    result = verify(read_text(source), dictionary=dictionary)
    if not result.valid:
        first = result.errors[0]
        raise InputError(
            f"the board is not valid, so it cannot be extended: {first.code}: {first.message}"
        )
    extra = Counter(result.cells.values()) - Counter(hand)
    if extra:
        raise InputError(
            f"the board uses tiles that are not in LETTERS: {''.join(sorted(extra.elements()))} "
            "(LETTERS is the whole hand, board tiles included)"
        )
    return result.cells


def _summary(result, tiles: int) -> str:
    seconds = f"{result.seconds:.3f} s"
    if result.solved:
        return f"Solved: {tiles} tiles, {len(result.words)} words in {seconds} ({result.stage})."
    placed = tiles - len(result.unplaced)
    return (
        f"Not solved in {seconds}: best board places {placed} of {tiles} tiles; "
        f"unplaced {result.unplaced}; DUMP {result.dump}."
    )
