"""Tick timings: how long each tick took, kept beside the journal (migration ``m016_tick_timings``).

A timing is a measurement, not an input: it is not in the journal record (so the HMAC chain and
replay's comparison never see it) and not in the state seal. The kernel writes one row per tick,
``(tick, duration_us)``, in the tick's transaction (:class:`~agi_core.memory.backend.TickTimingStore`),
so it commits with the tick, rolls back with it, and travels with ``agi export``.
"""

from __future__ import annotations

import sqlite3

from agi_core.errors import ValidationError


def check_duration(tick: int, duration_us: object) -> int:
    """``duration_us`` when it is a non-negative integer; anything else is refused in one line."""
    if type(duration_us) is not int or duration_us < 0:
        raise ValidationError(
            f"the duration of tick {tick} must be a whole number of microseconds, 0 or more, not {duration_us!r}; "
            "pass the elapsed time as an int"
        )
    return duration_us


def put(conn: sqlite3.Connection, tick: int, duration_us: int) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO tick_timings (tick, duration_us) VALUES (?, ?)",
        (tick, check_duration(tick, duration_us)),
    )


def between(conn: sqlite3.Connection, first: int, last: int) -> dict[int, int]:
    rows = conn.execute(
        "SELECT tick, duration_us FROM tick_timings WHERE tick BETWEEN ? AND ? ORDER BY tick", (first, last)
    )
    return dict(rows.fetchall())
