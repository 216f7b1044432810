"""An idle agent records ``module_changed`` only where its upkeep's two readings of the user's lines make a
difference, not in every maintenance tick where they differ; a journal that b754074 wrote with a mark in
every such tick (tests/journals/b754074/idle_upkeep.jsonl.gz, retrieval and autonomy) replays equal."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import agi_plugin_retrieval.plugin as retrieval
import pytest

from agi_core.replay import replay_records
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow
from agi_core.testing import builtin_plugins, open_kernel, replay_journal_file

autonomy = pytest.importorskip("agi_plugin_autonomy.plugin")

OLD = Path(__file__).resolve().parent / "journals" / "b754074" / "idle_upkeep.jsonl.gz"
START_MS = 1_795_000_000_000


def _idle_agent(kernel, sim, minutes: int) -> None:
    """What b754074's journal was made of: three lines, 12 idle minutes, two lines, idle until ``minutes``."""
    loop = Follow(kernel, clock_every_ms=30_000, maintain_every_ms=60_000, idle_sleep_s=30.0)

    def say(text):
        sim.advance(1)
        kernel.config.clock.refresh()
        kernel.tick(text)

    for text in ("my dog is called Rex", "my sister Maya lives in Lyon", "I like hiking"):
        say(text)
    list(loop.run(until=lambda: sim.ms >= START_MS + 12 * 60_000))
    for text in ("Maya is a teacher", "we went to Annecy"):
        say(text)
    list(loop.run(until=lambda: sim.ms >= START_MS + minutes * 60_000))


def _changed(records: list[dict]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for record in records:
        for mark in record["externals"].get("module_changed", []):
            found.setdefault(mark["module"], []).append(record["tick"])
    return found


def test_a_journal_with_a_mark_in_every_idle_maintenance_tick_replays_equal(tmp_path):
    """b754074 asked (and recorded) in every tick where the readings differed, retrieval's mark before
    autonomy's in the same tick; this code asks fewer times there, and must take the change where it asks."""
    path = tmp_path / "idle_upkeep.jsonl"
    path.write_bytes(gzip.decompress(OLD.read_bytes()))
    told = [json.loads(line)["record"] for line in path.read_text(encoding="utf-8").splitlines()]
    marks = _changed(told)
    assert len(marks["retrieval"]) == 47 and len(marks["autonomy"]) == 12, marks
    report = replay_journal_file(path, seed="0", autonomy=autonomy, retrieval=retrieval)
    assert report.ok, (report.summary(), report.mismatch and report.mismatch.diff()[:2000])


def test_an_idle_agent_records_a_change_only_where_its_upkeep_differs(tmp_path):
    sim = SimulatedClock(START_MS)
    with open_kernel(tmp_path / "a.db", autonomy, retrieval, seed="0", clock=PinnedClock(sim)) as kernel:
        _idle_agent(kernel, sim, 80)
        rows = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    records = [json.loads(text) for text in rows]
    assert len(records) == 243
    marks = _changed(records)
    # b754074: 47 of retrieval (every maintenance tick from 104 on), 12 of autonomy. Now retrieval's hourly
    # upkeep that digests the two statements the old reading had lost; autonomy's ticks that tell
    # semantic_memory_maintenance of the three lines the old reading had lost, and its digest of five
    assert marks == {"autonomy": [24, 27, 30, 33, 200], "retrieval": [188]}, marks
    assert replay_records(rows, seed="0", plugins=builtin_plugins(autonomy, retrieval)).ok
