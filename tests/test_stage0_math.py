"""Issue 10: R1 arithmetic over Python's AST (whitelisted nodes, exact decimals, bounded sizes)."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agi_core.brain.stage0.mathparse import MathError, evaluate, expression_in, render
from agi_core.replies import F3_NO_AGENT, F4_AGENT_FAILURE
from agi_core.testing import open_kernel

EXAMPLES = [
    ("2 + 3 * 4", "2 + 3 * 4 = 14"),
    ("(1 + 2) * 3", "(1 + 2) * 3 = 9"),
    ("-5 + 2", "-5 + 2 = -3"),
    ("1.5 * 2", "1.5 * 2 = 3"),
    ("what is 12 * 12?", "12 * 12 = 144"),
    ("What's 2^10", "2^10 = 1024"),
    ("0.1 + 0.2", "0.1 + 0.2 = 0.3"),
    ("7 // 2", "7 // 2 = 3"),
    ("-7 // 2", "-7 // 2 = -4"),
    ("7 % 3", "7 % 3 = 1"),
    ("2 ** -2", "2 ** -2 = 0.25"),
    ("+4 - -4", "+4 - -4 = 8"),
    ("1 / 3", "1 / 3 = 0.3333333333"),
    ("10 ^ -20", "10 ^ -20 = 1E-20"),
    ("calculate 3 * (4 + 5) =", "3 * (4 + 5) = 27"),
    ("2 ** 99999999", "That exponent is too large; I compute powers up to 10000."),
    ("9^9^9", "That exponent is too large; I compute powers up to 10000."),
    ("(9^9999)^2", "That result is too large to show."),
    ("1 / 0", "I can’t divide by zero: the result is undefined."),
    ("5 // 0", "I can’t divide by zero: the result is undefined."),
    ("5 % (2 - 2)", "I can’t divide by zero: the result is undefined."),
    ("0 ^ -1", "I can’t divide by zero: the result is undefined."),
    ("2 ^ 0.5", "I can only raise numbers to whole powers."),
    ("2 +* 3", "I could not read that as arithmetic."),
    ("1" + "+1" * 100, "That expression is too long; I take up to 200 characters."),
    ("(2)(3) + 1", "I can only compute numbers with + - * / // % ^ and parentheses."),
]


def test_arithmetic_replies_through_agi_run(tmp_path):
    script = "".join(text + "\n" for text, _ in EXAMPLES)
    done = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "run"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [reply for _, reply in EXAMPLES]


@pytest.mark.parametrize("text", ["hello", "12", "-", "what is the capital of France?", "my 2 cents", "2 apples + 3"])
def test_text_that_is_not_arithmetic_is_not_routed_to_math(text):
    assert expression_in(text) is None


def test_decimals_are_exact():
    assert evaluate("0.1 + 0.2") == Fraction(3, 10)
    assert evaluate("1.1 * 1.1") == Fraction(121, 100)
    assert render(evaluate("1e-3 * 3")) == "0.003"


def test_math_parser_never_evaluates_code():
    for hostile in ["__import__('os').system('true')", "(1).__class__", "[1]*9", "a+1", "lambda: 1", "1 if 1 else 2"]:
        with pytest.raises(MathError):
            evaluate(hostile)


numbers = st.one_of(
    st.integers(0, 10**6).map(str),
    st.decimals(0, 10**6, places=3, allow_nan=False, allow_infinity=False).map(str),
    st.sampled_from(["0", "0.0", "99999", "1e400", "1e-400", "10000", "9" * 50]),
)
expressions = st.recursive(
    numbers,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "^", "**"]), inner).map(" ".join),
        inner.map(lambda e: f"-{e}"),
        inner.map(lambda e: f"({e})"),
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(expressions, st.text(alphabet="0123456789.+-*/%^() e", max_size=80)))
def test_random_expressions_give_a_value_or_a_clear_reply(expression):
    try:
        value = evaluate(expression)
    except MathError as exc:
        assert str(exc).endswith(".")
        return
    assert value.numerator.bit_length() < 15_000 and value.denominator.bit_length() < 15_000
    assert render(value)


@pytest.fixture(scope="module")
def math_kernel(tmp_path_factory):
    kernel = open_kernel(tmp_path_factory.mktemp("math") / "a.db")
    yield kernel
    kernel.close()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(expressions)
def test_the_math_agent_answers_every_expression_without_failing(math_kernel, expression):
    assume(expression_in(expression) is not None)  # a bare number is not a calculation
    record = math_kernel.tick(expression)
    assert record.router_decision.agent == "math_agent"
    assert record.final_output not in (F3_NO_AGENT, F4_AGENT_FAILURE) and not record.degraded
