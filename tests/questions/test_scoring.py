"""The official GAIA rules (quirks included) and the lenient mode on top of them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.questions import (
    ScoreMode,
    accuracy_by_level,
    lenient_scorer,
    question_scorer,
    score_answer,
)
from engines.questions.scoring import clean_prediction, gaia_rule
from tests.questions import gaia_reference

# (prediction, truth, official verdict)
GAIA_CASES = [
    # truth is a number: strip $ % , then float(); anything else is infinity
    ("42", "42", True),
    ("42.0", "42", True),
    (" 42 ", "42", True),
    ("$1,000", "1000", True),
    ("1,000,000", "1000000", True),
    ("12%", "12", True),
    ("1e3", "1000", True),
    ("1_000", "1000", True),  # float() accepts underscores
    ("17 km", "17", False),  # units other than $ and % are not stripped
    ("seventeen", "17", False),
    ("17.0001", "17", False),  # no tolerance
    ("-3", "-3", True),
    ("+3", "3", True),
    ("3", " 3 ", True),  # the truth goes through float() too
    ("0.1", "0.10", True),
    ("£5", "5", False),  # only $ is a known currency sign
    ("5.", "5", True),
    ("", "0", False),
    # truths float() reads in surprising ways
    ("1000", "1e3", True),
    ("12", "1_2", True),
    ("anything", "inf", True),  # an unparsable answer is infinity, which equals the truth
    ("", "Infinity", True),
    ("nan", "nan", False),  # nan never equals itself
    ("5", "nan", False),
    # truth with , or ; is a list: split both sides on every , and ;
    ("a, b", "a, b", True),
    ("a;b", "a, b", True),
    ("A,B", "a; b", True),
    ("b, a", "a, b", False),  # order matters
    ("a, b, c", "a, b", False),  # lengths must match
    ("a, b,", "a, b", False),  # a trailing separator is one more (empty) element
    ("a b, c", "ab, c", True),  # whitespace is removed inside elements
    ("St Paul, Rome", "St. Paul, Rome", False),  # punctuation is kept in lists
    ("St. Paul, Rome", "St. Paul, Rome", True),
    ("1, 2.0", "1, 2", True),  # number-like truth elements compare as floats
    ("$1, 2%", "1, 2", True),
    ("one, 2", "1, 2", False),
    ("1,000", "1,000", True),  # "1,000" is the list ["1", "000"]
    ("1000", "1,000", False),
    ("1,0", "1,000", True),  # 0 == float("000")
    ("$5, x", "5, x", True),
    ("inf, x", "inf, x", True),
    ("oops, x", "inf, x", True),
    # otherwise: remove whitespace and ASCII punctuation, lower-case
    ("Sea gull", "seagull", True),
    ("Paris.", "paris", True),
    ("St Paul", "St. Paul", True),
    ("don't", "dont", True),
    ("C++", "C", True),
    ("the Beatles", "Beatles", False),  # no article handling
    ("yes", "Yes", True),
    ("true", "yes", False),
    ("a\u2013b", "a-b", False),  # an en dash is not in string.punctuation
    ("\u201cword\u201d", "word", False),  # nor are curly quotes
    ("a\u00a0b", "ab", True),  # \s matches Unicode whitespace
    ("5%", "5 percent", False),
    ("5.0%", "5%", False),  # "5%" is text, so the dot is removed and "50" != "5"
    ("50%", "5.0%", True),
    ("", "", True),
]


@pytest.mark.parametrize(("prediction", "truth", "expected"), GAIA_CASES)
def test_official_scorer(prediction: str, truth: str, expected: bool) -> None:
    assert question_scorer(prediction, truth) is expected
    # the published code, kept as an oracle, agrees on every case
    assert gaia_reference.question_scorer(prediction, truth) is expected


@pytest.mark.parametrize(
    ("truth", "rule"),
    [("42", "number"), ("1e3", "number"), ("inf", "number"), ("1,000", "list"), ("a;b", "list")]
    + [("Paris", "string"), ("$5", "string"), ("5%", "string")],
)
def test_gaia_rule_names(truth: str, rule: str) -> None:
    assert gaia_rule(truth) == rule


_ALPHABET = st.sampled_from(list("0123456789 .,;$%-+eEabcAB_'\u2013\t") + ["nan", "inf", "1e3"])
_TEXT = st.lists(_ALPHABET, max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(prediction=_TEXT, truth=_TEXT)
def test_matches_published_scorer(prediction: str, truth: str) -> None:
    assert question_scorer(prediction, truth) == gaia_reference.question_scorer(prediction, truth)


@settings(max_examples=400, deadline=None)
@given(prediction=_TEXT, truth=_TEXT)
def test_lenient_is_never_stricter(prediction: str, truth: str) -> None:
    if question_scorer(prediction, truth):
        assert lenient_scorer(prediction, truth)


LENIENT_CASES = [
    # numbers: words and units around one number, tolerance, rounding to the truth's decimals
    ("17 km", "17", True),
    ("about 17", "17", True),
    ("17.0001", "17", True),
    ("17.4", "17", False),
    ("17 or 18", "17", False),  # two numbers: which one?
    ("3.14159", "3.14", True),
    ("3.15", "3.14", False),
    ("1000", "1,000", True),  # grouped thousands are a number, not a list
    ("$1,000.50", "1,000.50", True),
    ("seven", "7", True),
    ("Twenty", "20", True),
    ("eight", "7", False),
    ("5", "5%", True),
    ("$5", "5", True),
    ("5%", "5", True),
    ("0.5", "0.50", True),
    ("0.6", "0.50", False),
    # yes/no aliases, first word only
    ("True", "yes", True),
    ("Yes, it is.", "yes", True),
    ("y", "Yes", True),
    ("incorrect", "no", True),
    ("no", "yes", False),
    ("maybe", "yes", False),
    ("False", "No", True),
    # lists in any order, " and " or new lines as separators, elements compared leniently
    ("b, a", "a, b", True),
    ("b and a", "a, b", True),
    ("b\na", "a; b", True),
    ("a, a", "a, b", False),  # each truth element needs its own match
    ("a, b, c", "a, b", False),
    ("3, 1, 2", "1, 2, 3", True),
    ("The Beatles, Oasis", "oasis, beatles", True),
    ("3.0 km, 1", "1, 3", True),
    ("St Paul, Rome", "Rome, St. Paul", True),
    # text: articles, labels, quotes, trailing full stop, Unicode punctuation
    ("The Beatles", "Beatles", True),
    ("a", "A", True),  # a lone article is still compared
    ("Final answer: \u201cParis\u201d.", "paris", True),
    ("Answer - Paris", "Paris", True),
    ("'Paris'", "Paris", True),
    ("a\u2013b", "a-b", True),
    ("London", "Paris", False),
    ("", "Paris", False),
    ("Bananas", "banana", False),  # no stemming
]


@pytest.mark.parametrize(("prediction", "truth", "expected"), LENIENT_CASES)
def test_lenient_scorer(prediction: str, truth: str, expected: bool) -> None:
    assert lenient_scorer(prediction, truth) is expected


def test_lenient_accepts_what_gaia_rejects() -> None:
    # the point of the mode: each of these is wrong officially and right leniently
    for prediction, truth in [("17 km", "17"), ("b, a", "a, b"), ("True", "yes")]:
        assert not question_scorer(prediction, truth)
        assert lenient_scorer(prediction, truth)


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("  Final Answer: 42 ", "42"),
        ('"quoted"', "quoted"),
        ("`code`", "code"),
        ("Paris.", "Paris"),
        ("etc..", "etc.."),
        ("answer:x", "x"),
    ],
)
def test_clean_prediction(raw: str, cleaned: str) -> None:
    assert clean_prediction(raw) == cleaned


def test_results_name_their_mode() -> None:
    gaia = score_answer("17 km", "17")
    lenient = score_answer("17 km", "17", "lenient")
    assert (gaia.mode, gaia.correct, gaia.rule) == (ScoreMode.GAIA, False, "number")
    assert (lenient.mode, lenient.correct) == (ScoreMode.LENIENT, True)
    assert score_answer(None, "x").prediction == ""
    assert score_answer(None, "inf").correct  # a missing answer is "", which is infinity
    with pytest.raises(ValueError):
        score_answer("x", "x", "strict")


def test_accuracy_by_level() -> None:
    scored = [
        (1, score_answer("a", "a")),
        (1, score_answer("b", "a")),
        (3, score_answer("7", "7")),
        (2, score_answer("x", "y")),
    ]
    report = accuracy_by_level(scored)
    assert [(lvl.level, lvl.correct, lvl.total) for lvl in report.levels] == [
        (1, 1, 2),
        (2, 0, 1),
        (3, 1, 1),
    ]
    assert (report.correct, report.total) == (2, 4)
    assert report.accuracy == pytest.approx(0.5)
    assert report.levels[0].accuracy == pytest.approx(0.5)
    assert accuracy_by_level([]).accuracy == 0.0
    with pytest.raises(ValueError, match="lenient"):
        accuracy_by_level([(1, score_answer("a", "a", "lenient"))], "gaia")
