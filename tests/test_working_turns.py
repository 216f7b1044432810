"""Working memory's recent turns are the conversation: a clock, maintenance or command tick adds none
(an idle ``agi run --follow`` agent's ten turns were all ``maintain`` and ``clock`` after a few minutes,
the conversation pushed out of the brain's context); a journal from before this rule replays equal."""

from __future__ import annotations

import json

import orjson

from agi_core.kernel import tick as tick_module
from agi_core.replay import replay, replay_records
from agi_core.testing import builtin_plugins, open_kernel


def _idle_agent(kernel):
    kernel.tick("my sister Maya is coming over")
    for _ in range(6):  # minutes of an idle --follow agent: clock ticks and maintenance
        kernel.tick("clock 2026-11-28T01:00:00.000Z", source="clock")
        kernel.maintain()
    kernel.put_fact("user/person/self/name", "Ada")  # a command tick (source event)


def test_clock_maintenance_and_command_ticks_leave_the_conversation_in_working_memory(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        _idle_agent(kernel)
        turns = kernel.working().recent_turns
        records = [orjson.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert turns[0] == "user: my sister Maya is coming over" and len(turns) == 2
    assert sum("turn_skipped" in r["externals"] for r in records) == 13
    assert replay(tmp_path / "a.db", plugins=builtin_plugins()).ok


def test_a_journal_from_before_that_kept_every_turn_replays_equal(tmp_path, monkeypatch):
    """The journal older code wrote: every tick's turn kept, no ``turn_skipped`` recorded."""
    with monkeypatch.context() as patched:
        patched.setattr(tick_module, "keeps_turn", lambda percept, externals: True)
        with open_kernel(tmp_path / "old.db") as kernel:
            _idle_agent(kernel)
            assert kernel.working().recent_turns[-1].startswith("agent: ")
            assert "maintain: maintain" in kernel.working().recent_turns
            records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    assert not any("turn_skipped" in json.loads(text)["externals"] for text in records)
    report = replay_records(records, seed="test", plugins=builtin_plugins())
    assert (report.ok, report.mismatch) == (True, None)
