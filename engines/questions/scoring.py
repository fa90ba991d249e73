"""Scoring answers to question sets, in two modes.

`gaia` mode is the GAIA leaderboard's `question_scorer`, reproduced exactly, quirks included:

- Ground truth that Python's `float()` accepts (so also " 42 ", "1e3", "4_2", "nan", "inf") is a
  number. The prediction loses every `$`, `%` and `,` and goes through `float()`; if that fails it
  becomes infinity. The two are compared with `==`. So "17 km" is wrong for 17, "$1,000" is right
  for 1000, a truth of "nan" never matches, and a truth of "inf" matches any unparsable answer.
- Otherwise, ground truth containing `,` or `;` is a list. Both sides are split on every `,` and
  `;` (a truth "1,000" is the two-element list "1" and "000"); lists of different lengths are
  wrong; elements are compared in order. A truth element that `float()` accepts is compared as a
  number exactly as above; any other element is compared with all whitespace removed and
  lower-cased, punctuation kept (in a list "St. Paul" is not "St Paul").
- Otherwise all whitespace (Unicode, as `\\s` matches it) and the ASCII characters of
  `string.punctuation` are removed and both sides are lower-cased before comparing, so
  "sea gull" equals "Seagull" but a curly quote or an en dash still counts.

`lenient` mode accepts everything `gaia` mode accepts, and also:

- Cleaning: surrounding whitespace, quotes and backticks, a leading "Final answer:" or "Answer:"
  label and one trailing full stop are dropped from the prediction.
- Numbers: a truth written with thousands separators ("1,000") is a number, not a list. The
  prediction may carry words or units around a single number ("about 17 km", "$1,000") or be a
  number word from zero to twenty. It is right when it is within a relative 1e-4 of the truth,
  or when, rounded to the number of decimals the truth is written with (at least one), it equals
  the truth ("3.14159" for "3.14", but "17.4" is not "17").
- Yes/no: "yes", "y", "true", "correct" are one answer and "no", "n", "false", "incorrect" the
  other, for truths that are one of those words; only the prediction's first word counts.
- Lists: elements may come in any order (each truth element must be matched by a different
  prediction element); a prediction may also separate them with " and " or new lines; elements
  are compared with these same lenient rules for numbers and text.
- Text: articles ("a", "an", "the") are ignored as words, and all Unicode punctuation and
  symbols are removed along with whitespace before a case-insensitive comparison.

Every result records the mode that scored it.
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class ScoreMode(StrEnum):
    GAIA = "gaia"
    LENIENT = "lenient"


# ---------------------------------------------------------------------------------------------
# The official GAIA scorer. Kept line-for-line equivalent to the leaderboard code (minus its
# print and warning side effects); do not "fix" it, the quirks are the point.


def _official_is_float(element: str) -> bool:
    try:
        float(element)
        return True
    except ValueError:
        return False


def normalize_number_str(number_str: str) -> float:
    """The official number normaliser: drop `$`, `%` and `,`, then `float()`, else infinity."""
    for char in ["$", "%", ","]:
        number_str = number_str.replace(char, "")
    try:
        return float(number_str)
    except ValueError:
        return float("inf")


def split_string(s: str, char_list: tuple[str, ...] = (",", ";")) -> list[str]:
    """The official list splitter: split on every one of `char_list`, keeping empty pieces."""
    pattern = f"[{''.join(char_list)}]"
    return re.split(pattern, s)


def normalize_str(input_str: str, remove_punct: bool = True) -> str:
    """The official text normaliser: remove all whitespace, optionally ASCII punctuation, lower."""
    no_spaces = re.sub(r"\s", "", input_str)
    if remove_punct:
        translator = str.maketrans("", "", string.punctuation)
        return no_spaces.lower().translate(translator)
    return no_spaces.lower()


def question_scorer(model_answer: str, ground_truth: str) -> bool:
    """The GAIA leaderboard's `question_scorer`, with its exact behaviour."""
    if _official_is_float(ground_truth):
        normalized_answer = normalize_number_str(model_answer)
        return normalized_answer == float(ground_truth)

    if any(char in ground_truth for char in [",", ";"]):
        gt_elems = split_string(ground_truth)
        ma_elems = split_string(model_answer)
        if len(gt_elems) != len(ma_elems):
            return False
        comparisons = []
        for ma_elem, gt_elem in zip(ma_elems, gt_elems, strict=True):
            if _official_is_float(gt_elem):
                normalized_ma_elem = normalize_number_str(ma_elem)
                comparisons.append(normalized_ma_elem == float(gt_elem))
            else:
                comparisons.append(
                    normalize_str(ma_elem, remove_punct=False)
                    == normalize_str(gt_elem, remove_punct=False)
                )
        return all(comparisons)

    return normalize_str(model_answer) == normalize_str(ground_truth)


def gaia_rule(ground_truth: str) -> str:
    """Which official rule a truth falls under: "number", "list" or "string"."""
    if _official_is_float(ground_truth):
        return "number"
    if any(char in ground_truth for char in [",", ";"]):
        return "list"
    return "string"


# ---------------------------------------------------------------------------------------------
# Lenient mode.

_LABEL = re.compile(r"^\s*(?:final\s+answer|answer)\s*[:\-]\s*", re.IGNORECASE)
_QUOTES = "\"'`\u2018\u2019\u201c\u201d"
_GROUPED_NUMBER = re.compile(r"^[-+]?\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?$")
_SIMPLE_AMOUNT = re.compile(r"^[-+]?\$?\d+(?:\.\d+)?%?$")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+")
_NUMBER_WORDS = {
    word: index
    for index, word in enumerate(
        (
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        )  # fmt: skip
    )
}
_YES = frozenset({"yes", "y", "true", "correct"})
_NO = frozenset({"no", "n", "false", "incorrect"})
_ARTICLES = re.compile(r"\b(?:a|an|the)\b", re.IGNORECASE)
_RELATIVE_TOLERANCE = 1e-4


def clean_prediction(text: str) -> str:
    """Drop surrounding quotes, an answer label and one trailing full stop (lenient mode)."""
    text = text.strip()
    text = _LABEL.sub("", text, count=1).strip()
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def _truth_number(truth: str) -> tuple[float, int] | None:
    """The truth as a number and the decimals it is written with, if it is one."""
    candidate = truth.strip()
    if _GROUPED_NUMBER.match(candidate) or _SIMPLE_AMOUNT.match(candidate):
        candidate = candidate.replace(",", "").replace("$", "").replace("%", "")
    if not _official_is_float(candidate):
        return None
    value = float(candidate)
    if math.isnan(value) or math.isinf(value):
        return None
    match = re.search(r"\.(\d+)$", candidate.strip())
    decimals = len(match.group(1)) if match else 0
    return value, decimals


def _prediction_number(prediction: str) -> float | None:
    """The single number a prediction states, ignoring units and words around it."""
    text = prediction.strip().lower()
    if text in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[text])
    found = _NUMBER.findall(text)
    if len(found) != 1:
        return None
    try:
        return float(found[0].replace(",", ""))
    except ValueError:
        return None


def _numbers_match(prediction: float, truth: float, decimals: int) -> bool:
    if math.isclose(prediction, truth, rel_tol=_RELATIVE_TOLERANCE, abs_tol=1e-12):
        return True
    return decimals > 0 and round(prediction, decimals) == round(truth, decimals)


def _bare_text(text: str) -> str:
    kept = [
        char
        for char in text
        if not char.isspace() and unicodedata.category(char)[0] not in {"P", "S"}
    ]
    return "".join(kept).casefold()


def _lenient_text(text: str) -> str:
    """Text without whitespace, punctuation, symbols and articles (unless it is only those)."""
    return _bare_text(_ARTICLES.sub(" ", text)) or _bare_text(text)


def _yes_no(text: str) -> str | None:
    words = re.findall(r"[a-z]+", text.lower())
    if not words:
        return None
    if words[0] in _YES:
        return "yes"
    if words[0] in _NO:
        return "no"
    return None


def _lenient_element(prediction: str, truth: str) -> bool:
    prediction = clean_prediction(prediction)
    truth = truth.strip()
    number = _truth_number(truth)
    if number is not None:
        predicted = _prediction_number(prediction)
        return predicted is not None and _numbers_match(predicted, *number)
    if truth.lower().strip(string.punctuation) in _YES | _NO:
        return _yes_no(prediction) == _yes_no(truth)
    expected = _lenient_text(truth)
    return expected != "" and _lenient_text(prediction) == expected


def _split_lenient_list(text: str) -> list[str]:
    pieces = re.split(r"[,;\n]|\s+and\s+", text)
    return [piece for piece in (p.strip() for p in pieces) if piece]


def _match_all(predictions: list[str], truths: list[str]) -> bool:
    """True when every truth element is matched by a different prediction element, any order."""
    if len(predictions) != len(truths):
        return False
    matches = [
        [j for j, prediction in enumerate(predictions) if _lenient_element(prediction, truth)]
        for truth in truths
    ]
    owner: dict[int, int] = {}

    def assign(truth_index: int, seen: set[int]) -> bool:
        for prediction_index in matches[truth_index]:
            if prediction_index in seen:
                continue
            seen.add(prediction_index)
            current = owner.get(prediction_index)
            if current is None or assign(current, seen):
                owner[prediction_index] = truth_index
                return True
        return False

    return all(assign(index, set()) for index in range(len(truths)))


def lenient_scorer(model_answer: str, ground_truth: str) -> bool:
    """Lenient comparison (see the module docstring); never stricter than `question_scorer`."""
    if question_scorer(model_answer, ground_truth):
        return True
    prediction = clean_prediction(model_answer)
    truth = ground_truth.strip()
    if _truth_number(truth) is None and any(char in truth for char in ",;"):
        truth_elements = _split_lenient_list(truth)
        prediction_elements = _split_lenient_list(prediction)
        return _match_all(prediction_elements, truth_elements)
    return _lenient_element(prediction, truth)


# ---------------------------------------------------------------------------------------------
# Results.


@dataclass(frozen=True)
class ScoreResult:
    """How one answer scored, and by which mode and rule."""

    correct: bool
    mode: ScoreMode
    rule: str
    prediction: str
    truth: str


def score_answer(
    prediction: str | None, truth: str, mode: ScoreMode | str = ScoreMode.GAIA
) -> ScoreResult:
    """Score one answer. A missing prediction (`None`) is scored as the empty string."""
    mode = ScoreMode(mode)
    answer = "" if prediction is None else str(prediction)
    if mode is ScoreMode.GAIA:
        correct = question_scorer(answer, truth)
    else:
        correct = lenient_scorer(answer, truth)
    return ScoreResult(
        correct=correct, mode=mode, rule=gaia_rule(truth), prediction=answer, truth=truth
    )


@dataclass(frozen=True)
class LevelAccuracy:
    level: int
    correct: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


@dataclass(frozen=True)
class AccuracyReport:
    """Accuracy overall and by level, for one scoring mode."""

    mode: ScoreMode
    levels: tuple[LevelAccuracy, ...]

    @property
    def correct(self) -> int:
        return sum(level.correct for level in self.levels)

    @property
    def total(self) -> int:
        return sum(level.total for level in self.levels)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


def accuracy_by_level(
    scored: Iterable[tuple[int, ScoreResult]], mode: ScoreMode | str = ScoreMode.GAIA
) -> AccuracyReport:
    """Sum `(level, result)` pairs into accuracy by level; results must all use `mode`."""
    mode = ScoreMode(mode)
    counts: dict[int, list[int]] = {}
    for level, result in scored:
        if result.mode is not mode:
            raise ValueError(f"a {result.mode} result cannot join a {mode} report")
        tally = counts.setdefault(level, [0, 0])
        tally[0] += int(result.correct)
        tally[1] += 1
    levels = tuple(
        LevelAccuracy(level=level, correct=correct, total=total)
        for level, (correct, total) in sorted(counts.items())
    )
    return AccuracyReport(mode=mode, levels=levels)
