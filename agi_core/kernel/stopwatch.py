"""How long a tick runs: the one wall-clock reading the kernel keeps out of the journal.

The tick's duration is a measurement, not an input: nothing the tick decides depends on it, it is
not in the journal record, and replay never compares it. :func:`conduct <agi_core.kernel.tick.conduct>`
starts the stopwatch once the tick holds the write lock, and the tick's transaction stores the
elapsed time just before it commits (:class:`~agi_core.memory.backend.TickTimingStore`).
"""

from __future__ import annotations

import time


def start() -> int:
    """A reading of the monotonic performance counter, in nanoseconds."""
    return time.perf_counter_ns()


def elapsed_us(started: int) -> int:
    """Whole microseconds since ``started`` (a :func:`start` reading)."""
    return (time.perf_counter_ns() - started) // 1000
