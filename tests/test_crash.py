"""Crash consistency: SIGKILL at random moments never leaves a partial tick or a broken chain."""

from __future__ import annotations

import random

from agi_core.consistency import crash_trial


def test_sigkill_during_ticks_leaves_a_consistent_replayable_database(tmp_path):
    rng = random.Random(20261122)
    trials = [crash_trial(tmp_path / f"trial{i}.db", "crash", rng.uniform(0.05, 0.6)) for i in range(5)]
    assert [(t.problems, t.replay_ok) for t in trials] == [([], True)] * 5
    assert all(t.ticks > 0 for t in trials)
