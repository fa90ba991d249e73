"""The person in the loop: answering the agent's questions and approving risky tool calls.

A `Human` is anything with two async methods; the UI implements them with modals, tests with
`engines.agent.scripted.ScriptedHuman`. Both calls may be cancelled (the run was stopped).
Session-wide approvals live in an `ApprovalMemory`, which `rebuild_approvals` reconstructs from
stored events so a resumed session keeps them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from engines.agent.tools import Risk


class Decision(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_SESSION_TOOL = "allow_session_tool"  # this tool, any arguments, for the session
    ALLOW_SESSION_EXACT = "allow_session_exact"  # this tool with these exact arguments
    DENY = "deny"

    @property
    def allows(self) -> bool:
        return self is not Decision.DENY


class Human(Protocol):
    async def ask(self, question: str) -> str:
        """The person's answer to the agent's question."""
        ...

    async def approve(self, tool: str, args: dict[str, Any], risk: Risk) -> Decision:
        """Whether the agent may run `tool` with `args`."""
        ...


# Decides without a person; returning True allows the call once.
AutoApprove = Callable[[str, dict[str, Any], Risk], bool]


def canonical_args(args: Mapping[str, Any]) -> str:
    """A stable text form of arguments, so `{"a":1,"b":2}` and `{"b":2,"a":1}` match."""
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass
class ApprovalMemory:
    """Session-wide approvals: whole tools, and tools with exact arguments."""

    tools: set[str] = field(default_factory=set)
    exact: set[tuple[str, str]] = field(default_factory=set)

    def recall(self, tool: str, args: Mapping[str, Any]) -> Decision | None:
        if tool in self.tools:
            return Decision.ALLOW_SESSION_TOOL
        if (tool, canonical_args(args)) in self.exact:
            return Decision.ALLOW_SESSION_EXACT
        return None

    def remember(self, tool: str, args: Mapping[str, Any], decision: Decision | str) -> None:
        decision = Decision(decision)
        if decision is Decision.ALLOW_SESSION_TOOL:
            self.tools.add(tool)
        elif decision is Decision.ALLOW_SESSION_EXACT:
            self.exact.add((tool, canonical_args(args)))


def rebuild_approvals(events: Iterable[Any]) -> ApprovalMemory:
    """Replay stored `approval_decided` events (objects or their `to_dict()` form) into memory."""
    memory = ApprovalMemory()
    for event in events:
        data = event if isinstance(event, Mapping) else event.to_dict()
        if data.get("kind") != "approval_decided":
            continue
        details = data.get("details") or {}
        if details.get("source") != "person":
            continue
        try:
            decision = Decision(details.get("decision"))
        except ValueError:
            continue
        memory.remember(str(details.get("tool", "")), details.get("args") or {}, decision)
    return memory
