"""A module's proposals with NaN or infinity anywhere are refused, naming the path (the journal would write null)."""

from __future__ import annotations

import math

import pytest

from agi_core.errors import ValidationError
from agi_core.modules import Belief, Candidate, Claim, GoalUpdate, Proposals
from agi_core.modules.proposals import checked_proposals

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("proposals", "path"),
    [
        (Proposals(beliefs=[Belief("mood", {"level": [1, NAN]})]), "$.beliefs[0].value.level[1]"),
        (Proposals(beliefs=[Belief("a"), Belief("mood", 0.5, INF)]), "$.beliefs[1].confidence"),
        (Proposals(goals=[GoalUpdate("learn", "active", NAN)]), "$.goals[0].progress"),
        (Proposals(candidates=[Candidate("hi", NAN)]), "$.candidates[0].score"),
        (
            Proposals(candidates=[Candidate("hi", action={"name": "respond", "args": {"x": -INF}})]),
            "$.candidates[0].action.args.x",
        ),
        (
            Proposals(candidates=[Candidate("hi", claims=[Claim("k", [NAN], "t")])]),
            "$.candidates[0].claims[0].value[0]",
        ),
        (Proposals(claims=[Claim("k", None, "t"), Claim("k", {"v": NAN}, "t")]), "$.claims[1].value.v"),
    ],
)
def test_nan_or_infinity_anywhere_in_proposals_is_refused_with_its_path(proposals, path):
    with pytest.raises(ValidationError, match="NaN or infinity") as refused:
        checked_proposals(proposals, "m")
    assert f"at {path};" in str(refused.value)


def test_finite_proposals_with_nulls_pass_and_are_journaled_as_they_are():
    proposals = Proposals(
        beliefs=[Belief("mood", None, 0.5)],
        goals=[GoalUpdate("learn", progress=None)],
        candidates=[Candidate("hi", 0.25, claims=[Claim("k", None, "t")])],
    )
    checked, data = checked_proposals(proposals, "m")
    assert checked.module == "m" and data["candidates"][0]["action"] is None
    assert data["beliefs"][0] == {"about": "mood", "value": None, "confidence": 0.5}


def test_nan_where_text_belongs_is_refused_too():
    """attrs checks no types: a module may put a number where text belongs; NaN there is refused all the same."""
    for proposals, path in [
        (Proposals(beliefs=[Belief(NAN)]), "$.beliefs[0].about"),  # type: ignore[arg-type]
        (Proposals(candidates=[Candidate([INF])]), "$.candidates[0].reply[0]"),  # type: ignore[arg-type]
        (Proposals(claims=[Claim("k", 1, "t", {"e": NAN})]), "$.claims[0].evidence.e"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(ValidationError, match="NaN or infinity") as refused:
            checked_proposals(proposals, "m")
        assert f"at {path};" in str(refused.value)
