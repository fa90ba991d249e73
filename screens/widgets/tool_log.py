"""The tool log: one row per tool call with its arguments, status, duration and a preview of the
result, updated in place as the call is approved, runs and finishes. Enter (or a click) on a
row expands it to the full arguments and output; errors and denials stand out.

The parent calls `upsert(entry)` with frozen `ToolCallEntry`s (the row is found by the entry's
key) and `add_note()` for lines about the tools themselves, such as an MCP server that failed.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from arena.chat_transcript import (
    AWAITING_APPROVAL,
    DENIED,
    ERROR,
    OK,
    ToolCallEntry,
    args_line,
    format_args,
)

ICONS = {OK: "✓", ERROR: "✗", DENIED: "⊘", AWAITING_APPROVAL: "?"}
RUNNING_ICON = "…"
STATUS_CLASSES = {OK: "-ok", ERROR: "-error", DENIED: "-denied", AWAITING_APPROVAL: "-awaiting"}


def call_status(entry: ToolCallEntry) -> str:
    if entry.status in (OK, ERROR) and entry.duration_s is not None:
        words = f"{entry.status} in {entry.duration_s:.2f}s"
    else:
        words = entry.status
    if entry.evidence_id:
        words += f" [{entry.evidence_id}]"
    if entry.approval and entry.status != OK:
        words += f" · {entry.approval}"
    return words


def short_status(entry: ToolCallEntry) -> str:
    """What a folded row says about the call's state, before its arguments."""
    if entry.status == OK:
        words = f"{entry.duration_s or 0:.2f}s"
    elif entry.status == ERROR:
        words = f"error {entry.duration_s or 0:.2f}s"
    elif entry.status == DENIED:
        words = entry.approval or "denied"
    else:
        words = entry.status
    return words + (f" [{entry.evidence_id}]" if entry.evidence_id else "")


class ToolCallRow(Widget, can_focus=True):
    """One call; collapsed to a line, or expanded to everything."""

    DEFAULT_CSS = """
    ToolCallRow { height: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    ToolCallRow.-expanded { text-wrap: wrap; background: $boost; }
    ToolCallRow:focus { background: $boost; }
    ToolCallRow.-error { color: $error; }
    ToolCallRow.-denied { color: $error; text-style: italic; }
    ToolCallRow.-awaiting { color: $warning; text-style: bold; }
    ToolCallRow.-running { color: $text-muted; }
    """
    BINDINGS = [
        Binding(
            "enter,space",
            "toggle",
            "Expand",
            id="tool_log.expand",
            tooltip="Show the call's full arguments and result, or fold it again",
        )
    ]

    entry: reactive[ToolCallEntry | None] = reactive(None, layout=True)
    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, entry: ToolCallEntry, **kwargs) -> None:
        super().__init__(**kwargs)
        self.set_reactive(ToolCallRow.entry, entry)
        self._set_status_class(entry)

    def _set_status_class(self, entry: ToolCallEntry) -> None:
        for name in (*STATUS_CLASSES.values(), "-running"):
            self.remove_class(name)
        self.add_class(STATUS_CLASSES.get(entry.status, "-running"))

    def watch_entry(self, entry: ToolCallEntry | None) -> None:
        if entry is not None:
            self._set_status_class(entry)

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")

    def render(self) -> Text:
        entry = self.entry
        assert entry is not None
        icon = ICONS.get(entry.status, RUNNING_ICON)
        if not self.expanded:
            line = Text()
            line.append(f"{icon} ")
            line.append(entry.tool, "bold")
            line.append(f" {short_status(entry)} ", "italic")
            line.append(args_line(entry.args, 60))
            if entry.preview and entry.status != DENIED:
                line.append(f" → {entry.preview}")
            return line
        head = Text()
        head.append(f"▾ {icon} ")
        head.append(entry.tool, "bold")
        head.append(f" · {call_status(entry)}", "italic")
        if entry.risk:
            head.append(f" · risk: {entry.risk}")
        if entry.approval and entry.status == OK:
            head.append(f" · {entry.approval}")
        parts = [head, Text("arguments:", "underline"), Text(format_args(entry.args))]
        if entry.finished:
            parts += [Text("result:", "underline"), Text(entry.output or "(no output)")]
        return Text("\n").join(parts)

    def action_toggle(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        self.focus()
        self.action_toggle()


class ToolLog(VerticalScroll, can_focus=False):
    DEFAULT_CSS = """
    ToolLog > .tool-note { padding: 0 1; color: $text-muted; }
    ToolLog > .tool-note.-error { color: $error; text-style: bold; }
    ToolLog > .empty { padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding(
            "down",
            "step(1)",
            "Next call",
            show=False,
            id="tool_log.next",
            tooltip="Select the next call",
        ),
        Binding(
            "up",
            "step(-1)",
            "Previous call",
            show=False,
            id="tool_log.previous",
            tooltip="Select the previous call",
        ),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._rows: dict[str, ToolCallRow] = {}

    def on_mount(self) -> None:
        self.mount(Static("No tool calls yet.", classes="empty"))

    def _follow(self) -> None:
        """Keep the newest call in view, unless the person scrolled up to read."""
        if self.scroll_y >= self.max_scroll_y - 1:
            self.call_after_refresh(self.scroll_end, animate=False)

    def _drop_placeholder(self) -> None:
        for placeholder in self.query(".empty"):
            placeholder.remove()

    @property
    def rows(self) -> dict[str, ToolCallRow]:
        return dict(self._rows)

    def upsert(self, entry: ToolCallEntry) -> ToolCallRow:
        """Add the call's row, or update it in place."""
        row = self._rows.get(entry.key)
        if row is not None:
            row.entry = entry
            return row
        self._drop_placeholder()
        row = ToolCallRow(entry)
        self._rows[entry.key] = row
        self._follow()
        self.mount(row)
        return row

    def add_note(self, text: str, *, ok: bool = True) -> None:
        self._drop_placeholder()
        self.mount(
            Static(
                Text(("" if ok else "⚠ ") + text), classes="tool-note" + ("" if ok else " -error")
            )
        )

    def focused_row(self) -> ToolCallRow | None:
        focused = self.screen.focused
        return focused if isinstance(focused, ToolCallRow) and focused.parent is self else None

    def focus_last(self) -> bool:
        if not self._rows:
            return False
        list(self._rows.values())[-1].focus()
        return True

    def action_step(self, delta: int) -> None:
        rows = list(self._rows.values())
        if not rows:
            return
        current = self.focused_row()
        index = rows.index(current) + delta if current in rows else len(rows) - 1
        rows[max(0, min(len(rows) - 1, index))].focus()
