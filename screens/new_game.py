"""New game: choose one to three opponents (bot levels or models), the mode, a time limit for
realtime, and optionally a seed; Start plays it on the play screen.

A model whose provider has no API key is flagged at once; the game may still start (its turns
then fail and say why).
"""

from __future__ import annotations

import os

from pydantic import ValidationError
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from arena.config import MatchConfig
from arena.settings import LEVELS, required_key

MAX_OPPONENTS = 3
NOBODY = "none"
DEFAULT_TIME_LIMIT_MIN = 30


def missing_keys(models: list[str]) -> dict[str, str]:
    """Models whose provider key is not set, with the variable each needs."""
    missing = {}
    for model in models:
        variable = required_key(model)
        if variable and not os.environ.get(variable):
            missing[model] = variable
    return missing


def opponent_options(models: list[str]) -> list[tuple[str, str]]:
    return [(f"bot, {level}", f"bot:{level}") for level in LEVELS] + [
        (model, f"llm:{model}") for model in models
    ]


def player_entry(choice: str) -> dict:
    """A MatchConfig player from an option value (`bot:<level>` or `llm:<model>`)."""
    kind, _, what = choice.partition(":")
    if kind == "bot":
        return {"kind": "bot", "level": what}
    return {"kind": "llm", "model": what}


class NewGameScreen(Screen):
    TITLE = "New game"
    BINDINGS = [
        Binding(
            "ctrl+s",
            "start",
            "Start",
            id="new_game.start",
            tooltip="Start the game with these players",
        ),
        Binding("escape", "leave", "Back", id="new_game.back", tooltip="Back to the home screen"),
    ]

    def compose(self) -> ComposeResult:
        settings = self.app.settings
        models = list(settings.models)
        first = (
            f"llm:{settings.opponent}" if settings.opponent in models else f"bot:{settings.level}"
        )
        options = opponent_options(models)
        yield Header()
        with VerticalScroll(id="new-game-form"):
            yield Static("You play against", classes="section")
            for number in range(1, MAX_OPPONENTS + 1):
                with Horizontal(classes="field"):
                    yield Label(f"Opponent {number}", classes="field-label")
                    if number == 1:
                        yield Select(
                            options, value=first, allow_blank=False, id="opponent-1", compact=True
                        )
                    else:
                        yield Select(
                            [("nobody", NOBODY), *options],
                            value=NOBODY,
                            allow_blank=False,
                            id=f"opponent-{number}",
                            compact=True,
                        )
            yield Static("", id="key-warning", classes="warning")
            yield Static("How", classes="section")
            with Horizontal(classes="field"):
                yield Label("Mode", classes="field-label")
                yield Select(
                    [
                        ("turns: one after the other", "turns"),
                        ("realtime: everyone at once", "realtime"),
                    ],
                    value=settings.mode if settings.mode in ("turns", "realtime") else "turns",
                    allow_blank=False,
                    id="mode",
                    compact=True,
                )
            with Horizontal(classes="field"):
                yield Label("Time limit (minutes)", classes="field-label")
                yield Input(
                    str(DEFAULT_TIME_LIMIT_MIN), type="integer", id="time-limit", compact=True
                )
            with Horizontal(classes="field"):
                yield Label("Seed (optional)", classes="field-label")
                yield Input(
                    placeholder="random: a new deal", type="integer", id="seed", compact=True
                )
            yield Static(
                "The same seed deals the same tiles. Models come from Settings; the bot needs no key.",
                classes="hint",
            )
            with Horizontal(id="new-game-buttons"):
                yield Button("Start (ctrl+s)", id="start", variant="primary")
                yield Button("Back (esc)", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self._mode_changed()
        self._opponents_changed()
        self.query_one("#opponent-1", Select).focus()

    # --- reading the form ----------------------------------------------------------------------

    def chosen_opponents(self) -> list[str]:
        choices = []
        for number in range(1, MAX_OPPONENTS + 1):
            value = self.query_one(f"#opponent-{number}", Select).value
            if isinstance(value, str) and value != NOBODY:
                choices.append(value)
        return choices

    def chosen_models(self) -> list[str]:
        return [
            choice.partition(":")[2]
            for choice in self.chosen_opponents()
            if choice.startswith("llm:")
        ]

    def build_config(self) -> MatchConfig:
        """The match the form describes; ValueError says what is wrong."""
        opponents = self.chosen_opponents()
        if not opponents:
            raise ValueError("Choose at least one opponent.")
        mode = str(self.query_one("#mode", Select).value)
        time_limit = None
        if mode == "realtime":
            minutes_text = self.query_one("#time-limit", Input).value.strip()
            if not minutes_text.isdigit() or int(minutes_text) < 1:
                raise ValueError("The time limit is a whole number of minutes, 1 or more.")
            time_limit = int(minutes_text) * 60
        seed_text = self.query_one("#seed", Input).value.strip()
        if seed_text and not seed_text.lstrip("-").isdigit():
            raise ValueError("The seed is a whole number, or empty for a new deal.")
        data = {
            "mode": mode,
            "time_limit": time_limit,
            "seed": int(seed_text) if seed_text else None,
            "dictionary": self.app.settings.dictionary,
            "players": [{"kind": "human", "name": "you"}]
            + [player_entry(choice) for choice in opponents],
        }
        try:
            return MatchConfig.model_validate(data)
        except ValidationError as error:
            problem = error.errors()[0]
            raise ValueError(f"{'.'.join(map(str, problem['loc']))}: {problem['msg']}") from None

    # --- reacting --------------------------------------------------------------------------------

    @on(Select.Changed, "#mode")
    def _mode_changed(self) -> None:
        realtime = self.query_one("#mode", Select).value == "realtime"
        self.query_one("#time-limit", Input).disabled = not realtime

    @on(Select.Changed, "#opponent-1, #opponent-2, #opponent-3")
    def _opponents_changed(self) -> None:
        missing = missing_keys(self.chosen_models())
        warning = self.query_one("#key-warning", Static)
        warning.display = bool(missing)
        warning.update(
            "\n".join(
                f"⚠ {model} needs {variable}: add it in Settings or export it. You may still start; its turns will fail."
                for model, variable in missing.items()
            )
        )

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#back")
    def _back_pressed(self) -> None:
        self.action_leave()

    # --- actions -------------------------------------------------------------------------------

    def action_start(self) -> None:
        from arena.store import StoreError
        from engines.bananagrams.dictionary import DictionaryError, load_dictionary
        from screens.play import PlayScreen

        try:
            config = self.build_config()
        except ValueError as error:
            self.notify(str(error), title="Cannot start", severity="error", timeout=6)
            return
        try:
            if config.dictionary:
                load_dictionary(
                    config.dictionary
                )  # say so here rather than fail on the play screen
            store = self.app.store
        except (DictionaryError, StoreError, OSError) as error:
            self.notify(str(error), title="Cannot start", severity="error", timeout=10)
            return
        missing = missing_keys(self.chosen_models())
        if missing:
            self.notify(
                f"No key for {', '.join(missing)}: its turns will fail until you add "
                f"{', '.join(sorted(set(missing.values())))}.",
                title="Starting anyway",
                severity="warning",
                timeout=8,
            )
        self.app.switch_screen(PlayScreen(config, store))

    def action_leave(self) -> None:
        self.dismiss()
