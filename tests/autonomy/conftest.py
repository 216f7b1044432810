"""Fixtures for the autonomy tests: a kernel on a real SQLite file with a simulated, pinned clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agi_core.kernel import Kernel
from agi_core.scheduling.clock import PinnedClock, SimulatedClock

START_MS = 1_795_000_000_000  # 2026-11-18T…Z: any fixed instant will do


@pytest.fixture
def sim() -> SimulatedClock:
    return SimulatedClock(START_MS)


@pytest.fixture
def kernel(tmp_path, sim) -> Iterator[Kernel]:
    with Kernel.open(tmp_path / "agent.db", seed="autonomy", clock=PinnedClock(sim)) as opened:
        yield opened
