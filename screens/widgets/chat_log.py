"""The conversation: your questions, the agent's replies streaming in as Markdown, the questions
it asks you and your answers, push-backs and other notices, and each answer with what it cost.

Each reply streams through its own `MarkdownStream` (which merges fragments when they come
faster than the widget can draw) and gets one full update with the final text at the end, so
what stays on screen is exactly what the model said.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from arena.chat_transcript import (
    AnswerEntry,
    AskEntry,
    NoticeEntry,
    QuestionEntry,
    RunStats,
    outcome_words,
)


class QuestionMessage(Static):
    DEFAULT_CSS = """
    QuestionMessage { border-left: thick $warning; padding: 0 1; margin: 1 0 0 0; background: $boost; }
    """

    def __init__(self, entry: QuestionEntry) -> None:
        text = Text()
        text.append("You: ", "bold")
        text.append(entry.text)
        if entry.files:
            text.append("\n📎 " + ", ".join(entry.files), "italic")
        super().__init__(text)
        self.entry = entry


class ReplyMessage(Markdown):
    """One reply of the model, growing while it streams."""

    DEFAULT_CSS = """
    ReplyMessage { border-left: thick $accent 60%; padding: 0 1; margin: 1 0 0 0; }
    """

    def __init__(self, key: str, text: str = "") -> None:
        super().__init__(text)
        self.key = key
        self.text = text
        self._stream: MarkdownStream | None = None

    @property
    def streaming(self) -> bool:
        return self._stream is not None

    async def grow(self, text: str) -> None:
        """Show `text`, the whole reply so far (only the new end is sent to the stream)."""
        if not text.startswith(self.text):
            await self.finish(text)
            return
        fresh, self.text = text[len(self.text) :], text
        if not fresh:
            return
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(fresh)

    async def finish(self, text: str | None = None) -> None:
        """Stop streaming and draw the final text once, whole."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
        if text is not None:
            self.text = text
        await self.update(self.text)


class AskMessage(Static):
    DEFAULT_CSS = """
    AskMessage { border-left: thick $primary; padding: 0 1; margin: 1 0 0 0; background: $primary 15%; }
    """

    def show(self, entry: AskEntry) -> None:
        text = Text()
        text.append("The agent asks you: ", "bold")
        text.append(entry.question)
        if entry.answer is None:
            text.append("\n(type your answer below and press Enter)", "italic")
        else:
            text.append("\nYou answered: ", "bold")
            text.append(entry.answer)
        self.update(text)


class NoticeMessage(Static):
    DEFAULT_CSS = """
    NoticeMessage { padding: 0 1; margin: 1 0 0 0; color: $text-muted; }
    NoticeMessage.-warning { color: $warning; border-left: thick $warning; }
    NoticeMessage.-error { color: $error; border-left: thick $error; }
    """


class AnswerMessage(Static):
    DEFAULT_CSS = """
    AnswerMessage { border: round $success; padding: 0 1; margin: 1 0 0 0; height: auto; }
    AnswerMessage.-none { border: round $error 60%; }
    """


def answer_text(entry: AnswerEntry, stats: RunStats | None) -> Text:
    text = Text()
    if entry.answer is not None:
        text.append("Answer: ", "bold")
        text.append(entry.answer, "bold")
    elif entry.outcome == "cancelled":
        text.append("Stopped. What was said so far is kept.", "bold")
    else:
        text.append("No answer.", "bold")
    words = outcome_words(entry.outcome)
    if words and entry.answer is not None:
        text.append(f" ({words})", "italic")
    if stats is not None:
        steps = f"{stats.step} step" + ("" if stats.step == 1 else "s")
        line = f"\n{steps} · {stats.tokens:,} tokens · ${stats.cost_usd:.4f}"
        if stats.wall_s:
            line += f" · {stats.wall_s:.1f} s"
        if stats.error:
            line += f" · {stats.error}"
        text.append(line, "dim")
    return text


class ChatLog(VerticalScroll):
    DEFAULT_CSS = """
    ChatLog { padding: 0 1; }
    ChatLog > .empty { color: $text-muted; padding: 1 0; }
    """

    def __init__(self, placeholder: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.placeholder = placeholder
        self._replies: dict[str, ReplyMessage] = {}
        self._asks: dict[str, AskMessage] = {}

    def on_mount(self) -> None:
        self.anchor()
        if self.placeholder:
            self.mount(Static(self.placeholder, classes="empty"))

    def _add(self, widget):
        for placeholder in self.query(".empty"):
            placeholder.remove()
        return self.mount(widget)

    def add_question(self, entry: QuestionEntry) -> None:
        self._add(QuestionMessage(entry))

    async def reply(self, key: str, text: str = "") -> ReplyMessage:
        """The reply with this key, created at the bottom (showing `text`) on first use."""
        message = self._replies.get(key)
        if message is None:
            message = ReplyMessage(key, text)
            self._replies[key] = message
            await self._add(message)
        return message

    def has_reply(self, key: str) -> bool:
        return key in self._replies

    def streaming_replies(self) -> list[ReplyMessage]:
        return [message for message in self._replies.values() if message.streaming]

    def show_ask(self, entry: AskEntry) -> None:
        message = self._asks.get(entry.key)
        if message is None:
            message = AskMessage()
            self._asks[entry.key] = message
            self._add(message)
        message.show(entry)

    def add_notice(self, entry: NoticeEntry) -> None:
        self._add(NoticeMessage(entry.text, classes=f"-{entry.tone}"))

    def add_answer(self, entry: AnswerEntry, stats: RunStats | None) -> None:
        self._add(
            AnswerMessage(
                answer_text(entry, stats), classes="" if entry.answer is not None else "-none"
            )
        )
