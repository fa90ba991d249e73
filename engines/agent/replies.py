"""Turning a model reply into checked tool calls, for native calls and text actions alike.

Lenient where leniency is harmless (arguments as a JSON string, a bare string for a tool with
one string argument, 42 where a string is declared), strict where it matters: every call is
validated against its tool's schema, and the problem is worded for the model to fix it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engines.agent.actions import ParsedCall
from engines.agent.events import one_line
from engines.agent.llm import ToolCall, ToolSpec
from engines.agent.parsing import extract_json_object, parse_text_action
from engines.agent.schema import validate


def make_call(
    call_id: str, name: str, value: Any, raw: str, specs: Mapping[str, ToolSpec]
) -> ParsedCall:
    spec = specs.get(name)
    if isinstance(value, str):
        decoded = extract_json_object(value)
        only = _single_string_argument(spec) if spec is not None else None
        if decoded is not None:
            value = decoded
        elif only is not None:
            # {"action": "calculator", "action_input": "2+2"}
            value = {only: value}
    if not isinstance(value, dict):
        problem = f"the arguments must be a JSON object, not {type(value).__name__}"
        return ParsedCall(call_id, name, None, raw, problem)
    if spec is not None:
        value = _stringify_numbers(value, spec)
    return ParsedCall(call_id, name, value, raw)


def read_native_calls(
    tool_calls: Sequence[ToolCall], specs: Mapping[str, ToolSpec], step: int
) -> tuple[ParsedCall, ...]:
    calls = []
    for index, call in enumerate(tool_calls):
        call_id = call.id or f"call_{step}_{index}"
        raw = call.arguments or ""
        if not raw.strip():
            calls.append(make_call(call_id, call.name, {}, raw, specs))
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            # Truncated or sloppy arguments are recovered the same way as text actions.
            value = extract_json_object(raw)
            if value is None:
                problem = f"the arguments are not valid JSON: {one_line(raw, 80)!r}"
                calls.append(ParsedCall(call_id, call.name, None, raw, problem))
                continue
        calls.append(make_call(call_id, call.name, value, raw, specs))
    return tuple(calls)


def read_text_action(
    text: str, specs: Mapping[str, ToolSpec], step: int
) -> tuple[str, tuple[ParsedCall, ...], str]:
    """The thought, the calls and the problem ("" when the reply was readable) of a text reply."""
    parsed = parse_text_action(text)
    calls = tuple(
        make_call(
            f"s{step}_{index}", call.name, call.args, json.dumps(call.args, default=str), specs
        )
        for index, call in enumerate(parsed.calls)
    )
    return parsed.thought or text, calls, parsed.problem


def call_problem(call: ParsedCall, specs: Mapping[str, ToolSpec]) -> str:
    """Why the call cannot run as written ("" when it can)."""
    spec = specs.get(call.name)
    if spec is None:
        return f"there is no tool named {call.name!r}; the tools are: {', '.join(specs)}"
    if call.args is None:
        return f"the arguments for {call.name} could not be read: {call.problem}"
    errors = validate(call.args, spec.parameters)
    if errors:
        schema = json.dumps(spec.parameters, separators=(",", ":"))
        return (
            f"invalid arguments for {call.name}: {'; '.join(errors)}. "
            f"Call it again with arguments matching {schema}"
        )
    return ""


def _single_string_argument(spec: ToolSpec) -> str | None:
    """The name of a tool's only required argument when it is a string, else None."""
    required = spec.parameters.get("required") or []
    properties = spec.parameters.get("properties") or {}
    if len(required) == 1 and (properties.get(required[0]) or {}).get("type") == "string":
        return required[0]
    return None


def _stringify_numbers(args: dict[str, Any], spec: ToolSpec) -> dict[str, Any]:
    """Models often send 42 where a string is declared (final_answer's answer); accept it."""
    properties = spec.parameters.get("properties") or {}
    fixed = dict(args)
    for name, value in args.items():
        declared = (properties.get(name) or {}).get("type")
        if declared == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            fixed[name] = str(value)
    return fixed
