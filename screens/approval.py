"""The person in the agent's loop, through the UI.

`ScreenHuman` implements the engine's `Human` protocol for a screen: each request is posted to
the screen as a message carrying a Future (`ApprovalNeeded`, `AnswerNeeded`), and the agent
waits on that Future. The screen answers an approval with `ApprovalScreen`, a modal showing
the tool, its arguments and its risk, and a question through the chat's input box. When the
run is stopped the Future is cancelled and the screen takes the request away.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from arena.chat_transcript import format_args
from engines.agent.human import Decision
from engines.agent.tools import Risk

RISK_WORDS = {
    "safe": "reads or computes inside the workspace",
    "network": "reaches the internet (read only)",
    "exec": "runs code or commands on this computer",
    "write": "changes files",
}


class ApprovalNeeded(Message):
    """The agent wants to run a gated tool; set the Future to a `Decision`."""

    def __init__(self, tool: str, args: dict[str, Any], risk: str, future: asyncio.Future) -> None:
        super().__init__()
        self.tool, self.args, self.risk, self.future = tool, args, risk, future


class AnswerNeeded(Message):
    """The agent asked the person a question; set the Future to their answer."""

    def __init__(self, question: str, future: asyncio.Future) -> None:
        super().__init__()
        self.question, self.future = question, future


class ScreenClosed(RuntimeError):
    """Nobody is there to answer: the screen that would ask is gone."""


class ScreenHuman:
    """The `Human` protocol, answered by whoever handles the messages posted to `target`."""

    def __init__(self, target: MessagePump) -> None:
        self.target = target

    async def _request(self, make) -> Any:
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        if not self.target.post_message(make(future)):
            raise ScreenClosed("the chat screen is closed")
        return await future

    async def ask(self, question: str) -> str:
        return await self._request(lambda future: AnswerNeeded(question, future))

    async def approve(self, tool: str, args: dict[str, Any], risk: Risk) -> Decision:
        return await self._request(
            lambda future: ApprovalNeeded(tool, dict(args), str(risk), future)
        )


class ApprovalScreen(ModalScreen[Decision]):
    """Allow once, allow for this session (the tool, or this exact call), or deny."""

    TITLE = "Approve a tool call"

    BINDINGS = [
        Binding(
            "a",
            "decide('allow_once')",
            "Allow once",
            id="approval.once",
            tooltip="Run this call, ask again next time",
        ),
        Binding(
            "t",
            "decide('allow_session_tool')",
            "Allow tool",
            id="approval.tool",
            tooltip="Run this tool with any arguments for the rest of the session",
        ),
        Binding(
            "e",
            "decide('allow_session_exact')",
            "Allow exact",
            id="approval.exact",
            tooltip="Run this tool with exactly these arguments for the rest of the session",
        ),
        Binding(
            "d,escape",
            "decide('deny')",
            "Deny",
            id="approval.deny",
            tooltip="Refuse; the agent is told to find another way",
        ),
        Binding(
            "left",
            "app.focus_previous",
            "Previous button",
            show=False,
            id="approval.left",
            tooltip="Move to the button on the left",
        ),
        Binding(
            "right",
            "app.focus_next",
            "Next button",
            show=False,
            id="approval.right",
            tooltip="Move to the button on the right",
        ),
    ]

    def __init__(self, tool: str, args: dict[str, Any], risk: str) -> None:
        super().__init__()
        self.tool, self.args, self.risk = tool, args, risk

    def compose(self) -> ComposeResult:
        head = Text()
        head.append("The agent wants to run ")
        head.append(self.tool, "bold")
        risk = Text()
        risk.append(f"Risk: {self.risk}", "bold")
        risk.append(f" ({RISK_WORDS.get(self.risk, 'unknown')})")
        with Vertical(classes="dialog", id="approval"):
            yield Label(head, id="approval-title")
            yield Label(risk, id="approval-risk", classes=f"-{self.risk}")
            with VerticalScroll(id="approval-args"):
                yield Static(format_args(self.args), markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Allow once (a)", id="allow_once", variant="success")
                yield Button("Tool, this session (t)", id="allow_session_tool", variant="warning")
                yield Button(
                    "Exact call, this session (e)", id="allow_session_exact", variant="primary"
                )
                yield Button("Deny (d)", id="deny", variant="error")

    def on_mount(self) -> None:
        # Deny has the focus: an Enter meant for the chat input must not allow anything.
        self.query_one("#deny", Button).focus()

    def action_decide(self, decision: str) -> None:
        self.dismiss(Decision(decision))

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(Decision(event.button.id or "deny"))
