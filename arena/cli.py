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
    """Banana Arena: Bananagrams and hard questions with language models, in the terminal."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def main() -> None:
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(130)
