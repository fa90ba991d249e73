"""Question sets: let the agent answer a whole set (progress, accuracy by level), or answer it
yourself, with the attached files shown, for a human baseline scored by the same scorer.

The agent's set run happens in a worker; it saves each answer (arena.chat_questions) and posts
`QuestionStarted` / `QuestionFinished`, which the handlers draw.
"""

from __future__ import annotations

import asyncio
import time

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from arena.chat import LLMMaker, litellm_maker
from arena.chat_questions import (
    HUMAN,
    QuestionRunLog,
    QuestionSetError,
    attachment_text,
    available_sets,
    level_lines,
    open_set,
)
from arena.questions_run import AgentOptions, ModelUnavailable, QuestionRun, run_question_set
from arena.store import Store
from engines.agent.budget import Budget
from engines.questions import AccuracyReport, Question, QuestionSet, ScoreResult, accuracy_by_level

COLUMNS = (
    ("id", "id"),
    ("level", "level"),
    ("question", "question"),
    ("file", "file"),
    ("agent", "agent"),
    ("agent_ok", "✓"),
    ("you", "you"),
    ("you_ok", "✓"),
)


def _short(text: str | None, width: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _mark(score: ScoreResult | None) -> Text:
    if score is None:
        return Text("-", "dim")
    return Text("✓", "bold green") if score.correct else Text("✗", "bold red")


def _percent(correct: int, total: int) -> str:
    return f"{correct}/{total} {100 * correct / total:.0f}%" if total else "-"


def accuracy_table(reports: dict[str, AccuracyReport], levels: tuple[int, ...]) -> Table | None:
    """Rows for who answered, columns for each level and all of them."""
    if not reports:
        return None
    table = Table(box=None, padding=(0, 1), show_edge=False)
    table.add_column("accuracy")
    for level in levels:
        table.add_column(f"level {level}", justify="right")
    table.add_column("all", justify="right")
    for who, report in reports.items():
        by_level = {entry.level: entry for entry in report.levels}
        cells = [
            _percent(by_level[level].correct, by_level[level].total) if level in by_level else "-"
            for level in levels
        ]
        table.add_row(who, *cells, _percent(report.correct, report.total))
    return table


# --- picking a set ---------------------------------------------------------------------------------


class QuestionSetsScreen(Screen):
    TITLE = "Question sets"
    BINDINGS = [
        Binding(
            "ctrl+f",
            "folder",
            "Folder",
            id="sets.folder",
            tooltip="Open a GAIA-layout folder by its path",
        ),
        Binding("escape", "back", "Back", id="sets.back", tooltip="Back to where you were"),
    ]

    def __init__(
        self,
        store: Store,
        *,
        model: str,
        policy: str,
        budget: Budget | None = None,
        llm_factory: LLMMaker | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.model, self.policy = model, policy
        self.budget = budget or Budget()
        self.llm_factory = llm_factory or litellm_maker

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="sets"):
            yield Label(
                "Pick a question set (Enter), or type the path of a GAIA-layout folder below."
            )
            names = available_sets()
            yield OptionList(*(Option(name, id=name) for name in names), id="set-list")
            yield Input(placeholder="path/to/folder with metadata.jsonl", id="set-path")
            yield Static("", id="set-problem")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#set-list", OptionList).focus()

    def _open(self, spec: str) -> None:
        try:
            question_set = open_set(spec)
        except QuestionSetError as error:
            self.query_one("#set-problem", Static).update(str(error))
            return
        self.query_one("#set-problem", Static).update("")
        self.app.push_screen(
            QuestionSetScreen(
                self.store,
                question_set,
                model=self.model,
                policy=self.policy,
                budget=self.budget,
                llm_factory=self.llm_factory,
            )
        )

    @on(OptionList.OptionSelected, "#set-list")
    def picked(self, event: OptionList.OptionSelected) -> None:
        self._open(event.option.id or "")

    @on(Input.Submitted, "#set-path")
    def typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._open(event.value)

    def action_folder(self) -> None:
        self.query_one("#set-path", Input).focus()

    def action_back(self) -> None:
        self.dismiss()


# --- one set -----------------------------------------------------------------------------------------


class QuestionStarted(Message):
    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question


class QuestionFinished(Message):
    def __init__(self, run: QuestionRun) -> None:
        super().__init__()
        self.run = run


class SetRunEnded(Message):
    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


class QuestionSetScreen(Screen):
    TITLE = "Question set"
    BINDINGS = [
        Binding(
            "r",
            "run",
            "Run the agent",
            id="set.run",
            tooltip="Let the agent answer every question, scored as it goes",
        ),
        Binding(
            "y",
            "answer",
            "Answer yourself",
            id="set.answer",
            tooltip="Answer the questions yourself for a human baseline",
        ),
        Binding(
            "s",
            "stop",
            "Stop",
            id="set.stop",
            tooltip="Stop the agent's run (answers so far are kept)",
        ),
        Binding(
            "x",
            "allow_code",
            "Allow code",
            id="set.allow",
            tooltip="Let the agent run python, shell and write_file without asking (nobody approves in a set run)",
        ),
        Binding("escape", "back", "Back", id="set.back", tooltip="Back to the list of sets"),
    ]

    def __init__(
        self,
        store: Store,
        question_set: QuestionSet,
        *,
        model: str,
        policy: str,
        budget: Budget | None = None,
        llm_factory: LLMMaker | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.question_set = question_set
        self.model, self.policy = model, policy
        self.budget = budget or Budget()
        self.llm_factory = llm_factory or litellm_maker
        self.allow_code = False
        self.running = False
        self.agent_scores: dict[str, ScoreResult] = {}
        self.person_scores: dict[str, ScoreResult] = {}
        self.agent_cost = 0.0
        self.done = 0

    def compose(self) -> ComposeResult:
        yield Header()
        table: DataTable = DataTable(id="set-questions", cursor_type="row", zebra_stripes=True)
        for key, label in COLUMNS:
            table.add_column(label, key=key)
        for question in self.question_set:
            table.add_row(
                question.task_id,
                str(question.level),
                _short(question.question, 48),
                question.file_name or "",
                "",
                "",
                "",
                "",
                key=question.task_id,
            )
        yield table
        with Horizontal(id="set-footer"):
            with Vertical(id="set-progress-box"):
                yield Label("", id="set-state")
                yield ProgressBar(total=len(self.question_set), show_eta=False, id="set-progress")
            yield Static("", id="set-accuracy")
        yield Footer()

    def on_mount(self) -> None:
        self._describe()
        self._show_accuracy()
        self.query_one("#set-questions", DataTable).focus()

    def _describe(self) -> None:
        code = "code allowed" if self.allow_code else "code denied"
        self.sub_title = f"{self.question_set.name} · {len(self.question_set)} questions · {self.model} · {self.policy} · {code}"
        state = f"Agent: {self.done}/{len(self.question_set)} answered, ${self.agent_cost:.4f}"
        if self.running:
            state += " · running…"
        self.query_one("#set-state", Label).update(state)

    def _show_accuracy(self) -> None:
        """Accuracy by level for the agent and for you, as a small table."""
        levels = {question.task_id: question.level for question in self.question_set}
        table = accuracy_table(
            {
                who: accuracy_by_level((levels[task], score) for task, score in scores.items())
                for who, scores in (("Agent", self.agent_scores), ("You", self.person_scores))
                if scores
            },
            self.question_set.levels,
        )
        self.query_one("#set-accuracy", Static).update(table or "No answers scored yet.")

    # --- the agent ---------------------------------------------------------------------------------

    @work(exclusive=True, group="set-run")
    async def _run_set(self) -> None:
        log = QuestionRunLog.start(
            self.store, self.question_set.name, model=self.model, policy=self.policy
        )
        options = AgentOptions(policy=self.policy, allow_risky=self.allow_code, budget=self.budget)

        def finished(run: QuestionRun) -> None:
            log.record_agent(run)
            self.post_message(QuestionFinished(run))

        error = None
        try:
            await run_question_set(
                list(self.question_set),
                lambda task_id: self.llm_factory(self.model),
                options,
                on_started=lambda question: self.post_message(QuestionStarted(question)),
                on_finished=finished,
            )
        except asyncio.CancelledError:
            log.finish("stopped")
            self.post_message(SetRunEnded())
            raise
        except ModelUnavailable as problem:
            error = f"The model is not available: {problem}"
        except Exception as problem:  # the model factory refused the name, a database problem
            error = f"{type(problem).__name__}: {problem}"
        log.finish("finished" if error is None else "failed")
        self.post_message(SetRunEnded(error))

    @on(QuestionStarted)
    def question_started(self, message: QuestionStarted) -> None:
        table = self.query_one("#set-questions", DataTable)
        table.update_cell(message.question.task_id, "agent", Text("thinking…", "italic"))

    @on(QuestionFinished)
    def question_finished(self, message: QuestionFinished) -> None:
        run = message.run
        task_id = run.question.task_id
        table = self.query_one("#set-questions", DataTable)
        answer = (
            run.answer if run.answer is not None else ("(crashed)" if run.crash else "(no answer)")
        )
        table.update_cell(task_id, "agent", _short(answer, 24))
        table.update_cell(task_id, "agent_ok", _mark(run.score))
        if run.score is not None:
            self.agent_scores[task_id] = run.score
        self.agent_cost += run.cost_usd
        self.done += 1
        self.query_one("#set-progress", ProgressBar).advance(1)
        self._describe()
        self._show_accuracy()

    @on(SetRunEnded)
    def set_run_ended(self, message: SetRunEnded) -> None:
        self.running = False
        if message.error:
            self.notify(message.error, title="The set run stopped", severity="error", timeout=10)
        self._describe()

    def action_run(self) -> None:
        if self.running:
            self.notify("The agent is already answering this set.", severity="warning", timeout=3)
            return
        self.running = True
        self.done = 0
        self.agent_cost = 0.0
        self.agent_scores = {}
        progress = self.query_one("#set-progress", ProgressBar)
        progress.update(total=len(self.question_set), progress=0)
        table = self.query_one("#set-questions", DataTable)
        for question in self.question_set:
            table.update_cell(question.task_id, "agent", "")
            table.update_cell(question.task_id, "agent_ok", "")
        self._describe()
        self._show_accuracy()
        self._run_set()

    def action_stop(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "set-run")

    def action_allow_code(self) -> None:
        self.allow_code = not self.allow_code
        self._describe()

    # --- the person --------------------------------------------------------------------------------

    def action_answer(self) -> None:
        table = self.query_one("#set-questions", DataTable)
        start = table.cursor_row if table.row_count else 0

        def finished(results: dict[str, tuple[str, ScoreResult | None]] | None) -> None:
            for task_id, (answer, score) in (results or {}).items():
                table.update_cell(task_id, "you", _short(answer, 20))
                table.update_cell(task_id, "you_ok", _mark(score))
                if score is not None:
                    self.person_scores[task_id] = score
            self._show_accuracy()

        self.app.push_screen(
            PersonAnswerScreen(self.store, self.question_set, start=start), finished
        )

    def action_back(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "set-run")
        self.dismiss()


class PersonAnswerScreen(Screen[dict]):
    """One question at a time, with its attached file; your answer is scored at once."""

    TITLE = "Your answers"
    BINDINGS = [
        Binding("ctrl+n", "next", "Next", id="baseline.next", tooltip="Skip to the next question"),
        Binding(
            "escape",
            "finish",
            "Finish",
            id="baseline.finish",
            tooltip="Stop here; your answers so far are saved",
        ),
    ]

    def __init__(self, store: Store, question_set: QuestionSet, *, start: int = 0) -> None:
        super().__init__()
        self.store = store
        self.question_set = question_set
        self.index = max(0, min(start, len(question_set) - 1))
        self.run_log: QuestionRunLog | None = None
        self.results: dict[str, tuple[str, ScoreResult | None]] = {}
        self.shown_at = time.monotonic()
        self.answered = False

    @property
    def question(self) -> Question:
        return self.question_set.questions[self.index]

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="baseline"):
            yield Static("", id="baseline-head")
            yield Static("", id="baseline-question")
            with VerticalScroll(id="baseline-file"):
                yield Static("", id="baseline-file-text", markup=False)
            yield Input(placeholder="Your answer (Enter scores it)", id="baseline-answer")
            yield Static("", id="baseline-verdict")
            yield Static("", id="baseline-score")
        yield Footer()

    def on_mount(self) -> None:
        self._show_question()

    def _show_question(self) -> None:
        question = self.question
        self.answered = False
        self.shown_at = time.monotonic()
        self.query_one("#baseline-head", Static).update(
            Text(
                f"Question {self.index + 1} of {len(self.question_set)} · level {question.level} · {question.task_id}",
                "bold",
            )
        )
        self.query_one("#baseline-question", Static).update(question.question)
        box = self.query_one("#baseline-file", VerticalScroll)
        box.display = question.file_path is not None
        box.border_title = question.file_name or ""
        self.query_one("#baseline-file-text", Static).update("")
        self.query_one("#baseline-verdict", Static).update("")
        answer = self.query_one("#baseline-answer", Input)
        answer.clear()
        answer.placeholder = "Your answer (Enter scores it)"
        answer.focus()
        if question.file_path is not None:
            self._load_file(question)

    @work(exclusive=True, group="file")
    async def _load_file(self, question: Question) -> None:
        text = await attachment_text(question)
        self.post_message(self.FileLoaded(question.task_id, text))

    class FileLoaded(Message):
        def __init__(self, task_id: str, text: str) -> None:
            super().__init__()
            self.task_id, self.text = task_id, text

    @on(FileLoaded)
    def file_loaded(self, message: FileLoaded) -> None:
        if message.task_id == self.question.task_id:
            self.query_one("#baseline-file-text", Static).update(message.text)

    @on(Input.Submitted, "#baseline-answer")
    def submitted(self, event: Input.Submitted) -> None:
        if self.answered:
            self.action_next()
            return
        answer = event.value.strip()
        if not answer:
            self.notify("Type an answer, or ctrl+n to skip.", severity="warning", timeout=3)
            return
        if self.run_log is None:
            self.run_log = QuestionRunLog.start(
                self.store, self.question_set.name, model=HUMAN, policy=HUMAN
            )
        question = self.question
        score = self.run_log.record_person(
            question, answer, seconds=time.monotonic() - self.shown_at
        )
        self.results[question.task_id] = (answer, score)
        self.answered = True
        verdict = self.query_one("#baseline-verdict", Static)
        if score is None:
            verdict.update(Text("Saved. This question has no answer to score against.", "italic"))
        elif score.correct:
            verdict.update(Text("✓ Correct", "bold green"))
        else:
            verdict.update(
                Text(f"✗ Not correct: the expected answer is {question.final_answer}", "bold red")
            )
        report = self.run_log.report
        self.query_one("#baseline-score", Static).update("You: " + " · ".join(level_lines(report)))
        event.input.clear()
        event.input.placeholder = "Enter for the next question"

    def action_next(self) -> None:
        if self.index + 1 >= len(self.question_set):
            self.notify("That was the last question.", timeout=3)
            self.action_finish()
            return
        self.index += 1
        self._show_question()

    def action_finish(self) -> None:
        if self.run_log is not None:
            self.run_log.finish()
        self.dismiss(self.results)
