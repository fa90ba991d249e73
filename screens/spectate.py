"""Watching matches: pick one (`WatchScreen`), then follow it live (`SpectateScreen`).

The spectator reads the match from the database, never from the runner, so it follows a match in
another process (`arena match CONFIG --headless` in another terminal) exactly as one running in
this app. A thread worker polls for new events and in-progress model replies and posts what it
read in batches; the screen folds the events into a `ReplayState`, as replay does.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, RichLog, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, get_current_worker

from arena.config import ConfigError, MatchConfig, load_config
from arena.replay import ReplayError, ReplayState, apply_event, initial_state
from arena.runner import MatchRunner
from arena.settings import missing_keys
from arena.store import Store, StoredEvent, StoreError
from configs import configs_dir
from screens.replay import (
    ReplayScreen,
    ReplyView,
    SeatView,
    describe_event,
    result_line,
    seat_grid,
)

POLL_S = 0.2  # how often the follower looks for new events (at most 5 messages a second)
# Events the live log leaves out: the verdict that follows says the same.
QUIET_KINDS = frozenset({"action", "board_submitted"})


# --- attaching to a match in another process (or this one) ------------------------------------------


class EventsRead(Message):
    """The follower read new events, a change in the live replies, or a new match status."""

    def __init__(self, events: list[StoredEvent], live: dict[int, str], status: str | None) -> None:
        super().__init__()
        self.events, self.live, self.status = events, live, status


class FollowFailed(Message):
    """The follower could not read the match (a damaged or vanished database)."""

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem


class SpectateScreen(Screen):
    BINDINGS = [
        Binding(
            "p", "pause", "Pause", id="spectate.pause", tooltip="Pause the live view, or resume it"
        ),
        Binding(
            "n", "step", "Step", id="spectate.step", tooltip="While paused: show the next event"
        ),
        Binding(
            "tab",
            "next_player",
            "Player",
            id="spectate.player",
            tooltip="Show another player's reply (then the one moving)",
        ),
        Binding(
            "r",
            "replay",
            "Replay",
            id="spectate.replay",
            tooltip="Scrub through this match from the start",
        ),
        Binding(
            "escape",
            "leave",
            "Back",
            id="spectate.leave",
            tooltip="Stop watching (the match goes on)",
        ),
    ]

    def __init__(self, store: Store, match_id: str) -> None:
        super().__init__()
        self.store = store
        self.match_id = match_id
        self.match = store.match(match_id)  # StoreError when there is no such match
        self.state: ReplayState = initial_state(self.match)
        self.names = [p.name for p in self.state.players]
        self.status: str | None = self.match.get("status")
        self.live: dict[int, str] = {}
        self.pending: list[StoredEvent] = []  # read but not shown yet (while paused)
        self.paused = False
        self.pinned: int | None = None  # the player whose reply is shown; None: whoever moves
        self.problem: str | None = None
        self.title = f"Watching · {self.match.get('title') or ' vs '.join(self.names)}"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status")
        yield seat_grid(self.state.players)
        with Horizontal(id="bottom"):
            yield ReplyView(id="reply")
            log = RichLog(id="log", wrap=True, markup=False, max_lines=1000, min_width=20)
            log.can_focus = False
            yield log
        yield Footer()

    def on_mount(self) -> None:
        self.render_match()
        self.follow()

    @property
    def finished(self) -> bool:
        return self.state.over

    # --- the follower (a thread: it owns its own database connection) --------------------------

    @work(thread=True, exclusive=True, group="follow")
    def follow(self) -> None:
        worker = get_current_worker()
        try:
            store = Store.open(self.store.path)
        except StoreError as error:
            self.post_message(FollowFailed(str(error)))
            return
        after, live, status = 0, None, None
        try:
            while not worker.is_cancelled:
                stream = store.stream(self.match_id)
                new_status = stream["status"] if stream else None
                batch = list(store.events(self.match_id, after=after))
                new_live = store.live_replies(self.match_id)
                if batch or new_live != live or new_status != status:
                    self.post_message(EventsRead(batch, new_live, new_status))
                    live, status = new_live, new_status
                if batch:
                    after = batch[-1].seq
                    if batch[-1].kind == "game_ended":
                        return  # nothing follows the end of the game
                elif new_status != "running":
                    return
                time.sleep(POLL_S)
        except Exception as error:  # a damaged or vanished database: say so, never crash
            self.post_message(FollowFailed(f"Cannot follow match {self.match_id}: {error}"))
        finally:
            store.close()

    @on(EventsRead)
    def events_read(self, message: EventsRead) -> None:
        self.live = message.live
        self.status = message.status
        self.pending.extend(message.events)
        if not self.paused:
            self._show_pending(len(self.pending))
        self.render_match()

    @on(FollowFailed)
    def follow_failed(self, message: FollowFailed) -> None:
        self.problem = message.problem
        self.render_match()

    def _show_pending(self, count: int) -> None:
        """Fold the next `count` waiting events into the state, and log them."""
        shown, self.pending = self.pending[:count], self.pending[count:]
        log = self.query_one("#log", RichLog)
        for event in shown:
            if self.problem:
                break
            try:
                apply_event(self.state, event)
            except ReplayError as error:
                self.problem = str(error)
                break
            if event.kind not in QUIET_KINDS:
                log.write(f"#{event.seq} {describe_event(event, self.names)}")

    # --- drawing --------------------------------------------------------------------------------

    def focus_seat(self) -> int | None:
        """Whose reply to show: the pinned player, else one streaming a reply, else the player
        to move or who moved last."""
        state = self.state
        if self.pinned is not None:
            return self.pinned
        streaming = [
            seat for seat, text in self.live.items() if text and 0 <= seat < len(state.players)
        ]
        if streaming and not state.over:
            return state.to_move if state.to_move in streaming else streaming[0]
        if state.last_seat is not None:
            return state.last_seat
        return 0 if state.players else None

    def render_match(self) -> None:
        state = self.state
        realtime = state.mode == "realtime"
        focus = self.focus_seat()
        for player in state.players:
            live = bool(self.live.get(player.seat))
            moving = (
                state.started and not state.over and not player.out and self.status == "running"
            )
            self.query_one(f"#seat-{player.seat}", SeatView).show(
                player,
                to_move=state.to_move == player.seat,
                winner=state.winner == player.seat,
                thinking=moving and (live or realtime or state.to_move == player.seat),
                selected=player.seat == focus,
            )
        if focus is not None:
            live_text = self.live.get(focus) if not state.over else None
            self.query_one(ReplyView).show(state.players[focus], live_text or None)
        self.query_one("#status", Static).update(self._status_text())
        self.sub_title = f"{state.mode} · match {self.match_id}"

    def _status_text(self) -> Text:
        state = self.state
        text = Text()
        if state.over:
            text.append("■ Finished", style="bold green")
        elif self.status == "running":
            text.append("● Live", style="bold red")
        else:
            text.append(f"■ {(self.status or 'gone').capitalize()}", style="bold yellow")
        limit = f"/{state.max_turns}" if state.max_turns else ""
        text.append(f" · event {state.seq} · turn {state.turn}{limit} · bunch {state.bunch}")
        if self.paused:
            text.append(
                f" · ‖ paused, {len(self.pending)} events waiting (n: next, p: resume)",
                style="bold yellow",
            )
        if self.pinned is not None:
            text.append(f" · showing {self.names[self.pinned]}'s reply", style="dim")
        if state.over:
            text.append("\n" + result_line(state), style="green")
            text.append("  (r: replay)", style="dim")
        elif self.status not in ("running", None):
            text.append(
                f"\nThe match is not running: continue it with  arena resume {self.match_id}",
                style="dim",
            )
        if self.problem:
            text.append(f"\n{self.problem}", style="bold red")
        return text

    # --- actions --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            return True if self.paused else None  # greyed out while live
        return True

    def action_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            self._show_pending(len(self.pending))
        self.refresh_bindings()
        self.render_match()

    def action_step(self) -> None:
        if not self.paused:
            return
        if not self.pending:
            self.notify("No new event yet.", timeout=2)
            return
        self._show_pending(1)
        self.render_match()

    def action_next_player(self) -> None:
        count = len(self.state.players)
        if not count:
            return
        if self.pinned is None:
            self.pinned = 0
        elif self.pinned + 1 < count:
            self.pinned += 1
        else:
            self.pinned = None
        self.render_match()

    def action_replay(self) -> None:
        store, match_id, at = self.store, self.match_id, self.state.seq
        open_screen(self.app, lambda app: ReplayScreen(store, match_id, at=at))

    def action_leave(self) -> None:
        self.app.pop_screen()


# --- starting matches --------------------------------------------------------------------------------


def open_screen(app: App, make) -> None:
    """Push the screen `make(app)` builds; a store or config problem becomes a message."""
    opener = getattr(app, "_open", None)  # ArenaApp turns problems into notifications
    if opener is not None:
        opener(make)
        return
    try:
        app.push_screen(make(app))
    except (StoreError, ConfigError) as error:
        app.notify(str(error), title="Cannot open", severity="error", timeout=10)


def run_in_app(app: App, runner: MatchRunner, *, close_store: bool = False) -> Worker:
    """Run a match on the app's event loop, whatever screen is shown; it stops (resumable) when
    the app quits. A failure becomes a notification."""

    async def run_match() -> None:
        try:
            await runner.run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a database problem: say so, never crash
            app.notify(f"Match {runner.match_id} stopped: {error}", severity="error", timeout=10)
        finally:
            if close_store:
                runner.store.close()

    return app.run_worker(
        run_match(), name=f"match {runner.match_id}", group="matches", exit_on_error=False
    )


def watch_runner(app: App, runner: MatchRunner, *, close_store: bool = False) -> SpectateScreen:
    """Start a created match in the app and return the spectator on it."""
    run_in_app(app, runner, close_store=close_store)
    return SpectateScreen(app.store, runner.match_id)


def start_screen(app: App, config: MatchConfig, runner: MatchRunner | None = None) -> Screen:
    """The play screen for a config with a person in it; else the spectator on `runner` (or on a
    match created from the config now), run here."""
    if any(p.kind == "human" for p in config.players):
        from screens.play import PlayScreen

        return PlayScreen(config, app.store)
    if keys := missing_keys(config.players):
        app.notify(
            f"No {' or '.join(keys)} in the environment: those models' turns will fail.",
            title="Missing API key",
            severity="warning",
            timeout=10,
        )
    return watch_runner(app, runner or MatchRunner.create(app.store, config))


class MatchCreated(Message):
    """A match was created from a config and is ready to run."""

    def __init__(self, runner: MatchRunner) -> None:
        super().__init__()
        self.runner = runner


class StartFailed(Message):
    """A config could not be started; `problem` says why."""

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem


def config_label(path: Path) -> Text:
    """How a shipped config is listed: its title, players and mode, or what is wrong with it."""
    text = Text()
    try:
        config = load_config(path)
    except ConfigError as error:
        text.append(path.name, style="bold")
        text.append(f"\n  {str(error).removeprefix(f'{path}: ')}", style="red")
        return text
    text.append(config.title or path.stem, style="bold")
    text.append(f"  {path.name} · {config.mode}", style="dim")
    text.append("\n  " + " vs ".join(config.player_names()))
    if any(p.kind == "human" for p in config.players):
        text.append("  (you play)", style="italic")
    if keys := missing_keys(config.players):
        text.append(f"  needs {', '.join(keys)}", style="yellow")
    return text


def match_label(match: dict) -> Text:
    names = [p["name"] for p in match.get("players") or []]
    status = match.get("status") or "?"
    text = Text()
    style = {"running": "bold red", "finished": "green"}.get(status, "yellow")
    text.append(f"{'● ' if status == 'running' else ''}{status:<9}", style=style)
    text.append(f" {match.get('title') or ' vs '.join(names)}", style="bold")
    text.append(f"  {match['id']} · {match.get('mode')}", style="dim")
    detail = " vs ".join(names)
    if status == "finished":
        winner = match.get("winner")
        who = names[winner] if isinstance(winner, int) and 0 <= winner < len(names) else None
        detail += f" · {who + ' won' if who else 'no winner'} · {match.get('turns')} turns"
    text.append(f"\n  {detail}")
    return text


class WatchScreen(Screen):
    """Pick what to watch: a shipped config (started here) or a match in the database."""

    BINDINGS = [
        Binding(
            "r",
            "refresh",
            "Refresh",
            id="watch.refresh",
            tooltip="Read the configs and matches again",
        ),
        Binding(
            "tab",
            "switch_list",
            "Configs/matches",
            id="watch.switch",
            tooltip="Move between the configs and the stored matches",
        ),
        Binding("escape", "leave", "Back", id="watch.leave", tooltip="Back to the previous screen"),
    ]

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.configs: dict[str, Path] = {}
        self.sub_title = "Watch a match"

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="watch"):
            yield Static(
                "Start a match from a config (it runs here; bots need no API key)",
                classes="heading",
            )
            yield OptionList(id="configs")
            yield Static(
                "Matches in the database: running ones first (Enter attaches or replays)",
                classes="heading",
            )
            yield OptionList(id="matches")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh()

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        configs = self.query_one("#configs", OptionList)
        configs.clear_options()
        self.configs = {}
        for path in sorted(configs_dir().glob("*.yaml")):
            self.configs[path.name] = path
            configs.add_option(Option(config_label(path), id=path.name))
        matches = self.query_one("#matches", OptionList)
        matches.clear_options()
        try:
            stored = self.store.matches()
        except (StoreError, ValueError) as error:
            matches.add_option(
                Option(Text(f"Cannot read the matches: {error}", style="red"), disabled=True)
            )
            return
        stored.sort(key=lambda m: m.get("status") != "running")  # stable: newest first within
        for match in stored:
            matches.add_option(Option(match_label(match), id=match["id"]))
        if not stored:
            matches.add_option(Option(Text("No matches yet.", style="dim"), disabled=True))

    @on(OptionList.OptionSelected, "#configs")
    def config_chosen(self, event: OptionList.OptionSelected) -> None:
        path = self.configs.get(event.option.id or "")
        if path is None:
            return
        try:
            config = load_config(path)
        except ConfigError as error:
            self.notify(
                str(error), title="This config cannot be used", severity="error", timeout=10
            )
            return
        if keys := missing_keys(config.players):
            self.notify(
                f"{path.name} needs {' and '.join(keys)}: set it in the environment or in Settings.",
                title="Missing API key",
                severity="warning",
                timeout=10,
            )
            return
        if any(p.kind == "human" for p in config.players):
            open_screen(self.app, lambda app: start_screen(app, config))
            return
        self.notify(f"Starting {config.title or path.stem}…", timeout=3)
        self.create_match(config)

    @work(thread=True, exclusive=True, group="create")
    def create_match(self, config: MatchConfig) -> None:
        """Create the match off the event loop (it reads the word list), on a database connection
        of its own that the match then runs on."""
        from engines.bananagrams.dictionary import DictionaryError
        from engines.bananagrams.game import GameError

        try:
            store = Store.open(self.store.path)
            runner = MatchRunner.create(store, config)
        except (StoreError, ConfigError, DictionaryError, GameError, ValueError) as error:
            self.post_message(StartFailed(str(error)))
            return
        if get_current_worker().is_cancelled:  # the screen went away meanwhile
            store.set_status(runner.match_id, "stopped")
            store.close()
            return
        self.post_message(MatchCreated(runner))

    @on(MatchCreated)
    def match_created(self, message: MatchCreated) -> None:
        runner = message.runner
        open_screen(self.app, lambda app: watch_runner(app, runner, close_store=True))

    @on(StartFailed)
    def start_failed(self, message: StartFailed) -> None:
        self.notify(
            message.problem, title="The match could not start", severity="error", timeout=10
        )

    @on(OptionList.OptionSelected, "#matches")
    def match_chosen(self, event: OptionList.OptionSelected) -> None:
        match_id = event.option.id
        if not match_id:
            return
        try:
            status = self.store.match(match_id).get("status")
        except (StoreError, ValueError) as error:
            self.notify(str(error), severity="error", timeout=10)
            return
        store = self.store
        if status == "running":
            open_screen(self.app, lambda app: SpectateScreen(store, match_id))
        else:
            open_screen(self.app, lambda app: ReplayScreen(store, match_id))

    def action_switch_list(self) -> None:
        configs = self.query_one("#configs", OptionList)
        (self.query_one("#matches", OptionList) if configs.has_focus else configs).focus()

    def action_leave(self) -> None:
        self.app.pop_screen()
