"""Which screen each menu entry and command opens."""

from __future__ import annotations

from textual.screen import Screen

from arena.config import MatchConfig


def bot_game(settings) -> MatchConfig:
    """You against the bot at your default level and mode."""
    return MatchConfig.model_validate(
        {
            "mode": settings.mode,
            "time_limit": 1800 if settings.mode == "realtime" else None,
            "dictionary": settings.dictionary,
            "players": [{"kind": "human", "name": "you"}, {"kind": "bot", "level": settings.level}],
        }
    )


def screen_for(app, what: str) -> Screen | None:
    if what == "play":
        from screens.play import PlayScreen

        return PlayScreen(bot_game(app.settings), app.store)
    if what == "new":
        from screens.new_game import NewGameScreen

        return NewGameScreen()
    if what == "watch":
        from screens.spectate import WatchScreen

        return WatchScreen(app.store)
    if what == "replay":
        from screens.matches import MatchBrowserScreen

        return MatchBrowserScreen(app.store)
    if what == "leaderboard":
        from screens.matches import LeaderboardScreen

        return LeaderboardScreen(app.store)
    if what == "settings":
        from screens.settings import SettingsScreen

        return SettingsScreen()
    raise ValueError(f"unknown screen {what!r}")
