"""Seeded ids and timestamps (rulebook D1-D3).

Nothing here reads the wall clock or global randomness. Every id and timestamp is an
HMAC-SHA256 of the seed and a counter, so the same seed and the same sequence of calls
give the same values, byte for byte.

Timestamps are ISO 8601 (UTC, millisecond precision). The rulebook derives them from
``HMAC_SHA256(seed || counter)``; raw HMAC output is not ordered, and "latest
last_updated wins" (F2) needs order, so a timestamp is an epoch picked by the seed, plus
one second per counter step, plus a sub-second jitter taken from the HMAC. They are
strictly increasing and still a pure function of (seed, counter).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime, timedelta

_EPOCH_FLOOR = datetime(2025, 1, 1, tzinfo=UTC)
_EPOCH_SPAN_S = 365 * 24 * 3600


class HmacSha256:
    """HMAC-SHA256 under one key, as hex: ``hmac.new(key, message, sha256).hexdigest()``, faster for the
    short messages of a tick (ids, stamps, the journal chain): the keyed HMAC (its inner and outer
    states) is made once and copied per message (``hmac.HMAC.copy``)."""

    __slots__ = ("_keyed",)

    def __init__(self, key: bytes) -> None:
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)

    def hex(self, message: str) -> str:
        mac = self._keyed.copy()
        mac.update(message.encode("utf-8"))
        return mac.hexdigest()


def _hmac_hex(key: bytes, message: str) -> str:
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


class Determinism:
    """The seed and the counter from which every id and timestamp of a kernel derives.

    The counter is part of the agent's state: the kernel stores it with each tick and
    restores it on reopen and rollback (``counter`` is read/write for that reason).
    """

    __slots__ = ("_epoch", "_key", "_mac", "counter", "seed")

    def __init__(self, seed: str | int, counter: int = 0) -> None:
        self.seed = str(seed)
        self._key = self.seed.encode("utf-8")
        self._mac = HmacSha256(self._key)
        self.counter = counter
        offset = int(_hmac_hex(self._key, "epoch")[:8], 16) % _EPOCH_SPAN_S
        self._epoch = _EPOCH_FLOOR + timedelta(seconds=offset)

    def new_id(self, namespace: str, payload: str = "") -> str:
        """Next id: ``HMAC_SHA256(seed, namespace|payload|counter)`` as hex (D3)."""
        self.counter += 1
        return self._mac.hex(f"{namespace}|{payload}|{self.counter}")

    def short_id(self, prefix: str, payload: str = "", length: int = 8) -> str:
        """A prefixed short id such as ``mut-1a2b3c4d`` (same derivation, truncated)."""
        return f"{prefix}-{self.new_id(prefix, payload)[:length]}"

    def now(self) -> str:
        """Next timestamp, ISO 8601 UTC with milliseconds (D2); strictly increasing."""
        self.counter += 1
        jitter_ms = int(self._mac.hex(str(self.counter))[:8], 16) % 1000
        moment = self._epoch + timedelta(seconds=self.counter, milliseconds=jitter_ms)
        return (  # strftime("%Y-%m-%dT%H:%M:%S.") and the milliseconds, written out (twice as fast)
            f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:"
            f"{moment.second:02d}.{moment.microsecond // 1000:03d}Z"
        )

    def sign(self, message: str) -> str:
        """HMAC of ``message`` keyed by the seed; does not advance the counter."""
        return self._mac.hex(message)
