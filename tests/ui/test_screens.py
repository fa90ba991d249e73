"""The saved-matches browser, leaderboard, settings, help and new-game screens, driven with Pilot;
and snapshots of every main screen at 120 x 40 (textual-dark, fixed ids, dates and env).

Snapshots: `pytest tests/ui/test_screens.py --snapshot-update` rewrites them; look at each one
(tests/ui/__snapshots__/) before committing.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path

import pytest
import yaml
from textual.widgets import DataTable, Input, Select, Static

import arena.store
from arena.config import parse_config
from arena.runner import MatchRunner
from arena.settings import PROVIDER_KEYS, load_settings
from arena.store import Store
from screens.app import ArenaApp
from screens.dialogs import ConfirmScreen
from screens.help import HelpScreen, binding_owners, keys_markdown, own_bindings
from screens.home import HomeScreen
from screens.matches import LeaderboardScreen, MatchBrowserScreen, export_file_name
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from screens.settings import SettingsScreen
from screens.widgets.board import BoardView
from tests.matches.conftest import bot, finished_match, llm

SIZE = (120, 40)
FIXED_TIME = 1_767_225_600.0  # 2026-01-01 00:00 UTC


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def fixed_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No provider keys from the real environment (and whatever a test sets is undone), UTC
    dates, and the user's real database and settings out of reach."""
    for variable in PROVIDER_KEYS.values():
        monkeypatch.setenv(variable, "placeholder")  # recorded, so teardown restores the original
        monkeypatch.delenv(variable)
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "default.db"))
    monkeypatch.setenv("ARENA_SETTINGS", str(tmp_path / "default-settings.yaml"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def fixed_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = count(1)
    monkeypatch.setattr(arena.store, "new_id", lambda: f"match{next(numbers):07d}")


def pin_times(store: Store) -> None:
    """Every stream created at FIXED_TIME (+1 minute per stream, in creation order)."""
    rows = store.db.execute("SELECT id FROM streams ORDER BY created_at, id").fetchall()
    for minute, (stream_id,) in enumerate(rows):
        at = FIXED_TIME + 60 * minute
        store.db.execute(
            "UPDATE streams SET created_at = ?, updated_at = ? WHERE id = ?", [at, at, stream_id]
        )
        store.db.execute(
            "UPDATE matches SET finished_at = ? WHERE id = ? AND finished_at IS NOT NULL",
            [at + 30, stream_id],
        )


def checkpointed_copy(source: Path, folder: Path) -> Path:
    store = Store.open(source)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    target = folder / "arena.db"
    shutil.copy(source, target)
    return target


@pytest.fixture(scope="module")
def bot_match_db(tmp_path_factory) -> tuple[Path, str]:
    """A real bot (easy) vs bot (normal) match played by the runner to its turn limit."""
    path = tmp_path_factory.mktemp("bots") / "arena.db"
    store = Store.open(path)
    config = parse_config(
        {
            "seed": 7,
            "max_turns": 6,
            "players": [{"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "normal"}],
        }
    )
    runner = MatchRunner.create(store, config)
    asyncio.run(runner.run())
    pin_times(store)
    store.close()
    return path, runner.match_id


@pytest.fixture
def bot_db(bot_match_db, tmp_path) -> tuple[Path, str]:
    """A copy of the bot match database this test may change."""
    path, match_id = bot_match_db
    return checkpointed_copy(path, tmp_path), match_id


def make_app(tmp_path: Path, db: Path | None = None, **kwargs) -> ArenaApp:
    return ArenaApp(
        db=db or tmp_path / "arena.db", settings_file=tmp_path / "settings.yaml", **kwargs
    )


async def wait_for(pilot, condition: Callable[[], object], timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the condition never held")


async def open_screen(app, pilot, what: str, screen_type: type):
    """Open a menu entry and wait until its screen is mounted."""
    app.action_open(what)
    await wait_for(pilot, lambda: isinstance(app.screen, screen_type) and app.screen.is_mounted)
    await pilot.pause()
    return app.screen


def text_of(widget: Static) -> str:
    return str(widget.render())


def notifications(app: ArenaApp) -> str:
    return "\n".join(f"{n.title}: {n.message}" for n in app._notifications)


def seeded_matches(path: Path) -> Store:
    """Stored results for the leaderboard and browser snapshots: fixed ids, times and numbers."""
    store = Store.open(path)
    finished_match(
        store,
        [bot("hard"), llm("openai/gpt-4o-mini")],
        [0, 4],
        winner=0,
        turn_usage={1: {"prompt_tokens": 1800, "completion_tokens": 450, "cost_usd": 0.0021}},
        boards={0: [True, True], 1: [False, True, False]},
    )
    finished_match(store, [bot("normal"), bot("hard")], [3, 1])
    finished_match(
        store,
        [llm("anthropic/claude-3-5-haiku-latest"), bot("normal")],
        [0, 2],
        winner=0,
        turn_usage={0: {"prompt_tokens": 2400, "completion_tokens": 600, "cost_usd": 0.0093}},
        boards={0: [False, True], 1: [True]},
    )
    finished_match(store, [bot("easy"), bot("hard")], [5, 2], status="running")
    pin_times(store)
    return store


# --- saved matches ---------------------------------------------------------------------------------


async def test_browser_lists_a_bot_match_and_opens_its_replay(bot_db, tmp_path):
    from screens.replay import ReplayScreen

    db, match_id = bot_db
    app = make_app(tmp_path, db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "replay", MatchBrowserScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 1
        row = [str(cell) for cell in table.get_row(match_id)]
        assert row[0] == "2026-01-01 00:00"
        assert row[1:4] == ["bot-easy vs bot-normal", "turns", "finished"]
        assert row[4] == "bot-easy, bot-normal" and row[6] == "6"
        detail = text_of(app.screen.query_one("#match-detail", Static))
        assert detail == f"match {match_id} · seed 7 · ended: max turns"
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MatchBrowserScreen))
        await pilot.press("enter")  # the table's own Enter opens too
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))


async def test_a_running_match_opens_in_the_spectator(tmp_path, fixed_ids):
    from screens.spectate import SpectateScreen

    seeded_matches(tmp_path / "arena.db").close()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "replay", MatchBrowserScreen)
        screen = app.screen
        table = screen.query_one(DataTable)
        running = next(
            key.value for key in table.rows if screen.matches[key.value]["status"] == "running"
        )
        table.move_cursor(row=table.get_row_index(running))
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SpectateScreen))
        assert app.screen.match_id == running


async def test_export_writes_banana_bench_json_in_the_current_folder(bot_db, tmp_path, monkeypatch):
    db, match_id = bot_db
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    app = make_app(tmp_path, db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "replay", MatchBrowserScreen)
        await pilot.press("e")
        target = work / export_file_name(match_id, "bot-easy vs bot-normal")
        await wait_for(pilot, target.exists)
        assert str(target) in notifications(app)  # says where it went
    data = json.loads(target.read_text())
    assert data["total_turns"] == 6 and data["end_reason"] == "max_turns"
    assert len(data["turn_history"]) == 6
    assert set(data["player_results"]) == {"bot-easy", "bot-normal"}
    assert target.name == f"bot-easy-vs-bot-normal-{match_id}.banana-bench.json"


async def test_export_from_the_command_palette(bot_db, tmp_path, monkeypatch):
    db, match_id = bot_db
    monkeypatch.chdir(tmp_path)
    app = make_app(tmp_path, db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "replay", MatchBrowserScreen)
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"export")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(tmp_path.glob(f"*{match_id}.banana-bench.json")))


async def test_delete_asks_first(bot_db, tmp_path):
    db, match_id = bot_db
    app = make_app(tmp_path, db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "replay", MatchBrowserScreen)
        browser = app.screen
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert match_id in str(app.screen.question)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is browser)
        assert browser.query_one(DataTable).row_count == 1
        assert app.store.matches()[0]["id"] == match_id
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(
            pilot, lambda: app.screen is browser and browser.query_one(DataTable).row_count == 0
        )
        assert app.store.matches() == []
        assert "No saved matches yet" in text_of(browser.query_one("#matches-note", Static))
        await pilot.press("d")  # nothing to delete: a warning, no dialog
        await pilot.pause(0.1)
        assert app.screen is browser


async def test_refresh_shows_a_match_saved_meanwhile(bot_db, tmp_path):
    db, match_id = bot_db
    app = make_app(tmp_path, db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "replay", MatchBrowserScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 1
        other = Store.open(db)  # another process saves a match
        finished_match(other, [bot("easy"), bot("hard")], [2, 0], winner=1)
        other.close()
        await pilot.press("r")
        await wait_for(pilot, lambda: table.row_count == 2)


async def test_a_damaged_database_is_a_message(bot_db, tmp_path):
    db, match_id = bot_db
    store = Store.open(db)
    store.db.execute("UPDATE players SET settings = '{' WHERE match_id = ?", [match_id])
    store.close()
    app = make_app(tmp_path, db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "replay", MatchBrowserScreen)
        note = app.screen.query_one("#matches-note", Static)
        assert "cannot be read" in text_of(note) and note.has_class("problem")
        await pilot.press("escape")
        await open_screen(app, pilot, "leaderboard", LeaderboardScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "cannot be read" in text_of(app.screen.query_one("#ratings-note", Static))


async def test_a_file_that_is_not_a_database_is_a_message(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_bytes(b"this is not an SQLite database at all" * 50)
    app = make_app(tmp_path, bad)
    async with app.run_test(size=SIZE) as pilot:
        for what in ("replay", "leaderboard"):
            app.action_open(what)
            await pilot.pause(0.1)
            assert isinstance(app.screen, HomeScreen)
        assert "not a Banana Arena database" in notifications(app)


# --- leaderboard -----------------------------------------------------------------------------------


async def test_leaderboard_after_matches(bot_db, tmp_path):
    db, _ = bot_db
    store = Store.open(db)
    finished_match(store, [bot("normal"), bot("easy")], [0, 3], winner=0)
    store.close()
    app = make_app(tmp_path, db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "leaderboard", LeaderboardScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert [row[1] for row in rows] == ["bot:normal", "bot:easy"]
        assert rows[0][0] == "1" and rows[0][3] == "2" and rows[0][4] == "1"  # games, wins
        assert float(rows[0][2]) > float(rows[1][2])
        assert rows[0][5].endswith("%") and rows[0][7] == "$0.0000"


async def test_leaderboard_empty_state_explains_how_to_get_ratings(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(app, pilot, "leaderboard", LeaderboardScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.query_one(DataTable).row_count == 0
        assert "Finish a match" in text_of(app.screen.query_one("#ratings-note", Static))


# --- settings --------------------------------------------------------------------------------------


async def open_settings(app, pilot) -> SettingsScreen:
    return await open_screen(app, pilot, "settings", SettingsScreen)


async def test_settings_are_saved_0600_and_read_back(tmp_path):
    path = tmp_path / "settings.yaml"
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#models", Input).value = "openai/gpt-4o-mini, ollama/llama3.1"
        await pilot.pause()
        screen.query_one("#opponent", Select).value = "ollama/llama3.1"
        screen.query_one("#level", Select).value = "hard"
        screen.query_one("#mode", Select).value = "turns"
        screen.query_one("#chat-model", Input).value = "ollama/llama3.1"
        screen.query_one(f"#key-{PROVIDER_KEYS['OpenAI']}", Input).value = "sk-typed-here"
        await pilot.pause()
        assert screen.unsaved
        await pilot.press("ctrl+s")
        await wait_for(pilot, path.exists)
        assert not screen.unsaved
        assert os.environ[PROVIDER_KEYS["OpenAI"]] == "sk-typed-here"  # used by this session
        assert "saved here" in text_of(
            screen.query_one(f"#source-{PROVIDER_KEYS['OpenAI']}", Static)
        )
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = load_settings(path)
    assert (saved.opponent, saved.level, saved.mode, saved.chat_model) == (
        "ollama/llama3.1",
        "hard",
        "turns",
        "ollama/llama3.1",
    )
    assert saved.models == ["openai/gpt-4o-mini", "ollama/llama3.1"]
    assert saved.keys == {"OPENAI_API_KEY": "sk-typed-here"}
    # A new session shows what was saved.
    again = make_app(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_settings(again, pilot)
        assert screen.query_one("#opponent", Select).value == "ollama/llama3.1"
        assert screen.query_one("#level", Select).value == "hard"
        assert screen.query_one(f"#key-{PROVIDER_KEYS['OpenAI']}", Input).value == "sk-typed-here"
        assert screen.query_one(f"#key-{PROVIDER_KEYS['OpenAI']}", Input).password


async def test_a_key_from_the_environment_wins_and_is_shown(tmp_path, monkeypatch):
    variable = PROVIDER_KEYS["Anthropic"]
    monkeypatch.setenv(variable, "from-the-shell")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(app, pilot)
        source = screen.query_one(f"#source-{variable}", Static)
        assert "environment" in text_of(source)
        assert "not set" in text_of(screen.query_one(f"#source-{PROVIDER_KEYS['Gemini']}", Static))
        screen.query_one(f"#key-{variable}", Input).value = "typed"
        await pilot.press("ctrl+s")
        await wait_for(pilot, (tmp_path / "settings.yaml").exists)
        assert os.environ[variable] == "from-the-shell"
        assert "environment" in text_of(source)
    assert load_settings(tmp_path / "settings.yaml").keys == {variable: "typed"}


async def test_a_bad_word_list_says_why_and_is_not_saved(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(app, pilot)
        status = screen.query_one("#dictionary-status", Static)
        assert "ENABLE" in text_of(status)
        screen.query_one("#dictionary", Input).value = str(tmp_path / "missing.txt")
        await pilot.pause()
        assert "Word list not found" in text_of(status) and status.has_class("problem")
        screen.query_one("#dictionary", Input).value = str(tmp_path)
        await pilot.pause()
        assert "is a folder" in text_of(status)
        await pilot.press("ctrl+s")
        await pilot.pause(0.1)
        assert not (tmp_path / "settings.yaml").exists()
        assert "Not saved" in notifications(app)
        words = tmp_path / "words.txt"
        words.write_text("cat\ncats\nact\nta\n")
        screen.query_one("#dictionary", Input).value = "~/words.txt"
        await pilot.pause()
        assert "4 words" in text_of(status) and not status.has_class("problem")
        await pilot.press("ctrl+s")
        await wait_for(pilot, (tmp_path / "settings.yaml").exists)
    assert load_settings(tmp_path / "settings.yaml").dictionary == str(words)


async def test_leaving_with_unsaved_changes_asks(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(app, pilot)
        await pilot.press("escape")  # nothing changed: leaves at once
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        screen = await open_settings(app, pilot)
        screen.query_one("#level", Select).value = "easy"
        await pilot.pause()
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
    assert not (tmp_path / "settings.yaml").exists()


async def test_the_theme_applies_at_once_and_is_remembered(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#theme", Select).value = "textual-light"
        await wait_for(pilot, lambda: app.theme == "textual-light")
        assert not screen.unsaved  # nothing else to save
    assert load_settings(tmp_path / "settings.yaml").theme == "textual-light"


# --- help ------------------------------------------------------------------------------------------


async def test_help_lists_the_rules_and_the_keys_of_every_screen(tmp_path):
    app = make_app(tmp_path)
    app.set_keymap({"matches.export": "x"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted)
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = app.screen.markdown
        for words in (
            "PEEL",
            "DUMP",
            "BANANAS",
            "Rotten banana",
            "ENABLE",
            "QI, ZA and OK",
            "NINES[4] @ SCURRIES[0] V",
        ):
            assert words in text
        for section in (
            "### Play\n",
            "### Saved matches",
            "### Settings",
            "### New game",
            "### Leaderboard",
            "### Replay",
            "### Chat\n",
        ):
            assert section in text
        assert "| x | Export |" in text  # the keymap, not the default key
        assert "| ^s | Save | Save the settings for next time |" in text
        assert "| ⏎ | Submit | Verify your board and submit it |" in text  # PlayScreen's binding
        assert "could not be read" not in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("f1")  # F1 again closes
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))


def test_every_class_with_bindings_is_in_the_help_and_binding_ids_are_unique():
    app = ArenaApp.__new__(ArenaApp)  # keys_markdown only needs get_key_display and a keymap
    app._keymap = {}
    text = keys_markdown(app)
    owners, problems = binding_owners()
    assert problems == []
    names = {owner.__name__ for owner in owners}
    assert {
        "ArenaApp",
        "HomeScreen",
        "PlayScreen",
        "BoardView",
        "MatchBrowserScreen",
        "LeaderboardScreen",
    } <= names
    assert {
        "SettingsScreen",
        "NewGameScreen",
        "HelpScreen",
        "ReplayScreen",
        "SpectateScreen",
    } <= names
    assert text.count("\n### ") == len(owners)
    seen: dict[str, str] = {}
    for owner in owners:
        for binding in own_bindings(owner):
            if owner.__module__ in (
                "screens.matches",
                "screens.settings",
                "screens.help",
                "screens.new_game",
            ):
                assert binding.id and binding.tooltip, (owner.__name__, binding)
            if binding.id:
                assert binding.id not in seen, (
                    f"{binding.id} is used by {seen[binding.id]} and {owner.__name__}"
                )
                seen[binding.id] = owner.__name__


async def test_every_action_of_these_screens_is_in_the_command_palette(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for what, screen_type in (
            ("replay", MatchBrowserScreen),
            ("leaderboard", LeaderboardScreen),
            ("settings", SettingsScreen),
            ("new", NewGameScreen),
        ):
            screen = await open_screen(app, pilot, what, screen_type)
            titles = [command.title for command in app.get_system_commands(screen)]
            for binding in own_bindings(screen_type):
                assert any(title.startswith(binding.description) for title in titles), (
                    what,
                    binding.id,
                )
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))


# --- new game --------------------------------------------------------------------------------------


async def open_new_game(app, pilot) -> NewGameScreen:
    return await open_screen(app, pilot, "new", NewGameScreen)


async def test_new_game_starts_a_play_screen_with_the_chosen_opponents(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_game(app, pilot)
        screen.query_one("#opponent-1", Select).value = "bot:hard"
        screen.query_one("#opponent-3", Select).value = "bot:easy"
        screen.query_one("#mode", Select).value = "turns"
        await pilot.pause()
        assert screen.query_one("#time-limit", Input).disabled
        screen.query_one("#seed", Input).value = "42"
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.state is not None
        )
        config = app.screen.config
        assert [(p.kind, p.level) for p in config.players] == [
            ("human", "normal"),
            ("bot", "hard"),
            ("bot", "easy"),
        ]
        assert (config.mode, config.seed, config.time_limit) == ("turns", 42, None)
        assert [p.name for p in app.screen.state.players] == ["you", "bot-hard", "bot-easy"]
        assert len(app.screen_stack) == 3  # _default, home, play: the form was replaced
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))


async def test_a_model_without_its_key_warns_but_may_start(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_game(app, pilot)
        warning = screen.query_one("#key-warning", Static)
        assert not warning.display
        screen.query_one("#opponent-2", Select).value = "llm:anthropic/claude-3-5-haiku-latest"
        screen.query_one("#mode", Select).value = "realtime"
        screen.query_one("#time-limit", Input).value = "5"
        await pilot.pause()
        assert warning.display and "ANTHROPIC_API_KEY" in text_of(warning)
        config = screen.build_config()
        assert (
            config.players[2].kind == "llm"
            and config.players[2].model == "anthropic/claude-3-5-haiku-latest"
        )
        assert config.time_limit == 300
        os.environ["ANTHROPIC_API_KEY"] = "now-set"  # the fixture restores the environment
        screen.query_one("#opponent-2", Select).value = "llm:openai/gpt-4o-mini"
        await pilot.pause()
        assert "OPENAI_API_KEY" in text_of(warning) and "ANTHROPIC" not in text_of(warning)
        screen.query_one(
            "#mode", Select
        ).value = "turns"  # the model moves after you: no call is made
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen))
        assert "Starting anyway" in notifications(app)
        assert app.screen.config.players[2].model == "openai/gpt-4o-mini"


async def test_new_game_refuses_a_bad_time_limit(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_game(app, pilot)
        screen.query_one("#mode", Select).value = "realtime"
        screen.query_one("#time-limit", Input).value = "0"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause(0.1)
        assert app.screen is screen and "whole number of minutes" in notifications(app)


# --- snapshots -------------------------------------------------------------------------------------


def snapshot_app(tmp_path: Path, **kwargs) -> ArenaApp:
    settings = tmp_path / "settings.yaml"
    settings.write_text(yaml.safe_dump({"theme": "textual-dark", "mode": "turns"}))
    return make_app(tmp_path, **kwargs)


def opened(what: str, *, ready: Callable[[ArenaApp], bool] = lambda app: True):
    async def run_before(pilot) -> None:
        app = pilot.app
        app.action_open(what)
        await wait_for(
            pilot,
            lambda: app.screen.is_mounted and type(app.screen) is not HomeScreen and ready(app),
        )
        await app.workers.wait_for_complete()
        for field in app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    return run_before


def test_snapshot_home(snap_compare, tmp_path):
    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE)


def test_snapshot_new_game(snap_compare, tmp_path):
    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=opened("new"))


def test_snapshot_settings(snap_compare, tmp_path):
    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=opened("settings"))


def test_snapshot_help(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_snapshot_match_browser(snap_compare, tmp_path, fixed_ids):
    seeded_matches(tmp_path / "arena.db").close()
    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=opened("replay"))


def test_snapshot_leaderboard(snap_compare, tmp_path, fixed_ids):
    seeded_matches(tmp_path / "arena.db").close()
    ready = opened("leaderboard", ready=lambda app: app.screen.query_one(DataTable).row_count > 0)
    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=ready)


def test_snapshot_play(snap_compare, tmp_path, fixed_ids):
    config = parse_config(
        {
            "seed": 11,
            "mode": "turns",
            "players": [{"kind": "human", "name": "you"}, {"kind": "bot", "level": "easy"}],
        }
    )
    app = snapshot_app(tmp_path, start=lambda app: PlayScreen(config, app.store))

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.edit.hand)
        screen = app.screen
        for letter in screen.edit.rack[:3]:
            await pilot.press(letter.lower())
        await pilot.press("down")
        await wait_for(pilot, lambda: len(screen.edit.cells) == 3)
        assert screen.query_one(BoardView).has_focus
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_game_over(snap_compare, tmp_path, bot_db):
    from arena.replay import Replay
    from screens.dialogs import GameOverScreen

    path, match_id = bot_db
    state = Replay.load(Store.open(path), match_id).final()
    app = snapshot_app(tmp_path, db=path, start=lambda app: GameOverScreen(state, match_id))

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_dump_picker(snap_compare, tmp_path):
    from screens.dialogs import DumpScreen

    app = snapshot_app(tmp_path, start=lambda app: DumpScreen("QATSXEE"))

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: isinstance(app.screen, DumpScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
