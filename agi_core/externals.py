"""What enters a tick from outside the kernel, recorded so replay can serve it back.

Live ticks call :meth:`Externals.fetch` with a function that really asks the outside
(runs a tool, calls a model, reads the wall clock); the value is kept in the tick's
journal record under its kind. A replayed tick is given those recorded values and
``fetch`` returns them in order without calling anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agi_core.errors import ReplayMismatch

TICK_CLOCK = "tick_clock"
"""The kind of the kernel clock's reading, taken when the tick begins (``agi chat``, ``agi run``)."""
WALL_CLOCK = "wall_clock"
"""The kind of the wall clock read by a tick whose kernel has no clock, the first time it needs the time."""
WALL_CLOCK_KINDS = (TICK_CLOCK, WALL_CLOCK, "reminder_clock", "brain_clock_ms")
"""Every kind a tick's one wall-clock reading (ms since the epoch) is recorded under; the last two
are older journals' (:mod:`agi_core.scheduling.wall_time` reads and serves them)."""


def wall_reading(values: Mapping[str, Any]) -> int | None:
    """The wall-clock reading among a tick's externals (a journal record's, or :attr:`Externals.log`)."""
    for kind in WALL_CLOCK_KINDS:
        found = values.get(kind)
        if found and isinstance(found[0], int):
            return found[0]
    return None


class Externals:
    """The external values of one tick, by kind, in the order they were fetched."""

    def __init__(self, recorded: dict[str, list[Any]] | None = None) -> None:
        self.recorded = recorded
        self.log: dict[str, list[Any]] = {}

    @property
    def replaying(self) -> bool:
        return self.recorded is not None

    def next_matches(self, kind: str, test: Callable[[Any], bool]) -> bool:
        """When replaying: whether the next recorded value of ``kind`` exists and passes ``test``."""
        if self.recorded is None:
            return False
        queue, taken = self.recorded.get(kind, []), len(self.log.get(kind, []))
        return taken < len(queue) and isinstance(queue[taken], dict) and test(queue[taken])

    def fetch(self, kind: str, compute: Callable[[], Any]) -> Any:
        """The recorded value when replaying, else ``compute()`` (recorded for next time)."""
        taken = self.log.setdefault(kind, [])
        if self.recorded is not None:
            queue = self.recorded.get(kind, [])
            if len(taken) >= len(queue):
                raise ReplayMismatch(
                    f"replay asked for {kind} #{len(taken) + 1} but the journal recorded "
                    f"{len(queue)}; the run is not the one that was recorded"
                )
            value = queue[len(taken)]
        else:
            value = compute()
        taken.append(value)
        return value
