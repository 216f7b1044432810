"""Clocks for the autonomy loop, and the one recorded wall-clock read of a tick.

A kernel opened with a ``clock`` (``agi run --follow``, ``agi schedule add``) reads it once
per tick through :func:`read_tick_clock`: the reading, in integer milliseconds since the
Unix epoch, is recorded as the tick's ``tick_clock`` external, so replay serves it back
and the tick does the same offline. A kernel without a clock records nothing (its ticks
stay byte-identical across runs).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

from agi_core.externals import TICK_CLOCK, Externals

CLOCK_EXTERNAL = TICK_CLOCK
"""The externals kind under which a tick's clock reading (ms since the epoch) is recorded."""


class Clock(Protocol):
    """A source of time for the follow loop: read it, and wait on it."""

    def now_ms(self) -> int: ...

    def sleep(self, seconds: float, stop: threading.Event) -> None: ...


class WallClock:
    """The real clock; ``sleep`` returns early when ``stop`` is set (a signal arrived)."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def sleep(self, seconds: float, stop: threading.Event) -> None:
        stop.wait(seconds)


class SimulatedClock:
    """A clock that moves only when told to (tests): ``sleep`` advances it instantly."""

    def __init__(self, start_ms: int) -> None:
        self.ms = start_ms

    def now_ms(self) -> int:
        return self.ms

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)

    def sleep(self, seconds: float, stop: threading.Event) -> None:
        self.advance(seconds)


class PinnedClock:
    """Reads its source once per :meth:`refresh`; calling it returns that reading.

    The follow loop refreshes it once per tick and decides what is due from the reading;
    the kernel, opened with this clock, records the same reading in the tick.
    """

    def __init__(self, source: Clock) -> None:
        self.source = source
        self.reading: int | None = None

    def refresh(self) -> int:
        self.reading = self.source.now_ms()
        return self.reading

    def __call__(self) -> int:
        return self.reading if self.reading is not None else self.refresh()

    def sleep(self, seconds: float, stop: threading.Event) -> None:
        self.source.sleep(seconds, stop)


def wall_clock() -> Callable[[], int]:
    """A kernel clock that reads the wall clock each time (commands run outside ``--follow``)."""
    return WallClock().now_ms


def read_tick_clock(externals: Externals, clock: Callable[[], int] | None) -> int | None:
    """The tick's clock reading: recorded live when the kernel has a clock, served back in replay."""
    if externals.recorded is not None:
        if CLOCK_EXTERNAL not in externals.recorded:
            return None
        return int(externals.fetch(CLOCK_EXTERNAL, int))  # served from the record; nothing is read
    if clock is None:
        return None
    return int(externals.fetch(CLOCK_EXTERNAL, clock))


def iso_ms(ms: int) -> str:
    """``ms`` since the epoch as ISO 8601 UTC with milliseconds."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
