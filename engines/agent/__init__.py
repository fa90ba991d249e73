"""The reasoning agent engine: a model thinks, calls tools and commits an answer, while a person
may answer its questions and approve risky calls. Pure: it reaches models only through the
`LLM` protocol and tools only through the `Tool` protocol.

Start with `AgentSession` (session.py); events are in events.py, the scripted model for tests and
demos in scripted.py.
"""

from engines.agent.budget import Budget, BudgetAxis
from engines.agent.calculator import Calculator
from engines.agent.human import (
    ApprovalMemory,
    AutoApprove,
    Decision,
    Human,
    rebuild_approvals,
)
from engines.agent.policies import PlanPolicy, Policy, ReactPlusPolicy, ReactPolicy, make_policy
from engines.agent.session import AgentSession, rebuild_history
from engines.agent.state import Claim, Evidence, Outcome, RunResult, Task, TraceEntry
from engines.agent.verifiers import DEFAULT_VERIFIERS, Verdict

__all__ = [
    "DEFAULT_VERIFIERS",
    "AgentSession",
    "ApprovalMemory",
    "AutoApprove",
    "Budget",
    "BudgetAxis",
    "Calculator",
    "Claim",
    "Decision",
    "Evidence",
    "Human",
    "Outcome",
    "PlanPolicy",
    "Policy",
    "ReactPlusPolicy",
    "ReactPolicy",
    "RunResult",
    "Task",
    "TraceEntry",
    "Verdict",
    "make_policy",
    "rebuild_approvals",
    "rebuild_history",
]
