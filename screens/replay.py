"""Replay: scrub through a stored match event by event and see what everyone could see.

The boards, panels and reply pane are the same widgets the live spectator uses (defined here
and imported by `screens.spectate`), fed from `arena.replay.Replay.state_at(seq)`.
"""

from __future__ import annotations

from bisect import bisect_right

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Header, Static

from arena.replay import PlayerReplay, Replay, ReplayState
from arena.store import Store, StoredEvent
from engines.bananagrams.board import Cell
from engines.play.reply import parse_reply
from screens.widgets.board import BoardView
from screens.widgets.player_panel import PlayerPanel

SPEEDS = (1, 2, 5, 10, 20, 50)  # events a second while playing
DEFAULT_SPEED = 5
SEATS_PER_ROW = 4
FEEDBACK_LINES = 8


def grid_cells(grid: list[str]) -> dict[Cell, str]:
    """A stored board (rows, '.' for empty) as cells for a BoardView."""
    return {
        (x, y): letter
        for y, row in enumerate(grid)
        for x, letter in enumerate(row)
        if letter not in ". "
    }


def describe_event(event: StoredEvent, names: list[str]) -> str:
    """One line saying what an event means, for the live log and the replay's event line."""
    p = event.payload if isinstance(event.payload, dict) else {}

    def name(key: str = "player") -> str:
        seat = p.get(key)
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"

    match event.kind:
        case "match_started":
            return "Match started: " + " vs ".join(map(str, p.get("players") or names))
        case "game_started":
            return f"Game started: {p.get('hand_size', 21)} tiles each (seed {p.get('seed')})"
        case "tiles_dealt":
            return (
                f"{name()} was dealt {len(p.get('tiles') or '')} tiles; bunch {p.get('bunch_size')}"
            )
        case "turn":
            usage = p.get("usage") or {}
            tokens = (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0)
            problem = p.get("error") or "; ".join(map(str, p.get("problems") or []))
            text = f"{name('seat')} answers turn {p.get('turn')}"
            text += f" ({tokens:,} tokens)" if tokens else ""
            if problem:
                return f"{text}: {problem}"
            return f"{text}: {p['plan']}" if p.get("plan") else text
        case "action":
            kind = p.get("type")
            if kind == "submit":
                dump = p.get("dump")
                return f"{name()} submits a board" + (f" and asks to DUMP {dump}" if dump else "")
            if kind == "dump":
                return f"{name()} asks to DUMP {p.get('letter')}"
            if kind == "pass":
                return f"{name()} passes: {p.get('reason')}"
            if kind == "bananas":
                return f"{name()} calls BANANAS"
            return f"The game is ended: {p.get('reason')}"
        case "board_submitted":
            return f"{name()} submitted a board (turn {p.get('turn')})"
        case "board_verified":
            if p.get("valid"):
                done = " and complete" if p.get("complete") else ""
                return f"{name()}: ✓ valid{done}, {p.get('tiles_used')} tiles on the board"
            codes = [
                e.get("code", "?") if isinstance(e, dict) else str(e) for e in p.get("errors") or []
            ]
            return f"{name()}: ✗ invalid board: {', '.join(dict.fromkeys(codes))}"
        case "tiles_peeled":
            return f"PEEL by {name()}: everyone draws a tile; bunch {p.get('bunch_size')}"
        case "tile_dumped":
            return f"{name()} dumped {p.get('letter')} and drew {p.get('drawn')}; bunch {p.get('bunch_size')}"
        case "dump_refused":
            return f"{name()}: DUMP {p.get('letter')} refused: {p.get('reason')}"
        case "bananas_called":
            if p.get("valid"):
                return f"{name()}: BANANAS!"
            return f"{name()}: BANANAS refused: {p.get('reason')}"
        case "player_eliminated":
            return f"{name()} is out: {p.get('reason')}"
        case "turn_passed":
            return f"{name()} passed: {p.get('reason')}"
        case "action_rejected":
            return f"{name()}: move rejected: {p.get('reason')}"
        case "game_ended":
            reason = str(p.get("reason") or "").replace("_", " ")
            if p.get("winner") is not None:
                return f"Game over: {name('winner')} wins ({reason}) after {p.get('turns')} turns"
            return f"Game over: no winner ({reason}) after {p.get('turns')} turns"
    return event.kind.replace("_", " ")


def result_line(state: ReplayState) -> str:
    """The winner (or why there is none) and the standings."""
    reason = (state.end_reason or "").replace("_", " ")
    if state.winner is not None and 0 <= state.winner < len(state.players):
        head = f"{state.players[state.winner].name} wins ({reason}) after {state.turn} turns"
    else:
        head = f"No winner ({reason}) after {state.turn} turns"
    standings = "  ".join(
        f"{s['rank']}. {s['name']} {s['tiles_left']} left{' (out)' if s['out'] else ''}"
        for s in state.standings
    )
    return f"{head} · {standings}" if standings else head


# --- widgets shared with the spectator --------------------------------------------------------------


class SeatView(Vertical):
    """One player: their panel (tiles, tokens, cost, verdict) over their latest board."""

    def __init__(self, player: PlayerReplay, **kwargs) -> None:
        super().__init__(**kwargs)
        self.player = player
        self._grid: list[str] | None = None

    def compose(self) -> ComposeResult:
        yield PlayerPanel(self.player, show_board=False)
        board = BoardView(editable=False)
        board.can_focus = False  # the screen's keys (arrows, space) must reach the screen
        yield board

    def on_mount(self) -> None:
        self.show(self.player)

    def show(
        self,
        player: PlayerReplay,
        *,
        to_move: bool = False,
        winner: bool = False,
        thinking: bool = False,
        selected: bool = False,
    ) -> None:
        self.player = player
        panel = self.query_one(PlayerPanel)
        panel.update_player(player, to_move=to_move, winner=winner)
        panel.thinking = thinking
        self.set_class(selected, "-selected")
        if player.grid != self._grid:
            self._grid = list(player.grid)
            board = self.query_one(BoardView)
            board.show(grid_cells(player.grid))
            board.call_after_refresh(board.action_recentre)

    @property
    def cells(self) -> dict[Cell, str]:
        """The cells the board shows."""
        return dict(self.query_one(BoardView).edit.cells)


def seat_grid(players: list[PlayerReplay]) -> Grid:
    """The seats side by side, four to a row."""
    seats = Grid(*(SeatView(p, id=f"seat-{p.seat}") for p in players), id="seats")
    columns = max(1, min(SEATS_PER_ROW, len(players)))
    seats.styles.grid_size_columns = columns
    seats.styles.grid_size_rows = max(1, -(-len(players) // columns))
    return seats


def reply_text(player: PlayerReplay | None, live: str | None = None) -> Text:
    """A player's latest reply: plan, verdict and feedback, any problem, then the raw text.
    `live` is a reply still streaming in (then the plan is read from it as it grows)."""
    text = Text()
    if player is None:
        return Text("No players.", style="dim")
    if live is not None:
        plan = parse_reply(live).plan
        text.append("Streaming… ", style="bold cyan")
        text.append(f"{len(live):,} characters so far\n", style="dim")
        if plan:
            text.append("Plan: ", style="bold")
            text.append(plan + "\n", style="italic")
        text.append("\n" + live, style="cyan")
        return text
    if player.last_move:
        text.append("Last move: ", style="bold")
        text.append(player.last_move + "\n")
    if player.plan:
        text.append("Plan: ", style="bold")
        text.append(player.plan + "\n", style="italic")
    verdict = player.verdict
    if verdict is not None:
        if verdict.valid:
            done = " and complete" if verdict.complete else ""
            text.append(
                f"✓ Valid{done}: {_count(len(verdict.words), 'word')}, {_count(verdict.tiles_used, 'tile')}\n",
                style="green",
            )
        else:
            text.append(
                "✗ Invalid: " + ", ".join(dict.fromkeys(verdict.errors)) + "\n", style="red"
            )
        for line in verdict.feedback[:FEEDBACK_LINES]:
            text.append(f"• {line}\n", style="dim")
    if player.error:
        text.append("Problem: ", style="bold red")
        text.append(player.error + "\n")
    if player.reply:
        text.append("\nReply:\n", style="bold")
        text.append(player.reply)
    elif player.kind in ("bot", "human"):
        text.append(
            f"\n({'The bot plays' if player.kind == 'bot' else 'People play'} without a text reply.)",
            style="dim",
        )
    elif not player.moves:
        text.append("\n(No reply yet.)", style="dim")
    return text


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


class ReplyView(VerticalScroll):
    """The selected player's reply, streaming or final."""

    def __init__(self, **kwargs) -> None:
        super().__init__(can_focus=False, **kwargs)
        self.shown: Text = Text()

    def compose(self) -> ComposeResult:
        yield Static(classes="reply-body")

    def show(self, player: PlayerReplay | None, live: str | None = None) -> None:
        text = reply_text(player, live)
        if player is not None:
            who = player.model or player.kind or "player"
            self.border_title = f"{player.name} · {who}"
        if text.plain == self.shown.plain:
            return
        self.shown = text
        self.query_one(".reply-body", Static).update(text)
        if live is not None:
            self.scroll_end(animate=False)  # follow the text as it grows
        else:
            self.scroll_home(animate=False)


class Timeline(Widget):
    """One row from the first event to the last: where we are, and the PEELs along the way.
    Click to jump."""

    COMPONENT_CLASSES = {"timeline--done", "timeline--todo", "timeline--cursor"}
    DEFAULT_CSS = """
    Timeline { height: 1; }
    Timeline > .timeline--done { color: $accent; }
    Timeline > .timeline--todo { color: $text-disabled; }
    Timeline > .timeline--cursor { color: $warning; text-style: bold; }
    """
    position: reactive[int] = reactive(0)

    class Seeked(Message):
        """Someone clicked the timeline at event `seq`."""

        def __init__(self, seq: int) -> None:
            super().__init__()
            self.seq = seq

    def __init__(self, last: int, peels: list[int], **kwargs) -> None:
        super().__init__(**kwargs)
        self.last = last
        self.peels = peels

    def _column(self, seq: int, width: int) -> int:
        return round(seq / max(1, self.last) * (width - 1))

    def render(self) -> Text:
        width = max(2, self.size.width)
        at = self._column(self.position, width)
        peel_columns = {self._column(seq, width) for seq in self.peels}
        done = self.get_component_rich_style("timeline--done")
        todo = self.get_component_rich_style("timeline--todo")
        text = Text()
        for column in range(width):
            if column == at:
                text.append("●", self.get_component_rich_style("timeline--cursor"))
            elif column < at:
                text.append("┿" if column in peel_columns else "━", done)
            else:
                text.append("┼" if column in peel_columns else "─", todo)
        return text

    def on_click(self, event: events.Click) -> None:
        width = max(2, self.size.width)
        self.post_message(self.Seeked(round(event.x / (width - 1) * self.last)))


# --- the replay screen ------------------------------------------------------------------------------

STEP = Binding.Group("Step", compact=True)
SPEED = Binding.Group("Speed", compact=True)


class ReplayScreen(Screen):
    BINDINGS = [
        Binding(
            "left",
            "step(-1)",
            "Previous event",
            id="replay.back",
            tooltip="One event back",
            group=STEP,
        ),
        Binding(
            "right",
            "step(1)",
            "Next event",
            id="replay.forward",
            tooltip="One event forward",
            group=STEP,
        ),
        Binding(
            "shift+left,pageup",
            "step(-10)",
            "Ten events back",
            id="replay.back10",
            tooltip="Ten events back",
            show=False,
        ),
        Binding(
            "shift+right,pagedown",
            "step(10)",
            "Ten events forward",
            id="replay.forward10",
            tooltip="Ten events forward",
            show=False,
        ),
        Binding(
            "home",
            "seek_start",
            "Start",
            id="replay.start",
            tooltip="Before the first event",
            show=False,
        ),
        Binding(
            "end", "seek_end", "End", id="replay.end", tooltip="After the last event", show=False
        ),
        Binding(
            "space",
            "toggle_play",
            "Play/pause",
            id="replay.play",
            tooltip="Play the match forward, or pause",
        ),
        Binding(
            "minus",
            "speed(-1)",
            "Slower",
            id="replay.slower",
            tooltip="Play fewer events a second",
            group=SPEED,
        ),
        Binding(
            "plus,equals_sign",
            "speed(1)",
            "Faster",
            id="replay.faster",
            tooltip="Play more events a second",
            group=SPEED,
        ),
        Binding(
            "tab",
            "next_player",
            "Player",
            id="replay.player",
            tooltip="Show the next player's reply",
        ),
        *(
            Binding(
                str(seat + 1),
                f"select({seat})",
                f"Player {seat + 1}",
                id=f"replay.player{seat + 1}",
                tooltip=f"Show player {seat + 1}'s reply",
                show=False,
            )
            for seat in range(4)
        ),
        Binding("escape", "leave", "Back", id="replay.leave", tooltip="Leave the replay"),
    ]

    def __init__(self, store: Store, match_id: str, *, at: int | None = None) -> None:
        super().__init__()
        self.store = store
        self.replay = Replay.load(store, match_id)  # StoreError (incl. ReplayError) if unusable
        good = self.replay.events[: self._good_count()]
        self.seqs = [0] + [event.seq for event in good]
        self.index = len(self.seqs) - 1 if at is None else max(0, bisect_right(self.seqs, at) - 1)
        self.selected = 0
        self.speed = DEFAULT_SPEED
        self.timer: Timer | None = None
        self.state: ReplayState = self.replay.state_at(self.seqs[self.index])
        title = self.replay.match.get("title") or " vs ".join(p.name for p in self.state.players)
        self.title = f"Replay · {title}"

    def _good_count(self) -> int:
        """Events that replay cleanly (all of them unless one is damaged)."""
        last_good = self.replay.last_good_seq
        return bisect_right([event.seq for event in self.replay.events], last_good)

    @property
    def seq(self) -> int:
        return self.seqs[self.index]

    def compose(self) -> ComposeResult:
        yield Header()
        peels = [e.seq for e in self.replay.events if e.kind == "tiles_peeled"]
        yield Timeline(self.seqs[-1], peels, id="timeline")
        yield Static(id="position")
        yield seat_grid(self.state.players)
        yield ReplyView(id="reply")
        yield Static(id="event-line")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    # --- showing a moment ---------------------------------------------------------------------

    def show(self) -> None:
        state = self.state = self.replay.state_at(self.seq)
        self.query_one(Timeline).position = self.seq
        for player in state.players:
            self.query_one(f"#seat-{player.seat}", SeatView).show(
                player,
                to_move=state.to_move == player.seat,
                winner=state.winner == player.seat,
                selected=player.seat == self.selected,
            )
        players = state.players
        self.query_one(ReplyView).show(players[self.selected] if players else None)
        self.query_one("#position", Static).update(self._position_text())
        self.query_one("#event-line", Static).update(self._event_text())
        self.sub_title = f"{state.mode} · match {state.match_id}"

    def _position_text(self) -> Text:
        state = self.state
        limit = f"/{state.max_turns}" if state.max_turns else ""
        text = Text()
        text.append(f"Event {self.seq} of {self.seqs[-1]}", style="bold")
        text.append(f" · turn {state.turn}{limit} · bunch {state.bunch}")
        playing = "▶ playing" if self.timer is not None else "‖ paused"
        text.append(f" · {playing} at {self.speed} events/s", style="dim")
        if state.over:
            text.append(" · " + result_line(state), style="bold green")
        return text

    def _event_text(self) -> Text:
        names = [p.name for p in self.state.players]
        text = Text()
        if self.index == 0:
            text.append(
                f"Before the first event: → steps through {self.seqs[-1]} events.", style="dim"
            )
        else:
            event = self.replay.events[self.index - 1]
            text.append(f"#{event.seq} {event.kind}  ", style="bold")
            text.append(describe_event(event, names))
        if self.replay.damage is not None and self.index == len(self.seqs) - 1:
            text.append(f"\n{self.replay.damage}", style="bold red")
        return text

    def go(self, index: int) -> None:
        index = max(0, min(len(self.seqs) - 1, index))
        if index != self.index:
            self.index = index
            self.show()

    # --- actions --------------------------------------------------------------------------------

    def action_step(self, count: int) -> None:
        self.go(self.index + count)

    def action_seek_start(self) -> None:
        self.go(0)

    def action_seek_end(self) -> None:
        self.go(len(self.seqs) - 1)

    def action_toggle_play(self) -> None:
        if self.timer is not None:
            self._stop()
        else:
            if self.index == len(self.seqs) - 1:
                self.go(0)  # at the end, play again from the start
            self._start()
        self.query_one("#position", Static).update(self._position_text())

    def _start(self) -> None:
        self.timer = self.set_interval(1 / self.speed, self._tick)

    def _stop(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    def _tick(self) -> None:
        if self.index >= len(self.seqs) - 1:
            self._stop()
            self.query_one("#position", Static).update(self._position_text())
            return
        self.go(self.index + 1)

    def action_speed(self, change: int) -> None:
        position = SPEEDS.index(self.speed) + change
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, position))]
        if self.timer is not None:
            self._stop()
            self._start()
        self.query_one("#position", Static).update(self._position_text())

    def action_next_player(self) -> None:
        if self.state.players:
            self.action_select((self.selected + 1) % len(self.state.players))

    def action_select(self, seat: int) -> None:
        if 0 <= seat < len(self.state.players) and seat != self.selected:
            self.selected = seat
            self.show()

    def action_leave(self) -> None:
        self._stop()
        self.app.pop_screen()

    @on(Timeline.Seeked)
    def seeked(self, message: Timeline.Seeked) -> None:
        self.go(bisect_right(self.seqs, message.seq) - 1)
