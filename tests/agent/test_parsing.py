import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.agent.parsing import (
    TextCall,
    extract_json_object,
    iter_json_objects,
    parse_text_action,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure.\n```json\n{"a": 1}\n```\nDone.', {"a": 1}),
        ('```\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
        ('I will call it: {"a": {"b": "x"}} and then stop.', {"a": {"b": "x"}}),
        ('{"flag": True, "none": None, "off": False}', {"flag": True, "none": None, "off": False}),
        ("{'a': 'single quotes'}", {"a": "single quotes"}),
        ('{"text": "braces } and ] inside a string"}', {"text": "braces } and ] inside a string"}),
        ('prose with {braces} first, then {"a": 2}', {"a": 2}),
    ],
)
def test_extracts_objects_from_messy_text(text: str, expected: dict) -> None:
    assert extract_json_object(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"action": "calculator", "action_input": {"expression": "2+2"',
            {"action": "calculator", "action_input": {"expression": "2+2"}},
        ),
        (
            '```json\n{"action": "lookup", "action_input": {"query": "Par',
            {"action": "lookup", "action_input": {"query": "Par"}},
        ),
        ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
        ('{"a": 1, "b":', {"a": 1, "b": None}),
        ('{"a": 1, "b"', {"a": 1}),
        ('{"a": "x\\', {"a": "x"}),
    ],
)
def test_repairs_truncated_blocks(text: str, expected: dict) -> None:
    assert extract_json_object(text) == expected


@pytest.mark.parametrize("text", ["", "no json here", "{braces} only", "{", "[1, 2]", "{{{{"])
def test_returns_nothing_useful_without_an_object(text: str) -> None:
    found = extract_json_object(text)
    assert found is None or found == {}


def test_fenced_blocks_come_first() -> None:
    text = 'Example: {"action": "wrong"}\n```json\n{"action": "right"}\n```'
    assert [obj["action"] for obj in iter_json_objects(text)][:1] == ["right"]


def test_parses_a_single_action() -> None:
    action = parse_text_action(
        '{"thought": "add them", "action": "calculator", "action_input": {"expression": "2+2"}}'
    )
    assert action.problem == ""
    assert action.thought == "add them"
    assert action.calls == (TextCall("calculator", {"expression": "2+2"}),)


def test_parses_a_batch_and_alternative_spellings() -> None:
    batch = parse_text_action(
        '{"actions": [{"action": "a", "action_input": {"x": 1}}, {"tool": "b", "args": {"y": 2}}]}'
    )
    assert batch.calls == (TextCall("a", {"x": 1}), TextCall("b", {"y": 2}))
    flat = parse_text_action('{"action": "calculator", "expression": "1+1"}')
    assert flat.calls == (TextCall("calculator", {"expression": "1+1"}),)
    nested = parse_text_action('{"action": {"name": "lookup", "input": {"query": "q"}}}')
    assert nested.calls == (TextCall("lookup", {"query": "q"}),)


def test_bare_final_answer_shortcut() -> None:
    action = parse_text_action('The answer: {"final_answer": 42}')
    assert action.calls == (TextCall("final_answer", {"answer": 42}),)


def test_thought_only_is_thinking() -> None:
    action = parse_text_action('{"thought": "I need to plan first."}')
    assert action.calls == () and action.problem == "" and action.thought == "I need to plan first."


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "the reply was empty"),
        ("I think the answer is 4.", "the reply contains no JSON object"),
        ('{"foo": 1}', 'the JSON object has no "action" field (it has: foo)'),
        ('{"actions": [{"action": "a"}, 3]}', '"actions" must be an object'),
    ],
)
def test_problems_are_specific(text: str, problem: str) -> None:
    assert problem in parse_text_action(text).problem


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    found = extract_json_object(text)
    assert found is None or isinstance(found, dict)
    action = parse_text_action(text)
    assert action.problem or action.calls or action.thought


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
prose = st.text(alphabet=st.characters(blacklist_characters="{}`[]\"'"), max_size=40)


@settings(max_examples=150, deadline=None)
@given(json_objects, prose, prose)
def test_finds_any_object_wrapped_in_prose(obj: dict, before: str, after: str) -> None:
    assert extract_json_object(f"{before}{json.dumps(obj)}{after}") == obj
    assert (
        extract_json_object(f"{before}\n```json\n{json.dumps(obj, indent=2)}\n```\n{after}") == obj
    )


@settings(max_examples=200, deadline=None)
@given(json_objects, st.data())
def test_truncated_objects_never_raise(obj: dict, data: st.DataObject) -> None:
    text = json.dumps(obj)
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    found = extract_json_object(text[:cut])
    assert found is None or isinstance(found, dict)
    # Whatever is recovered only holds keys the object really had.
    if found:
        assert set(found) <= set(obj)


@pytest.mark.parametrize(
    "text",
    ["{" * 50_000, '{"a": [' * 7_000, '{"a": 1, ' * 5_000, "x " * 25_000 + "{"],
    ids=["braces", "nested-arrays", "long-object", "prose"],
)
def test_pathological_replies_stay_cheap(text: str) -> None:
    import time

    started = time.perf_counter()
    parse_text_action(text)
    assert time.perf_counter() - started < 5
