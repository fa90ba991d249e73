"""`arena replay`: what everyone could see at any event of a stored match.

In a terminal it opens the replay screen at event N; with --json, or when the output is not a
terminal (a pipe, a file), it prints the state as JSON or text, without re-running the verifier.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import click

from arena.commands.inputs import InputError, db_option, find_match, open_store, store_errors

BLOCK_MIN_WIDTH = 34
BLOCK_MAX_WIDTH = 60
GAP = "   "


@click.command()
@click.argument("match_id")
@click.option(
    "--at", "at", type=int, metavar="N", help="The state after event N (default: the last)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the state as one JSON object.")
@db_option
def replay(match_id: str, at: int | None, as_json: bool, db_path: Path | None) -> None:
    """Show a stored match as it stood after event N. MATCH_ID may be a unique prefix."""
    from arena.replay import Replay

    store = open_store(db_path, create=False)
    full_id = find_match(store, match_id)
    with store_errors():
        loaded = Replay.load(store, full_id)
        try:
            state = loaded.state_at(at)
        except ValueError as error:
            raise InputError(f"--at: {error}") from None
    if as_json:
        click.echo(json.dumps(state.to_dict(), indent=2, ensure_ascii=False))
        return
    if _on_terminal():
        _open_screen(store, full_id, state.seq)
        return
    width = shutil.get_terminal_size((100, 24)).columns
    click.echo(render_state(state, loaded.match, loaded.last_seq, width))


def _on_terminal() -> bool:
    return sys.stdout.isatty()


def _open_screen(store, match_id: str, at: int) -> None:
    """The app on the replay screen at event `at`."""
    from arena.cli import open_app
    from screens.replay import ReplayScreen

    open_app(str(store.path), start=lambda app: ReplayScreen(app.store, match_id, at=at))


def render_state(state, match: dict, last_seq: int, width: int = 100) -> str:
    """A readable page: header, result or whose turn, then one block per player (side by side
    when the terminal is wide enough)."""
    title = match.get("title") or " vs ".join(p.name for p in state.players)
    limit = f"/{state.max_turns}" if state.max_turns else ""
    lines = [
        f"Match {state.match_id} · {title} · {state.mode} mode",
        f"After event {state.seq} of {last_seq} · turn {state.turn}{limit} · "
        f"bunch {state.bunch} tiles",
    ]
    if state.over:
        winner = state.players[state.winner].name if state.winner is not None else None
        result = f"{winner} won" if winner else "no winner"
        lines.append(f"Game over ({state.end_reason}): {result}.")
        lines.append(
            "Standings: "
            + "  ".join(
                f"{s['rank']}. {s['name']} ({s['tiles_left']} left{', out' if s['out'] else ''})"
                for s in state.standings
            )
        )
    elif not state.started:
        lines.append("The game has not started yet.")
    elif state.to_move is not None:
        lines.append(f"Next to move: {state.players[state.to_move].name}")
    else:
        lines.append("Everyone plays at once (realtime).")
    lines.append("")
    blocks = [_player_block(player, state.to_move == player.seat) for player in state.players]
    lines += _arrange(blocks, width)
    lines += [
        "",
        f"Use --at N for another moment (events 0-{last_seq}); --json gives machine output.",
    ]
    return "\n".join(lines)


def _player_block(player, to_move: bool) -> list[str]:
    grid_width = max((len(row) for row in player.grid), default=0)
    width = min(max(BLOCK_MIN_WIDTH, grid_width), BLOCK_MAX_WIDTH)

    def wrap(text: str, max_lines: int = 3) -> list[str]:
        lines = textwrap.wrap(" ".join(text.split()), width, subsequent_indent="  ")
        if len(lines) <= max_lines:
            return lines
        return [*lines[: max_lines - 1], lines[max_lines - 1][: width - 1] + "…"]

    who = player.kind + (f" {player.model}" if player.model else "")
    head = f"{'> ' if to_move else ''}{player.name} ({who})" + (" · OUT" if player.out else "")
    lines = [*wrap(head, 2), *wrap(f"hand {len(player.hand)}: {''.join(sorted(player.hand))}", 8)]
    lines.append(f"tiles not on a valid board: {player.tiles_left}")
    verdict = player.verdict
    if verdict is None:
        lines.append("board: none yet")
    elif verdict.valid:
        lines.append("board: valid" + (", every tile" if verdict.complete else ""))
    else:
        lines += wrap("board: INVALID " + ", ".join(verdict.errors[:4]), 2)
        for feedback in verdict.feedback[:2]:
            lines += wrap(f"  {feedback}", 2)
    if player.last_move:
        lines += wrap(f"last: {player.last_move}")
    if player.plan:
        lines += wrap(f"plan: {player.plan}")
    if player.error:
        lines += wrap(f"problem: {player.error}", 2)
    if player.total_tokens or player.cost_usd:
        lines.append(f"tokens {player.total_tokens:,} · ${player.cost_usd:.4f}")
    lines.append("")
    lines += [_fit(row, width) for row in player.grid] or ["(no board)"]
    return lines


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _arrange(blocks: list[list[str]], width: int) -> list[str]:
    widths = [max(len(line) for line in block) for block in blocks]
    if sum(widths) + len(GAP) * (len(blocks) - 1) > width:
        out: list[str] = []
        for block in blocks:
            out += [*block, ""]
        return out[:-1]
    height = max(len(block) for block in blocks)
    return [
        GAP.join(
            (block[row] if row < len(block) else "").ljust(w)
            for block, w in zip(blocks, widths, strict=True)
        ).rstrip()
        for row in range(height)
    ]
