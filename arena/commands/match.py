"""`arena match` and `arena resume`: run a match headless with a progress display."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from arena.commands.inputs import InputError, db_option, find_match, open_store


@click.command()
@click.argument("config_path", metavar="CONFIG")
@db_option
@click.option("--headless", is_flag=True, help="No screen: print progress and the final standings.")
@click.option("--seed", type=int, help="Override the config's seed.")
def match(config_path: str, db_path: Path | None, headless: bool, seed: int | None) -> None:
    """Run the match described by the YAML file CONFIG (Banana-Bench match files work as-is)."""
    from arena.config import ConfigError, load_config

    try:
        config = load_config(config_path)
    except ConfigError as error:
        raise InputError(str(error)) from None
    if seed is not None:
        config.seed = seed
    if any(p.kind == "human" for p in config.players) and headless:
        raise InputError("a config with a human player needs the screen; drop --headless")
    store = open_store(db_path)
    if not headless:
        _open_screen(store, config)
        return
    from arena.runner import MatchRunner

    runner = _build(lambda: MatchRunner.create(store, config, on_event=_printer()))
    click.echo(
        f"Match {runner.match_id}: {', '.join(config.player_names())} (seed {config.seed}, {config.mode})",
        err=True,
    )
    _run(runner)


@click.command()
@click.argument("match_id")
@db_option
def resume(match_id: str, db_path: Path | None) -> None:
    """Continue a match that stopped (crash, kill, Ctrl-C) exactly where it was."""
    from arena.runner import MatchRunner

    store = open_store(db_path, create=False)
    match_id = find_match(store, match_id)
    runner = _build(lambda: MatchRunner.resume(store, match_id, on_event=_printer()))
    click.echo(f"Resuming match {match_id} at turn {runner.game.turns + 1}", err=True)
    _run(runner)


def _open_screen(store, config) -> None:
    """The app on the spectator of this match (run in the app), or on the play screen when a
    person plays. The match is created first, so a config problem is one line on stderr."""
    from arena.cli import open_app
    from arena.runner import MatchRunner
    from screens.spectate import start_screen as start

    if any(p.kind == "human" for p in config.players):
        open_app(str(store.path), start=lambda app: start(app, config))
        return
    runner = _build(lambda: MatchRunner.create(store, config))
    open_app(str(store.path), start=lambda app: start(app, config, runner))
    status = store.match(runner.match_id)["status"]
    if status != "finished":
        click.echo(f"Stopped. Continue with: arena resume {runner.match_id}", err=True)
    else:
        click.echo(
            f"Match {runner.match_id} finished; see it again with: arena replay {runner.match_id}",
            err=True,
        )


def _build(make):
    from arena.config import ConfigError
    from arena.store import StoreError
    from engines.bananagrams.dictionary import DictionaryError
    from engines.bananagrams.game import GameError

    try:
        return make()
    except (ConfigError, StoreError, DictionaryError, GameError) as error:
        raise InputError(str(error)) from None


def _run(runner) -> None:
    try:
        ended = asyncio.run(runner.run())
    except KeyboardInterrupt:
        click.echo(f"\nStopped. Continue with: arena resume {runner.match_id}", err=True)
        sys.exit(130)
    click.echo(standings_table(ended))


def standings_table(ended) -> str:
    winner = next((s.name for s in ended.standings if s.won), None)
    head = f"{winner} wins (BANANAS)" if winner else f"No winner ({ended.reason.replace('_', ' ')})"
    lines = [f"{head} after {ended.turns} turns.", "rank  player               tiles left"]
    lines += [
        f"{s.rank:>4}  {s.name[:20]:<20} {s.tiles_left:>10}{'  (out)' if s.out else ''}"
        for s in ended.standings
    ]
    return "\n".join(lines)


def _printer():
    """A one-line-per-move progress display on stderr."""
    names: list[str] = []

    def show(progress) -> None:
        kind, p = progress.kind, progress.payload
        if kind == "match_started":
            names[:] = p["players"]
        elif kind == "turn":
            usage = p.get("usage") or {}
            tokens = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
            verdict = p.get("verdict")
            if verdict is None:
                state = (
                    f"no board ({p.get('error') or ', '.join(p.get('problems') or []) or 'pass'})"
                )
            elif verdict["valid"]:
                state = "complete board" if verdict["complete"] else "valid board"
            else:
                state = "invalid: " + ", ".join(sorted(set(verdict["errors"])))
            extra = f"  {tokens} tokens" if tokens else ""
            click.echo(f"turn {p['turn']:>3}  {names[p['seat']]:<16} {state[:70]}{extra}", err=True)
        elif kind == "tiles_peeled":
            click.echo(f"          PEEL by {names[p['player']]}: bunch {p['bunch_size']}", err=True)
        elif kind == "tile_dumped":
            click.echo(
                f"          {names[p['player']]} dumped {p['letter']}: bunch {p['bunch_size']}",
                err=True,
            )
        elif kind == "player_eliminated":
            click.echo(f"          {names[p['player']]} is out: {p['reason']}", err=True)

    return show
