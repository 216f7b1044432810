"""Safe arithmetic: a whitelist walk over Python's AST; never ``eval``.

``^`` means power (as in the rulebook's R1), ``**`` too. Exponents and results are
bounded so "9^999999999" is refused instead of hanging the tick.
"""

from __future__ import annotations

import ast
import operator
from fractions import Fraction

from agi_core.errors import AgiError

MAX_EXPONENT = 10_000
MAX_DIGITS = 4_300
MAX_LENGTH = 200


class MathError(AgiError):
    """The expression cannot be computed; the message is the reply to the user."""


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def _eval(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return Fraction(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
        return _eval(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise MathError("I can’t divide by zero: the result is undefined.")
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        return _BINARY[type(node.op)](left, right)
    raise MathError("I can only compute numbers with + - * / ^ and parentheses.")


def _power(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator != 1:
        raise MathError("I can only raise numbers to whole powers.")
    if abs(exponent) > MAX_EXPONENT:
        raise MathError(f"That exponent is too large; I compute powers up to {MAX_EXPONENT}.")
    digits = max(len(str(base.numerator)), len(str(base.denominator)))
    if digits * abs(exponent) > 5 * MAX_DIGITS:
        raise MathError("That result is too large to show.")
    if base == 0 and exponent < 0:
        raise MathError("I can’t divide by zero: the result is undefined.")
    return base ** int(exponent)


def evaluate(expression: str) -> Fraction:
    """The exact value of ``expression``; raises :class:`MathError` with a reply-ready message."""
    if len(expression) > MAX_LENGTH:
        raise MathError(f"That expression is too long; I take up to {MAX_LENGTH} characters.")
    try:
        tree = ast.parse(expression.replace("^", "**"), mode="eval")
    except SyntaxError:
        raise MathError("I could not read that as arithmetic.") from None
    value = _eval(tree)
    if len(str(value.numerator)) > MAX_DIGITS or len(str(value.denominator)) > MAX_DIGITS:
        raise MathError("That result is too large to show.")
    return value


def render(value: Fraction) -> str:
    """An integer as is, anything else as a decimal with at most 10 places."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.10f}".rstrip("0").rstrip(".")
    return text
