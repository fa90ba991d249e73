"""The five-axis budget and the meter that spends it.

Each axis trips on its own. Wall time counts only the agent's own time: waiting for a person
(answering or approving) and LLM retry back-off are excluded, so a slow human or a rate limit
does not eat the model's thinking time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum

from engines.agent.llm import Usage

Clock = Callable[[], float]


class BudgetAxis(StrEnum):
    STEPS = "steps"
    REPAIRS = "repairs"
    WALL_TIME = "wall_time"
    TOKENS = "tokens"
    COST = "cost"


@dataclass(frozen=True)
class Budget:
    """Limits for one run; None leaves an axis unlimited."""

    max_steps: int | None = 15  # productive steps
    max_repairs: int | None = 3  # consecutive repair steps (bad replies, push-backs, retries)
    max_wall_s: float | None = 600.0
    max_tokens: int | None = 400_000
    max_cost_usd: float | None = 1.0
    # The one forced-answer call after exhaustion gets this long at most.
    forced_answer_timeout_s: float = 60.0


@dataclass(frozen=True)
class Trip:
    axis: BudgetAxis
    used: float
    limit: float


class BudgetMeter:
    def __init__(self, budget: Budget, clock: Clock = time.monotonic) -> None:
        self.budget = budget
        self.clock = clock
        self.productive_steps = 0
        self.consecutive_repairs = 0
        self.repair_steps = 0
        self.usage = Usage()
        self._started: float | None = None
        self._excluded = 0.0
        self._paused_at: float | None = None

    def start(self) -> None:
        self._started = self.clock()

    @property
    def wall_s(self) -> float:
        if self._started is None:
            return 0.0
        now = self._paused_at if self._paused_at is not None else self.clock()
        return max(0.0, now - self._started - self._excluded)

    def remaining_wall_s(self) -> float | None:
        if self.budget.max_wall_s is None:
            return None
        return max(0.0, self.budget.max_wall_s - self.wall_s)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the wall clock while a person is answering or approving."""
        if self._paused_at is not None:  # already paused by an outer block
            yield
            return
        self._paused_at = self.clock()
        try:
            yield
        finally:
            self._excluded += self.clock() - self._paused_at
            self._paused_at = None

    def exclude(self, seconds: float) -> None:
        """Take time the agent did not use (LLM retry back-off) off the wall clock."""
        self._excluded += max(0.0, seconds)

    def add_usage(self, usage: Usage) -> None:
        self.usage = self.usage + usage

    def productive(self) -> None:
        self.productive_steps += 1
        self.consecutive_repairs = 0

    def repair(self) -> None:
        self.repair_steps += 1
        self.consecutive_repairs += 1

    def tripped(self) -> Trip | None:
        """The first exhausted axis, checked before each model call."""
        budget = self.budget
        checks = (
            (BudgetAxis.STEPS, self.productive_steps, budget.max_steps),
            (BudgetAxis.REPAIRS, self.consecutive_repairs, budget.max_repairs),
            (BudgetAxis.WALL_TIME, self.wall_s, budget.max_wall_s),
            (BudgetAxis.TOKENS, self.usage.total_tokens, budget.max_tokens),
            (BudgetAxis.COST, self.usage.cost_usd, budget.max_cost_usd),
        )
        for axis, used, limit in checks:
            if limit is not None and used >= limit:
                return Trip(axis, used, limit)
        return None
