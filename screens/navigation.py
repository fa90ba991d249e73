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
    if what == "chat":
        return chat_screen(app)
    if what == "sessions":
        from screens.sessions import SessionsScreen

        return SessionsScreen(app.store)
    if what == "questions":
        from screens.questions import QuestionSetsScreen

        settings = app.settings
        return QuestionSetsScreen(app.store, model=settings.chat_model, policy=settings.chat_policy)
    if what == "settings":
        from screens.settings import SettingsScreen

        return SettingsScreen()
    raise ValueError(f"unknown screen {what!r}")


def chat_screen(app, session_id: str | None = None) -> Screen:
    """The chat with the agent: a new session, or a saved one resumed. MCP servers come from
    mcp.json (or .yaml) beside the settings file."""
    from arena.chat import mcp_config_path
    from arena.settings import settings_path
    from screens.chat import ChatScreen

    config_dir = (app.settings_file or settings_path()).parent
    return ChatScreen(
        app.store, app.settings, session_id=session_id, mcp_config=mcp_config_path(config_dir)
    )
