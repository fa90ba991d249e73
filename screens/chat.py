"""Chat with the reasoning agent and watch it think.

Panes: the conversation (replies stream in as Markdown), the task list, the tool log and a
status line. The agent runs in a worker that never touches a widget: every event comes back as
a message (`AgentEventArrived`, or `ReplyGrew` for streamed text, merged when they pile up) and
the handlers fold it into a `Transcript` and update the panes. A resumed session goes through
the very same handler, event by event.

The person answers through `ScreenHuman`: approvals in a modal, the agent's questions in the
chat's input box. Esc stops a run (what was said is kept and saved) or, when idle, goes back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import DirectoryTree, Footer, Header, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from arena.chat import (
    POLICY_HELP,
    POLICY_NAMES,
    ChatController,
    ChatSetupError,
    LLMMaker,
    ToolNote,
    budget_summary,
    check_attachment,
    litellm_maker,
)
from arena.chat_transcript import (
    AnswerEntry,
    AskEntry,
    NoticeEntry,
    QuestionEntry,
    ToolCallEntry,
    Transcript,
    as_event,
    budget_left,
)
from arena.settings import Settings
from arena.store import Store
from engines.agent.budget import Budget, Clock
from engines.agent.events import AgentEvent, LLMTextDelta
from engines.agent.human import Decision
from screens.approval import AnswerNeeded, ApprovalNeeded, ApprovalScreen, ScreenHuman
from screens.widgets.chat_log import ChatLog
from screens.widgets.status_bar import ChatStatus, StatusBar
from screens.widgets.task_list import TaskList
from screens.widgets.tool_log import ToolLog

log = logging.getLogger(__name__)

WELCOME = (
    "Ask a hard question and press Enter. Attach files with ctrl+o; choose the model (F2), the "
    "policy (F3) and the budget (F4). Risky tools (python, shell, write_file, MCP) need your "
    "approval."
)
ASK_PLACEHOLDER = "Ask a question… (Enter sends)"
ANSWER_PLACEHOLDER = "The agent asks you something: type your answer and press Enter"


def reply_key(run: int, step: int) -> str:
    return f"reply-{run}-{step}"


# --- messages: the worker's facts, in the order they happen -------------------------------------------


class AgentEventArrived(Message):
    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event


class ReplyGrew(Message):
    """The reply in progress, whole so far; a later one for the same reply replaces it."""

    def __init__(self, key: str, text: str) -> None:
        super().__init__()
        self.key, self.text = key, text

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ReplyGrew) and message.key == self.key


class RunEnded(Message):
    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


class ToolsReady(Message):
    def __init__(self, notes: list[ToolNote]) -> None:
        super().__init__()
        self.notes = notes


# --- small dialogs -----------------------------------------------------------------------------------


class ModelScreen(ModalScreen[str | None]):
    """Pick one of the configured models, or type another litellm model name."""

    TITLE = "Choose the model"

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="model.cancel", tooltip="Keep the model")
    ]

    def __init__(self, models: Iterable[str], current: str) -> None:
        super().__init__()
        self.models = list(dict.fromkeys(models))
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Model for the next question (Enter picks, Esc cancels)")
            yield OptionList(
                *(
                    Option(("● " if name == self.current else "  ") + name, id=name)
                    for name in self.models
                ),
                id="model-list",
            )
            yield Input(
                placeholder="or type a litellm model name, e.g. ollama/qwen3", id="model-name"
            )

    def on_mount(self) -> None:
        options = self.query_one("#model-list", OptionList)
        if self.current in self.models:
            options.highlighted = self.models.index(self.current)
        options.focus()

    @on(OptionList.OptionSelected, "#model-list")
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    @on(Input.Submitted, "#model-name")
    def typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())


class PolicyScreen(ModalScreen[str | None]):
    TITLE = "Choose the policy"
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="policy.cancel", tooltip="Keep the policy")
    ]

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Policy for the next question (Enter picks, Esc cancels)")
            yield OptionList(
                *(
                    Option(
                        f"{'●' if name == self.current else ' '} {name}\n  [dim]{POLICY_HELP[name]}[/dim]",
                        id=name,
                    )
                    for name in POLICY_NAMES
                ),
                id="policy-list",
            )

    def on_mount(self) -> None:
        options = self.query_one("#policy-list", OptionList)
        options.highlighted = (
            POLICY_NAMES.index(self.current) if self.current in POLICY_NAMES else 0
        )
        options.focus()

    @on(OptionList.OptionSelected, "#policy-list")
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


BUDGET_FIELDS = (
    ("max_steps", "Steps (productive) per question", int),
    ("max_tokens", "Tokens per question", int),
    ("max_cost_usd", "Cost per question, USD", float),
    ("max_wall_s", "Agent time per question, seconds", float),
)


class BudgetScreen(ModalScreen[Budget | None]):
    """Limits per question; an empty field means no limit."""

    TITLE = "Budget"

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="budget.cancel", tooltip="Keep the budget"),
        Binding(
            "ctrl+s",
            "save",
            "Save",
            id="budget.save",
            tooltip="Use these limits from the next question",
        ),
    ]

    def __init__(self, budget: Budget) -> None:
        super().__init__()
        self.budget = budget

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="budget-dialog"):
            yield Label(
                "Budget per question (empty = no limit). Enter in the last field or ctrl+s saves."
            )
            for name, label, _ in BUDGET_FIELDS:
                value = getattr(self.budget, name)
                yield Label(label, classes="field-label")
                yield Input(
                    "" if value is None else f"{value:g}",
                    id=f"budget-{name}",
                    classes="budget-field",
                )
            yield Static("", id="budget-problem")

    def on_mount(self) -> None:
        self.query_one(".budget-field", Input).focus()

    def read(self) -> Budget:
        values = {}
        for name, label, kind in BUDGET_FIELDS:
            text = self.query_one(f"#budget-{name}", Input).value.strip()
            if not text:
                values[name] = None
                continue
            try:
                value = kind(float(text)) if kind is int else kind(text)
            except ValueError:
                raise ChatSetupError(f"{label}: {text!r} is not a number") from None
            if value <= 0:
                raise ChatSetupError(f"{label}: must be more than 0")
            values[name] = value
        return Budget(**values, max_repairs=self.budget.max_repairs)

    def action_save(self) -> None:
        try:
            budget = self.read()
        except ChatSetupError as error:
            self.query_one("#budget-problem", Static).update(str(error))
            return
        self.dismiss(budget)

    @on(Input.Submitted, ".budget-field")
    def next_field(self, event: Input.Submitted) -> None:
        fields = list(self.query(".budget-field").results(Input))
        index = fields.index(event.input)
        if index + 1 < len(fields):
            fields[index + 1].focus()
        else:
            self.action_save()


class AttachScreen(ModalScreen[Path | None]):
    """Type a file's path, or pick it in the tree."""

    TITLE = "Attach a file"

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="attach.cancel", tooltip="Attach nothing")
    ]

    def __init__(self, start: Path, attached: list[Path]) -> None:
        super().__init__()
        self.start = start
        self.attached = attached

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="attach-dialog"):
            yield Label("Attach a file to the next question: type its path, or pick it below.")
            yield Input(placeholder="path/to/file", id="attach-path")
            yield DirectoryTree(self.start, id="attach-tree")
            yield Static("", id="attach-problem")

    def on_mount(self) -> None:
        self.query_one("#attach-path", Input).focus()

    def _choose(self, path: str | Path) -> None:
        try:
            chosen = check_attachment(path, self.attached)
        except ChatSetupError as error:
            self.query_one("#attach-problem", Static).update(str(error))
            return
        self.dismiss(chosen)

    @on(Input.Submitted, "#attach-path")
    def typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._choose(self.start / Path(event.value.strip()).expanduser())

    @on(DirectoryTree.FileSelected, "#attach-tree")
    def picked(self, event: DirectoryTree.FileSelected) -> None:
        self._choose(event.path)


# --- the command palette: models and policies by name ----------------------------------------------


class ChatCommands(Provider):
    """'Use model …' and 'Policy …' entries, so switching needs no dialog."""

    def _commands(self):
        screen = self.screen
        if not isinstance(screen, ChatScreen):
            return
        for model in screen.model_choices():
            yield (
                f"Chat: use model {model}",
                "Ask the next question with this model",
                partial(screen.choose_model, model),
            )
        for policy in POLICY_NAMES:
            yield (
                f"Chat: policy {policy}",
                POLICY_HELP[policy],
                partial(screen.choose_policy, policy),
            )

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)


# --- the screen --------------------------------------------------------------------------------------


class ChatScreen(Screen):
    TITLE = "Chat"
    COMMANDS = {ChatCommands}
    BINDINGS = [
        Binding(
            "escape",
            "stop",
            "Stop / back",
            id="chat.stop",
            tooltip="Stop the agent (what it said is kept); when idle, go back",
        ),
        Binding(
            "ctrl+o",
            "attach",
            "Attach",
            id="chat.attach",
            tooltip="Attach a file to the next question",
        ),
        Binding(
            "f2",
            "model",
            "Model",
            id="chat.model",
            tooltip="Choose the model for the next question",
        ),
        Binding(
            "f3",
            "policy",
            "Policy",
            id="chat.policy",
            tooltip="react, react+ or plan for the next question",
        ),
        Binding(
            "f4",
            "budget",
            "Budget",
            id="chat.budget",
            tooltip="Steps, tokens, cost and time per question",
        ),
        Binding(
            "ctrl+s",
            "sessions",
            "Sessions",
            id="chat.sessions",
            tooltip="Browse, search, resume and export saved sessions",
        ),
        Binding(
            "ctrl+t",
            "tools",
            "Tool log",
            show=False,
            id="chat.tools",
            tooltip="Move between the question box and the tool log",
        ),
        Binding(
            "ctrl+r",
            "expand",
            "Expand call",
            show=False,
            id="chat.expand",
            tooltip="Expand or fold the selected (or latest) tool call",
        ),
        Binding(
            "ctrl+l",
            "detach",
            "Clear files",
            show=False,
            id="chat.detach",
            tooltip="Remove the files attached to the next question",
        ),
        Binding(
            "ctrl+n",
            "new",
            "New session",
            show=False,
            id="chat.new",
            tooltip="Start a new, empty session",
        ),
        Binding(
            "f7",
            "questions",
            "Question sets",
            show=False,
            id="chat.questions",
            tooltip="Let the agent answer a question set, or answer it yourself",
        ),
    ]

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        llm_factory: LLMMaker | None = None,
        session_id: str | None = None,
        mcp_config: Path | None = None,
        attach_from: Path | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.settings = settings
        self.llm_factory = llm_factory or litellm_maker
        self.mcp_config = mcp_config
        self.attach_from = attach_from or Path.cwd()
        self.human = ScreenHuman(self)
        options = dict(
            llm_factory=self.llm_factory,
            human=self.human,
            mcp_config=mcp_config,
            secrets=settings.keys.values(),
            clock=clock,
        )
        self.clock = clock
        if session_id is None:
            self.controller = ChatController(
                store, model=settings.chat_model, policy=_policy(settings), **options
            )
        else:  # StoreError for a missing or damaged session: the app shows it instead of opening
            self.controller = ChatController.resume(store, session_id, **options)
        self.transcript = Transcript()
        self.attachments: list[Path] = []
        self.running = False
        self.stopping = False
        self._pending_answer: asyncio.Future | None = None
        self._approval: ApprovalScreen | None = None
        self._save_problem_shown = False

    # --- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="chat-body"):
            with Vertical(id="chat-main"):
                yield ChatLog(WELCOME, id="chat-log")
                yield Static("", id="chat-files")
                yield Input(placeholder=ASK_PLACEHOLDER, id="chat-input")
            with Vertical(id="chat-side"):
                yield TaskList(id="chat-tasks")
                yield ToolLog(id="chat-tools")
        yield StatusBar(id="chat-status")
        yield Footer()

    async def on_mount(self) -> None:
        self.query_one("#chat-tools", ToolLog).border_title = "Tool calls"
        self.query_one("#chat-tasks", TaskList).border_title = "Tasks"
        self.query_one("#chat-files", Static).display = False
        for stored in list(self.controller.events):
            event = as_event(stored)
            await self._show(self.transcript.apply(event), event)
        cut_off = self.transcript.last_run
        if cut_off is not None and cut_off.running:
            # A saved run without its end: the app stopped while the agent was working.
            self.query_one("#chat-log", ChatLog).add_notice(
                NoticeEntry(
                    cut_off.run,
                    cut_off.step,
                    "cut_off",
                    "This question was cut off: the app stopped before the agent finished.",
                    "warning",
                )
            )
        self._update_title()
        self._refresh_status()
        self.query_one("#chat-input", Input).focus()
        self._start_tools()

    def on_unmount(self) -> None:
        if self.controller.mcp_config is not None:
            self.app.run_worker(self.controller.aclose(), group="chat-cleanup")

    # --- the agent run ---------------------------------------------------------------------------

    @work(group="tools")
    async def _start_tools(self) -> None:
        self.post_message(ToolsReady(await self.controller.start_tools()))

    @work(exclusive=True, group="agent")
    async def _run(self, question: str, files: list[Path]) -> None:
        grown: dict[str, str] = {}

        def forward(event: AgentEvent) -> None:
            if isinstance(event, LLMTextDelta):
                key = reply_key(event.run, event.step)
                grown[key] = grown.get(key, "") + event.text
                self.post_message(ReplyGrew(key, grown[key]))
            else:
                self.post_message(AgentEventArrived(event))

        error = None
        try:
            await self.controller.ask(question, files, forward)
        except asyncio.CancelledError:
            self.post_message(RunEnded())
            raise
        except ChatSetupError as problem:
            error = str(problem)
        except Exception as problem:  # the engine failed; the run is saved as failed
            log.exception("the agent run failed")
            error = f"The agent failed: {type(problem).__name__}: {problem}"
        self.post_message(RunEnded(error))

    @on(ToolsReady)
    def tools_ready(self, message: ToolsReady) -> None:
        tools = self.query_one("#chat-tools", ToolLog)
        for note in message.notes:
            tools.add_note(note.text, ok=note.ok)

    @on(ReplyGrew)
    async def reply_grew(self, message: ReplyGrew) -> None:
        reply = await self.query_one("#chat-log", ChatLog).reply(message.key)
        await reply.grow(message.text)

    @on(AgentEventArrived)
    async def event_arrived(self, message: AgentEventArrived) -> None:
        event = message.event
        await self._show(self.transcript.apply(event), event)
        if event.kind == "run_started":
            self._update_title()
        self._refresh_status()

    async def _show(self, entry, event: AgentEvent) -> None:
        """Draw one event: the same path for live runs and resumed sessions."""
        chat = self.query_one("#chat-log", ChatLog)
        kind = event.kind
        if isinstance(entry, QuestionEntry):
            chat.add_question(entry)
            self.query_one("#chat-tasks", TaskList).tasks = ()
        elif isinstance(entry, ToolCallEntry):
            self.query_one("#chat-tools", ToolLog).upsert(entry)
        elif isinstance(entry, AskEntry):
            chat.show_ask(entry)
        elif isinstance(entry, NoticeEntry):
            chat.add_notice(entry)
        if kind == "llm_replied":
            key, text = reply_key(event.run, event.step), event.details["text"]
            if chat.has_reply(key):
                await (await chat.reply(key)).finish(text)
            elif text.strip():
                await chat.reply(key, text)
        elif kind in ("task_added", "task_completed", "task_skipped", "pushed_back"):
            self.query_one("#chat-tasks", TaskList).tasks = self.transcript.run_tasks(event.run)
        elif isinstance(entry, AnswerEntry):
            for reply in chat.streaming_replies():
                await reply.finish()  # a stopped reply keeps what was said
            key = reply_key(event.run, event.step)
            if entry.partial_text and not chat.has_reply(key):
                await chat.reply(key, entry.partial_text)
            chat.add_answer(entry, self.transcript.runs.get(event.run))

    @on(RunEnded)
    def run_ended(self, message: RunEnded) -> None:
        self.running = self.stopping = False
        if message.error:
            self.notify(
                message.error, title="The question was not run", severity="error", timeout=10
            )
        problem = self.controller.save_error
        if problem is not None and not self._save_problem_shown:
            self._save_problem_shown = True
            self.notify(f"The session could not be saved: {problem}", severity="error", timeout=10)
        self._refresh_status()
        self._ask_mode(False)

    # --- the person in the loop ------------------------------------------------------------------

    @on(ApprovalNeeded)
    def approval_needed(self, message: ApprovalNeeded) -> None:
        future = message.future
        modal = ApprovalScreen(message.tool, message.args, message.risk)

        def decided(decision: Decision | None) -> None:
            if not future.done():
                future.set_result(decision or Decision.DENY)
            self._approval = None
            self._refresh_status()

        def closed(done: asyncio.Future) -> None:
            # The run was stopped while the modal was open: take the request away.
            if done.cancelled() and self._approval is modal and modal.is_active:
                modal.dismiss(None)

        self._approval = modal
        future.add_done_callback(closed)
        self.app.push_screen(modal, decided)
        self._refresh_status()

    @on(AnswerNeeded)
    def answer_needed(self, message: AnswerNeeded) -> None:
        self._pending_answer = message.future

        def closed(done: asyncio.Future) -> None:
            if self._pending_answer is done:
                self._pending_answer = None
                self._ask_mode(False)
                self._refresh_status()

        message.future.add_done_callback(closed)
        self._ask_mode(True)
        self._refresh_status()

    def _ask_mode(self, answering: bool) -> None:
        box = self.query_one("#chat-input", Input)
        box.placeholder = ANSWER_PLACEHOLDER if answering else ASK_PLACEHOLDER
        box.set_class(answering, "-answering")
        if self.app.screen is self:
            box.focus()

    @on(Input.Submitted, "#chat-input")
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        box = event.input
        if self._pending_answer is not None:
            if not text:
                self.notify("Type an answer for the agent first.", severity="warning", timeout=3)
                return
            future, self._pending_answer = self._pending_answer, None
            box.clear()
            if not future.done():
                future.set_result(text)
            self._ask_mode(False)
            self._refresh_status()
            return
        if self.running:
            self.notify("The agent is still working; Esc stops it.", severity="warning", timeout=3)
            return
        if not text:
            return
        files, self.attachments = list(self.attachments), []
        self._show_files()
        box.clear()
        self.running = True
        self._refresh_status()
        self._run(text, files)

    # --- status ----------------------------------------------------------------------------------

    def _state(self) -> str:
        if self.stopping:
            return "stopping"
        if self._pending_answer is not None or self._approval is not None:
            return "waiting for you"
        return "thinking" if self.running else "idle"

    def _refresh_status(self) -> None:
        stats = self.transcript.last_run
        running = stats is not None and stats.running and self.running
        self.query_one("#chat-status", StatusBar).status = ChatStatus(
            policy=self.controller.policy,
            model=self.controller.model,
            state=self._state(),
            step=stats.step if stats else 0,
            tokens=self.transcript.tokens,
            cost_usd=self.transcript.cost_usd,
            left=budget_left(stats) if running and stats else {},
            budget=budget_summary(self.controller.budget),
        )

    def _update_title(self) -> None:
        session_id = self.controller.session_id
        first = next(
            (entry for entry in self.transcript.entries if isinstance(entry, QuestionEntry)), None
        )
        self.sub_title = f"{first.text[:50] if first else 'new session'}" + (
            f" · {session_id}" if session_id else ""
        )

    def _show_files(self) -> None:
        files = self.query_one("#chat-files", Static)
        files.update(
            Text("📎 " + ", ".join(path.name for path in self.attachments) + "   (ctrl+l clears)")
        )
        files.display = bool(self.attachments)

    # --- actions ---------------------------------------------------------------------------------

    def _idle(self, what: str) -> bool:
        if self.running:
            self.notify(
                f"Stop the agent (Esc) or wait before {what}.", severity="warning", timeout=3
            )
            return False
        return True

    def action_stop(self) -> None:
        if self.running:
            self.stopping = True
            self.workers.cancel_group(self, "agent")
            self._refresh_status()
        else:
            self.dismiss()

    def action_attach(self) -> None:
        def attached(path: Path | None) -> None:
            if path is not None and path not in self.attachments:
                self.attachments.append(path)
                self._show_files()

        self.app.push_screen(AttachScreen(self.attach_from, self.attachments), attached)

    def action_detach(self) -> None:
        self.attachments = []
        self._show_files()

    def model_choices(self) -> list[str]:
        return list(
            dict.fromkeys([self.controller.model, self.settings.chat_model, *self.settings.models])
        )

    def choose_model(self, model: str | None) -> None:
        if not model:
            return
        try:
            self.controller.set_model(model)
        except ChatSetupError as error:
            self.notify(str(error), severity="error")
            return
        self.notify(f"Next question: {model}", timeout=3)
        self._refresh_status()

    def choose_policy(self, policy: str | None) -> None:
        if not policy:
            return
        self.controller.set_policy(policy)
        self.notify(f"Next question: policy {policy}", timeout=3)
        self._refresh_status()

    def choose_budget(self, budget: Budget | None) -> None:
        if budget is None:
            return
        self.controller.set_budget(budget)
        self.notify(f"Budget per question: {budget_summary(budget)}", timeout=3)
        self._refresh_status()

    def action_model(self) -> None:
        self.app.push_screen(
            ModelScreen(self.model_choices(), self.controller.model), self.choose_model
        )

    def action_policy(self) -> None:
        self.app.push_screen(PolicyScreen(self.controller.policy), self.choose_policy)

    def action_budget(self) -> None:
        self.app.push_screen(BudgetScreen(self.controller.budget), self.choose_budget)

    def action_tools(self) -> None:
        tools = self.query_one("#chat-tools", ToolLog)
        if tools.focused_row() is not None or not tools.focus_last():
            self.query_one("#chat-input", Input).focus()

    def action_expand(self) -> None:
        tools = self.query_one("#chat-tools", ToolLog)
        row = tools.focused_row()
        if row is None and tools.focus_last():
            row = tools.focused_row()
        if row is not None:
            row.action_toggle()

    def sibling(self, session_id: str | None = None) -> ChatScreen:
        """Another chat screen like this one: a new session, or a saved one to resume."""
        return ChatScreen(
            self.store,
            self.settings,
            llm_factory=self.llm_factory,
            session_id=session_id,
            mcp_config=self.mcp_config,
            attach_from=self.attach_from,
            clock=self.clock,
        )

    def _switch_to(self, session_id: str | None) -> None:
        from arena.store import StoreError

        try:
            screen = self.sibling(session_id)
        except StoreError as error:
            self.notify(str(error), title="Cannot resume", severity="error", timeout=10)
            return
        self.app.switch_screen(screen)

    def action_new(self) -> None:
        if self._idle("starting a new session"):
            self._switch_to(None)

    def action_sessions(self) -> None:
        from screens.sessions import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id and session_id != self.controller.session_id and self._idle("resuming"):
                self._switch_to(session_id)

        browser = SessionsScreen(self.store, pick=True, open_session=self.controller.session_id)
        self.app.push_screen(browser, chosen)

    def action_questions(self) -> None:
        from screens.questions import QuestionSetsScreen

        self.app.push_screen(
            QuestionSetsScreen(
                self.store,
                model=self.controller.model,
                policy=self.controller.policy,
                budget=self.controller.budget,
                llm_factory=self.llm_factory,
            )
        )


def _policy(settings: Settings) -> str:
    return settings.chat_policy if settings.chat_policy in POLICY_NAMES else "react+"
