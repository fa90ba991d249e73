"""Rule-based checks of a proposed answer (no LLM): format, arithmetic, citation, coverage.

Every check returns a `Verdict`; a failed one carries a one-line nudge the loop sends back to the
model on a retry. The checks lean towards silence: a false alarm costs a step and can talk the
model out of a right answer, so anything ambiguous (year ranges, dates, algebra) is skipped.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from engines.agent.safe_eval import EvalError, Number, evaluate, format_number, strip_thousands
from engines.agent.state import Claim, ClaimKind, Evidence

MAX_ANSWER_CHARS = 4000


@dataclass(frozen=True)
class Verdict:
    check: str
    passed: bool
    message: str = ""
    nudge: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "passed": self.passed,
            "message": self.message,
            "nudge": self.nudge,
        }


@dataclass(frozen=True)
class AnswerContext:
    """What the checks look at: the answer, its claims, the run's evidence and the reasoning
    that came with the answer."""

    answer: str
    claims: tuple[Claim, ...] = ()
    evidence: Mapping[str, Evidence] | None = None
    reasoning: str = ""


Verifier = Callable[[AnswerContext], Verdict]


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


# --- format ----------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(
    r"(?i:<\s*(?:your|final)?\s*answer\s*>|\[\s*(?:your|final)\s+answer\s*\])|\bTODO\b|\bTBD\b"
)
_ACTION_RESIDUE = re.compile(r"```|\{\s*\"(?:action|tool|thought|final_answer)\"")


def check_format(context: AnswerContext) -> Verdict:
    answer = context.answer
    if not answer or not answer.strip():
        return Verdict(
            "format",
            False,
            "the answer is empty",
            "Your final answer was empty: call final_answer again with the actual answer.",
        )
    if _ACTION_RESIDUE.search(answer):
        return Verdict(
            "format",
            False,
            "the answer contains code fences or JSON action text",
            "Put only the answer itself in `answer`, without code fences or JSON.",
        )
    if _PLACEHOLDER.search(answer):
        return Verdict(
            "format",
            False,
            "the answer contains a placeholder",
            "Your answer still contains a placeholder (like <answer> or TODO): give the real answer.",
        )
    if len(answer) > MAX_ANSWER_CHARS:
        return Verdict(
            "format",
            False,
            f"the answer is {len(answer)} characters long",
            f"Your answer is too long ({len(answer)} characters): give just the answer, briefly.",
        )
    return Verdict("format", True)


# --- arithmetic ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Equality:
    left: str
    right: str
    left_value: Number
    right_value: Number
    holds: bool

    @property
    def text(self) -> str:
        return f"{self.left} = {self.right}"

    @property
    def computed(self) -> str:
        """The true value of whichever side is the computation."""
        side = self.left_value if _is_compound(self.left) else self.right_value
        return format_number(side)


# What an expression may be made of; the evaluator turns × ÷ − ^ into Python operators. The en
# dash is left out on purpose: between numbers it is a range.
_SPAN_CHARS = set("0123456789.+-*/%()^×·÷−✕ \t")
_NO_CURRENCY = str.maketrans("", "", "$€£")
# Things that look like subtraction but are not: dates, and ranges such as 2018-2023, 10-20
# pages or 2018-19 seasons (an ascending pair joined by a bare hyphen, or any pair joined by a
# dash). Subtraction the other way round (2023-2018) is left alone.
_DATES = re.compile(
    r"\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b"
)
_DASH_RANGE = re.compile(r"(?<![\d.])\d+(?:\.\d+)?\s*[–—]\s*\d+(?:\.\d+)?(?![\d.])")
_HYPHEN_PAIR = re.compile(r"(?<![\d.,])(\d+)-(\d+)(?![\d.,])")
_LITERAL = re.compile(r"[-+]?\d+(?:\.(\d+))?")
_COMPOUND = re.compile(r"[\d)]\s*(?:\*\*|//|[-+*/%^×·÷−✕])\s*[-+(.\d]")


def _mask_ranges(text: str) -> str:
    text = _DATES.sub(" DATE ", text)
    text = _DASH_RANGE.sub(" RANGE ", text)

    def hyphen(match: re.Match[str]) -> str:
        first, second = match.group(1), match.group(2)
        ascending = int(first) < int(second)
        season = len(first) == 4 and len(second) == 2 and int(second) > int(first[2:])
        return " RANGE " if ascending or season else match.group()

    return _HYPHEN_PAIR.sub(hyphen, text)


def _is_compound(side: str) -> bool:
    return bool(_COMPOUND.search(side))


def _glued_before(text: str, index: int) -> bool:
    """Is the character at `index` part of a word or number the expression continues?"""
    if index < 0:
        return False
    char = text[index]
    return char.isalnum() or char in "_,.:'’\"="


def _glued_after(text: str, index: int) -> bool:
    if index >= len(text):
        return False
    char = text[index]
    if char.isalnum() or char == "_":
        return True
    return char in ",.:" and index + 1 < len(text) and text[index + 1].isdigit()


def _neighbour(text: str, index: int, step: int) -> str:
    while 0 <= index < len(text) and text[index] in " \t":
        index += step
    return text[index] if 0 <= index < len(text) else ""


def _left_side(text: str, equals: int) -> str | None:
    start = equals
    while start > 0 and text[start - 1] in _SPAN_CHARS:
        start -= 1
    raw = text[start:equals]
    side = raw.strip().lstrip("*/%^.)").strip()
    if not side:
        return None
    begin = equals - len(raw.lstrip()) + (len(raw.strip()) - len(side))
    if _glued_before(text, begin - 1):
        return None
    # "3x - 2*4 = 1": the expression continues to the left of what we can read.
    if side[0] in "+-*/%" and (_neighbour(text, begin - 1, -1).isalnum()):
        return None
    while side.startswith("(") and side.count("(") > side.count(")"):
        side = side[1:].strip()
    return side


def _right_side(text: str, equals: int) -> str | None:
    end = equals + 1
    while end < len(text) and text[end] in _SPAN_CHARS:
        end += 1
    raw = text[equals + 1 : end]
    side = raw.strip().rstrip("*/%^+-.( ").strip()
    if not side:
        return None
    finish = equals + 1 + (len(raw) - len(raw.lstrip())) + len(side)
    if _glued_after(text, finish) and finish == end:
        return None
    if raw.rstrip()[-1:] in "+-*/%^" and _neighbour(text, end, 1).isalnum():
        return None
    while side.endswith(")") and side.count(")") > side.count("("):
        side = side[:-1].strip()
    return side


def _tolerance(side: str, other_value: Number) -> Fraction:
    """How far a literal may be from the computed value and still be a fair rounding."""
    match = _LITERAL.fullmatch(side.replace(" ", ""))
    if match is None:
        return Fraction(0)
    decimals = match.group(1)
    if decimals:
        return Fraction(1, 2 * 10 ** len(decimals))
    whole = isinstance(other_value, Fraction) and other_value.denominator == 1
    return Fraction(0) if whole else Fraction(1, 2)


def _holds(left: str, right: str, left_value: Number, right_value: Number) -> bool:
    if left_value == right_value:
        return True
    tolerance = max(_tolerance(left, right_value), _tolerance(right, left_value))
    difference = abs(Fraction(left_value) - Fraction(right_value))
    if difference <= tolerance:
        return True
    if isinstance(left_value, float) or isinstance(right_value, float):
        # Fractional powers (2 ** 0.5) are computed in floating point; allow for its error.
        scale = max(abs(float(left_value)), abs(float(right_value)), 1.0)
        return difference <= Fraction(scale) / 10**9
    return False


def find_equalities(text: str) -> list[Equality]:
    """Every checkable `expression = value` in `text`; unreadable ones are skipped silently."""
    prepared = _mask_ranges(
        strip_thousands(unicodedata.normalize("NFKC", text).translate(_NO_CURRENCY))
    )
    found: list[Equality] = []
    for index, char in enumerate(prepared):
        if char != "=":
            continue
        before = prepared[index - 1] if index else ""
        after = prepared[index + 1] if index + 1 < len(prepared) else ""
        if (before and before in "<>!=:~≈") or (after and after in "=>~"):
            continue  # ==, <=, >=, !=, :=, =>, ~=
        left = _left_side(prepared, index)
        right = _right_side(prepared, index)
        if left is None or right is None or not (_is_compound(left) or _is_compound(right)):
            continue
        try:
            left_value = evaluate(left)
            right_value = evaluate(right)
        except EvalError:
            continue
        holds = _holds(left, right, left_value, right_value)
        found.append(Equality(left, right, left_value, right_value, holds))
    return found


def check_arithmetic(context: AnswerContext) -> Verdict:
    texts = [context.answer, *(claim.text for claim in context.claims), context.reasoning]
    wrong = [
        equality
        for text in texts
        if text
        for equality in find_equalities(text)
        if not equality.holds
    ]
    if not wrong:
        return Verdict("arithmetic", True)
    first = wrong[0]
    more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
    return Verdict(
        "arithmetic",
        False,
        f"{first.text} does not hold: it is {first.computed}{more}",
        f"Arithmetic error: {first.text} does not hold (it is {first.computed}){more}; "
        "recompute, with the calculator if you have it, and correct the answer.",
    )


# --- citation and coverage -------------------------------------------------------------------

_WORD_OR_NUMBER = re.compile(r"\d+(?:\.\d+)?|[^\W_]+")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,})[\"“”]")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")
_STOPWORDS = {
    "a", "an", "the", "it", "its", "this", "that", "these", "those", "there", "then", "in",
    "on", "at", "by", "for", "of", "and", "but", "or", "so", "he", "she", "they", "we", "i",
    "you", "as", "if", "when", "while", "from", "to", "with", "after", "before", "according",
    "based", "yes", "no", "all", "some", "both", "each", "one", "our", "their", "his", "her",
}  # fmt: skip
_EVIDENCE_ID = re.compile(r"^e\d+$")


def _canonical_number(token: str) -> str:
    try:
        value = Decimal(token)
    except InvalidOperation:
        return token
    return format(value.normalize(), "f")


def tokens(text: str) -> list[str]:
    """Lower-case words and canonical numbers: `1,000.50` and `1000.5` give the same token."""
    text = strip_thousands(unicodedata.normalize("NFKC", text)).casefold()
    return [
        _canonical_number(token) if token[0].isdigit() else token
        for token in _WORD_OR_NUMBER.findall(text)
    ]


def _number_readings(words: Sequence[str]) -> list[set[str]]:
    """Each number in a token list with its readings: '1.5 million' is {1.5, 1500000}."""
    readings: list[set[str]] = []
    for index, word in enumerate(words):
        if not word[0].isdigit():
            continue
        forms = {word}
        following = words[index + 1] if index + 1 < len(words) else ""
        if following in _SCALES:
            forms.add(_canonical_number(str(Decimal(word) * _SCALES[following])))
        readings.append(forms)
    return readings


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    """Is `needle` a contiguous run of `haystack`? (Containment, not overlap.)"""
    if not needle:
        return False
    return f" {' '.join(needle)} " in f" {' '.join(haystack)} "


def key_terms(text: str) -> tuple[list[set[str]], set[str], list[list[str]]]:
    """What a claim asserts that evidence must contain: numbers, names and quoted phrases."""
    words = tokens(text)
    names = set()
    for match in _CAPITALISED.finditer(text):
        for word in tokens(match.group()):
            if word not in _STOPWORDS and not _EVIDENCE_ID.match(word) and not word[0].isdigit():
                names.add(word)
    quoted = [tokens(match.group(1)) for match in _QUOTED.finditer(text)]
    return _number_readings(words), names, [phrase for phrase in quoted if phrase]


def is_supported(claim: Claim, sources: Sequence[str]) -> tuple[bool, str]:
    """Whether the cited texts contain the claim; the second value says what is missing."""
    source_words: list[str] = []
    for source in sources:
        source_words.extend([*tokens(source), "¶"])  # ¶ keeps a match inside one source
    if claim.quote.strip():
        if _contains(source_words, tokens(claim.quote)):
            return True, ""
        return False, f'the quote "{_short(claim.quote, 50)}" is not in the cited evidence'
    claim_words = tokens(claim.text)
    if _contains(source_words, claim_words):
        return True, ""
    numbers, names, quoted = key_terms(claim.text)
    if not (numbers or names or quoted):
        return False, "the claim is not found in the cited evidence"
    available = set(source_words)
    source_numbers = set().union(*_number_readings(source_words))
    missing_numbers = [min(forms) for forms in numbers if not forms & source_numbers]
    missing = missing_numbers + sorted(name for name in names if name not in available)
    missing += [" ".join(phrase) for phrase in quoted if not _contains(source_words, phrase)]
    if missing:
        return False, "not in the cited evidence: " + ", ".join(missing[:4])
    return True, ""


def check_citations(context: AnswerContext) -> Verdict:
    evidence = context.evidence or {}
    problems: list[tuple[Claim, str]] = []
    for claim in context.claims:
        if not claim.evidence:
            continue
        broken = [ident for ident in claim.evidence if ident.strip().upper() not in evidence]
        if broken:
            problems.append((claim, f"cites {', '.join(broken)}, which does not exist"))
            continue
        sources = [evidence[ident.strip().upper()].text for ident in claim.evidence]
        supported, why = is_supported(claim, sources)
        if not supported:
            problems.append((claim, why))
    if not problems:
        return Verdict("citation", True)
    claim, why = problems[0]
    cited = ", ".join(claim.evidence)
    more = f" ({len(problems) - 1} more claims have the same problem)" if len(problems) > 1 else ""
    return Verdict(
        "citation",
        False,
        f'claim "{_short(claim.text)}" ({cited}): {why}{more}',
        f'Claim "{_short(claim.text)}" is not supported by {cited}: {why}. Cite the evidence that '
        f"contains it, add a `quote` copied exactly from it, or drop the claim.{more}",
    )


def is_factual(text: str) -> bool:
    """Does the claim state something checkable (a number, a name, a quotation)?

    Pure arithmetic that checks out is self-evident and needs no source."""
    equalities = find_equalities(text)
    if equalities and all(equality.holds for equality in equalities):
        return False
    numbers, names, quoted = key_terms(text)
    return bool(numbers or names or quoted)


def check_coverage(context: AnswerContext) -> Verdict:
    uncovered = [
        claim
        for claim in context.claims
        if claim.kind is ClaimKind.SUPPORT and not claim.evidence and is_factual(claim.text)
    ]
    if not uncovered:
        return Verdict("coverage", True)
    first = uncovered[0]
    more = f" (and {len(uncovered) - 1} more)" if len(uncovered) > 1 else ""
    return Verdict(
        "coverage",
        False,
        f'claim "{_short(first.text)}" cites no evidence{more}',
        f'Claim "{_short(first.text)}" cites no evidence{more}: cite the evidence ids (E1, ...) '
        "that support it, look it up with a tool, or drop it.",
    )


DEFAULT_VERIFIERS: tuple[Verifier, ...] = (
    check_format,
    check_arithmetic,
    check_citations,
    check_coverage,
)


def run_verifiers(context: AnswerContext, verifiers: Iterable[Verifier]) -> tuple[Verdict, ...]:
    return tuple(verifier(context) for verifier in verifiers)
