"""A module's proposals with NaN or infinity anywhere are refused, naming the path (the journal would write null)."""

from __future__ import annotations

import math

import attrs
import pytest

from agi_core.errors import ValidationError
from agi_core.modules import Belief, Candidate, Claim, GoalUpdate, Proposals
from agi_core.modules import proposals as proposals_module
from agi_core.modules.proposals import checked_proposals, plain_proposals
from agi_core.serialization import non_finite_path, to_data

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


@attrs.frozen
class Kept:  # an attrs object inside a JSON-typed value: to_data turns it into a dict
    x: float = 1.0


class Text(str):
    pass


class Number(float):
    pass


@attrs.frozen
class LoudBelief(Belief):  # a subclass: only the generic path takes it
    loud: bool = True


@attrs.frozen
class MoreProposals(Proposals):
    note: str = "n"


VARIED = [
    Proposals(),
    Proposals(module="named"),
    Proposals(beliefs=[Belief("a"), Belief("b", "x", 0), Belief("c", 2, True), Belief("d", 0.25, 1)]),
    Proposals(beliefs=[Belief("nested", {"k": [1, {"z": None}], "t": (1, 2)}), Belief("obj", Kept())]),
    Proposals(beliefs=[Belief("set", {1, 2}), Belief("bytes", b"x"), Belief("big", 2**70)]),
    Proposals(goals=[GoalUpdate("learn"), GoalUpdate("ship", "active", 0.5), GoalUpdate("g", "done", 1)]),
    Proposals(candidates=[Candidate("hi"), Candidate("act", 0.9, {"type": "response", "name": "respond"})]),
    Proposals(candidates=[Candidate("c", claims=[Claim("k", "v", "t", "ev-1"), Claim("k", [1.5], "t")])]),
    Proposals(claims=[Claim("k", None, "t"), Claim("k", {"v": [Kept(2.0)]}, "t", None)]),
    Proposals(beliefs=[Belief(7, None, 0.5)], goals=[GoalUpdate(None, 3)], candidates=[Candidate(4, "x")]),  # type: ignore[arg-type]
    Proposals(beliefs=[LoudBelief("loud")]),
    Proposals(beliefs=(Belief("tuple"),)),  # type: ignore[arg-type]
    Proposals(claims=[Belief("misplaced")]),  # type: ignore[list-item]
    MoreProposals(beliefs=[Belief("sub")]),
    Proposals(candidates=[Candidate("c", claims=[Belief("misplaced")])]),  # type: ignore[list-item]
    Proposals(beliefs=[Belief(Text("about"), Number(0.5), Number(0.5))], claims=[Claim("k", Kept(NAN), "t")]),
    Proposals(goals=[GoalUpdate("g", "open", Number(NAN))], candidates=[Candidate("c", 0.5, {"x": [NAN]})]),
]


@pytest.mark.parametrize("proposals", VARIED)
def test_the_direct_plain_data_is_exactly_what_to_data_gives(proposals):
    built = plain_proposals(proposals)
    generic = type(proposals) is not Proposals or type(proposals.beliefs) is not list
    generic = generic or any(type(b) is not Belief for b in proposals.beliefs)
    claims = [*proposals.claims, *(claim for candidate in proposals.candidates for claim in candidate.claims)]
    generic = generic or any(type(claim) is not Claim for claim in claims)
    assert (built is None) == generic  # a subclass, a tuple, a misplaced item: the generic path names it
    if built is not None:
        data, suspect = built
        assert repr(data) == repr(to_data(proposals))  # the same keys, order, values and types (1 is not True)
        assert suspect or non_finite_path(data) is None


NAN_CASES = [
    Proposals(beliefs=[Belief("n", NAN)]),
    Proposals(candidates=[Candidate("c", INF)]),
    Proposals(goals=[GoalUpdate("g", "open", 2.0)], beliefs=[Belief("b", 1.0, 1.5)]),
]


@pytest.mark.parametrize("proposals", [*VARIED, *NAN_CASES])
def test_checked_proposals_give_what_the_generic_path_gives(proposals, monkeypatch):
    def outcome():
        try:
            found, data = checked_proposals(proposals, "m")
        except ValidationError as exc:
            return "refused", str(exc)
        return repr(found), repr(data)

    direct = outcome()
    monkeypatch.setattr(proposals_module, "plain_proposals", lambda _proposals: None)
    assert direct == outcome()
