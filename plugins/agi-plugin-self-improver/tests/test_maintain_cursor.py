"""The maintain phase's cursor keeps up with an agent that idles for hours under ``agi run --follow``."""

from __future__ import annotations

import json

from agi_core import Kernel, Plugins
from agi_core.replay import replay_records
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow

START_MS = 1_795_000_000_000


def plugins() -> Plugins:
    from agi_plugin_self_improver import plugin

    found = Plugins.builtins()
    found.add_module(plugin, name="self_improver")
    return found


def _improver_outputs(kernel, since: int) -> list[dict]:
    """The self_improver's maintain outputs of the ticks after ``since``."""
    found = []
    for _tick, _id, text, _chain in kernel.store.journal_rows(since):
        for call in json.loads(text).get("modules", {}).get("calls", []):
            if call["module"] == "self_improver" and call["phase"] == "maintain":
                found.append(call.get("output"))
    return found


def _idle_then_asked(kernel, sim, hours: float) -> int:
    """``--follow`` defaults (clock every 30 s, maintenance every 60 s) idle for ``hours``, then one input
    the agent cannot answer (F3); returns the tick of that input."""
    loop = Follow(kernel, clock_every_ms=30_000, maintain_every_ms=60_000, idle_sleep_s=30.0)
    list(loop.run(until=lambda: sim.ms >= START_MS + hours * 3600_000))
    sim.advance(1)
    kernel.config.clock.refresh()
    asked = kernel.tick("whats the capital of Japan?").tick
    list(loop.run(until=lambda: sim.ms >= START_MS + hours * 3600_000 + 180_000))
    return asked


def test_maintain_sees_an_unanswered_input_after_hours_of_clock_ticks(tmp_path):
    """It read the 500 records after its cursor and moved the cursor only when they held an F3 input:
    after about three hours of clock and maintenance ticks it read the same 500 for ever."""
    sim = SimulatedClock(START_MS)
    with Kernel.open(tmp_path / "a.db", seed="months", plugins=plugins(), clock=PinnedClock(sim)) as kernel:
        asked = _idle_then_asked(kernel, sim, hours=4)
        assert asked > 500
        outputs = _improver_outputs(kernel, asked)
        assert outputs and outputs[0]["asked"] is True, outputs
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    assert replay_records(records, seed="months", plugins=plugins()).ok


def test_a_journal_whose_maintain_cursor_was_stuck_replays_equal(tmp_path, monkeypatch):
    """Journals written while a full page without an F3 input held the cursor (no ``module_changed``)."""
    from agi_core.modules.context import ModuleContext

    sim = SimulatedClock(START_MS)
    with Kernel.open(tmp_path / "a.db", seed="months", plugins=plugins(), clock=PinnedClock(sim)) as kernel:
        with monkeypatch.context() as patched:
            patched.setattr(ModuleContext, "changed", lambda self, change: False)  # the rule before
            asked = _idle_then_asked(kernel, sim, hours=4)
        assert _improver_outputs(kernel, asked) == [{"asked": False}] * 3
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    report = replay_records(records, seed="months", plugins=plugins())
    assert (report.ok, report.mismatch) == (True, None)
