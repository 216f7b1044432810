"""A module's seat on the council: a member that fails abstains, says why in one line, and is reported."""

from __future__ import annotations

import threading

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


class Hanging(CognitiveModule):
    """A voter that hangs (a lost server) until ``released``, then rejects every claim."""

    name = "hanging"

    def __init__(self, hang_s: float = 30.0) -> None:
        self.phase_timeouts = {"vote": 0.2}
        self.released, self.hang_s, self.calls = threading.Event(), hang_s, 0

    def vote(self, claims, evidence_items):
        self.calls += 1
        self.released.wait(self.hang_s)
        return [{"voter": "hanging", "vote": "reject", "reason": "it took its time"}]


def test_a_vote_past_its_timeout_abstains_in_one_line_naming_the_module_and_the_fix_and_replays_without_waiting(
    tmp_path, capsys
):
    db, hanging = tmp_path / "a.db", Hanging()
    try:
        with open_kernel(db, _only(hanging)) as kernel:
            record = _name_asked(kernel)
    finally:
        hanging.released.set()  # the abandoned vote ends (had it been waited for, it rejected the reply)
    assert record.final_output == "Your name is Ada."
    reason = (
        "TimedOut: module 'hanging': vote ran past 0.2 s and was abandoned; make it return sooner, or raise its "
        "phase_timeouts['vote'] / timeout_s or --module-timeout"
    )
    assert record.council_votes[2:] == [{"voter": "hanging", "vote": "abstain", "reason": reason}]
    recorded = {"call": "hanging/vote", "timed_out": reason.removeprefix("TimedOut: ")}
    assert record.externals["council_vote_timeout"] == [recorded]
    assert capsys.readouterr().err.splitlines() == [
        f"agi: warning: plugin 'Plugin' failed in module hanging.vote: {reason}"
    ]
    calls = hanging.calls
    assert replay(db, plugins=builtin_plugins(_only(hanging))).ok  # released now: called, it would reject
    assert hanging.calls == calls


def test_a_journal_from_before_that_waited_for_a_slow_vote_replays_equal(tmp_path, monkeypatch):
    """The journal older code wrote: the vote waited for past its module's timeout, no timeout recorded."""
    db, slow = tmp_path / "old.db", Hanging(hang_s=0.5)
    with monkeypatch.context() as patched:
        patched.setattr(council, "call_with_timeout", lambda function, args, limit_s: function(*args))
        with open_kernel(db, _only(slow)) as kernel:
            record = _name_asked(kernel)
    assert record.final_output == "I don’t have this information stored yet."
    assert record.council_votes[2:] == [{"voter": "hanging", "vote": "reject", "reason": "it took its time"}]
    assert "council_vote_timeout" not in record.externals
    assert replay(db, plugins=builtin_plugins(_only(slow))).ok


def _only(module):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(module)

    return Plugin()


class HangsInReplay(Hanging):
    """A voter that answers at once live and hangs when replayed (it reads something replay does not serve)."""

    def __init__(self) -> None:
        super().__init__()
        self.replaying = False

    def vote(self, claims, evidence_items):
        if not self.replaying:
            self.calls += 1
            return [{"voter": "hanging", "vote": "approve", "reason": "answered at once"}]
        return super().vote(claims, evidence_items)


def test_a_vote_that_hangs_only_in_replay_stops_the_replay_at_its_tick_naming_the_module(tmp_path):
    db, voter = tmp_path / "a.db", HangsInReplay()
    with open_kernel(db, _only(voter)) as kernel:
        record = _name_asked(kernel)
    assert record.final_output == "Your name is Ada."
    assert record.council_votes[2:] == [{"voter": "hanging", "vote": "approve", "reason": "answered at once"}]
    voter.replaying = True
    try:  # unbounded, the replay waited the vote's 30 s and then went on, equal
        report = replay(db, plugins=builtin_plugins(_only(voter)))
    finally:
        voter.released.set()
    assert (report.ok, report.mismatch.tick) == (False, 2)
    assert report.mismatch.reason == (
        "replay: module 'hanging''s vote ran past 2 s (10x its 0.2 s timeout) where the journal recorded its "
        "answer, so it does something else in replay; make its vote depend on its claims and evidence only "
        "(what it reads outside, through the module's phases)"
    )
