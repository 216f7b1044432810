"""AgentOne's importance heuristics, value by value (seed: "Importance Scoring")."""

from __future__ import annotations

import pytest

from agi_core.longterm import ACTION_IMPORTANCE, score_importance

LONG = "I spent the afternoon comparing three routes through the valley, " * 4  # > 200 chars


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        ("The kettle is on the left shelf.", {}, 0.3),  # base
        ("Please remember that my name is Ann.", {}, 0.85),  # base + explicit 0.4 + request 0.15
        ("My goal this year is a marathon.", {}, 0.7),  # base + goal 0.4
        ("Where did I park the car?", {}, 0.45),  # base + question 0.15
        ("The parcel arrived.", {"tool_calls": 2}, 0.6),  # base + tool calls 0.3
        ("It is 10:30.", {"kind": "time"}, 0.4),  # time base
        ("It is 10:30; still no reply since the question 5 minutes ago.", {"kind": "time"}, 0.55),  # + temporal
        (LONG, {}, 0.4),  # base + complex 0.1
        ("The parcel arrived.", {"thought": "x" * 201}, 0.4),  # the thought's length counts
        ("hi!", {}, 0.1),  # base - greeting 0.2
        ("Thanks, sounds good", {}, 0.1),
        ("send_message(to=bob)", {"kind": "action"}, ACTION_IMPORTANCE),
        ("Remember: can you follow up? My goal is waiting. " + LONG, {"tool_calls": 1}, 1.0),  # clamped
    ],
)
def test_importance_values(text: str, kwargs: dict, expected: float) -> None:
    assert score_importance(text, **kwargs) == pytest.approx(expected)


def test_action_importance_is_the_seed_default() -> None:
    assert ACTION_IMPORTANCE == 0.7


def test_long_greeting_is_not_penalised() -> None:
    text = "Hello there, I wanted to tell you about the garden project we discussed"  # >= 50 chars
    assert score_importance(text) == pytest.approx(0.3)


def test_never_below_zero() -> None:
    assert score_importance("ok", kind="message") == pytest.approx(0.1)
    assert 0.0 <= score_importance("") <= 1.0
