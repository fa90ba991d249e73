from engines.agent.schema import validate

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "nested": {
            "type": "object",
            "properties": {"inner": {"type": "integer"}},
            "required": ["inner"],
        },
    },
    "required": ["name"],
}


def test_valid_arguments_pass() -> None:
    value = {
        "name": "a",
        "count": 3,
        "ratio": 0.5,
        "flag": True,
        "mode": "fast",
        "tags": ["x", "y"],
        "nested": {"inner": 1},
        "extra": "allowed by default",
    }
    assert validate(value, SCHEMA) == []


def test_integral_floats_are_integers_and_ints_are_numbers() -> None:
    assert validate({"name": "a", "count": 3.0, "ratio": 2}, SCHEMA) == []
    assert validate({"name": "a", "count": 3.5}, SCHEMA) == [
        "$.count: expected integer, got number"
    ]


def test_every_error_names_its_path() -> None:
    value = {
        "count": "3",
        "flag": 1,
        "mode": "medium",
        "tags": ["ok", 2],
        "nested": {},
    }
    assert sorted(validate(value, SCHEMA)) == sorted(
        [
            "$.name: required property is missing",
            "$.count: expected integer, got string",
            "$.flag: expected boolean, got integer",
            '$.mode: must be one of "fast", "slow", got "medium"',
            "$.tags[1]: expected string, got integer",
            "$.nested.inner: required property is missing",
        ]
    )


def test_booleans_are_not_numbers() -> None:
    assert validate(True, {"type": "integer"}) == ["$: expected integer, got boolean"]
    assert validate(False, {"type": "number"}) == ["$: expected number, got boolean"]


def test_type_lists_null_and_closed_objects() -> None:
    assert validate(None, {"type": ["string", "null"]}) == []
    assert validate(3, {"type": ["string", "null"]}) == ["$: expected string or null, got integer"]
    closed = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": False,
    }
    assert validate({"a": "x", "b": 1}, closed) == ["$.b: unknown property (allowed: a)"]
    assert validate([1, "x"], {"type": "object"}) == ["$: expected object, got array"]
