"""A tick's one recorded wall-clock reading, and the one way the agent words a time.

The deterministic clock (``Determinism.now()``, D2) stamps ids, episodes and RLM rows and
never reads a clock. The *wall* clock enters a tick once, as a recorded external:

- ``tick_clock``: the kernel's clock (``agi chat``, ``agi run``, ``Kernel.open(clock=…)``),
  read when the tick begins (:func:`agi_core.scheduling.clock.read_tick_clock`);
- ``wall_clock``: in a tick of a kernel without a clock (``agi state``, ``agi memory put``,
  a library kernel), read the first time the tick needs the time, and only then.

:func:`tick_wall_ms` returns that reading; every later use in the tick gets the same value,
and replay serves the recorded one back (journals from before kept it as ``reminder_clock``
or ``brain_clock_ms``; those are served back too). The UTC offset of the machine is recorded
beside it (``utc_offset``), so a reply that says the local time replays equal anywhere.
:func:`time_text` is the one wording of "the time now": the Stage-0 time rule, the LLM
brain's ``clock`` tool and the LLM brain's prompt all use it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

from agi_core.externals import WALL_CLOCK, WALL_CLOCK_KINDS, Externals, wall_reading
from agi_core.scheduling.clock import WallClock

TICK_READ = WALL_CLOCK
"""The externals kind of the wall clock read by a tick whose kernel has no clock."""
WALL_KINDS = WALL_CLOCK_KINDS
"""Every kind a tick's wall-clock reading is recorded under, the kernel clock's first."""
OFFSET_EXTERNAL = "utc_offset"
"""The externals kind of the machine's UTC offset in seconds (read with the clock, served back in replay)."""
DUE_OFFSET_EXTERNAL = "due_utc_offset"
"""The externals kind of the machine's UTC offset at a reminder's due time (a daylight-saving change may come
between; see :func:`utc_offset_at_s`)."""
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def tick_wall_ms(externals: Externals) -> int:
    """The tick's wall-clock reading (ms since the epoch): the kernel clock's, else one read now and
    recorded as ``wall_clock``; the same value for every call in the tick."""
    reading = recorded_wall_ms(externals)
    if reading is not None:
        return reading
    return int(externals.fetch(TICK_READ, WallClock().now_ms))  # in replay: ReplayMismatch, one line


def recorded_wall_ms(externals: Externals) -> int | None:
    """The tick's reading if it took one already (or, replaying, if it recorded one); nothing is read."""
    for kind in WALL_KINDS:
        if externals.log.get(kind):
            return int(externals.log[kind][0])
    if externals.recorded is not None:
        for kind in WALL_KINDS:
            if externals.recorded.get(kind):
                return int(externals.fetch(kind, int))  # served from the record
    return None


def ttl_clock(externals: Externals) -> Callable[[], int] | None:
    """The clock RLM TTLs count on in this tick (``StateService(wall_ms=…)``): the tick's wall-clock
    reading, read only when a TTL is met. None when replaying a tick that recorded no reading: it
    met no TTL, or it is from a journal of the days TTLs counted the deterministic clock, which the
    service then counts again, so that journal replays equal."""
    if externals.recorded is not None and wall_reading(externals.recorded) is None:
        return None
    return lambda: tick_wall_ms(externals)


def recorded_in(externals: dict[str, list[object]]) -> int | None:
    """The wall-clock reading in a journal record's ``externals``, if the tick took one."""
    return wall_reading(externals)


def utc_offset_s(externals: Externals, ms: int) -> int:
    """The machine's UTC offset at ``ms``, in seconds, read once per tick and recorded."""
    if externals.log.get(OFFSET_EXTERNAL):
        return int(externals.log[OFFSET_EXTERNAL][0])

    return int(externals.fetch(OFFSET_EXTERNAL, lambda: _machine_offset_s(ms)))


def utc_offset_at_s(externals: Externals, ms: int) -> int | None:
    """The machine's UTC offset at a later ``ms`` (a reminder's due time), recorded at each call; None when
    replaying a tick that recorded none (a journal from before: its reminder counted the tick's offset)."""
    if externals.recorded is not None and not externals.has_next(DUE_OFFSET_EXTERNAL):
        return None
    return int(externals.fetch(DUE_OFFSET_EXTERNAL, lambda: _machine_offset_s(ms)))


def _machine_offset_s(ms: int) -> int:
    offset = datetime.fromtimestamp(ms / 1000, UTC).astimezone().utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def local(ms: int, offset_s: int) -> datetime:
    """``ms`` since the epoch as an aware datetime at UTC offset ``offset_s``."""
    return datetime.fromtimestamp(ms / 1000, timezone(timedelta(seconds=offset_s)))


def offset_text(moment: datetime) -> str:
    """``UTC+01:00``."""
    offset = moment.utcoffset()
    total = int(offset.total_seconds()) if offset is not None else 0
    sign, total = ("+" if total >= 0 else "-"), abs(total)
    return f"UTC{sign}{total // 3600:02d}:{total % 3600 // 60:02d}"


def date_text(moment: datetime) -> str:
    """``Friday 27 November`` (English whatever the machine's locale)."""
    return f"{WEEKDAYS[moment.weekday()]} {moment.day} {MONTHS[moment.month - 1]}"


def day_text(moment: datetime) -> str:
    """``Friday 27 November 2026`` (English whatever the machine's locale)."""
    return f"{WEEKDAYS[moment.weekday()]} {moment.day} {MONTHS[moment.month - 1]} {moment.year}"


def time_text(ms: int, offset_s: int) -> str:
    """``It is 17:11 (UTC+00:00) on Friday 27 November 2026.``: the time, said the one way."""
    moment = local(ms, offset_s)
    return f"It is {moment:%H:%M} ({offset_text(moment)}) on {day_text(moment)}."


def ago(seconds: float) -> str:
    """``3 minutes``, ``2 hours and 5 minutes``, ``4 days``: how long, in words."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} second{'s' * (seconds != 1)}"
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if days:
        rest = hours - days * 24
        return f"{days} day{'s' * (days != 1)}" + (f" and {rest} hour{'s' * (rest != 1)}" if rest else "")
    if hours:
        rest = minutes - hours * 60
        return f"{hours} hour{'s' * (hours != 1)}" + (f" and {rest} minute{'s' * (rest != 1)}" if rest else "")
    return f"{minutes} minute{'s' * (minutes != 1)}"


__all__ = [
    "DUE_OFFSET_EXTERNAL",
    "OFFSET_EXTERNAL",
    "TICK_READ",
    "WALL_KINDS",
    "ago",
    "date_text",
    "day_text",
    "local",
    "offset_text",
    "recorded_in",
    "recorded_wall_ms",
    "tick_wall_ms",
    "time_text",
    "ttl_clock",
    "utc_offset_at_s",
    "utc_offset_s",
]
