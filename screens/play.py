"""Play: build your board on the grid while the bot or models play theirs.

The match runs in a worker on the app's event loop; every committed event comes back as a
`MatchProgress` message and is folded into a `ReplayState`, the same state replay shows.
"""

from __future__ import annotations

import asyncio

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, RichLog, Static

from arena.config import MatchConfig
from arena.players import HumanPlayer
from arena.replay import ReplayState, apply_event, initial_state
from arena.runner import MatchRunner, Progress
from arena.store import Store, StoredEvent, StoreError
from engines.bananagrams.dictionary import DictionaryError
from engines.bananagrams.editing import BoardEdit
from engines.bananagrams.verifier import verify
from engines.play.oneshot import TurnDecision
from screens.dialogs import ConfirmScreen, DumpScreen, GameOverScreen
from screens.widgets.board import BoardView
from screens.widgets.player_panel import PlayerPanel
from screens.widgets.rack import RackView


class MatchProgress(Message):
    """An event the runner committed to the store."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress


class ReplyDelta(Message):
    """A piece of a model's reply streaming in."""

    def __init__(self, seat: int, text: str) -> None:
        super().__init__()
        self.seat, self.text = seat, text


class PlayScreen(Screen):
    BINDINGS = [
        Binding(
            "enter", "submit", "Submit", id="play.submit", tooltip="Verify your board and submit it"
        ),
        Binding("ctrl+d", "dump", "Dump", id="play.dump", tooltip="Return a tile and draw three"),
        Binding("ctrl+t", "hint", "Hint", id="play.hint", tooltip="Ask the solver for one move"),
        Binding(
            "escape", "leave", "Leave", id="play.leave", tooltip="Leave the game (it is saved)"
        ),
    ]

    def __init__(self, config: MatchConfig, store: Store) -> None:
        super().__init__()
        self.config = config
        self.store = store
        self.human_seat = next(i for i, p in enumerate(config.players) if p.kind == "human")
        self.edit = BoardEdit()
        self.runner: MatchRunner | None = None
        self.state: ReplayState | None = None
        self.pending: list[Progress] = []
        self.sub_title = f"{config.mode} · seed {config.seed}"

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            with Vertical(id="main"):
                yield BoardView(self.edit, id="board")
                yield RackView(id="rack")
                yield Static("Type letters to place tiles. Enter submits.", id="verdict")
            with Vertical(id="side"):
                yield VerticalScroll(id="opponents")
                if any(
                    p.policy == "agent" and p.kind in ("llm", "scripted")
                    for p in self.config.players
                ):
                    yield RichLog(id="tools", wrap=True, markup=True, max_lines=500)
                yield RichLog(id="log", wrap=True, markup=False, max_lines=500)
        yield Footer()

    def on_mount(self) -> None:
        try:
            self.runner = MatchRunner.create(
                self.store,
                self.config,
                on_event=lambda progress: self.post_message(MatchProgress(progress)),
                on_delta=lambda seat, text: self.post_message(ReplyDelta(seat, text)),
            )
        except (StoreError, DictionaryError, OSError) as error:
            self.notify(f"Cannot start the game: {error}", severity="error", timeout=10)
            self.app.pop_screen()
            return
        self.state = initial_state(self.store.match(self.runner.match_id))
        opponents = self.query_one("#opponents", VerticalScroll)
        for player in self.state.players:
            if player.seat != self.human_seat:
                opponents.mount(PlayerPanel(player, id=f"seat-{player.seat}"))
        self.query_one("#log", RichLog).write(f"Match {self.runner.match_id}: good luck!")
        self.query_one(BoardView).focus()
        self.run_match()

    @work(exclusive=True, group="match")
    async def run_match(self) -> None:
        assert self.runner is not None
        try:
            await self.runner.run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a provider or database problem: say so, never crash
            self.notify(f"The match stopped: {error}", severity="error", timeout=10)

    @property
    def human(self) -> HumanPlayer:
        assert self.runner is not None
        player = self.runner.players[self.human_seat]
        assert isinstance(player, HumanPlayer)
        return player

    # --- events from the runner -------------------------------------------------------------

    @on(MatchProgress)
    def apply_progress(self, message: MatchProgress) -> None:
        if self.state is None:
            return
        progress = message.progress
        apply_event(
            self.state,
            StoredEvent(self.state.match_id, progress.seq, 0.0, progress.kind, progress.payload),
        )
        self._log(progress)
        self._refresh_players()
        me = self.state.players[self.human_seat]
        self.edit.set_hand(me.hand)
        rack = self.query_one(RackView)
        rack.letters, rack.bunch = self.edit.rack, self.state.bunch
        self.query_one(BoardView).refresh()
        if progress.kind == "board_verified" and progress.payload["player"] == self.human_seat:
            self._show_verdict(progress.payload)
        if progress.kind == "game_ended":
            self.app.push_screen(
                GameOverScreen(self.state, self.runner.match_id if self.runner else ""),
                self._after_game,
            )

    @on(ReplyDelta)
    def stream_reply(self, message: ReplyDelta) -> None:
        panel = self.query_one(f"#seat-{message.seat}", PlayerPanel)
        panel.set_live_text(panel.live_text + message.text)

    def _refresh_players(self) -> None:
        assert self.state is not None
        to_move = self.state.to_move
        for player in self.state.players:
            if player.seat == self.human_seat:
                continue
            panel = self.query_one(f"#seat-{player.seat}", PlayerPanel)
            panel.update_player(
                player, to_move=to_move == player.seat, winner=self.state.winner == player.seat
            )
            realtime = self.state.mode == "realtime"
            panel.thinking = (
                not self.state.over and not player.out and (realtime or to_move == player.seat)
            )
            if to_move != player.seat and not realtime:
                panel.live_text = ""
        mine = to_move == self.human_seat and not self.state.over
        self.sub_title = (
            f"Your turn · turn {self.state.turn + 1}"
            if mine
            else f"{self.config.mode} · turn {self.state.turn}"
        )

    def _log(self, progress: Progress) -> None:
        assert self.state is not None
        log, p = self.query_one("#log", RichLog), progress.payload
        names = [player.name for player in self.state.players]
        match progress.kind:
            case "turn" if p.get("agent_events"):
                self._log_tools(names[p["seat"]], p["agent_events"])
            case "tiles_peeled":
                drawn = p["drawn"].get(str(self.human_seat), p["drawn"].get(self.human_seat))
                log.write(
                    f"PEEL by {names[p['player']]}: you drew {drawn}. Bunch {p['bunch_size']}."
                )
            case "tile_dumped":
                log.write(
                    f"{names[p['player']]} dumped {p['letter'] if p['player'] == self.human_seat else 'a tile'}."
                )
            case "board_verified" if p["player"] != self.human_seat:
                verdict = "valid" if p["valid"] else "invalid"
                log.write(f"{names[p['player']]}: {verdict} board, {p['tiles_used']} tiles.")
            case "dump_refused" | "bananas_called" | "player_eliminated" | "turn_passed":
                log.write(f"{names[p['player']]}: {p.get('reason', progress.kind)}")
            case "game_ended":
                log.write("Game over.")

    def _log_tools(self, name: str, agent_events: list[dict]) -> None:
        """An agent opponent's tool calls and task list changes, one line each."""
        tools = self.query_one("#tools", RichLog)
        for event in agent_events:
            details = event.get("details", {})
            match event.get("kind"):
                case "tool_call_finished":
                    mark = "[red]✗[/red]" if details.get("is_error") else "[green]✓[/green]"
                    tools.write(
                        f"{mark} {name}: {details.get('tool')} {details.get('duration_s', 0):.2f}s "
                        f"[dim]{escape(str(details.get('preview', ''))[:80])}[/dim]"
                    )
                case "task_added" | "task_completed" | "task_skipped":
                    tools.write(f"[b]task[/b] {escape(event.get('summary', ''))}")
                case "final_answer":
                    tools.write(f"{name}: [i]{escape(str(details.get('answer', ''))[:120])}[/i]")

    def _show_verdict(self, payload: dict) -> None:
        verdict = self.query_one("#verdict", Static)
        if payload["complete"]:
            verdict.update("✓ Valid and complete!")
        elif payload["valid"]:
            verdict.update("✓ Valid so far. Place the rest of your rack to PEEL.")
        else:
            verdict.update("✗ " + "\n".join(payload["feedback"][:5]))

    # --- the person's moves -------------------------------------------------------------------

    def _my_turn(self) -> bool:
        if self.state is None or self.state.over:
            return False
        if self.state.mode == "realtime" or self.state.to_move == self.human_seat:
            return True
        self.notify("Wait for your turn.", severity="warning", timeout=2)
        return False

    def action_submit(self) -> None:
        if not self._my_turn():
            return
        cells = dict(self.edit.cells)
        result = verify(cells, hand="".join(self.edit.hand))
        self.query_one(BoardView).flag(result.bad_cells)
        if not result.valid:
            self.query_one("#verdict", Static).update("✗ " + "\n".join(result.feedback[:5]))
        self.human.submit(TurnDecision(board=cells))

    def action_dump(self) -> None:
        if not self._my_turn():
            return

        def chosen(letter: str | None) -> None:
            if letter:
                self.human.submit(TurnDecision(dump=letter))

        self.app.push_screen(DumpScreen("".join(self.edit.hand)), chosen)

    @work(exclusive=True, group="hint")
    async def action_hint(self) -> None:
        from arena.bot import hint_for

        board = self.query_one(BoardView)
        verdict = self.query_one("#verdict", Static)
        verdict.update("Thinking of a hint…")
        try:
            hint = await asyncio.to_thread(
                hint_for,
                self.runner.game.dictionary,
                "".join(self.edit.hand),
                dict(self.edit.cells),
            )
        except ValueError as error:
            verdict.update(f"No hint: {error}")
            return
        if hint is None:
            verdict.update("No hint: every tile is placed, or nothing fits.")
            return
        verdict.update(f"Hint: {hint.text}")
        board.flag(set(hint.tiles))

    def action_leave(self) -> None:
        def leave(confirmed: bool | None) -> None:
            if confirmed:
                self.workers.cancel_group(self, "match")
                self.app.pop_screen()

        match_id = self.runner.match_id if self.runner else ""
        if self.state is not None and self.state.over:
            self.app.pop_screen()
            return
        self.app.push_screen(
            ConfirmScreen(
                f"Leave this game? It is saved: continue later with\n  arena resume {match_id}"
            ),
            leave,
        )

    def _after_game(self, choice: str | None) -> None:
        if choice == "again":
            fresh = MatchConfig.model_validate(
                self.config.model_dump() | {"seed": None}
            )  # a new deal
            self.app.switch_screen(PlayScreen(fresh, self.store))
        elif choice == "replay" and self.runner:
            from screens.replay import ReplayScreen

            self.app.switch_screen(ReplayScreen(self.store, self.runner.match_id))
        elif choice == "home":
            self.app.pop_screen()

    @on(BoardView.Changed)
    def board_changed(self) -> None:
        self.query_one(RackView).letters = self.edit.rack
