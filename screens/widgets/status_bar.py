"""The chat's status line: policy, model, what the agent is doing, steps, tokens, cost, and
what the budget still allows for the question in progress."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

# The component class that styles each state of the agent.
STATE_CLASSES = {
    "idle": "status-bar--idle",
    "thinking": "status-bar--thinking",
    "waiting for you": "status-bar--waiting",
    "stopping": "status-bar--stopping",
}


@dataclass(frozen=True)
class ChatStatus:
    policy: str = ""
    model: str = ""
    state: str = "idle"  # idle | thinking | waiting for you | stopping
    step: int = 0  # steps of the question in progress (or the last one)
    tokens: int = 0  # the whole session
    cost_usd: float = 0.0  # the whole session
    left: dict[str, float] = field(default_factory=dict)  # steps / tokens / cost still allowed
    budget: str = ""  # the limits per question, shown when idle


class StatusBar(Widget):
    COMPONENT_CLASSES = {*STATE_CLASSES.values(), "status-bar--dim"}
    DEFAULT_CSS = """
    StatusBar { height: 1; padding: 0 1; background: $panel; }
    StatusBar > .status-bar--idle { color: $text-muted; }
    StatusBar > .status-bar--thinking { color: $accent; text-style: bold; }
    StatusBar > .status-bar--waiting { color: $warning; text-style: bold; }
    StatusBar > .status-bar--stopping { color: $error; text-style: bold; }
    StatusBar > .status-bar--dim { color: $text-muted; }
    """

    status: reactive[ChatStatus] = reactive(ChatStatus)

    def render(self) -> Text:
        status = self.status
        state_style = self.get_component_rich_style(
            STATE_CLASSES.get(status.state, "status-bar--idle")
        )
        dim = self.get_component_rich_style("status-bar--dim")
        text = Text(overflow="ellipsis", no_wrap=True)
        text.append(status.policy or "?", "bold")
        text.append(" · ")
        text.append(status.model or "no model")
        text.append(" · ")
        text.append(f"● {status.state}", state_style)
        text.append(f" · step {status.step} · {status.tokens:,} tok · ${status.cost_usd:.4f}")
        if status.state != "idle" and status.left:
            parts = []
            if "steps" in status.left:
                parts.append(f"{int(status.left['steps'])} steps")
            if "tokens" in status.left:
                parts.append(f"{int(status.left['tokens']):,} tok")
            if "cost" in status.left:
                parts.append(f"${status.left['cost']:.4f}")
            text.append(" · left: " + ", ".join(parts), dim)
        elif status.budget:
            text.append(f" · per question: {status.budget}", dim)
        return text
