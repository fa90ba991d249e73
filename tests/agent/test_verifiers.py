import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.agent.state import Claim, ClaimKind, Evidence
from engines.agent.verifiers import (
    AnswerContext,
    check_arithmetic,
    check_citations,
    check_coverage,
    check_format,
    find_equalities,
    is_supported,
)


def evidence(**texts: str) -> dict[str, Evidence]:
    return {ident: Evidence(ident, "lookup", {}, text, 1) for ident, text in texts.items()}


# --- format ---


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("<answer>", "placeholder"),
        ("TODO", "placeholder"),
        ('{"action": "final_answer"}', "JSON"),
        ("```\n42\n```", "code fences"),
        ("x" * 5000, "5000 characters"),
    ],
)
def test_format_rejects_empty_and_malformed_answers(answer: str, fragment: str) -> None:
    verdict = check_format(AnswerContext(answer))
    assert not verdict.passed
    assert fragment in verdict.message
    assert verdict.nudge and "\n" not in verdict.nudge


@pytest.mark.parametrize("answer", ["42", "Paris", "3, 5, 7", "Todo list app"])
def test_format_accepts_ordinary_answers(answer: str) -> None:
    assert check_format(AnswerContext(answer)).passed


# --- arithmetic ---


@pytest.mark.parametrize(
    "text",
    [
        "12 * 3 = 35",
        "So the total is 100 - 7 = 92.",
        "**2 + 2 = 5**",
        "(3 + 4) * 2 = 15",
        "2^10 = 1000",
        "1,000 + 1 = 1,002",
        "$12 * 3 = $35",
        "age: 2023 - 1990 = 34",
        "3 * 4 = 12 = 6 + 7",
        "10 / 4 = 2.4",
        "6 × 7 = 41",
    ],
)
def test_arithmetic_catches_wrong_equalities(text: str) -> None:
    verdict = check_arithmetic(AnswerContext("x", reasoning=text))
    assert not verdict.passed, text
    assert "does not hold" in verdict.nudge and "\n" not in verdict.nudge


def test_arithmetic_nudge_states_the_right_value() -> None:
    verdict = check_arithmetic(AnswerContext("35", (Claim("12 * 3 = 35"),)))
    assert verdict.message == "12 * 3 = 35 does not hold: it is 36"


@pytest.mark.parametrize(
    "text",
    [
        "12 * 3 = 36",
        "1,000 + 1 = 1,001",
        "10/3 = 3.33",
        "10 / 3 = 3.333...",
        "2 ** 0.5 = 1.414",
        "0.1 + 0.2 = 0.3",
        "age: 2023 - 1990 = 33",
        "2023-1990=33",
        # Year ranges, dates, times and page ranges are not subtraction.
        "The study covered 2018-2023 = 6 years of data.",
        "In 2018–2023 = the boom years",
        "The 2018-19 = 2 seasons",
        "Launched 2023-05-01 = a Monday",
        "Born 05/01/1990 = 34 years ago",
        "From 12:30 - 12:00 = 30 minutes",
        "pages 10-20 = 11 pages",
        # Algebra, units and comparisons are left alone.
        "3x - 2*4 = 1",
        "x = 5 + 1",
        "f(3) = 3 * 4",
        "a == 3 + 4",
        "3 + 4 >= 9",
        "speed = 3 km * 4 = 12 km",
        "E1 = 3 + 3",
        "1e3 + 1 = 1",
        "version 1.2 + 3 = 4.2",
        "at 3,5 * 2 = 7 (European decimals)",
        "score 3-2 = win",
    ],
)
def test_arithmetic_has_no_false_alarms(text: str) -> None:
    assert check_arithmetic(AnswerContext("x", reasoning=text)).passed, find_equalities(text)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=-10_000, max_value=10_000),
    st.integers(min_value=-10_000, max_value=10_000),
    st.sampled_from(["+", "-", "*"]),
    st.integers(min_value=1, max_value=1000),
)
def test_right_sums_pass_and_wrong_ones_fail(a: int, b: int, op: str, error: int) -> None:
    right = {"+": a + b, "-": a - b, "*": a * b}[op]
    written = f"({a}) {op} ({b})"
    assert check_arithmetic(AnswerContext("x", reasoning=f"so {written} = {right}.")).passed
    assert not check_arithmetic(
        AnswerContext("x", reasoning=f"so {written} = {right + error}.")
    ).passed


def test_arithmetic_reads_answer_claims_and_reasoning() -> None:
    for context in (
        AnswerContext("2 + 2 = 5"),
        AnswerContext("4", (Claim("2 + 2 = 5"),)),
        AnswerContext("4", reasoning="first 2 + 2 = 5"),
    ):
        assert not check_arithmetic(context).passed


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1000, max_value=2100),
    st.integers(min_value=0, max_value=80),
    st.integers(min_value=-50, max_value=50),
)
def test_year_ranges_are_never_read_as_subtraction(start: int, length: int, stated: int) -> None:
    text = (
        f"Between {start}-{start + length + 1} = {stated} and {start}–{start + length} = {stated}"
    )
    assert check_arithmetic(AnswerContext("x", reasoning=text)).passed


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1900, max_value=2100),
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=1, max_value=28),
    st.integers(min_value=-99, max_value=99),
)
def test_dates_are_never_read_as_subtraction(year: int, month: int, day: int, stated: int) -> None:
    text = f"On {year}-{month:02d}-{day:02d} = {stated}, and {day}/{month}/{year} = {stated}"
    assert check_arithmetic(AnswerContext("x", reasoning=text)).passed


# --- citation ---


def word_overlap(claim: str, source: str) -> float:
    """banna's old score: the share of claim words found in the evidence."""
    claim_words = set(re.findall(r"\w+", claim.lower()))
    source_words = set(re.findall(r"\w+", source.lower()))
    return len(claim_words & source_words) / len(claim_words)


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("1234567 people lived there in 2020", "The census counted 1,234,567 residents (2020)."),
        ("Revenue was 1500000000 dollars", "Revenue reached $1.5 billion in 2021."),
        ("It costs 3.50", "Price: 3.5 EUR"),
        ("Its height: 8,849 metres", "Mount Everest rises 8849 m above sea level."),
        ("The tower is 330 m tall", "It stands 330 metres (1,083 ft) high."),
    ],
)
def test_citation_accepts_correct_claims_word_overlap_rejects(claim: str, source: str) -> None:
    assert word_overlap(claim, source) < 0.5  # the old check would have failed these
    context = AnswerContext("x", (Claim(claim, ("E1",)),), evidence(E1=source))
    assert check_citations(context).passed


def test_citation_normalises_case_whitespace_and_number_format() -> None:
    source = "The  Population of Springfield was 30,720\nin the 2010 census."
    claim = Claim("the population of springfield was 30720 in the 2010 CENSUS", ("e1",))
    assert is_supported(claim, [source]) == (True, "")


@pytest.mark.parametrize(
    ("claim", "fragment"),
    [
        (Claim("The capital is Lyon", ("E1",)), "lyon"),
        (Claim("The population was 1000", ("E1",)), "1000"),
        (Claim("something vague", ("E1",)), "not found"),
        (Claim("It rose", ("E1",), quote="Paris is the capital of Spain"), "quote"),
    ],
)
def test_citation_rejects_claims_the_evidence_does_not_contain(claim: Claim, fragment: str) -> None:
    context = AnswerContext(
        "x", (claim,), evidence(E1="Paris is the capital of France, 2,000 people.")
    )
    verdict = check_citations(context)
    assert not verdict.passed
    assert fragment in verdict.message
    assert "\n" not in verdict.nudge


def test_a_quote_copied_from_the_evidence_supports_a_paraphrase() -> None:
    claim = Claim("It is the French capital", ("E1",), quote="Paris is the capital of FRANCE")
    context = AnswerContext("x", (claim,), evidence(E1="Paris is the capital of France."))
    assert check_citations(context).passed


def test_broken_evidence_ids_fail() -> None:
    context = AnswerContext("x", (Claim("Paris", ("E1", "E7")),), evidence(E1="Paris"))
    verdict = check_citations(context)
    assert not verdict.passed
    assert "E7, which does not exist" in verdict.message


def test_matches_stay_inside_one_source() -> None:
    claim = Claim("the capital of the country", ("E1", "E2"))
    split = evidence(E1="the capital of", E2="the country is large")
    assert not check_citations(AnswerContext("x", (claim,), split)).passed


# --- coverage ---


def test_coverage_flags_factual_claims_without_evidence() -> None:
    context = AnswerContext("x", (Claim("Paris has 2 million people"),))
    verdict = check_coverage(context)
    assert not verdict.passed and "cites no evidence" in verdict.message


@pytest.mark.parametrize(
    "claim",
    [
        Claim("this follows from the above"),
        Claim("12 * 3 = 36"),
        Claim("Paris has 2 million people", ("E1",)),
        Claim("The result of task one is 5", kind=ClaimKind.TASK),
    ],
)
def test_coverage_ignores_non_factual_arithmetic_cited_and_task_claims(claim: Claim) -> None:
    assert check_coverage(AnswerContext("x", (claim,))).passed
