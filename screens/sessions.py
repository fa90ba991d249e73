"""Saved chat sessions: search them, resume one, export it to Markdown or HTML, or delete it.

Every session is saved as it happens, so the list also holds sessions that were stopped or cut
off. Search looks through titles and the sessions' text (questions, replies, tool calls and
results, answers, tasks).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from arena.session_export import export_session
from arena.sessions import SessionSummary, delete_session, known_secrets, list_sessions
from arena.store import Store
from screens.dialogs import ConfirmScreen

COLUMNS = ("last used", "title", "model", "policy", "questions", "cost", "id")


def _date(timestamp: float | None) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M") if timestamp else ""


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def session_row(summary: SessionSummary) -> tuple[str, ...]:
    return (
        _date(summary.updated_at),
        _short(summary.label, 40),
        _short(summary.model, 26),
        summary.policy,
        str(summary.questions),
        f"${summary.cost_usd:.4f}",
        summary.id,
    )


class SessionsScreen(Screen[str | None]):
    """Opened from the chat (`pick=True`) it returns the chosen session; from home it opens
    the chat on it."""

    TITLE = "Chat sessions"
    BINDINGS = [
        Binding(
            "r,enter",
            "resume",
            "Resume",
            id="sessions.resume",
            tooltip="Continue this session in the chat",
        ),
        Binding(
            "ctrl+f", "search", "Search", id="sessions.search", tooltip="Search titles and text"
        ),
        Binding(
            "m",
            "export('markdown')",
            "Markdown",
            id="sessions.markdown",
            tooltip="Export the session to a Markdown file here",
        ),
        Binding(
            "h",
            "export('html')",
            "HTML",
            id="sessions.html",
            tooltip="Export the session to one self-contained HTML file here",
        ),
        Binding(
            "d", "delete", "Delete", id="sessions.delete", tooltip="Delete the session (asks first)"
        ),
        Binding("escape", "back", "Back", id="sessions.back", tooltip="Back to where you were"),
    ]

    def __init__(
        self,
        store: Store,
        *,
        pick: bool = False,
        export_dir: Path | None = None,
        open_session: str | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.pick = pick
        self.export_dir = export_dir
        self.open_session = open_session  # the chat underneath is writing it: not deletable
        self.sessions: dict[str, SessionSummary] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(
            placeholder="Search titles and text… (Enter or ↓ goes to the list)",
            id="sessions-search",
        )
        table: DataTable = DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        yield Static("", id="sessions-note")
        yield Footer()

    def on_mount(self) -> None:
        self.load()
        self.query_one("#sessions", DataTable).focus()

    def load(self) -> None:
        table = self.query_one("#sessions", DataTable)
        query = self.query_one("#sessions-search", Input).value
        table.clear()
        self.sessions = {}
        try:
            found = list_sessions(self.store, query)
        except Exception as error:  # a damaged database: say so, never crash
            self._note(f"The database cannot be read: {error}", problem=True)
            return
        for summary in found:
            self.sessions[summary.id] = summary
            table.add_row(*session_row(summary), key=summary.id)
        if not found:
            self._note(
                f"No session holds {query!r}."
                if query.strip()
                else "No chat sessions yet: every chat is saved as it happens."
            )
        else:
            self._show_match()
        count = len(found)
        self.sub_title = f"{count} session{'s' if count != 1 else ''}" + (
            f" matching {query!r}" if query.strip() else ""
        )

    def _note(self, text: str, *, problem: bool = False) -> None:
        note = self.query_one("#sessions-note", Static)
        note.update(text)
        note.display = bool(text)
        note.set_class(problem, "problem")

    def _show_match(self) -> None:
        summary = self.selected()
        self._note(f"Found: {summary.match}" if summary and summary.match else "")

    def selected(self) -> SessionSummary | None:
        table = self.query_one("#sessions", DataTable)
        if not self.sessions or table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return self.sessions.get(row_key.value)

    @on(Input.Changed, "#sessions-search")
    def search_changed(self) -> None:
        self.load()

    @on(Input.Submitted, "#sessions-search")
    def search_done(self) -> None:
        self.query_one("#sessions", DataTable).focus()

    def on_key(self, event) -> None:
        if event.key == "down" and self.focused is self.query_one("#sessions-search", Input):
            event.stop()
            self.query_one("#sessions", DataTable).focus()

    @on(DataTable.RowHighlighted, "#sessions")
    def highlighted(self) -> None:
        self._show_match()

    @on(DataTable.RowSelected, "#sessions")
    def row_chosen(self) -> None:
        self.action_resume()

    # --- actions -------------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#sessions-search", Input).focus()

    def action_resume(self) -> None:
        summary = self.selected()
        if summary is None:
            self.notify("No session to resume.", severity="warning", timeout=3)
            return
        if self.pick:
            self.dismiss(summary.id)
            return
        from screens.navigation import chat_screen

        session_id = summary.id
        # The chat opens over this list; Esc there comes back here.
        self.app._open(lambda app: chat_screen(app, session_id))

    def action_export(self, fmt: str) -> None:
        summary = self.selected()
        if summary is None:
            self.notify("No session to export.", severity="warning", timeout=3)
            return
        folder = self.export_dir or Path.cwd()
        settings = getattr(self.app, "settings", None)
        secrets = known_secrets(settings.keys.values() if settings else ())
        try:
            path = export_session(self.store, summary.id, fmt, folder, secrets)
        except OSError as error:
            self.notify(
                f"Cannot write to {folder}: {error.strerror or error}",
                title="Cannot export",
                severity="error",
                timeout=10,
            )
            return
        except Exception as error:  # a damaged session
            self.notify(str(error), title="Cannot export", severity="error", timeout=10)
            return
        self.notify(f"Written to\n{path}", title="Exported", timeout=8)

    def action_delete(self) -> None:
        summary = self.selected()
        if summary is None:
            return
        if summary.id == self.open_session:
            self.notify("This session is open in the chat; leave it first.", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                delete_session(self.store, summary.id)
                self.load()

        self.app.push_screen(
            ConfirmScreen(
                f"Delete the session {summary.label!r} ({summary.id})?\nIts events and files are lost."
            ),
            answered,
        )

    def action_back(self) -> None:
        self.dismiss(None)
