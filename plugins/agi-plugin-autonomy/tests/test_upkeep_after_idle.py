"""The autonomy module reads the user's lines however many clock and maintenance ticks came between them."""

from __future__ import annotations

import json

import agi_plugin_autonomy.plugin as autonomy

from agi_core.modules.context import ModuleContext
from agi_core.replay import replay_records
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow
from agi_core.testing import builtin_plugins, open_kernel

START_MS = 1_795_000_000_000
LINES = ["my sister Maya lives in Lyon", "Maya is a teacher", "I like hiking", "we went to Annecy", "Annecy was lovely"]


def _upkeeps(kernel, since: int = 0) -> list:
    found = []
    for _tick, _id, text, _chain in kernel.store.journal_rows(since):
        for call in json.loads(text).get("modules", {}).get("calls", []):
            upkeep = (call.get("output") or {}).get("upkeep") if call["phase"] == "maintain" else None
            if call["module"] == "autonomy" and upkeep:
                found.append(upkeep)
    return found


def _lines_with_idle_between(kernel, sim):
    """``--follow`` defaults: three lines, 12 idle minutes (the idle ticks spend the hour's six autonomous
    ticks), two more lines, then idle until the budget frees, an hour after the first autonomous tick."""
    loop = Follow(kernel, clock_every_ms=30_000, maintain_every_ms=60_000, idle_sleep_s=30.0)

    def say(text):
        sim.advance(1)
        kernel.config.clock.refresh()
        return kernel.tick(text).tick

    for text in LINES[:3]:
        say(text)
    list(loop.run(until=lambda: sim.ms >= START_MS + 12 * 60_000))
    for text in LINES[3:]:
        said = say(text)
    list(loop.run(until=lambda: sim.ms >= START_MS + 70 * 60_000))
    return said


def test_the_digest_counts_lines_said_before_twenty_idle_minutes(tmp_path):
    """It read the user's lines among the newest 40 episodes, which clock and maintenance ticks fill in
    seven minutes: three lines, an idle spell and two more lines made no digest (five are wanted) once
    the next autonomous tick came."""
    sim = SimulatedClock(START_MS)
    with open_kernel(tmp_path / "a.db", autonomy, seed="idle", clock=PinnedClock(sim)) as kernel:
        said = _lines_with_idle_between(kernel, sim)
        digests = _upkeeps(kernel, said)
        assert len(digests) == 1 and digests[0]["lines"] == 5, digests
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    assert replay_records(records, seed="idle", plugins=builtin_plugins(autonomy)).ok


def test_a_journal_whose_lines_were_read_among_the_newest_episodes_replays_equal(tmp_path, monkeypatch):
    sim = SimulatedClock(START_MS)
    with open_kernel(tmp_path / "a.db", autonomy, seed="idle", clock=PinnedClock(sim)) as kernel:
        with monkeypatch.context() as patched:
            patched.setattr(ModuleContext, "changed", lambda self, change: False)  # the rule before
            _lines_with_idle_between(kernel, sim)
        assert _upkeeps(kernel) == []
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    report = replay_records(records, seed="idle", plugins=builtin_plugins(autonomy))
    assert (report.ok, report.mismatch) == (True, None)
