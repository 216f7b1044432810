"""What enters a tick from outside the kernel, recorded so replay can serve it back.

Live ticks call :meth:`Externals.fetch` with a function that really asks the outside
(runs a tool, calls a model, reads the wall clock); the value is kept in the tick's
journal record under its kind. A replayed tick is given those recorded values and
``fetch`` returns them in order without calling anything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NoReturn

from agi_core.errors import AgiError, ReplayMismatch

#: the call (a module's phase call) on whose behalf this thread fetches, if any
_owner: ContextVar[object | None] = ContextVar("agi_externals_owner", default=None)


class CallAbandoned(AgiError):
    """A fetch finished for a call that was abandoned (it overran its time): nothing is recorded."""


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


REPLAY_GRACE = 10
"""Replay waits for a module's call or vote that answered live this many times its limit: one only slower in
replay (a loaded machine) is waited for, not timed out there alone (a false mismatch)."""


class Externals:
    """The external values of one tick, by kind, in the order they were fetched."""

    def __init__(self, recorded: dict[str, list[Any]] | None = None) -> None:
        self.recorded = recorded
        self.log: dict[str, list[Any]] = {}
        self._lock = threading.Lock()  # a call's worker thread and the tick's thread both record
        self._by_owner: dict[int, list[tuple[str, Any]]] = {}  # by id() of the call
        self._withdrawn: set[int] = set()

    @property
    def replaying(self) -> bool:
        return self.recorded is not None

    def next_matches(self, kind: str, test: Callable[[Any], bool]) -> bool:
        """When replaying: whether the next recorded value of ``kind`` exists and passes ``test``."""
        if self.recorded is None:
            return False
        queue, taken = self.recorded.get(kind, []), len(self.log.get(kind, []))
        return taken < len(queue) and isinstance(queue[taken], dict) and test(queue[taken])

    def changed(self, kind: str, mark: Any = True) -> bool:
        """Whether to take a changed way of working, recorded as ``mark`` under ``kind``: live always (recorded);
        in replay only while the tick recorded ``mark`` under ``kind`` more often than it was asked so far, so
        a journal written before the change replays as it was written. Ask only where the old way would differ.

        Replay counts ``mark``'s values, not positions: a tick that recorded a mark where this code no longer
        asks (its two ways gave the same result there) still takes the change where this code asks, whatever
        other marks of ``kind`` came between."""
        if self.recorded is None:
            self.fetch(kind, lambda: mark)
            return True
        owner = _owner.get()
        with self._lock:
            self._check_not_withdrawn(owner, kind)
            taken = self.log.setdefault(kind, [])
            if sum(1 for value in taken if value == mark) >= sum(1 for v in self.recorded.get(kind, ()) if v == mark):
                if not taken:
                    del self.log[kind]
                return False
            taken.append(mark)
            self._keep(owner, kind, mark)
        return True

    def has_next(self, kind: str) -> bool:
        """When replaying: whether the journal holds another recorded value of ``kind``."""
        return self.recorded is not None and len(self.log.get(kind, [])) < len(self.recorded.get(kind, []))

    def fetch(self, kind: str, compute: Callable[[], Any]) -> Any:
        """The recorded value when replaying, else ``compute()`` (recorded for next time).

        Inside :meth:`owned_by` the value is kept under that call, so :meth:`withdraw` can take
        it back; a fetch that ends after its call was withdrawn records nothing and raises
        :class:`CallAbandoned`."""
        owner = _owner.get()
        if self.recorded is None:
            if owner is not None and id(owner) in self._withdrawn:  # do not even ask (a read: no lock needed)
                self._refuse(kind)
            value = compute()  # outside the lock: it may ask a model or a tool for seconds
            with self._lock:  # the check and the record are one step against withdraw()
                if owner is not None:
                    if id(owner) in self._withdrawn:
                        self._refuse(kind)
                    self._by_owner.setdefault(id(owner), []).append((kind, value))
                taken = self.log.get(kind)
                if taken is None:
                    self.log[kind] = [value]
                else:
                    taken.append(value)
            return value
        with self._lock:
            self._check_not_withdrawn(owner, kind)
            taken = self.log.setdefault(kind, [])
            queue = self.recorded.get(kind, [])
            if len(taken) >= len(queue):
                raise ReplayMismatch(
                    f"replay asked for {kind} #{len(taken) + 1} but the journal recorded "
                    f"{len(queue)}; the run is not the one that was recorded"
                )
            value = queue[len(taken)]
            taken.append(value)
            self._keep(owner, kind, value)
        return value

    @contextmanager
    def owned_by(self, call: object) -> Iterator[None]:
        """Fetches made in this block (in this thread or context) belong to ``call``."""
        token = _owner.set(call)
        try:
            yield
        finally:
            _owner.reset(token)

    def run_owned(self, call: object, function: Callable[[Any], Any], arg: Any) -> Any:
        """``function(arg)``, its fetches belonging to ``call`` (:meth:`owned_by` without a context manager's cost)."""
        token = _owner.set(call)
        try:
            return function(arg)
        finally:
            _owner.reset(token)

    def abandonment(self) -> Callable[[], bool]:
        """A test, usable from any thread, of whether the call this thread (or context) fetches for has been
        withdrawn since: what it asks then is wasted (always false outside a call)."""
        owner = _owner.get()
        if owner is None:
            return lambda: False
        key = id(owner)
        return lambda: key in self._withdrawn

    def withdraw(self, call: object) -> None:
        """Take back what ``call`` fetched (it was abandoned: the tick goes on as if it never ran,
        as replay, which skips it, will); what it fetches later is refused."""
        with self._lock:
            self._withdrawn.add(id(call))
            for kind, value in reversed(self._by_owner.pop(id(call), [])):
                taken = self.log[kind]
                last = max(i for i, kept in enumerate(taken) if kept is value)  # this very object
                del taken[last]
                if not taken:
                    del self.log[kind]

    def _keep(self, owner: object | None, kind: str, value: Any) -> None:
        if owner is not None:
            self._by_owner.setdefault(id(owner), []).append((kind, value))

    def _check_not_withdrawn(self, owner: object | None, kind: str) -> None:
        if owner is not None and id(owner) in self._withdrawn:
            self._refuse(kind)

    @staticmethod
    def _refuse(kind: str) -> NoReturn:
        raise CallAbandoned(f"a {kind} read came after its call was abandoned (it overran); not recorded")
