"""The agent's task list for the question in progress: tasks appear as the model adds them, are
checked off when completed and struck through when skipped. Tasks still open when an answer was
pushed back stand out until they are closed.

The parent sets `tasks` (frozen entries); the widget recomposes and styles each by its status.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from arena.chat_transcript import TaskEntry

MARKS = {"open": "☐", "completed": "☑", "skipped": "☒"}
EMPTY = "No tasks. With the plan policy the agent lists its tasks here and must close them all."


def task_text(task: TaskEntry) -> Text:
    text = Text()
    text.append(f"{MARKS.get(task.status, '?')} {task.id} ")
    text.append(task.title, "strike" if task.status == "skipped" else "")
    if task.note:
        text.append(f" — {task.note}", "italic")
    if task.pushed:
        text.append("  ← still open", "bold")
    return text


class TaskList(VerticalScroll, can_focus=False):
    DEFAULT_CSS = """
    TaskList { height: auto; }
    TaskList > .task { height: auto; }
    TaskList > .-completed { color: $success; }
    TaskList > .-skipped { color: $text-muted; }
    TaskList > .-pushed { color: $warning; }
    TaskList > .empty { color: $text-muted; }
    """

    tasks: reactive[tuple[TaskEntry, ...]] = reactive((), recompose=True)

    def compose(self) -> ComposeResult:
        if not self.tasks:
            yield Static(EMPTY, classes="empty")
        for task in self.tasks:
            classes = f"task -{task.status}" + (" -pushed" if task.pushed else "")
            yield Static(task_text(task), classes=classes)

    def watch_tasks(self, tasks: tuple[TaskEntry, ...]) -> None:
        done = sum(task.status != "open" for task in tasks)
        self.border_title = f"Tasks {done}/{len(tasks)}" if tasks else "Tasks"
