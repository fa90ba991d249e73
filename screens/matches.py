"""Saved matches (open, export, delete) and the leaderboard.

Both read the store through `arena`; a damaged database becomes a message on the screen, never a
crash. Opening a match goes to the spectator while it is running and to replay otherwise.
"""

from __future__ import annotations

import asyncio
import re
from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from arena.store import Store
from screens.dialogs import ConfirmScreen

MATCH_COLUMNS = ("date", "title", "mode", "status", "players", "winner", "turns")
LEADERBOARD_COLUMNS = (
    "#",
    "player",
    "rating",
    "games",
    "wins",
    "valid boards",
    "tokens/turn",
    "cost",
)


def store_problem(error: Exception) -> str:
    """One line for a database that cannot be read: a damaged file, record or event."""
    text = str(error) or type(error).__name__
    return f"The database cannot be read: {text}"


def export_file_name(match_id: str, title: str) -> str:
    """`<title>-<id>.banana-bench.json`, the title reduced to letters, digits and dashes."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower()[:40]
    return f"{slug}-{match_id}.banana-bench.json" if slug else f"match-{match_id}.banana-bench.json"


def _date(timestamp: float | None) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M") if timestamp else ""


def _number(text: str) -> Text:
    return Text(text, justify="right")


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def match_row(match: dict) -> tuple[str | Text, ...]:
    names = [player["name"] for player in match["players"]]
    winner = match["winner"]
    finished = match["status"] == "finished"
    if winner is not None and 0 <= winner < len(names):
        won_by = names[winner]
    else:
        won_by = "-" if finished else ""
    return (
        _date(match["created_at"]),
        _short(match["title"] or "", 22),
        match["mode"],
        match["status"],
        _short(", ".join(names), 26),
        _short(won_by, 16),
        _number(str(match["turns"]) if finished else ""),
    )


def match_detail(match: dict) -> str:
    """The selected match in one line: its id (for the command line), seed and how it ended."""
    if match["status"] == "finished":
        how = f"ended: {(match['end_reason'] or 'finished').replace('_', ' ')}"
    elif match["status"] == "running":
        how = "running: Enter watches it live"
    else:
        how = f"{match['status']}: continue with `arena resume {match['id']}`"
    return f"match {match['id']} · seed {match['seed']} · {how}"


class MatchBrowserScreen(Screen):
    """Every saved match, newest first."""

    TITLE = "Saved matches"
    BINDINGS = [
        Binding(
            "enter,o",
            "open",
            "Open",
            id="matches.open",
            tooltip="Replay it, or watch it if it is running",
        ),
        Binding(
            "e",
            "export",
            "Export",
            id="matches.export",
            tooltip="Write Banana-Bench results JSON here",
        ),
        Binding(
            "d", "delete", "Delete", id="matches.delete", tooltip="Delete the match (asks first)"
        ),
        Binding("r", "refresh", "Refresh", id="matches.refresh", tooltip="Read the list again"),
        Binding("escape", "leave", "Back", id="matches.back", tooltip="Back to the home screen"),
    ]

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.matches: dict[str, dict] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        table: DataTable = DataTable(id="matches", cursor_type="row", zebra_stripes=True)
        table.add_columns(*MATCH_COLUMNS)
        yield table
        yield Static("", id="match-detail")
        yield Static("", id="matches-note")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#matches", DataTable).focus()

    def on_screen_resume(self) -> None:
        self.load()  # on arrival, and after a replay or a watched match that may have finished

    def load(self) -> None:
        """Read the matches again, keeping the cursor on the same match when it is still there."""
        table = self.query_one("#matches", DataTable)
        current = self.selected_id()
        table.clear()
        self.matches = {}
        self.query_one("#match-detail", Static).update("")
        try:
            matches = self.store.matches()
        except Exception as error:  # sqlite3.DatabaseError, StoreError, a record that is not JSON
            self._note(store_problem(error), problem=True)
            self.sub_title = ""
            return
        for match in matches:
            self.matches[match["id"]] = match
            table.add_row(*match_row(match), key=match["id"])
        self._note(
            ""
            if matches
            else "No saved matches yet. Every game is saved as it is played: start one from the "
            "home screen (Play the bot needs no API key), or run `arena match config.yaml`."
        )
        self.sub_title = f"{len(matches)} match{'es' if len(matches) != 1 else ''}"
        if current in self.matches:
            table.move_cursor(row=table.get_row_index(current))

    def _note(self, text: str, *, problem: bool = False) -> None:
        note = self.query_one("#matches-note", Static)
        note.update(text)
        note.display = bool(text)
        note.set_class(problem, "problem")

    def selected_id(self) -> str | None:
        table = self.query_one("#matches", DataTable)
        if not self.matches or table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return row_key.value

    def _selected(self) -> dict | None:
        match_id = self.selected_id()
        if match_id is None:
            self.notify("No match to choose.", severity="warning", timeout=3)
            return None
        return self.matches[match_id]

    # --- actions -----------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#matches")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        match = self.matches.get(event.row_key.value or "")
        self.query_one("#match-detail", Static).update(match_detail(match) if match else "")

    @on(DataTable.RowSelected, "#matches")
    def row_chosen(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        match = self._selected()
        if match is None:
            return
        match_id, running = match["id"], match["status"] == "running"

        def make(app):
            if running:
                from screens.spectate import SpectateScreen

                return SpectateScreen(self.store, match_id)
            from screens.replay import ReplayScreen

            return ReplayScreen(self.store, match_id)

        self.app._open(make)

    def action_export(self) -> None:
        from arena.export import export_match, to_json_text, write_atomic

        match = self._selected()
        if match is None:
            return
        path = Path.cwd() / export_file_name(match["id"], match["title"] or "")
        try:
            text = to_json_text(export_match(self.store, match["id"], "banana-bench"))
        except Exception as error:  # a damaged event or record: StoreError, ReplayError, sqlite
            self.notify(str(error), title="Cannot export", severity="error", timeout=10)
            return
        try:
            write_atomic(path, text)
        except OSError as error:
            self.notify(
                f"Cannot write {path}: {error.strerror or error}",
                title="Cannot export",
                severity="error",
                timeout=10,
            )
            return
        self.notify(f"Banana-Bench results JSON written to\n{path}", title="Exported", timeout=8)

    def action_delete(self) -> None:
        match = self._selected()
        if match is None:
            return
        match_id = match["id"]
        question = f"Delete match {match_id} ({match['title']})?\nIts replay is lost; this cannot be undone."
        if match["status"] == "running":
            question += "\nIt is marked running: a process may still be playing it."

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.delete_stream(match_id)
            except Exception as error:  # the database is damaged or locked
                self.notify(
                    store_problem(error), title="Cannot delete", severity="error", timeout=10
                )
                return
            self.notify(f"Deleted match {match_id}.", timeout=4)
            self.load()

        self.app.push_screen(ConfirmScreen(question), answered)

    def action_refresh(self) -> None:
        self.load()

    def action_leave(self) -> None:
        self.dismiss()


def _rate(path: Path) -> list:
    """Standings over every finished match, on a connection of its own (this runs in a thread,
    and a match may be writing through the app's connection meanwhile)."""
    from arena.ratings import leaderboard

    store = Store.open(path)
    try:
        return leaderboard(store)
    finally:
        store.close()


class LeaderboardScreen(Screen):
    """Ratings over every finished match (openskill Plackett-Luce; rating = mu - 3 sigma)."""

    TITLE = "Leaderboard"
    BINDINGS = [
        Binding(
            "r",
            "refresh",
            "Refresh",
            id="leaderboard.refresh",
            tooltip="Rate every finished match again",
        ),
        Binding(
            "escape", "leave", "Back", id="leaderboard.back", tooltip="Back to the home screen"
        ),
    ]

    class Rated(Message):
        """The ratings were computed (`rows`), or could not be (`problem`)."""

        def __init__(self, rows: list | None, problem: str | None = None) -> None:
            super().__init__()
            self.rows = rows
            self.problem = problem

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        yield Header()
        table: DataTable = DataTable(id="ratings", cursor_type="row", zebra_stripes=True)
        for column in LEADERBOARD_COLUMNS:
            table.add_column(column, key=column)
        yield table
        yield Static("Rating the finished matches…", id="ratings-note")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#ratings", DataTable).focus()
        self.rate()

    @work(exclusive=True, group="ratings")
    async def rate(self) -> None:
        try:
            rows = await asyncio.to_thread(_rate, self.store.path)
        except Exception as error:  # sqlite3.DatabaseError, StoreError, ReplayError
            self.post_message(self.Rated(None, store_problem(error)))
            return
        self.post_message(self.Rated(rows))

    @on(Rated)
    def show(self, message: Rated) -> None:
        table = self.query_one("#ratings", DataTable)
        note = self.query_one("#ratings-note", Static)
        table.clear()
        note.set_class(message.problem is not None, "problem")
        if message.problem is not None:
            note.update(message.problem)
            return
        standings = message.rows or []
        for rank, s in enumerate(standings, start=1):
            table.add_row(
                _number(str(rank)),
                s.identity,
                _number(f"{s.rating:.2f}"),
                _number(str(s.games)),
                _number(str(s.wins)),
                _number(
                    f"{100 * s.valid_board_rate:.0f}%" if s.valid_board_rate is not None else "-"
                ),
                _number(f"{s.tokens_per_turn:,.0f}" if s.tokens_per_turn is not None else "-"),
                _number(f"${s.cost_usd:.4f}"),
                key=s.identity,
            )
        if standings:
            note.update(
                "Rating = mu - 3 sigma (openskill Plackett-Luce): a cautious estimate that rises as "
                "a player wins more games. Valid boards = valid boards / boards submitted."
            )
        else:
            note.update(
                "No ratings yet: ratings come from finished matches. Finish a match (Play the bot "
                "from the home screen, or `arena match config.yaml`) and every player in it is "
                "rated here; a match left before its end does not count."
            )

    def action_refresh(self) -> None:
        self.query_one("#ratings-note", Static).update("Rating the finished matches…")
        self.rate()

    def action_leave(self) -> None:
        self.dismiss()
