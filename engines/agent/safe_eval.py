"""A safe arithmetic evaluator shared by the calculator tool and the arithmetic verifier.

Only numbers, `+ - * / // % **`, unary signs and parentheses are accepted: the expression is
parsed with `ast` and walked by hand, never passed to `eval`. Arithmetic is exact (fractions)
except for fractional powers, and sizes are capped so `9**9**9` fails fast instead of hanging.
"""

from __future__ import annotations

import ast
import math
import re
from fractions import Fraction

MAX_EXPRESSION_CHARS = 500
# Largest integer part (in bits) any intermediate value may have; about 3000 decimal digits.
MAX_BITS = 10_000

Number = Fraction | float


class EvalError(ValueError):
    """The expression is not plain arithmetic, or cannot be computed within the limits."""


# Thousands separators as people write them: 1,000 or 12,345,678.50 (not the list "1,2,3").
THOUSANDS = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,]*\d)")

_SYMBOLS = str.maketrans(
    {
        "×": "*",
        "✕": "*",
        "·": "*",
        "÷": "/",
        "−": "-",  # unicode minus sign
        "–": "-",  # en dash, often typed as a minus
    }
)


def strip_thousands(text: str) -> str:
    return THOUSANDS.sub(lambda match: match.group().replace(",", ""), text)


def normalise_expression(text: str) -> str:
    """Turn everyday notation (`×`, `÷`, `^`, `1,000`) into the Python operators we evaluate."""
    text = strip_thousands(text.translate(_SYMBOLS))
    return text.replace("^", "**").strip()


def evaluate(expression: str) -> Number:
    """Evaluate `expression` exactly; raise `EvalError` for anything but plain arithmetic."""
    text = normalise_expression(expression)
    if not text:
        raise EvalError("empty expression")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise EvalError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as error:
        raise EvalError(f"not an arithmetic expression: {text!r}") from error
    try:
        return _eval(tree.body)
    except (OverflowError, MemoryError, RecursionError) as error:
        raise EvalError("the result is too large") from error


def evaluate_number(expression: str) -> int | float:
    """Evaluate and return a plain Python number: an int when the value is whole."""
    value = evaluate(expression)
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return float(value)


def format_number(value: Number | int) -> str:
    """A readable rendering: exact integers, otherwise up to 12 significant digits."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    if isinstance(value, int):
        return str(value)
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return format(number, ".12g")


def _check_size(value: Number) -> Number:
    if isinstance(value, Fraction):
        if value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
            raise EvalError("the result is too large")
    elif not math.isfinite(value):
        raise EvalError("the result is not a finite number")
    return value


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Constant):
        value = node.value
        # bool is an int subclass; complex literals (1j) are numbers we do not support.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EvalError(f"unsupported value {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise EvalError("the number is too large")
        return _check_size(Fraction(value) if isinstance(value, int) else Fraction(str(value)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _eval(node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left = _eval(node.left)
        right = _eval(node.right)
        return _check_size(_binary(node.op, left, right))
    raise EvalError(f"only numbers and + - * / // % ** are allowed, not {type(node).__name__}")


def _binary(op: ast.operator, left: Number, right: Number) -> Number:
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.FloorDiv):
            return Fraction(math.floor(left / right))
        if isinstance(op, ast.Mod):
            return left % right
    except ZeroDivisionError as error:
        raise EvalError("division by zero") from error
    if isinstance(op, ast.Pow):
        return _power(left, right)
    raise EvalError(f"operator {type(op).__name__} is not allowed")


def _power(base: Number, exponent: Number) -> Number:
    if isinstance(base, Fraction) and isinstance(exponent, Fraction) and exponent.denominator == 1:
        power = exponent.numerator
        if base == 0 and power < 0:
            raise EvalError("division by zero")
        # Estimate the size before computing so huge powers fail instead of hanging.
        bits = max(base.numerator.bit_length(), base.denominator.bit_length())
        if bits > 1 and abs(power) * (bits - 1) > MAX_BITS:
            raise EvalError("the result is too large")
        return base**power
    real_base, real_exponent = float(base), float(exponent)
    if real_base < 0:
        raise EvalError("a negative number to a fractional power is not a real number")
    if real_base == 0 and real_exponent < 0:
        raise EvalError("division by zero")
    return float(real_base**real_exponent)
