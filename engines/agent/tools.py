"""What the agent engine needs to know about a tool.

Tools with side effects (python, shell, write_file, MCP tools) live in `arena.tools`; pure ones
(calculator, the Bananagrams game tools) live in `engines`. All of them follow this protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from engines.agent.llm import ToolSpec


class Risk(StrEnum):
    """How much harm a call can do; shown to the person who approves it."""

    SAFE = "safe"  # pure computation or reading inside the workspace
    NETWORK = "network"  # reaches the outside world, read-only
    EXEC = "exec"  # runs code or commands
    WRITE = "write"  # changes files or other state


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns. `output` is what the model sees (already size-capped by the tool).

    `citable` output becomes evidence the final answer may cite; errors never do.
    """

    output: str
    is_error: bool = False
    citable: bool = True
    data: dict[str, Any] = field(default_factory=dict)


class ToolError(Exception):
    """A tool failed in a way the model should hear about (bad arguments, limits hit, ...)."""


class Tool(Protocol):
    spec: ToolSpec
    risk: Risk
    # True for tools that must never run without a person's approval (shell, write_file, MCP).
    needs_approval: bool

    async def run(self, args: dict[str, Any]) -> ToolResult:
        """Run with arguments already validated against `spec.parameters`.

        Raise `ToolError` for failures the model should see; the engine turns them into an error
        result. Must honour cancellation (asyncio.CancelledError) promptly.
        """
        ...
