"""Help (F1 from anywhere): the rules as the arena plays them, board notation for models, and the
keys of every screen.

The keys are read from each screen's `BINDINGS`, with the app's keymap applied, so the help
cannot go stale.
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import re

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Footer, Header, Markdown

# Section titles of the classes whose keys come first, in this order. Every other class in the
# `screens` package that declares BINDINGS follows, under its TITLE or its name.
SECTION_TITLES: dict[str, str] = {
    "ArenaApp": "Everywhere",
    "HomeScreen": "Home",
    "NewGameScreen": "New game",
    "PlayScreen": "Play",
    "BoardView": "Play: the board",
    "DumpScreen": "Play: the DUMP dialog",
    "GameOverScreen": "Play: game over",
    "ConfirmScreen": "Questions to confirm",
    "WatchScreen": "Watch a match",
    "SpectateScreen": "Watching a match live",
    "ReplayScreen": "Replay",
    "MatchBrowserScreen": "Saved matches",
    "LeaderboardScreen": "Leaderboard",
    "SettingsScreen": "Settings",
    "ChatScreen": "Chat",
    "ToolLog": "Chat: the tool log",
    "ToolCallRow": "Chat: one tool call",
    "ApprovalScreen": "Chat: approving a tool call",
    "ModelScreen": "Chat: choosing a model",
    "PolicyScreen": "Chat: choosing a policy",
    "BudgetScreen": "Chat: limits",
    "AttachScreen": "Chat: attaching a file",
    "SessionsScreen": "Chat sessions",
    "QuestionSetsScreen": "Question sets",
    "QuestionSetScreen": "A question set",
    "PersonAnswerScreen": "Answering questions yourself",
    "HelpScreen": "Help",
}

# Keys that are not bindings, by the class they belong to.
EXTRA_KEYS: dict[str, list[tuple[str, str, str]]] = {
    "ArenaApp": [("ctrl+p", "Command palette", "Search every action of the screen by name")],
    "BoardView": [
        ("a … z", "Place a tile", "Type a letter from your rack at the cursor; it steps on"),
        ("click", "Move the cursor", "Click a cell to put the cursor there"),
    ],
    "DumpScreen": [("a … z", "Dump that tile", "The letter of the tile to give back")],
}

RULES = """\
# Banana Arena: rules and keys

Esc or F1 closes this page. Every key below can also be found by name in the command
palette (ctrl+p).

## The game

Bananagrams without the table: **144 tiles** (A13 B3 C3 D6 E18 F3 G4 H3 I12 J2 K2 L5 M3 N8 O11
P3 Q2 R9 S6 T9 U6 V3 W3 X2 Y3 Z2) are shuffled into the *bunch*. Each player draws **21 tiles**
(15 with 5-6 players, 11 with 7-8) and builds a grid of their own: words across and down that
cross like a crossword that only they play on.

A board is **valid** when every run of two or more letters, across or down, is a word of the
word list, all its tiles touch each other in one group, and it uses only tiles the player owns.

- **PEEL**: when your board is valid and uses *every* tile you own, every player (you too)
  draws one tile from the bunch. It happens by itself when you submit a complete board, as
  long as the bunch holds at least as many tiles as there are players.
- **BANANAS**: a valid, complete board while the bunch holds *fewer tiles than there are
  players* wins the game. This is also automatic on submit.
- **DUMP**: give one tile back and draw three (ctrl+d, then the letter). It needs at least three
  tiles in the bunch; the three are drawn first, then your tile goes back at a random place. A
  DUMP sent together with a complete board is ignored (the feedback says so).
- **Rotten banana** (a house rule a match config may turn on with `rotten_banana: true`):
  calling BANANAS with an invalid board puts the caller out, and their tiles go back into the
  bunch.
- **Modes**: in *turns* mode players move one after the other; in *realtime* everyone builds at
  once against a time limit.
- **Turn limit**: `max_turns` counts the turns of all players together. Reaching it ends the
  game without a winner; the standings then rank the winner first, then players by the fewest
  tiles not covered by their latest valid board.

## The word list

There is no official Bananagrams dictionary. The default is **ENABLE** (public domain, 172,823
words of 2 to 28 letters). It lacks **QI, ZA and OK**, which some other lists allow. A single
letter is never a word. To play with another list, give its file (one word per line; `.gz`
works) in Settings, or `dictionary:` in a match config.

## Board notation for models

A model answers with its plan, its action and its board:

```
<game_plan>Use the Q early.</game_plan>
<action>NONE</action>              (or DUMP X)
<board>
SCURRIES H
NINES[4] @ SCURRIES[0] V
RUNES[2] @ NINES[0] H
</board>
```

- **Anchor notation** (Banana-Bench's): the first line is `WORD H` (left to right) or `WORD V`
  (top to bottom). Each later line is `WORD[j] @ TARGET[i] DIR`: letter *j* of WORD (counted
  from 0) sits on letter *i* of TARGET, which must be on an earlier line, and WORD runs across
  TARGET (the other direction).
- **Legacy notation**: `WORD TARGET i j DIR`, e.g. `WORLD HELLO 4 0 V` means
  `WORLD[0] @ HELLO[4] V`.
- **Drawn grid**: rows of letters with `.` for empty cells, e.g. `CAT` / `..A` / `..R`.

Case and blank lines do not matter. Only the first `<board>` block counts. The verifier names
every problem with a code (INVALID_WORD, ACCIDENTAL_INVALID, GRID_CONFLICT, LETTER_MISMATCH,
DISCONNECTED, TILES_NOT_IN_HAND, ...) and says how to fix it. A person builds the board cell
by cell on the grid instead; it is checked the same way.
"""


# --- reading bindings ----------------------------------------------------------------------------


def own_bindings(owner: type) -> list[Binding]:
    """The bindings a class declares itself (not those of Textual's base classes)."""
    bindings = []
    for item in owner.__dict__.get("BINDINGS", []):
        bindings.append(item if isinstance(item, Binding) else Binding(*item))
    return bindings


def bound_keys(app: App, binding: Binding) -> str:
    """The keys of a binding as shown to people, after the app's keymap."""
    # The keymap is only readable as App._keymap; Screen._binding_chain reads it the same way.
    keymap: dict[str, str] = getattr(app, "_keymap", {})
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return " / ".join(app.get_key_display(binding.with_key(key.strip())) for key in keys.split(","))


def screen_module_names() -> list[str]:
    """Every module of the `screens` package and its widgets."""
    import screens
    import screens.widgets

    names = [info.name for info in pkgutil.iter_modules(screens.__path__, "screens.")]
    names += [
        info.name for info in pkgutil.iter_modules(screens.widgets.__path__, "screens.widgets.")
    ]
    return sorted(names)


def binding_owners() -> tuple[list[type], list[str]]:
    """The app, screens and widgets of the `screens` package that declare their own BINDINGS,
    known ones first; and the modules that could not be imported, with the reason."""
    owners: list[type] = []
    problems: list[str] = []
    for module_name in screen_module_names():
        try:
            module = importlib.import_module(module_name)
        except Exception as error:  # one broken screen must not take the help down with it
            problems.append(f"{module_name}: {type(error).__name__}: {error}")
            continue
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module_name
                and issubclass(value, DOMNode)
                and own_bindings(value)
            ):
                owners.append(value)
    known = list(SECTION_TITLES)
    owners.sort(
        key=lambda owner: (
            known.index(owner.__name__) if owner.__name__ in known else len(known),
            section_title(owner),
        )
    )
    return owners, problems


def section_title(owner: type) -> str:
    if owner.__name__ in SECTION_TITLES:
        return SECTION_TITLES[owner.__name__]
    title = getattr(owner, "TITLE", None)
    if isinstance(title, str) and title and title != "Banana Arena":
        return title
    words = re.findall(r"[A-Z][a-z0-9]*", owner.__name__.removesuffix("Screen")) or [owner.__name__]
    return " ".join(words).capitalize()


def keys_markdown(app: App) -> str:
    """A table of keys for every class that binds keys, after the app's keymap."""
    owners, problems = binding_owners()
    parts = [
        "## Keys",
        "To rebind a key, add its id under `keymap` in your settings file, for example "
        '`keymap: {"play.hint": "f5"}`.',
    ]
    for owner in owners:
        rows = [
            (
                bound_keys(app, binding),
                binding.description or binding.action,
                binding.tooltip,
                f"`{binding.id}`" if binding.id else "",
            )
            for binding in own_bindings(owner)
        ]
        rows += [(*row, "") for row in EXTRA_KEYS.get(owner.__name__, [])]
        table = "| Key | Action | What it does | Id |\n|---|---|---|---|"
        table += "".join(
            f"\n| {key} | {what} | {tip} | {ident} |" for key, what, tip, ident in rows
        )
        parts += [f"### {section_title(owner)}", table]
    if problems:
        parts.append(
            "The keys of these modules could not be read:\n\n"
            + "\n".join(f"- `{p}`" for p in problems)
        )
    return "\n\n".join(parts) + "\n"


# --- the screen ----------------------------------------------------------------------------------


class HelpScreen(Screen):
    TITLE = "Help"
    BINDINGS = [
        Binding("escape,f1", "close", "Close", id="help.close", tooltip="Back to where you were"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="help-scroll"):
            yield Markdown(RULES, id="help-rules")
            yield Markdown("## Keys\n\nReading the keys of every screen…", id="help-keys")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).focus()
        self.read_keys()

    @work(exclusive=True, group="help-keys")
    async def read_keys(self) -> None:
        # Importing every screen takes a moment the first time: do it off the event loop.
        await asyncio.to_thread(binding_owners)
        await self.query_one("#help-keys", Markdown).update(keys_markdown(self.app))

    @property
    def markdown(self) -> str:
        """Everything the help says, as Markdown."""
        return "\n".join(widget.source for widget in self.query(Markdown))

    def action_close(self) -> None:
        self.dismiss()
