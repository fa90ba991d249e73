"""The Banana Arena app: `arena` with no arguments opens it."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from arena.settings import Settings, SettingsError, apply_keys, load_settings, save_settings


def log_path() -> Path:
    from platformdirs import user_log_dir

    return Path(user_log_dir("banana-arena", appauthor=False)) / "arena.log"


def _log_to_file() -> None:
    """Library warnings go to a log file: written to the terminal they would garble the screen."""
    import logging

    try:
        log_path().parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(log_path(), encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    logging.captureWarnings(True)


class ArenaApp(App):
    CSS_PATH = "arena.tcss"
    TITLE = "Banana Arena"
    BINDINGS = [
        Binding("f1", "help", "Help", id="app.help", tooltip="Rules and keys"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", show=False),
    ]

    def __init__(
        self, *, db: str | Path | None = None, settings_file: Path | None = None, start=None
    ) -> None:
        super().__init__()
        self.db_path = db
        self.settings_file = settings_file
        self.start = start  # a callable building the first screen, or None for home
        self._store = None
        try:
            self.settings = load_settings(settings_file)
        except SettingsError as error:
            self.settings = Settings()
            self._startup_problem = str(error)
        else:
            self._startup_problem = None
        apply_keys(self.settings)
        self.set_keymap({str(k): str(v) for k, v in self.settings.keymap.items()})
        if self.settings.theme:
            self.theme = (
                self.settings.theme
                if self.settings.theme in self.available_themes
                else "textual-dark"
            )

    def _fatal_error(self) -> None:
        """A bug we did not foresee: keep the traceback for the log file, and tell the person in
        one line where it is, instead of filling their terminal with it."""
        import logging

        from rich.text import Text

        error = self._exception
        logging.getLogger("arena").error("unexpected error", exc_info=error)
        self.bell()
        self._exit_renderables.append(
            Text(
                f"Banana Arena stopped on an unexpected error: {error!r}. The details are in {log_path()}."
            )
        )
        self._close_messages_no_wait()

    @property
    def store(self):
        """The event store, opened on first use (the home screen needs none)."""
        if self._store is None:
            from arena.store import Store

            self._store = Store.open(self.db_path)
        return self._store

    def on_mount(self) -> None:
        from screens.home import HomeScreen

        _log_to_file()
        self.push_screen(HomeScreen())
        if self._startup_problem:
            self.notify(self._startup_problem, severity="error", timeout=10)
        if self.start is not None:
            self._open(self.start)

    def _open(self, make) -> None:
        """Build and push a screen; a store or config problem becomes a message, not a crash."""
        from arena.config import ConfigError
        from arena.store import StoreError
        from engines.bananagrams.dictionary import DictionaryError

        try:
            screen = make(self)
        except (StoreError, ConfigError, DictionaryError, OSError) as error:
            self.notify(str(error), title="Cannot open", severity="error", timeout=10)
            return
        if screen is not None:
            self.push_screen(screen)

    def watch_theme(self, theme: str) -> None:
        if getattr(self, "settings", None) is not None and self.settings.theme != theme:
            self.settings.theme = theme
            self.save_settings()

    def save_settings(self) -> None:
        try:
            save_settings(self.settings, self.settings_file)
        except SettingsError as error:
            self.notify(str(error), severity="error")

    # --- actions, also in the command palette --------------------------------------------------

    def action_open(self, what: str) -> None:
        from screens import navigation

        self._open(lambda app: navigation.screen_for(app, what))

    def action_help(self) -> None:
        from screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        from screens.home import MENU

        for key, label, help_text in MENU:
            yield SystemCommand(label, help_text, lambda key=key: self.action_open(key))
        yield SystemCommand("Help", "Rules of Bananagrams and the keys", self.action_help)
        # Every binding with an id on the current screen is a command too, so no action is
        # reachable only by its key.
        seen = {"app.help", "app.quit"}
        for active in screen.active_bindings.values():
            binding = active.binding
            if binding.id and binding.id not in seen and active.enabled:
                seen.add(binding.id)
                yield SystemCommand(
                    f"{binding.description} ({binding.key_display or binding.key})",
                    binding.tooltip or binding.description,
                    partial(self.run_action, binding.action, active.node),
                )
