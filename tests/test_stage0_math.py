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


SPOKEN = [
    ("sqrt(16) + 2", "sqrt(16) + 2 = 6"),
    ("what is 15% of 80?", "15% of 80 = 12"),
    ("what's 3 squared", "3 squared = 9"),
    ("2 cubed", "2 cubed = 8"),
    ("what is 10 percent of 250?", "10 percent of 250 = 25"),
    ("square root of 2", "square root of 2 = 1.4142135624"),
    ("the square root of 81", "the square root of 81 = 9"),
    ("sqrt(2.25)", "sqrt(2.25) = 1.5"),
    ("what is 2 to the power of 10?", "2 to the power of 10 = 1024"),
    ("what is 3 plus 4 times 2?", "3 plus 4 times 2 = 11"),
    ("12 divided by 4 minus 1", "12 divided by 4 minus 1 = 2"),
    ("sqrt(-4)", "I can’t take the square root of a negative number."),
    ("2 to the power of 99999999", "That exponent is too large; I compute powers up to 10000."),
    ("sqrt(9^9999)^2", "That result is too large to show."),
    ("sqrt 16", "I could not read that as arithmetic."),
]


def test_spoken_arithmetic_is_computed_by_the_math_agent(tmp_path):
    """The ``math_words`` change: functions and words people use for arithmetic, through a real kernel; a huge
    power or a negative root is one clear line."""
    with open_kernel(tmp_path / "a.db") as kernel:
        records = [kernel.tick(text) for text, _ in SPOKEN]
    assert [r.final_output for r in records] == [reply for _, reply in SPOKEN]
    assert {r.router_decision.agent for r in records} == {"math_agent"}


@pytest.mark.parametrize(
    "text", ["the square root of my problems", "what is 3 times better", "I am 2 times 3 apples", "sqrt me"]
)
def test_spoken_words_without_arithmetic_are_not_routed_to_math(text):
    assert expression_in(text, words=True) is None


def test_without_the_change_spoken_arithmetic_is_not_arithmetic():
    """Old journals read lines without ``math_words``: "sqrt(16)" is no arithmetic there, nor a function to call."""
    assert expression_in("sqrt(16) + 2") is None and expression_in("15% of 80") is None
    with pytest.raises(MathError):
        evaluate("sqrt(16)")
    assert evaluate("sqrt(16)", words=True) == 4


spoken_expressions = st.recursive(
    numbers,
    lambda inner: st.one_of(
        st.tuples(
            inner, st.sampled_from([" plus ", " times ", " divided by ", "% of ", " to the power of "]), inner
        ).map("".join),
        inner.map(lambda e: f"sqrt({e})"),
        inner.map(lambda e: f"({e}) squared"),
        inner.map(lambda e: f"square root of ({e})"),
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(spoken_expressions)
def test_random_spoken_expressions_give_a_value_or_a_clear_reply(expression):
    try:
        value = evaluate(expression, words=True)
    except MathError as exc:
        assert str(exc).endswith(".")
        return
    assert value.numerator.bit_length() < 15_000 and value.denominator.bit_length() < 15_000
    assert render(value)
