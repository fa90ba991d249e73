"""Small tools, a clock and event helpers shared by the agent tests."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engines.agent.events import AgentEvent
from engines.agent.llm import ToolSpec
from engines.agent.tools import Risk, ToolError, ToolResult


class FakeClock:
    """A clock tests move by hand, so wall-time budgets are exact and instant."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def spec(name: str, **properties: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=f"the {name} tool",
        parameters={
            "type": "object",
            "properties": {key: {"type": kind} for key, kind in properties.items()},
            "required": list(properties),
        },
    )


@dataclass
class LookupTool:
    """Returns canned text for a query; records the calls it got."""

    pages: dict[str, str]
    name: str = "lookup"
    risk: Risk = Risk.SAFE
    needs_approval: bool = False
    calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def spec(self) -> ToolSpec:
        return spec(self.name, query="string")

    async def run(self, args: dict[str, Any]) -> ToolResult:
        self.calls.append(args)
        if args["query"] not in self.pages:
            raise ToolError(f"nothing found for {args['query']!r}")
        return ToolResult(self.pages[args["query"]])


@dataclass
class ShellTool:
    """A stand-in for a tool that must be approved (runs "commands")."""

    name: str = "shell"
    risk: Risk = Risk.EXEC
    needs_approval: bool = True
    calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def spec(self) -> ToolSpec:
        return spec(self.name, command="string")

    async def run(self, args: dict[str, Any]) -> ToolResult:
        self.calls.append(args)
        return ToolResult(f"ran {args['command']}")


@dataclass
class GateTool:
    """Two of these in one batch prove they run concurrently: each waits for the other."""

    name: str
    peers: dict[str, asyncio.Event]
    risk: Risk = Risk.SAFE
    needs_approval: bool = False

    @property
    def spec(self) -> ToolSpec:
        return spec(self.name, value="string")

    async def run(self, args: dict[str, Any]) -> ToolResult:
        self.peers[self.name].set()
        others = [event for name, event in self.peers.items() if name != self.name]
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in others)), 2)
        return ToolResult(f"{self.name}:{args['value']}")


@dataclass
class SlowTool:
    """Sleeps (or waits forever) and notes whether it was cancelled."""

    seconds: float = 3600.0
    name: str = "slow"
    risk: Risk = Risk.SAFE
    needs_approval: bool = False
    started: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: bool = False

    @property
    def spec(self) -> ToolSpec:
        return spec(self.name, value="string")

    async def run(self, args: dict[str, Any]) -> ToolResult:
        self.started.set()
        try:
            await asyncio.sleep(self.seconds)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult("slept")


@dataclass
class ClockTool:
    """Moves a FakeClock forward as if the tool took that long."""

    clock: FakeClock
    seconds: float
    name: str = "work"
    risk: Risk = Risk.SAFE
    needs_approval: bool = False

    @property
    def spec(self) -> ToolSpec:
        return spec(self.name, value="string")

    async def run(self, args: dict[str, Any]) -> ToolResult:
        self.clock.advance(self.seconds)
        return ToolResult(f"worked on {args['value']}")


def kinds(events: Iterable[AgentEvent], *, transient: bool = False) -> list[str]:
    return [event.kind for event in events if transient or not event.transient]


def of_kind(events: Iterable[AgentEvent], kind: str) -> list[AgentEvent]:
    return [event for event in events if event.kind == kind]
