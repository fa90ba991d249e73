"""A chat with the reasoning agent, without the UI: the chat screen drives a `ChatController`,
and tests drive it with a scripted model and a scripted person.

The controller owns what outlives one question: the session in the store (created with the
first question, every event saved as it happens), its workspace folder and tools (the built-in
ones, the calculator and the user's MCP servers), the chosen model, policy and budget, and the
events so far. A change of model, policy or budget takes effect from the next question: the
`AgentSession` is rebuilt from the events with `AgentSession.resume`, so history, run numbers
and session-wide approvals carry over, exactly as when a saved session is resumed.

    controller = ChatController(store, model="openai/gpt-5-nano", policy="plan", human=person)
    await controller.start_tools()          # MCP servers: reports, never fatal
    result = await controller.ask("What is 12 * 3?", files=[], on_event=view.show)
    await controller.aclose()
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.sessions import (
    SessionRecorder,
    create_session,
    known_secrets,
    session_events,
    session_summary,
    session_workspace,
)
from arena.store import Store
from engines.agent.budget import Budget, Clock
from engines.agent.events import AgentEvent
from engines.agent.human import Human
from engines.agent.llm import LLM
from engines.agent.policies import POLICIES
from engines.agent.state import RunResult
from engines.agent.tools import Tool

log = logging.getLogger(__name__)

LLMMaker = Callable[[str], LLM]  # a model name to a model
EventCallback = Callable[[AgentEvent], None]
POLICY_NAMES = tuple(POLICIES)
POLICY_HELP = {
    "react": "Tools and an answer; no questions to you, risky calls are denied",
    "react+": "Adds questions to you and your approval of risky calls",
    "plan": "A task list the agent must close before it may answer; you approve risky calls",
}
MCP_CONFIG_NAMES = ("mcp.json", "mcp.yaml", "mcp.yml")


class ChatSetupError(ValueError):
    """The chat cannot start as asked (an unknown policy, a model name litellm refuses, a file
    to attach that is missing); the message is for people."""


@dataclass(frozen=True)
class ToolNote:
    """A line for the tool log about the tools themselves (an MCP server started or failed)."""

    text: str
    ok: bool


def litellm_maker(model: str) -> LLM:
    """The real model, through litellm (imported only now)."""
    from arena.llm import LiteLLM

    return LiteLLM(model)


def mcp_config_path(config_dir: Path) -> Path | None:
    """The user's MCP servers file in `config_dir` (mcp.json, mcp.yaml or mcp.yml), if any."""
    for name in MCP_CONFIG_NAMES:
        path = config_dir / name
        if path.is_file():
            return path
    return None


def _compact(number: float) -> str:
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if number >= size:
            return f"{number / size:g}{suffix}"
    return f"{number:g}"


def budget_summary(budget: Budget) -> str:
    """The limits of a budget in a few words: '15 steps, 400k tok, $1, 600 s'."""
    parts = []
    if budget.max_steps is not None:
        parts.append(f"{budget.max_steps} steps")
    if budget.max_tokens is not None:
        parts.append(f"{_compact(budget.max_tokens)} tok")
    if budget.max_cost_usd is not None:
        parts.append(f"${budget.max_cost_usd:g}")
    if budget.max_wall_s is not None:
        parts.append(f"{budget.max_wall_s:g} s")
    return ", ".join(parts) or "no limits"


def check_attachment(path: str | Path, attached: Sequence[Path] = ()) -> Path:
    """A file to attach, checked: it exists, and no attached file has the same name."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise ChatSetupError(f"No such file: {path}")
    path = path.resolve()
    for other in attached:
        if other.name == path.name and other != path:
            raise ChatSetupError(f"A file named {path.name!r} is already attached.")
    return path


class ChatController:
    def __init__(
        self,
        store: Store,
        *,
        model: str,
        policy: str = "react+",
        budget: Budget | None = None,
        llm_factory: LLMMaker = litellm_maker,
        human: Human | None = None,
        mcp_config: Path | None = None,
        secrets: Iterable[str] = (),
        session_id: str | None = None,
        events: Sequence[Mapping[str, Any]] = (),
        clock: Clock | None = None,
    ) -> None:
        if policy not in POLICIES:
            raise ChatSetupError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
        self.store = store
        self.model = model
        self.policy = policy
        self.budget = budget or Budget()
        self.llm_factory = llm_factory
        self.human = human
        self.mcp_config = mcp_config
        self.secrets = known_secrets(secrets)
        self.session_id = session_id
        self.events: list[dict[str, Any]] = [dict(event) for event in events]
        self.recorder: SessionRecorder | None = (
            SessionRecorder(store, session_id, self.secrets) if session_id else None
        )
        self.clock = clock  # None: the engine's monotonic clock (tests inject a fixed one)
        self.tool_notes: list[ToolNote] = []
        self._agent = None  # the AgentSession, rebuilt after a change of model, policy or budget
        self._builtin_tools: list[Tool] | None = None
        self._toolbox = None
        self._tools_started = False
        self._tools_lock = asyncio.Lock()

    @classmethod
    def resume(cls, store: Store, session_id: str, **options: Any) -> ChatController:
        """A controller that continues a saved session (its model and policy unless given)."""
        summary = session_summary(store, session_id)
        events = session_events(store, session_id)
        options.setdefault("model", summary.model)
        if not options.get("policy"):
            options["policy"] = summary.policy if summary.policy in POLICIES else "react+"
        return cls(store, session_id=session_id, events=events, **options)

    # --- choices -------------------------------------------------------------------------------

    def set_model(self, model: str) -> None:
        model = model.strip()
        if not model:
            raise ChatSetupError("A model name is required, for example openai/gpt-5-nano.")
        if model != self.model:
            self.model, self._agent = model, None

    def set_policy(self, policy: str) -> None:
        if policy not in POLICIES:
            raise ChatSetupError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
        if policy != self.policy:
            self.policy, self._agent = policy, None

    def set_budget(self, budget: Budget) -> None:
        if budget != self.budget:
            self.budget, self._agent = budget, None

    @property
    def save_error(self) -> Exception | None:
        return self.recorder.error if self.recorder else None

    @property
    def workspace(self) -> Path | None:
        return session_workspace(self.store, self.session_id) if self.session_id else None

    # --- tools ---------------------------------------------------------------------------------

    async def start_tools(self) -> list[ToolNote]:
        """Start the user's MCP servers (once); a server that fails is reported, not fatal."""
        async with self._tools_lock:
            if self._tools_started:
                return self.tool_notes
            self._tools_started = True
            if self.mcp_config is None:
                return self.tool_notes
            from arena.tools import MCPConfigError, MCPToolbox

            try:
                toolbox = MCPToolbox.from_file(self.mcp_config)
            except MCPConfigError as error:
                self.tool_notes.append(ToolNote(f"MCP servers not loaded: {error}", ok=False))
                return self.tool_notes
            await toolbox.start()
            self._toolbox = toolbox
            for report in toolbox.reports:
                self.tool_notes.append(ToolNote(report.summary(), ok=report.ok))
            return self.tool_notes

    def _tools(self, workspace: Path) -> list[Tool]:
        if self._builtin_tools is None:
            from arena.tools import default_tools
            from engines.agent.calculator import Calculator

            self._builtin_tools = [Calculator(), *default_tools(workspace)]
        mcp_tools = list(self._toolbox.tools) if self._toolbox is not None else []
        return [*self._builtin_tools, *mcp_tools]

    # --- asking ------------------------------------------------------------------------------

    def _ensure_session(self) -> str:
        if self.session_id is None:
            self.session_id = create_session(self.store, model=self.model, policy=self.policy)
            self.recorder = SessionRecorder(self.store, self.session_id, self.secrets)
        return self.session_id

    def _collect(self, event: AgentEvent) -> None:
        if not event.transient:
            self.events.append(event.to_dict())

    def _agent_session(self, workspace: Path):
        from engines.agent.session import AgentSession

        if self._agent is not None:
            return self._agent
        try:
            agent = AgentSession.resume(
                self.llm_factory(self.model),
                self.events,
                tools=self._tools(workspace),
                policy=self.policy,
                human=self.human,
                budget=self.budget,
                **({"clock": self.clock} if self.clock is not None else {}),
            )
        except ValueError as error:  # a model name litellm refuses, a policy without its person
            raise ChatSetupError(str(error)) from None
        assert self.recorder is not None
        agent.subscribe(self.recorder)
        agent.subscribe(self._collect)
        self._agent = agent
        return agent

    async def ask(
        self,
        question: str,
        files: Sequence[Path] = (),
        on_event: EventCallback | None = None,
    ) -> RunResult:
        """Answer one question with copies of `files` in the session's workspace.

        Cancelling stops the run; what was said so far is saved with it."""
        question = question.strip()
        if not question:
            raise ChatSetupError("Type a question first.")
        await self.start_tools()
        session_id = self._ensure_session()
        workspace = session_workspace(self.store, session_id)
        names = []
        for file in files:
            target = workspace / file.name
            if Path(file).resolve() != target.resolve():
                await asyncio.to_thread(shutil.copyfile, file, target)
            names.append(file.name)
        agent = self._agent_session(workspace)
        return await agent.run(question, names, on_event=on_event)

    async def aclose(self) -> None:
        """Stop the MCP servers."""
        toolbox, self._toolbox = self._toolbox, None
        if toolbox is not None:
            await toolbox.aclose()
