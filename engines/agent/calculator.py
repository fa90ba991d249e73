"""The calculator tool: plain arithmetic through the same safe evaluator the verifier uses."""

from __future__ import annotations

from typing import Any

from engines.agent.llm import ToolSpec
from engines.agent.safe_eval import EvalError, evaluate, format_number
from engines.agent.tools import Risk, ToolError, ToolResult


class Calculator:
    spec = ToolSpec(
        name="calculator",
        description=(
            "Evaluate an arithmetic expression exactly. Numbers, + - * / // % ** (or ^) and "
            "parentheses only, e.g. '(1200 - 950) / 950 * 100'."
        ),
        parameters={
            "type": "object",
            "properties": {
                "expression": {"type": "string", "description": "The expression to evaluate."}
            },
            "required": ["expression"],
        },
    )
    risk = Risk.SAFE
    needs_approval = False

    async def run(self, args: dict[str, Any]) -> ToolResult:
        expression = str(args["expression"]).strip()
        try:
            value = evaluate(expression)
        except EvalError as error:
            raise ToolError(f"cannot evaluate {expression!r}: {error}") from None
        result = format_number(value)
        # "expression = value" makes a claim like "12 * 3 = 36" citable by containment.
        return ToolResult(output=f"{expression} = {result}", data={"value": result})
