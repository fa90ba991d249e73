"""The `arena` command line.

Subcommands live in `arena.commands.*` and are imported only when run, so `arena verify` starts
fast and never loads Textual or litellm.
"""

from __future__ import annotations

import importlib
import sys

import click

from arena import __version__

# name -> "module:attribute" of a click command, loaded on first use.
COMMANDS: dict[str, str] = {
    "verify": "arena.commands.verify:verify",
    "match": "arena.commands.match:match",
    "resume": "arena.commands.match:resume",
    "ask": "arena.commands.ask:ask",
    "questions": "arena.commands.questions:questions",
    "matches": "arena.commands.matches:matches",
    "replay": "arena.commands.replay:replay",
    "export": "arena.commands.export:export",
    "leaderboard": "arena.commands.leaderboard:leaderboard",
    "solve": "arena.commands.solve:solve",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        return getattr(importlib.import_module(module_name), attribute)


@click.group(cls=LazyGroup, invoke_without_command=True)
@click.version_option(__version__, prog_name="arena")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Banana Arena: Bananagrams and hard questions with language models, in the terminal.

    With no command, opens the app (play the bot with no API key, watch, replay, ...).
    """
    if ctx.invoked_subcommand is None:
        open_app()


def open_app(db: str | None = None, start=None) -> None:
    """Run the Textual app; `start(app)` builds the first screen over home (None: home only)."""
    from screens.app import ArenaApp

    ArenaApp(db=db, start=start).run()


def main() -> None:
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(130)
