"""Arithmetic on the timestamps TTLs count on; nothing here reads a clock.

A TTL counts seconds of the wall clock the service was given (the kernel gives the tick's
recorded reading, :mod:`agi_core.scheduling.wall_time`), else of the deterministic clock
(``Determinism.now()``, a service used on its own). Both are written ``YYYY-MM-DDTHH:MM:SS.mmmZ``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def parse(timestamp: str) -> datetime:
    """An ISO 8601 UTC timestamp (``...Z`` or ``+00:00``) as an aware datetime."""
    moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def format_timestamp(moment: datetime) -> str:
    """The :meth:`Determinism.now` format: ``YYYY-MM-DDTHH:MM:SS.mmmZ``."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def from_ms(ms: int) -> str:
    """A wall-clock reading (ms since the epoch) in the :func:`format_timestamp` format."""
    return format_timestamp(datetime.fromtimestamp(ms / 1000, UTC))


def add_seconds(timestamp: str, seconds: int) -> str:
    """``timestamp`` plus ``seconds``, in the same format."""
    return format_timestamp(parse(timestamp) + timedelta(seconds=seconds))


def is_expired(expires_at: str, now: str) -> bool:
    """True once the clock's ``now`` has reached ``expires_at``."""
    return parse(now) >= parse(expires_at)
