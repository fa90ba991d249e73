"""Tolerant reading of JSON actions that models write in plain text.

Models without native tool calling are asked to reply with a JSON action. What comes back is
often fenced in ```json blocks, wrapped in prose, has trailing commas, Python literals, single
quotes, or is cut off mid-object when the reply hit its token limit. `iter_json_objects` finds
every object it can recover and never raises; `parse_text_action` turns one into tool calls.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# Bounds keep pathological replies cheap: replies are rarely longer, and models put the action
# in the first few objects.
MAX_SCAN_CHARS = 50_000
MAX_STARTS = 25
MAX_CUTBACKS = 8
MAX_LITERAL_CHARS = 10_000
# Repairing a truncated object is the expensive path; later starts inside an unclosed object
# are mostly its own suffixes, so only the first few get it.
MAX_COMPLETIONS = 2
# Total characters looked at across candidates, so nested or repeated braces stay cheap.
MAX_WORK_CHARS = 200_000

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_CLOSERS = {"{": "}", "[": "]"}
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object recoverable from `text`, or None."""
    return next(iter_json_objects(text), None)


def iter_json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object recoverable from `text`, fenced blocks first. Never raises."""
    if not isinstance(text, str) or "{" not in text:
        return
    text = text[:MAX_SCAN_CHARS]
    seen: set[str] = set()
    completions = MAX_COMPLETIONS
    work = 0
    for candidate in _candidates(text):
        work += len(candidate)
        if work > MAX_WORK_CHARS and seen:
            return
        if candidate in seen:
            continue
        seen.add(candidate)
        value = _load_tolerant(candidate, complete=completions > 0)
        if value is _TRUNCATED:
            completions -= 1
            continue
        if isinstance(value, dict):
            yield value


def _candidates(text: str) -> Iterator[str]:
    for match in _FENCE.finditer(text):
        body = match.group(1)
        start = body.find("{")
        if start >= 0:
            yield _balanced_prefix(body, start)
    starts = 0
    for start, char in enumerate(text):
        if char == "{":
            yield _balanced_prefix(text, start)
            starts += 1
            if starts >= MAX_STARTS:
                return


def _outside_strings(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(index, char) for every character outside JSON strings; the quotes that open and close a
    string are included, so a reader can tell whether a string is open."""
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if not in_string:
            in_string = char == '"'
            yield index, char
        elif escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            in_string = False
            yield index, char


def _balanced_prefix(text: str, start: int) -> str:
    """From `start` to the brace that closes it, or to the end when it never closes."""
    depth = 0
    for index, char in _outside_strings(text, start):
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return text[start:]


_TRUNCATED = object()  # an unclosed candidate that could not be completed


def _load_tolerant(candidate: str, *, complete: bool) -> Any:
    for attempt in (candidate, _clean(candidate)):
        try:
            return json.loads(attempt)
        except (ValueError, RecursionError):
            pass
    stack, in_string, _ = _scan(candidate)
    if stack or in_string:
        if not complete:
            return None
        completed = _complete(_clean(candidate))
        return _TRUNCATED if completed is None else completed
    return _python_literal(candidate)


def _clean(text: str) -> str:
    """Drop trailing commas and turn Python's True/False/None into JSON, outside strings."""
    out: list[str] = []
    in_string = False
    escaped = False
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            index += 1
            continue
        if char == '"':
            in_string = True
        elif char == ",":
            ahead = index + 1
            while ahead < length and text[ahead].isspace():
                ahead += 1
            if ahead < length and text[ahead] in "}]":
                index += 1
                continue
        elif char in "TFN" and (index == 0 or not text[index - 1].isalnum()):
            for word, replacement in _PY_LITERALS.items():
                end = index + len(word)
                if text.startswith(word, index) and (end >= length or not text[end].isalnum()):
                    out.append(replacement)
                    index = end
                    break
            else:
                out.append(char)
                index += 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _scan(text: str) -> tuple[list[str], bool, list[int]]:
    """Open brackets, whether a string is open at the end, and places an element may be cut."""
    stack: list[str] = []
    cuts: list[int] = []
    in_string = False
    for index, char in _outside_strings(text):
        if char == '"':
            in_string = not in_string
        elif char in "{[":
            stack.append(char)
            cuts.append(index + 1)
        elif char in "}]":
            if stack:
                stack.pop()
        elif char == ",":
            cuts.append(index)
    return stack, in_string, cuts


def _close(text: str) -> str:
    stack, in_string, _ = _scan(text)
    if in_string:
        # A dangling backslash would escape the quote we add.
        trailing = len(text) - len(text.rstrip("\\"))
        if trailing % 2:
            text = text[:-1]
        text += '"'
    text = text.rstrip()
    if text.endswith(","):
        text = text[:-1]
    elif text.endswith(":"):
        text += " null"
    return text + "".join(_CLOSERS[opener] for opener in reversed(stack))


def _complete(text: str) -> Any:
    """Repair a truncated object: close it, then cut back whole elements until it parses."""
    _, _, cuts = _scan(text)
    # Never cut back to the bare outer brace: an empty object would hide that nothing was read.
    cuts = [cut for cut in cuts if cut > 1]
    attempts = [text] + [text[:cut] for cut in reversed(cuts[-MAX_CUTBACKS:])]
    for attempt in attempts:
        try:
            return json.loads(_close(attempt))
        except (ValueError, RecursionError):
            continue
    return None


def _python_literal(text: str) -> Any:
    """Single-quoted dicts (`{'a': 1}`) as some models write them; literal_eval runs no code."""
    if len(text) > MAX_LITERAL_CHARS or "'" not in text:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    try:
        # literal_eval may give sets, bytes or tuples; keep only what JSON can say.
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class TextCall:
    """A tool call read from a text reply: `args` is whatever the model gave as input."""

    name: str
    args: Any


@dataclass(frozen=True)
class TextAction:
    """What a text reply asked for. No calls and no problem means the model only thought."""

    thought: str = ""
    calls: tuple[TextCall, ...] = ()
    problem: str = ""


_NAME_KEYS = ("action", "tool", "name", "tool_name", "function")
_INPUT_KEYS = ("action_input", "input", "args", "arguments", "parameters", "tool_input")
_BATCH_KEYS = ("actions", "tool_calls", "calls")
_ANSWER_KEYS = ("final_answer", "answer")


def parse_text_action(text: str) -> TextAction:
    """Read the JSON action in `text`; `problem` says exactly what was wrong when it fails."""
    if not text or not text.strip():
        return TextAction(problem="the reply was empty")
    first: dict[str, Any] | None = None
    for obj in iter_json_objects(text):
        action = _action_from_object(obj)
        if action is not None:
            return action
        if first is None:
            first = obj
    if first is None:
        return TextAction(problem="the reply contains no JSON object")
    keys = ", ".join(sorted(first)) or "none"
    return TextAction(
        problem=f'the JSON object has no "action" field (it has: {keys})',
        thought=_thought(first),
    )


def _thought(obj: dict[str, Any]) -> str:
    for key in ("thought", "reasoning", "thinking"):
        value = obj.get(key)
        if isinstance(value, str):
            return value
    return ""


def _action_from_object(obj: dict[str, Any]) -> TextAction | None:
    thought = _thought(obj)
    for key in _BATCH_KEYS:
        batch = obj.get(key)
        if isinstance(batch, list) and batch:
            calls = []
            for item in batch:
                call = _call_from_object(item) if isinstance(item, dict) else None
                if call is None:
                    return TextAction(
                        thought=thought,
                        problem=f'every item of "{key}" must be an object with "action" and "action_input"',
                    )
                calls.append(call)
            return TextAction(thought=thought, calls=tuple(calls))
    call = _call_from_object(obj)
    if call is not None:
        return TextAction(thought=thought, calls=(call,))
    if thought:
        return TextAction(thought=thought)
    return None


def _call_from_object(obj: dict[str, Any]) -> TextCall | None:
    for key in _NAME_KEYS:
        value = obj.get(key)
        if isinstance(value, dict):
            # {"action": {"name": "calculator", "input": {...}}}
            nested = _call_from_object(value)
            if nested is not None:
                return nested
        if isinstance(value, str) and value.strip():
            return TextCall(name=value.strip(), args=_input_of(obj))
    for key in _ANSWER_KEYS:
        if key in obj and not isinstance(obj[key], dict | list):
            args: dict[str, Any] = {"answer": obj[key]}
            if "claims" in obj:
                args["claims"] = obj["claims"]
            return TextCall(name="final_answer", args=args)
    return None


def _input_of(obj: dict[str, Any]) -> Any:
    for key in _INPUT_KEYS:
        if key in obj:
            return obj[key]
    # {"action": "calculator", "expression": "2+2"}: the other keys are the arguments.
    skip = {*_NAME_KEYS, "thought", "reasoning", "thinking"}
    return {key: value for key, value in obj.items() if key not in skip}
