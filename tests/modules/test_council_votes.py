"""A module's seat on the council: a member that fails abstains, says why in one line, and is reported."""

from __future__ import annotations

from agi_core import council
from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

SHAPE = '[{"voter": NAME, "vote": "approve" or "reject", "reason": TEXT}]'


class Strict(CognitiveModule):
    """A voter that means to reject every claim, but spells the vote "Reject"."""

    name = "strict"

    def vote(self, claims, evidence_items):
        return [{"voter": "strict", "vote": "Reject", "reason": "never trust a name"}]


class Terse(CognitiveModule):
    """A voter that returns its verdict as a bare string."""

    name = "terse"

    def vote(self, claims, evidence_items):
        return "approve"


class Voters:
    @hookimpl
    def agi_register_modules(self, register):
        register(Strict())
        register(Terse())


def _name_asked(kernel):
    kernel.tick("my name is Ada")
    return kernel.tick("what is my name?")


def test_a_misshapen_vote_abstains_in_one_line_naming_the_module_and_the_fix_and_is_reported(tmp_path, capsys):
    db = tmp_path / "a.db"
    with open_kernel(db, Voters()) as kernel:
        record = _name_asked(kernel)
    assert record.final_output == "Your name is Ada."  # no vote counted against it: it stands
    strict = (
        "ValidationError: module 'strict': vote returned {'voter': 'strict', 'vote': 'Reject', 'reason': 'never "
        f'trust a name\'}} at [0], not a vote (a voter\'s name and "vote": "approve" or "reject"); return {SHAPE}'
    )
    terse = f"ValidationError: module 'terse': vote returned str 'approve', not a list of votes; return {SHAPE}"
    assert record.council_votes[2:] == [
        {"voter": "strict", "vote": "abstain", "reason": strict},
        {"voter": "terse", "vote": "abstain", "reason": terse},
    ]
    assert record.externals["council_vote_refused"] == [True, True]
    assert capsys.readouterr().err.splitlines() == [
        f"agi: warning: plugin 'Voters' failed in module strict.vote: {strict}",
        f"agi: warning: plugin 'Voters' failed in module terse.vote: {terse}",
    ]
    assert replay(db, plugins=builtin_plugins(Voters())).ok


def test_a_journal_from_before_that_kept_a_misshapen_vote_as_cast_replays_equal(tmp_path, monkeypatch):
    """The journal older code wrote: "Reject" recorded as cast (and never counted), no refusal recorded."""
    db = tmp_path / "old.db"
    with monkeypatch.context() as patched:
        patched.setattr(council, "cast_votes", lambda member, cast: list(cast))  # kept as cast, no check
        with open_kernel(db, _only(Strict())) as kernel:
            record = _name_asked(kernel)
    assert record.council_votes[2:] == [{"voter": "strict", "vote": "Reject", "reason": "never trust a name"}]
    assert "council_vote_refused" not in record.externals
    assert replay(db, plugins=builtin_plugins(_only(Strict()))).ok


def _only(module):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(module)

    return Plugin()
