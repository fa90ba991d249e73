"""Watching and replaying matches through the app: the spectator follows stored events (from this
process or another one), pauses and steps; replay scrubs and shows exactly `Replay.state_at`;
the watch list starts configs and attaches; the `arena match` / `arena replay` commands open
these screens; snapshots of both screens."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from textual.binding import Binding
from textual.widgets import OptionList

import arena.cli
import arena.commands.replay
import arena.store
from arena.config import parse_config
from arena.replay import Replay
from arena.runner import MatchRunner
from arena.store import Store
from engines.agent.llm import Usage
from engines.agent.scripted import reply
from screens.app import ArenaApp
from screens.play import PlayScreen
from screens.replay import ReplayScreen, ReplyView, SeatView, grid_cells
from screens.spectate import SpectateScreen, WatchScreen, start_screen, watch_runner

BOTS = {
    "title": "Two bots",
    "seed": 5,
    "max_turns": 16,
    "players": [{"kind": "bot", "level": "normal"}, {"kind": "bot", "level": "normal"}],
}
SNAPSHOT_ID = "5e1ec7ab1e00"
# Valid words from the hands seed 3 deals (alpha: GKTENDWAOUREMFNHCTIOR, beta: ITTOEEAIMNLQOUAGPIGDN),
# with one misspelt word and one reply without tags, so verdicts and feedback show.
ALPHA = [
    "<game_plan>Open with FORK, then hang words off its O.</game_plan><action>NONE</action><board>FORK H</board>",
    "<game_plan>TOWN down through the O of FORK.</game_plan><action>NONE</action><board>\nFORK H\nTOWN[1] @ FORK[1] V\n</board>",
    "<game_plan>Try NUGDE off the N.</game_plan><action>NONE</action><board>\nFORK H\nTOWN[1] @ FORK[1] V\nNUGDE[0] @ TOWN[3] H\n</board>",
    "<game_plan>NUDGE it is: the spelling was wrong.</game_plan><action>NONE</action><board>\nFORK H\nTOWN[1] @ FORK[1] V\nNUDGE[0] @ TOWN[3] H\n</board>",
]
BETA = [
    "<game_plan>Get rid of the Q at once: QUOTA.</game_plan><action>NONE</action><board>QUOTA H</board>",
    "I will think about it.",
    "<game_plan>PIANO down from the O of QUOTA.</game_plan><action>NONE</action><board>\nQUOTA H\nPIANO[4] @ QUOTA[2] V\n</board>",
    "<game_plan>Keep the board.</game_plan><action>NONE</action><board>\nQUOTA H\nPIANO[4] @ QUOTA[2] V\n</board>",
]


def run_bots(path: Path, data: dict = BOTS) -> str:
    runner = MatchRunner.create(Store.open(path), parse_config(data))
    asyncio.run(runner.run())
    return runner.match_id


def scripted_match(folder: Path) -> tuple[Path, str]:
    """Two scripted models, seed 3, eight turns, with the fixed id SNAPSHOT_ID."""
    (folder / "alpha.yaml").write_text(yaml.safe_dump(ALPHA))
    (folder / "beta.yaml").write_text(yaml.safe_dump(BETA))
    config = parse_config(
        {
            "title": "Alpha vs Beta",
            "seed": 3,
            "max_turns": 8,
            "players": [
                {"kind": "scripted", "replies": str(folder / "alpha.yaml"), "name": "alpha"},
                {"kind": "scripted", "replies": str(folder / "beta.yaml"), "name": "beta"},
            ],
        }
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arena.store, "new_id", lambda: SNAPSHOT_ID)
        runner = MatchRunner.create(Store.open(folder / "a.db"), config)
    runner.players[0].llm.default_usage = Usage(1200, 150, 0.0021)
    runner.players[1].llm.default_usage = Usage(900, 60, 0.0009)
    asyncio.run(runner.run())
    return folder / "a.db", runner.match_id


@pytest.fixture(scope="module")
def bot_match(tmp_path_factory) -> tuple[Path, str]:
    """A real bot-vs-bot match (normal vs normal, 16 turns), stored once for the module."""
    path = tmp_path_factory.mktemp("bots") / "a.db"
    return path, run_bots(path)


@pytest.fixture
def scripted(tmp_path) -> tuple[Path, str]:
    return scripted_match(tmp_path)


@pytest.fixture
def settings_file(tmp_path) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text("theme: textual-dark\n")
    return path


def make_app(db: Path, settings_file: Path, start=None) -> ArenaApp:
    return ArenaApp(db=db, settings_file=settings_file, start=start)


async def wait_for(pilot, condition, timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"{what} never held")


async def workers_done(pilot) -> None:
    """Wait until every worker has ended (finished, failed or cancelled)."""
    await wait_for(
        pilot, lambda: all(worker.is_finished for worker in pilot.app.workers), what="workers ended"
    )


def shown_cells(screen) -> list[dict]:
    return [view.cells for view in screen.query(SeatView)]


def expected_cells(state) -> list[dict]:
    return [grid_cells(player.grid) for player in state.players]


def copy_match(source: Store, match_id: str, target: Store) -> tuple[str, list]:
    """A new running match in `target` with the players of `match_id`, and that match's events,
    to append bit by bit as a runner in another process would."""
    match = source.match(match_id)
    new_id = target.create_match(
        title=match["title"],
        mode=match["mode"],
        seed=match["seed"],
        config=match["config"],
        players=match["players"],
    )
    return new_id, list(source.events(match_id))


def append(store: Store, match_id: str, events) -> None:
    store.append_many(match_id, [(event.kind, event.payload) for event in events])


# --- the spectator ------------------------------------------------------------------------------------


async def test_spectator_follows_a_stored_match_to_the_result(bot_match, settings_file):
    path, match_id = bot_match
    final = Replay.load(Store.open(path), match_id).final()
    app = make_app(path, settings_file)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(SpectateScreen(app.store, match_id))
        screen = app.screen
        await wait_for(pilot, lambda: screen.finished, what="the spectator reached the end")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.state.to_dict() == final.to_dict()
        assert shown_cells(screen) == expected_cells(final) and all(shown_cells(screen))
        status = str(screen.query_one("#status").render())
        assert "Finished" in status and final.standings[0]["name"] in status and "1. " in status
        assert len(screen.query_one("#log").lines) > 10
        # The reply pane shows the player who moved last, with their plan and verdict.
        last = final.players[final.last_seat]
        reply_pane = screen.query_one(ReplyView)
        assert last.name in reply_pane.border_title and last.plan in reply_pane.shown.plain
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert app.screen.seq == final.seq


async def test_spectator_pauses_and_steps_while_events_arrive(bot_match, tmp_path, settings_file):
    path, source_id = bot_match
    writer = Store.open(tmp_path / "a.db")
    match_id, events = copy_match(Store.open(path), source_id, writer)
    append(writer, match_id, events[:20])
    app = make_app(tmp_path / "a.db", settings_file)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(SpectateScreen(app.store, match_id))
        screen = app.screen
        await wait_for(pilot, lambda: screen.state.seq == 20)
        assert screen.check_action("step", ()) is None  # greyed out while live
        await pilot.press("p")
        assert screen.paused and screen.check_action("step", ()) is True
        boards = shown_cells(screen)
        append(writer, match_id, events[20:40])
        await wait_for(pilot, lambda: len(screen.pending) == 20, what="the follower read on")
        assert screen.state.seq == 20 and shown_cells(screen) == boards  # frozen while paused
        assert "20 events waiting" in str(screen.query_one("#status").render())
        replay = Replay.load(Store.open(tmp_path / "a.db"), match_id)
        for seq in (21, 22, 23):
            await pilot.press("n")
            assert screen.state.seq == seq and len(screen.pending) == 40 - seq
            assert shown_cells(screen) == expected_cells(replay.state_at(seq))
        await pilot.press("p")
        assert not screen.paused and screen.state.seq == 40 and not screen.pending
        assert shown_cells(screen) == expected_cells(replay.state_at(40))
        append(writer, match_id, events[40:])
        store = Store.open(path)
        source = store.match(source_id)
        writer.finish_match(
            match_id,
            winner=source["winner"],
            end_reason=source["end_reason"],
            turns=source["turns"],
        )
        await wait_for(pilot, lambda: screen.finished)
        await app.workers.wait_for_complete()
        final = Replay.load(writer, match_id).final()
        assert screen.state.to_dict() == final.to_dict()


async def test_the_reply_streams_in_while_the_model_answers(tmp_path, settings_file):
    replies = tmp_path / "replies.yaml"
    replies.write_text(yaml.safe_dump(["<action>NONE</action>"]))
    config = parse_config(
        {
            "seed": 3,
            "max_turns": 2,
            "players": [
                {"kind": "scripted", "replies": str(replies), "name": "slow"},
                {"kind": "scripted", "replies": str(replies), "name": "quick"},
            ],
        }
    )
    full = (
        "<game_plan>Start with FORK and build down from its O, slowly, so the spectator sees "
        "every piece arrive.</game_plan><action>NONE</action><board>FORK H</board>"
    )
    app = make_app(tmp_path / "a.db", settings_file)
    async with app.run_test(size=(120, 40)) as pilot:
        runner = MatchRunner.create(app.store, config)
        slow = runner.players[0].llm
        slow.script, slow.chunk_size = [reply(full, delay_s=2.5)], 6
        app.push_screen(watch_runner(app, runner))
        screen = app.screen
        seen: list[str] = []
        while not screen.finished:
            live = screen.live.get(0)
            if live and (not seen or seen[-1] != live):
                seen.append(live)
                # The pane shows the reply as it grows, and the plan as soon as it is readable.
                assert screen.query_one(ReplyView).shown.plain.endswith(live)
            await pilot.pause(0.05)
        await app.workers.wait_for_complete()
        assert len(seen) >= 2, seen
        assert all(full.startswith(text) for text in seen) and len(seen[0]) < len(full)
        assert runner.store.match(runner.match_id)["status"] == "finished"
        assert screen.state.players[0].reply == full


async def test_a_second_app_follows_a_match_another_process_runs(tmp_path, settings_file):
    realtime = {
        "seed": 7,
        "mode": "realtime",
        "time_limit": 60,
        "players": [
            {"kind": "bot", "level": "normal", "pace": 0.05},
            {"kind": "bot", "level": "normal", "pace": 0.05},
        ],
    }
    config, db = tmp_path / "m.yaml", tmp_path / "live.db"
    config.write_text(yaml.safe_dump(realtime))
    command = "from arena.cli import main; main()"
    process = subprocess.Popen(
        [sys.executable, "-c", command, "match", str(config), "--headless", "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (db.exists() and Store.open(db).matches()):
            assert time.monotonic() < deadline and process.poll() is None, "no match appeared"
            time.sleep(0.05)
        app = make_app(db, settings_file)
        async with app.run_test(size=(120, 40)) as pilot:
            match_id = app.store.matches()[0]["id"]
            app.push_screen(SpectateScreen(app.store, match_id))
            screen = app.screen
            seen_while_running: set[int] = set()
            deadline = time.monotonic() + 90
            while not screen.finished:
                assert time.monotonic() < deadline, "the match never finished"
                if process.poll() is None and screen.status == "running":
                    seen_while_running.add(screen.state.seq)
                await pilot.pause(0.05)
            await app.workers.wait_for_complete()
            assert len(seen_while_running) >= 3, seen_while_running  # events kept arriving
            final = Replay.load(Store.open(db), match_id).final()
            assert screen.state.to_dict() == final.to_dict()
            assert "Finished" in str(screen.query_one("#status").render())
            assert shown_cells(screen) == expected_cells(final)
        assert process.wait(timeout=120) == 0
    finally:
        process.kill()


# --- replay ---------------------------------------------------------------------------------------------


async def test_replay_scrubbing_shows_the_state_at_each_event(bot_match, settings_file):
    path, match_id = bot_match
    replay = Replay.load(Store.open(path), match_id)
    first_board = next(e.seq for e in replay.events if e.kind == "board_verified")
    app = make_app(path, settings_file)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(ReplayScreen(app.store, match_id))
        screen = app.screen
        await pilot.pause()

        def check(seq: int) -> None:
            assert screen.seq == seq
            state = replay.state_at(seq)
            assert screen.state.to_dict() == state.to_dict()
            assert shown_cells(screen) == expected_cells(state)
            assert f"Event {seq} of {replay.last_seq}" in str(
                screen.query_one("#position").render()
            )

        check(replay.last_seq)  # opens at the end
        await pilot.press("home")
        check(0)
        assert shown_cells(screen) == [{}, {}]
        for _ in range(first_board):
            await pilot.press("right")
        check(first_board)
        assert shown_cells(screen)[0], "the first board appears"
        await pilot.press("left")
        check(first_board - 1)
        assert shown_cells(screen) == [{}, {}]
        await pilot.press("shift+right")
        check(first_board + 9)
        await pilot.press("pagedown")
        check(first_board + 19)
        before = shown_cells(screen)
        await pilot.press("pagedown", "pagedown", "pagedown")
        check(first_board + 49)
        assert shown_cells(screen) != before, "the boards change as the match goes on"
        await pilot.press("pageup")
        check(first_board + 39)
        await pilot.press("shift+left")
        check(first_board + 29)
        # A click on the timeline jumps there.
        timeline = screen.query_one("#timeline")
        await pilot.click("#timeline", offset=(timeline.size.width // 2, 0))
        assert abs(screen.seq - replay.last_seq / 2) <= replay.last_seq / timeline.size.width + 1
        check(screen.seq)
        await pilot.press("end")
        check(replay.last_seq)
        assert "Game over" in str(screen.query_one("#event-line").render())

        # Players: tab cycles, digits choose.
        names = [p.name for p in replay.final().players]
        assert names[0] in screen.query_one(ReplyView).border_title
        await pilot.press("tab")
        assert screen.selected == 1 and names[1] in screen.query_one(ReplyView).border_title
        assert screen.query_one("#seat-1").has_class("-selected")
        await pilot.press("1")
        assert screen.selected == 0

        # Play from the start, faster, then pause.
        await pilot.press("home", "plus", "plus")
        assert screen.speed == 20
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.seq >= 10, what="playback moved on")
        await pilot.press("space")
        stopped_at = screen.seq
        await pilot.pause(0.3)
        assert screen.seq == stopped_at and screen.timer is None
        check(stopped_at)
        await pilot.press("minus")
        assert screen.speed == 10
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReplayScreen))


async def test_replay_shows_the_selected_reply_and_the_current_event(scripted, settings_file):
    path, match_id = scripted
    app = make_app(path, settings_file)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(ReplayScreen(app.store, match_id, at=23))
        screen = app.screen
        await pilot.pause()
        assert screen.seq == 23
        shown = screen.query_one(ReplyView).shown.plain
        assert "Plan: Try NUGDE off the N." in shown and "✗ Invalid: INVALID_WORD" in shown
        assert "'NUGDE' is not in the ENABLE dictionary" in shown and ALPHA[2] in shown
        assert "#23 board_verified" in str(screen.query_one("#event-line").render())
        # Beta's latest reply (turn 4) had no tags: a problem, shown as such, with the reply.
        await pilot.press("2")
        shown = screen.query_one(ReplyView).shown.plain
        assert "Problem: No <board>" in shown and BETA[1] in shown
        await pilot.press("home", *["right"] * 12)
        shown = screen.query_one(ReplyView).shown.plain
        assert "Plan: Get rid of the Q at once: QUOTA." in shown and BETA[0] in shown
        assert "✓ Valid: 1 word, 5 tiles" in shown


def palette_titles(app, screen) -> list[str]:
    return [command.title for command in app.get_system_commands(screen)]


def screen_actions(screen) -> set[str]:
    return {binding.description for binding in Binding.make_bindings(type(screen).BINDINGS)}


async def test_every_screen_key_is_in_the_command_palette(scripted, settings_file):
    path, match_id = scripted
    app = make_app(path, settings_file)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(SpectateScreen(app.store, match_id))
        screen = app.screen
        await wait_for(pilot, lambda: screen.finished)
        titles = palette_titles(app, screen)
        for action in screen_actions(screen) - {"Step"}:
            assert sum(title.startswith(f"{action} (") for title in titles) == 1, (action, titles)
        assert not any(title.startswith("Step (") for title in titles)  # greyed out while live
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"pause")
        await wait_for(
            pilot,
            lambda: (
                "Pause (p)"
                in str(app.screen.query("CommandList").first().get_option_at_index(0).prompt)
            ),
        )
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: app.screen is screen and screen.paused,
            what="the palette paused the view",
        )
        assert "Step (n)" in palette_titles(app, screen)
        app.push_screen(ReplayScreen(app.store, match_id))
        await pilot.pause()
        titles = palette_titles(app, app.screen)
        for action in screen_actions(app.screen):
            assert sum(title.startswith(f"{action} (") for title in titles) == 1, (action, titles)
        await app.workers.wait_for_complete()


# --- choosing what to watch ----------------------------------------------------------------------------


@pytest.fixture
def configs(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "bots.yaml").write_text(
        yaml.safe_dump({**BOTS, "title": "Quick bots", "max_turns": 6})
    )
    (folder / "broken.yaml").write_text("players: [{kind: wizard}]\n")
    (folder / "keys.yaml").write_text(
        yaml.safe_dump({"players": [{"model": "openai/gpt-4o-mini"}, {"kind": "bot"}]})
    )
    (folder / "person.yaml").write_text(
        yaml.safe_dump({"players": [{"kind": "human"}, {"kind": "bot"}]})
    )
    monkeypatch.setattr("screens.spectate.configs_dir", lambda: folder)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return folder


def option_ids(screen, selector: str) -> list[str]:
    options = screen.query_one(selector, OptionList)
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


async def choose(pilot, screen, selector: str, option_id: str) -> None:
    options = screen.query_one(selector, OptionList)
    options.focus()
    options.highlighted = option_ids(screen, selector).index(option_id)
    await pilot.press("enter")


async def test_watch_lists_configs_and_matches_and_explains_problems(
    bot_match, tmp_path, configs, settings_file
):
    path, finished_id = bot_match
    store = Store.open(tmp_path / "a.db")
    copied, events = copy_match(Store.open(path), finished_id, store)
    append(store, copied, events)
    store.finish_match(copied, winner=0, end_reason="bananas", turns=16)
    running = store.create_match(
        title="live one", mode="turns", seed=1, config={}, players=[{"name": "x", "kind": "bot"}]
    )
    app = make_app(tmp_path / "a.db", settings_file)
    notes: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify = lambda message, **options: notes.append(str(message))
        app.push_screen(WatchScreen(app.store))
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#configs").has_focus
        await pilot.press("tab")
        assert screen.query_one("#matches").has_focus
        assert option_ids(screen, "#configs") == [
            "bots.yaml",
            "broken.yaml",
            "keys.yaml",
            "person.yaml",
        ]
        assert option_ids(screen, "#matches") == [running, copied]  # running first
        labels = screen.query_one("#configs", OptionList)
        assert "players[0].kind: Input should be" in str(labels.get_option_at_index(1).prompt)
        assert "needs OPENAI_API_KEY" in str(labels.get_option_at_index(2).prompt)

        await choose(pilot, screen, "#configs", "broken.yaml")
        await choose(pilot, screen, "#configs", "keys.yaml")
        assert any("players[0].kind" in note for note in notes)
        assert any("needs OPENAI_API_KEY" in note for note in notes)
        assert app.screen is screen and len(app.store.matches()) == 2  # nothing started

        await choose(pilot, screen, "#matches", copied)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert app.screen.replay.match_id == copied
        await pilot.press("escape")
        await choose(pilot, screen, "#matches", running)
        await wait_for(pilot, lambda: isinstance(app.screen, SpectateScreen))
        assert app.screen.match_id == running and "Live" in str(
            app.screen.query_one("#status").render()
        )
        await pilot.press("escape")
        await choose(pilot, screen, "#configs", "person.yaml")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen))
        app.workers.cancel_group(app.screen, "match")
        await workers_done(pilot)
        assert not [note for note in notes if "Cannot" in note]


async def test_watch_starts_a_config_and_spectates_it(tmp_path, configs, settings_file):
    app = make_app(tmp_path / "a.db", settings_file)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(WatchScreen(app.store))
        await pilot.pause()
        await choose(pilot, app.screen, "#configs", "bots.yaml")
        await wait_for(
            pilot, lambda: isinstance(app.screen, SpectateScreen), what="the spectator opened"
        )
        screen = app.screen
        await wait_for(pilot, lambda: screen.finished, what="the match ran to its end")
        await app.workers.wait_for_complete()
        match_id = screen.match_id
        assert app.store.match(match_id)["status"] == "finished"
        assert screen.state.to_dict() == Replay.load(app.store, match_id).final().to_dict()
        assert screen.state.turn == 6


# --- the commands open the screens ----------------------------------------------------------------------


@pytest.fixture
def opened(monkeypatch) -> list[tuple]:
    """Calls of arena.cli.open_app, instead of running the app."""
    calls: list[tuple] = []
    monkeypatch.setattr(
        arena.cli, "open_app", lambda db=None, start=None: calls.append((db, start))
    )
    return calls


async def test_arena_replay_in_a_terminal_opens_the_screen_at_the_event(
    bot_match, opened, monkeypatch, settings_file
):
    path, match_id = bot_match
    monkeypatch.setattr(arena.commands.replay, "_on_terminal", lambda: True)
    result = CliRunner().invoke(
        arena.cli.cli, ["replay", match_id[:6], "--at", "30", "--db", str(path)]
    )
    assert result.exit_code == 0, result.output
    ((db, start),) = opened
    app = make_app(Path(db), settings_file, start=start)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert app.screen.seq == 30 and app.screen.replay.match_id == match_id
    # --json still prints, and never opens the app.
    result = CliRunner().invoke(arena.cli.cli, ["replay", match_id, "--json", "--db", str(path)])
    assert result.exit_code == 0 and '"match_id"' in result.output and len(opened) == 1


async def test_arena_match_opens_the_spectator_or_the_play_screen(tmp_path, opened, settings_file):
    bots, person = tmp_path / "bots.yaml", tmp_path / "person.yaml"
    bots.write_text(yaml.safe_dump({**BOTS, "max_turns": 4}))
    person.write_text(
        yaml.safe_dump(
            {"seed": 2, "players": [{"kind": "human"}, {"kind": "bot", "level": "easy"}]}
        )
    )
    db = tmp_path / "a.db"
    result = CliRunner().invoke(arena.cli.cli, ["match", str(bots), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "arena resume" in result.output  # the fake app returned before the match ran
    result = CliRunner().invoke(arena.cli.cli, ["match", str(person), "--db", str(db)])
    assert result.exit_code == 0, result.output
    (_, watch), (_, play) = opened
    app = make_app(db, settings_file, start=watch)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpectateScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.finished)
        await app.workers.wait_for_complete()
        assert screen.state.turn == 4 and app.store.match(screen.match_id)["status"] == "finished"
    app = make_app(db, settings_file, start=play)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen))
        app.workers.cancel_group(app.screen, "match")
        await workers_done(pilot)


# --- snapshots ------------------------------------------------------------------------------------------


def test_spectate_snapshot(snap_compare, tmp_path, settings_file):
    path, match_id = scripted_match(tmp_path)
    app = make_app(path, settings_file, start=lambda app: SpectateScreen(app.store, match_id))

    async def settled(pilot) -> None:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SpectateScreen) and app.screen.finished
        )
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=(120, 40), run_before=settled)


def test_replay_snapshot(snap_compare, tmp_path, settings_file):
    path, match_id = scripted_match(tmp_path)
    app = make_app(path, settings_file, start=lambda app: ReplayScreen(app.store, match_id, at=23))

    async def settled(pilot) -> None:
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=(120, 40), run_before=settled)


async def test_starting_a_model_config_without_its_key_warns(tmp_path, settings_file, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = parse_config(
        {
            "max_turns": 100,  # far more than run before the test stops it
            "players": [{"model": "openai/gpt-4o-mini"}, {"kind": "bot", "level": "easy"}],
        }
    )
    app = make_app(tmp_path / "a.db", settings_file, start=lambda app: start_screen(app, config))
    notes: list[str] = []
    app.notify = lambda message, **options: notes.append(str(message))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpectateScreen))
        assert any("No OPENAI_API_KEY" in note for note in notes), notes
        app.workers.cancel_group(app, "matches")
        await workers_done(pilot)
        assert app.store.match(app.screen.match_id)["status"] == "stopped"  # resumable
