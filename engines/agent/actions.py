"""What the model asked for in one step, whichever way it said it (native calls or text JSON)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

FINAL_ANSWER = "final_answer"
ASK_USER = "ask_user"


class ActionKind(StrEnum):
    THINK = "think"
    TOOL_CALL = "tool_call"
    ASK_USER = "ask_user"
    FINAL_ANSWER = "final_answer"


@dataclass(frozen=True)
class ParsedCall:
    """One requested call. `args` is None when the arguments could not be used; `problem` says why."""

    id: str
    name: str
    args: dict[str, Any] | None
    raw: str
    problem: str = ""


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    text: str = ""  # the reasoning that came with the action
    calls: tuple[ParsedCall, ...] = ()

    @classmethod
    def from_calls(cls, text: str, calls: tuple[ParsedCall, ...]) -> Action:
        """Classify a reply: a final answer wins, a batch of only questions is ASK_USER."""
        names = {call.name for call in calls}
        if not calls:
            kind = ActionKind.THINK
        elif FINAL_ANSWER in names:
            kind = ActionKind.FINAL_ANSWER
        elif names == {ASK_USER}:
            kind = ActionKind.ASK_USER
        else:
            kind = ActionKind.TOOL_CALL
        return cls(kind=kind, text=text, calls=calls)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "text": self.text,
            "calls": [
                {"id": call.id, "name": call.name, "args": call.args, "problem": call.problem}
                for call in self.calls
            ],
        }
