"""When a job runs: durations (``1s``, ``5m``, ``1h30m``), ``--at`` times, cron expressions.

Cron expressions are parsed and stepped by croniter, in UTC; durations, times and cron
expressions are checked here so a bad one (ASCII digits only, at most 100 years, a cron
expression of 5 or 6 fields that fires at least once) is refused with a one-line error
before anything is stored.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from fractions import Fraction

from agi_core.errors import ValidationError

MIN_EVERY_MS = 1000
_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)")  # ASCII digits: \d takes "١" too
MAX_DURATION_CHARS = 40  # "1d23h59m59s999ms" is 16
MAX_DURATION_MS = 36_500 * 86_400_000  # 100 years: any due time stays a valid date and a 64-bit integer
CRON_FIELDS = (5, 6)  # minute hour day month weekday [second]; croniter's 7th field (the year) is not documented
_CRON_PROBE_START = datetime(2000, 1, 1, tzinfo=UTC)  # an expression that never fires fails from any start


def parse_duration_ms(text: str) -> int:
    """``"1s"``, ``"90s"``, ``"1.5s"``, ``"1h30m"``, ``"2d"`` … as milliseconds, exactly; a fraction of a
    millisecond (``"1.0005s"``) is refused: it was rounded away without a word."""
    spec = text.strip().lower().replace(" ", "")
    if not spec.isascii():
        raise ValidationError(f"{text!r} is not a duration: write its digits as 0-9 and a unit, e.g. 30s, 5m, 1h30m")
    # bounded first: findall over a long run of digits with no unit backtracks quadratically
    parts = _DURATION.findall(spec) if len(spec) <= MAX_DURATION_CHARS else []
    if not spec or "".join(number + unit for number, unit in parts) != spec:
        raise ValidationError(f"{text!r} is not a duration; write a number and a unit, e.g. 30s, 5m, 1h30m, 2d")
    ms = sum(Fraction(number) * _UNITS_MS[unit] for number, unit in parts)  # exact: 1.1s is 1100 ms, not 1100.0…2
    if ms > MAX_DURATION_MS:
        raise ValidationError(f"{text!r} is longer than 100 years (36500d); give a shorter duration")
    if ms.denominator != 1:
        raise ValidationError(
            f"{text!r} is not a whole number of milliseconds; write e.g. 1.5s or 1500ms (a fraction down to 1 ms)"
        )
    return int(ms)


def parse_every_ms(text: str) -> int:
    ms = parse_duration_ms(text)
    if ms < MIN_EVERY_MS:
        raise ValidationError(f"--every {text} is shorter than 1s; give 1s or more")
    return ms


def parse_at_ms(text: str) -> int:
    """An ISO 8601 date-time (``2026-11-23T14:00``, ``…Z``, ``…+01:00``); without an offset it is UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValidationError(
            f"--at {text!r} is not an ISO 8601 time; write e.g. 2026-11-23T14:00:00Z (no offset means UTC)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)  # 0001-01-01T00:00+01:00 is before year 1 in UTC
    except OverflowError:
        raise ValidationError(
            f"--at {text!r} is outside years 1-9999 in UTC; give a time such as 2026-11-23T14:00Z"
        ) from None
    return round(moment.timestamp() * 1000)


def check_cron(expr: str) -> str:
    """``expr`` if croniter accepts it (5 fields, or 6 with seconds last) and it fires at least once."""
    from croniter import croniter

    fields = len(expr.split())
    if not croniter.is_valid(expr) or (fields not in CRON_FIELDS and not expr.strip().startswith("@")):
        raise ValidationError(
            f"--cron {expr!r} is not a cron expression; write 5 fields (or 6, seconds last), e.g. '*/5 * * * *'"
        )
    _cron_next(expr, _CRON_PROBE_START)
    return expr


def cron_next_ms(expr: str, after_ms: int) -> int:
    """The first time strictly after ``after_ms`` that ``expr`` matches (UTC)."""
    following = _cron_next(expr, datetime.fromtimestamp(after_ms / 1000, UTC))
    return round(following.timestamp() * 1000)


def _cron_next(expr: str, start: datetime) -> datetime:
    from croniter import CroniterBadDateError, croniter

    try:
        following: datetime = croniter(expr, start).get_next(datetime)
    except CroniterBadDateError:  # e.g. '0 0 30 2 *': February has no 30th
        raise ValidationError(
            f"--cron {expr!r} never fires (no date matches its day and month); check the day of the month"
        ) from None
    return following
