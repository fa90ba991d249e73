"""Validation of tool arguments against the JSON-schema subset our tools use.

Supported: `type` (object, string, integer, number, boolean, array, null, or a list of them),
`properties`, `required`, `additionalProperties`, `enum` and `items`. Other keywords (titles,
descriptions, formats, ...) are ignored, so richer schemas from MCP servers stay usable.
Errors name the exact path, so they can be sent back to the model as a repair hint.
"""

from __future__ import annotations

import json
from typing import Any


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Return every way `value` breaks `schema` (an empty list when it fits)."""
    errors: list[str] = []
    _check(value, schema, path, errors)
    return errors


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _has_type(value: Any, expected: str) -> bool:
    actual = _type_name(value)
    if expected == "number":
        return actual in ("integer", "number")
    if expected == "integer":
        # JSON does not distinguish 3 from 3.0.
        return actual == "integer" or (actual == "number" and float(value).is_integer())
    return actual == expected


def _check(value: Any, schema: dict[str, Any], path: str, errors: list[str]) -> None:
    if not isinstance(schema, dict):
        return
    expected = schema.get("type")
    if expected is not None:
        options = expected if isinstance(expected, list) else [expected]
        if not any(_has_type(value, option) for option in options):
            wanted = " or ".join(str(option) for option in options)
            errors.append(f"{path}: expected {wanted}, got {_type_name(value)}")
            return
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(json.dumps(option) for option in schema["enum"])
        errors.append(f"{path}: must be one of {allowed}, got {json.dumps(value, default=str)}")
    if isinstance(value, dict):
        _check_object(value, schema, path, errors)
    elif isinstance(value, list | tuple) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{index}]", errors)


def _check_object(
    value: dict[str, Any], schema: dict[str, Any], path: str, errors: list[str]
) -> None:
    properties = schema.get("properties") or {}
    for name in schema.get("required") or []:
        if name not in value:
            errors.append(f"{path}.{name}: required property is missing")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            _check(item, properties[name], f"{path}.{name}", errors)
        elif extra is False:
            known = ", ".join(properties) or "none"
            errors.append(f"{path}.{name}: unknown property (allowed: {known})")
        elif isinstance(extra, dict):
            _check(item, extra, f"{path}.{name}", errors)
