"""Home: what you can do, and whether any model provider is set up."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from arena.settings import PROVIDER_KEYS, provider_status

MENU = [
    ("play", "Play the bot", "Build boards against the solver bot: no API key needed"),
    ("new", "New game…", "Choose your opponents (bot levels or models) and the mode"),
    ("watch", "Watch a match", "Run a match config, or follow one running in another terminal"),
    ("chat", "Chat with the agent", "Ask hard questions; watch its tasks and tool calls"),
    ("sessions", "Chat sessions", "Search, resume and export saved chats"),
    ("questions", "Question sets", "Let the agent answer a set, or answer it yourself"),
    ("replay", "Replay and saved matches", "Scrub through any saved game"),
    ("leaderboard", "Leaderboard", "Ratings over finished matches"),
    ("settings", "Settings", "Default opponent, models, keys, theme, dictionary"),
]


def provider_line() -> str:
    status = provider_status()
    shown = "  ".join(f"{name} {'✓' if ok else '·'}" for name, ok in status.items())
    if any(status.values()):
        return f"Model providers: {shown}"
    example = next(iter(PROVIDER_KEYS.values()))
    return (
        f"Model providers: {shown}\nNo API key yet: the bot needs none. To play models, "
        f"export {example}=… or add a key in Settings (or run a local Ollama)."
    )


class HomeScreen(Screen):
    BINDINGS = [Binding("q", "app.quit", "Quit", id="home.quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        with Center(), Vertical(id="home"):
            yield Static("🍌 Banana Arena", id="title")
            yield Static(
                "Bananagrams and hard questions, with language models, in your terminal.",
                id="tagline",
            )
            yield OptionList(
                *(
                    Option(f"{label}\n  [dim]{help_text}[/dim]", id=key)
                    for key, label, help_text in MENU
                ),
                id="menu",
            )
            yield Static(provider_line(), id="providers")
        yield Footer()

    def on_screen_resume(self) -> None:
        self.query_one("#providers", Static).update(provider_line())

    @on(OptionList.OptionSelected, "#menu")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.app.action_open(event.option.id or "")
