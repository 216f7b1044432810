"""Safe arithmetic: a whitelist walk over Python's AST; never ``eval``.

Numbers, ``+ - * / // % **``, unary ``-``/``+`` and parentheses; ``^`` means power (as in
the rulebook's R1). With ``words`` (Stage-0's ``math_words`` change, :data:`SPOKEN`): ``sqrt(…)``,
"square root of N", "N% of M" / "N percent of M", "N squared", "N cubed", "N to the power of M",
"plus", "minus", "times", "multiplied by", "divided by". A square root is exact where it is
rational ("sqrt(16)" is 4), else a decimal good to the places shown. Values are exact fractions:
a decimal literal is read from its text ("0.1" is 1/10), so "0.1 + 0.2" is 0.3. The expression's
length, exponents and the size of every intermediate result are bounded, so "2 ** 99999999" is
refused at once.
"""

from __future__ import annotations

import ast
import decimal
import math
import operator
from fractions import Fraction

from agi_core.brain.stage0.phrases import lower_ascii, strip_end
from agi_core.errors import AgiError

MAX_EXPONENT = 10_000
MAX_DIGITS = 4_300
MAX_LENGTH = 200
PLACES = 10
#: a number past this many bits has more than MAX_DIGITS decimal digits
_MAX_BITS = int(MAX_DIGITS * 3.3219280948873626)
_EXPRESSION_CHARS = frozenset("0123456789.+-*/%^() ")
_OPERATORS = frozenset("+-*/%^")
#: spoken arithmetic (the ``math_words`` change), lowered, as written → as computed, in this order
SPOKEN = (
    ("the square root of ", "square root of "),
    (" percent of ", "% of "),
    ("% of ", "/100*"),
    (" to the power of ", "^"),
    (" squared", "^2"),
    (" cubed", "^3"),
    (" plus ", "+"),
    (" minus ", "-"),
    (" multiplied by ", "*"),
    (" times ", "*"),
    (" divided by ", "/"),
)
SQRT, _ROOT_OF = "sqrt", "square root of "
_NUMBER_CHARS = frozenset("0123456789.")
_QUESTION_PREFIXES = ("what is ", "what's ", "what’s ", "whats ", "how much is ", "calculate ", "compute ")


class MathError(AgiError):
    """The expression cannot be computed; the message is the reply to the user."""


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_DIVIDE_BY_ZERO = "I can’t divide by zero: the result is undefined."
_TOO_LARGE = "That result is too large to show."


def expression_in(text: str, *, words: bool = False) -> str | None:
    """The arithmetic in ``text`` ("what is 12 * 12?" → "12 * 12"), as written, or None if it is not arithmetic.

    A question prefix and trailing ``? ! .`` or ``=`` are dropped; what is left must be
    only digits, ``.``, operators, parentheses and spaces, with a digit and an operator
    (``words``: once :func:`spoken` is read, ``sqrt`` too, which counts as an operator).
    """
    body = text.strip()
    low = lower_ascii(body)
    for prefix in _QUESTION_PREFIXES:
        if low.startswith(prefix):
            body = body[len(prefix) :]
            break
    body = strip_end(body).rstrip("= ").strip()
    computed = spoken(body) if words else body
    chars = set(computed.replace(SQRT, "") if words else computed)
    operators = chars & _OPERATORS or (words and SQRT in computed)
    if not chars <= _EXPRESSION_CHARS or not operators or not any(c.isdigit() for c in computed):
        return None
    return body


def spoken(body: str) -> str:
    """``body`` with its spoken arithmetic (:data:`SPOKEN`, "square root of N") in symbols: "15% of 80" →
    "15/100*80", "3 squared" → "3^2"; lowered (digits and operators are unchanged by it). Linear: each
    replacement is one pass, and "square root of" is followed once per occurrence."""
    low = " ".join(lower_ascii(body).split())
    for written, computed in SPOKEN:
        low = low.replace(written, computed)
    if _ROOT_OF not in low:
        return low
    head, *roots = low.split(_ROOT_OF)
    parts = [head]
    for rest in roots:  # "square root of 2" → "sqrt(2)"; "square root of (1+3)" → "sqrt(1+3)"
        if rest.startswith("("):
            parts.append(SQRT + rest)
            continue
        end = 0
        while end < len(rest) and rest[end] in _NUMBER_CHARS:
            end += 1
        parts.append(f"{SQRT}({rest[:end]}){rest[end:]}" if end else f"{_ROOT_OF}{rest}")
    return "".join(parts)


def reads_otherwise(text: str) -> bool:
    """Whether ``text`` is arithmetic with the ``math_words`` change and was not before it (or another)."""
    return expression_in(text, words=True) != expression_in(text)


def _number(node: ast.Constant, source: str) -> Fraction:
    """The exact value of a literal: decimals from their text, not from the float."""
    if isinstance(node.value, int):
        return Fraction(node.value)
    text = ast.get_source_segment(source, node) or repr(node.value)
    try:
        number = decimal.Decimal(text.replace("_", ""))
    except decimal.InvalidOperation:
        raise MathError("I could not read that number.") from None
    if not number.is_finite() or abs(number.adjusted()) > MAX_DIGITS:
        raise MathError(_TOO_LARGE)
    return Fraction(number)


def _checked(value: Fraction) -> Fraction:
    if value.numerator.bit_length() > 4 * _MAX_BITS or value.denominator.bit_length() > 4 * _MAX_BITS:
        raise MathError(_TOO_LARGE)
    return value


def _sqrt(value: Fraction) -> Fraction:
    """The square root: exact where it is rational, else to ``PLACES + 10`` digits after its integer part."""
    if value < 0:
        raise MathError("I can’t take the square root of a negative number.")
    top, bottom = math.isqrt(value.numerator), math.isqrt(value.denominator)
    if top * top == value.numerator and bottom * bottom == value.denominator:
        return Fraction(top, bottom)
    digits = max(value.numerator.bit_length() - value.denominator.bit_length(), 0) // 6 + PLACES + 10
    with decimal.localcontext(decimal.Context(prec=digits)):
        return Fraction((decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)).sqrt())


def _is_sqrt(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == SQRT and len(node.args) == 1 and not node.keywords


def _eval(node: ast.AST, source: str, words: bool = False) -> Fraction:
    if isinstance(node, ast.Expression):
        return _eval(node.body, source, words)
    if words and isinstance(node, ast.Call) and _is_sqrt(node):
        return _sqrt(_eval(node.args[0], source, words))
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return _number(node, source)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, source, words)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
        return _eval(node.operand, source, words)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return _checked(_power(_eval(node.left, source, words), _eval(node.right, source, words)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, source, words), _eval(node.right, source, words)
        if right == 0 and isinstance(node.op, ast.Div | ast.FloorDiv | ast.Mod):
            raise MathError(_DIVIDE_BY_ZERO)
        return _checked(Fraction(_BINARY[type(node.op)](left, right)))
    raise MathError("I can only compute numbers with + - * / // % ^ and parentheses.")


def _power(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator != 1:
        raise MathError("I can only raise numbers to whole powers.")
    if abs(exponent) > MAX_EXPONENT:
        raise MathError(f"That exponent is too large; I compute powers up to {MAX_EXPONENT}.")
    bits = max(base.numerator.bit_length(), base.denominator.bit_length())
    if bits * abs(exponent) > 5 * _MAX_BITS:
        raise MathError(_TOO_LARGE)
    if base == 0 and exponent < 0:
        raise MathError(_DIVIDE_BY_ZERO)
    return base ** int(exponent)


def evaluate(expression: str, *, words: bool = False) -> Fraction:
    """The exact value of ``expression``; raises :class:`MathError` with a reply-ready message.
    ``words``: its spoken arithmetic (:func:`spoken`) and ``sqrt`` are read too."""
    if len(expression) > MAX_LENGTH:
        raise MathError(f"That expression is too long; I take up to {MAX_LENGTH} characters.")
    source = (spoken(expression) if words else expression).replace("^", "**")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise MathError("I could not read that as arithmetic.") from None
    value = _eval(tree, source, words)
    if value.numerator.bit_length() > _MAX_BITS or value.denominator.bit_length() > _MAX_BITS:
        raise MathError(_TOO_LARGE)
    return value


def render(value: Fraction) -> str:
    """An integer as is; anything else as a decimal rounded to at most 10 places
    (a non-zero value that rounds to 0 in scientific notation, 10 significant digits)."""
    if value.denominator == 1:
        return str(value.numerator)
    digits = (abs(value.numerator) // value.denominator).bit_length() // 3 + PLACES + 10
    with decimal.localcontext(decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_EVEN)):
        exact = decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)
        rounded = exact.quantize(decimal.Decimal(1).scaleb(-PLACES))
    if rounded == 0:
        mantissa, exponent = f"{exact:.{PLACES - 1}E}".split("E")
        return f"{mantissa.rstrip('0').rstrip('.')}E{exponent}"
    return f"{rounded:f}".rstrip("0").rstrip(".")
