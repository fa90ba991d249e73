"""Settings: default opponent, level and mode, models, theme, word list, and provider keys.

Saved to the settings file (0600: it may hold keys). The theme applies as soon as it is chosen.
Keys typed here are saved in that file and set for this process, except where the environment
already sets the variable: the environment always wins, and the screen says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from arena.settings import LEVELS, PROVIDER_KEYS, SettingsError, save_settings
from screens.dialogs import ConfirmScreen

MODES = ("turns", "realtime")


@dataclass(frozen=True)
class DictionaryCheck:
    ok: bool
    message: str


def check_dictionary(path_text: str) -> DictionaryCheck:
    """Whether a word list path can be used, with the reason when it cannot."""
    from engines.bananagrams.dictionary import DictionaryError, load_dictionary

    path_text = path_text.strip()
    if not path_text:
        return DictionaryCheck(
            True, "The built-in ENABLE list (172,823 words; it lacks QI, ZA and OK)."
        )
    path = Path(path_text).expanduser()
    try:
        words = load_dictionary(path)
    except DictionaryError as error:
        return DictionaryCheck(False, str(error))
    return DictionaryCheck(True, f"{path}: {len(words):,} words.")


def key_source(variable: str, saved_keys: dict[str, str]) -> str:
    """'environment', 'file' or 'none': where this process's value of `variable` comes from."""
    value = os.environ.get(variable)
    if value and saved_keys.get(variable) != value:
        return "environment"
    if saved_keys.get(variable):
        return "file"
    return "none"


def _word_list_path(text: str) -> str | None:
    """The path as it is saved: `~` expanded (match configs read it as given), None if empty."""
    text = text.strip()
    return str(Path(text).expanduser()) if text else None


def parse_models(text: str) -> list[str]:
    """Model names from a comma-separated list, without blanks or repeats, in order."""
    models: list[str] = []
    for name in (part.strip() for part in text.split(",")):
        if name and name not in models:
            models.append(name)
    return models


class SettingsScreen(Screen):
    TITLE = "Settings"
    BINDINGS = [
        Binding(
            "ctrl+s", "save", "Save", id="settings.save", tooltip="Save the settings for next time"
        ),
        Binding(
            "escape",
            "leave",
            "Back",
            id="settings.back",
            tooltip="Leave (asks if there are unsaved changes)",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.saved_values: dict[str, object] = {}
        # The environment's own keys, as they were before this screen set any.
        self.environment_keys: set[str] = set()
        self._dictionary_checks: dict[tuple, DictionaryCheck] = {}

    # --- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        settings = self.app.settings
        models = list(settings.models)
        opponent = settings.opponent if settings.opponent in models else "bot"
        theme_names = sorted(self.app.available_themes)
        yield Header()
        with VerticalScroll(id="settings-form"):
            yield Static("Your games", classes="section")
            yield from self._field(
                "Default opponent",
                Select(
                    self._opponent_options(models),
                    value=opponent,
                    allow_blank=False,
                    id="opponent",
                    compact=True,
                ),
            )
            yield from self._field(
                "Bot level",
                Select(
                    [(level, level) for level in LEVELS],
                    value=settings.level,
                    allow_blank=False,
                    id="level",
                    compact=True,
                ),
            )
            yield from self._field(
                "Mode",
                Select(
                    [
                        ("turns: one after the other", "turns"),
                        ("realtime: everyone at once", "realtime"),
                    ],
                    value=settings.mode if settings.mode in MODES else "realtime",
                    allow_blank=False,
                    id="mode",
                    compact=True,
                ),
            )
            yield Static("Models", classes="section")
            yield from self._field(
                "Models to play",
                Input(
                    ", ".join(models),
                    placeholder="openai/gpt-4o-mini, ollama/llama3.1, …",
                    id="models",
                    compact=True,
                ),
            )
            yield from self._field(
                "Chat model",
                Input(
                    settings.chat_model,
                    placeholder="openai/gpt-4o-mini",
                    suggester=SuggestFromList(models, case_sensitive=False),
                    id="chat-model",
                    compact=True,
                ),
            )
            yield Static("Look", classes="section")
            yield from self._field(
                "Theme",
                Select(
                    [(name, name) for name in theme_names],
                    value=self.app.theme if self.app.theme in theme_names else theme_names[0],
                    allow_blank=False,
                    id="theme",
                    compact=True,
                ),
            )
            yield Static("Word list", classes="section")
            yield from self._field(
                "Word list file",
                Input(
                    settings.dictionary or "",
                    placeholder="empty: the built-in ENABLE list",
                    id="dictionary",
                    compact=True,
                ),
            )
            yield Static("", id="dictionary-status", classes="status")
            yield Static("Provider keys", classes="section")
            yield Static(
                "Saved in the settings file (readable by you only) and used by this session. "
                "A key set in the environment wins over a key saved here.",
                classes="hint",
            )
            for provider, variable in PROVIDER_KEYS.items():
                with Horizontal(classes="field"):
                    yield Label(provider, classes="field-label")
                    yield Input(
                        settings.keys.get(variable, ""),
                        placeholder=variable,
                        password=True,
                        id=f"key-{variable}",
                        classes="key",
                        compact=True,
                    )
                    yield Static("", id=f"source-{variable}", classes="key-source")
            with Horizontal(id="settings-buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Back (esc)", id="back")
        yield Footer()

    @staticmethod
    def _field(label: str, widget) -> ComposeResult:
        with Horizontal(classes="field"):
            yield Label(label, classes="field-label")
            yield widget

    @staticmethod
    def _opponent_options(models: list[str]) -> list[tuple[str, str]]:
        return [("the bot (no API key needed)", "bot")] + [(model, model) for model in models]

    def on_mount(self) -> None:
        saved = self.app.settings.keys
        self.environment_keys = {
            v for v in PROVIDER_KEYS.values() if key_source(v, saved) == "environment"
        }
        self.saved_values = self.form_values()
        self._show_dictionary_check()
        self._show_key_sources()
        self.query_one("#opponent", Select).focus()

    # --- reading the form ----------------------------------------------------------------------

    def form_values(self) -> dict[str, object]:
        """What would be saved (the theme is saved the moment it changes, so it is not here)."""
        values: dict[str, object] = {
            "opponent": self.query_one("#opponent", Select).value,
            "level": self.query_one("#level", Select).value,
            "mode": self.query_one("#mode", Select).value,
            "models": parse_models(self.query_one("#models", Input).value),
            "chat_model": self.query_one("#chat-model", Input).value.strip(),
            "dictionary": _word_list_path(self.query_one("#dictionary", Input).value),
        }
        values["keys"] = {
            variable: self.query_one(f"#key-{variable}", Input).value.strip()
            for variable in PROVIDER_KEYS.values()
        }
        return values

    @property
    def unsaved(self) -> bool:
        return self.form_values() != self.saved_values

    def dictionary_check(self) -> DictionaryCheck:
        text = self.query_one("#dictionary", Input).value.strip()
        path = Path(text).expanduser()
        try:
            stat = path.stat()
            key: tuple = (text, stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = (text, None, None)
        if key not in self._dictionary_checks:
            self._dictionary_checks = {key: check_dictionary(text)}  # keep only the latest
        return self._dictionary_checks[key]

    # --- reacting --------------------------------------------------------------------------------

    @on(Input.Changed, "#dictionary")
    def _show_dictionary_check(self) -> None:
        check = self.dictionary_check()
        status = self.query_one("#dictionary-status", Static)
        status.update(("✓ " if check.ok else "✗ ") + check.message)
        status.set_class(not check.ok, "problem")

    @on(Input.Changed, "#models")
    def _models_changed(self) -> None:
        models = parse_models(self.query_one("#models", Input).value)
        opponent = self.query_one("#opponent", Select)
        current = opponent.value
        opponent.set_options(self._opponent_options(models))
        opponent.value = current if current in models else "bot"
        self.query_one("#chat-model", Input).suggester = SuggestFromList(
            models, case_sensitive=False
        )

    @on(Select.Changed, "#theme")
    def _theme_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.app.theme:
            self.app.theme = event.value  # applies at once; the app remembers it

    def _show_key_sources(self) -> None:
        saved = self.app.settings.keys
        for variable in PROVIDER_KEYS.values():
            if variable in self.environment_keys:
                text = f"from ${variable} in the environment (used)"
            elif saved.get(variable):
                text = "saved here"
            else:
                text = "not set"
            label = self.query_one(f"#source-{variable}", Static)
            label.update(text)
            label.set_class(variable in self.environment_keys, "from-environment")

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#back")
    def _back_pressed(self) -> None:
        self.action_leave()

    # --- actions -------------------------------------------------------------------------------

    def action_save(self) -> None:
        check = self.dictionary_check()
        if not check.ok:
            self.notify(
                check.message,
                title="Not saved: the word list cannot be used",
                severity="error",
                timeout=8,
            )
            self.query_one("#dictionary", Input).focus()
            return
        values = self.form_values()
        if not values["chat_model"]:
            self.notify(
                "Name a chat model, e.g. openai/gpt-4o-mini.", title="Not saved", severity="error"
            )
            self.query_one("#chat-model", Input).focus()
            return
        settings = self.app.settings
        settings.opponent = str(values["opponent"])
        settings.level = str(values["level"])
        settings.mode = str(values["mode"])
        settings.models = list(values["models"])  # type: ignore[arg-type]
        settings.chat_model = str(values["chat_model"])
        settings.dictionary = values["dictionary"]  # type: ignore[assignment]
        typed_keys: dict[str, str] = values["keys"]  # type: ignore[assignment]
        settings.keys = {
            **{k: v for k, v in settings.keys.items() if k not in typed_keys},
            **{k: v for k, v in typed_keys.items() if v},
        }
        try:
            path = save_settings(settings, self.app.settings_file)
        except SettingsError as error:
            self.notify(str(error), title="Not saved", severity="error", timeout=10)
            return
        for variable, value in typed_keys.items():
            if variable in self.environment_keys:
                continue  # the environment's key wins
            if value:
                os.environ[variable] = value
            else:
                os.environ.pop(variable, None)
        self.saved_values = self.form_values()
        self._show_key_sources()
        self.notify(f"Saved to {path}", title="Settings saved", timeout=5)

    def action_leave(self) -> None:
        if not self.unsaved:
            self.dismiss()
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.dismiss()

        self.app.push_screen(ConfirmScreen("Leave without saving your changes?"), answered)
