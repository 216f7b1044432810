"""Upkeep reads the user's statements however many clock and maintenance ticks came after them."""

from __future__ import annotations

import json

import agi_plugin_retrieval.plugin as retrieval

from agi_core.modules.context import ModuleContext
from agi_core.replay import replay_records
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow
from agi_core.testing import builtin_plugins, open_kernel

START_MS = 1_795_000_000_000


def plugins():
    return builtin_plugins(retrieval)


def _outputs(kernel, module: str, since: int = 0) -> list:
    found = []
    for _tick, _id, text, _chain in kernel.store.journal_rows(since):
        for call in json.loads(text).get("modules", {}).get("calls", []):
            if call["module"] == module and call["phase"] == "maintain":
                found.append(call.get("output"))
    return found


def _chat_then_idle(kernel, sim):
    """``--follow`` defaults (clock every 30 s, maintenance every 60 s): a statement, two idle minutes (the
    first upkeep digests it and is next due an hour later), two statements, then 70 idle minutes."""
    loop = Follow(kernel, clock_every_ms=30_000, maintain_every_ms=60_000, idle_sleep_s=30.0)

    def say(text):
        sim.advance(1)
        kernel.config.clock.refresh()
        return kernel.tick(text).tick

    say("my dog is called Rex")
    list(loop.run(until=lambda: sim.ms >= START_MS + 120_000))
    say("my sister Maya lives in Lyon")
    told = say("I walk my dog in the park every morning")
    list(loop.run(until=lambda: sim.ms >= START_MS + 72 * 60_000))
    return told


def test_the_hourly_upkeep_digests_statements_an_idle_hour_of_clock_ticks_came_after(tmp_path):
    """It read the newest 200 episodes, which clock and maintenance ticks (six episodes a minute) fill in
    about half an hour: the statements made after the first upkeep were never digested."""
    sim = SimulatedClock(START_MS)
    with open_kernel(tmp_path / "a.db", retrieval, seed="idle", clock=PinnedClock(sim)) as kernel:
        told = _chat_then_idle(kernel, sim)
        done = [out for out in _outputs(kernel, "retrieval", told) if out]
        assert len(done) == 1 and done[0]["kept"] == 3, done  # the newest statements, the first one too
        assert "maya" in done[0]["themes"]
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    assert replay_records(records, seed="idle", plugins=plugins()).ok


def test_a_journal_whose_upkeep_read_only_the_newest_episodes_replays_equal(tmp_path, monkeypatch):
    sim = SimulatedClock(START_MS)
    with open_kernel(tmp_path / "a.db", retrieval, seed="idle", clock=PinnedClock(sim)) as kernel:
        with monkeypatch.context() as patched:
            patched.setattr(ModuleContext, "changed", lambda self, change: False)  # the rule before
            told = _chat_then_idle(kernel, sim)
        assert [out for out in _outputs(kernel, "retrieval", told) if out] == []
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    report = replay_records(records, seed="idle", plugins=plugins())
    assert (report.ok, report.mismatch) == (True, None)
