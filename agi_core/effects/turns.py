"""Running several plugin calls in turn on one worker thread, each under its own timeout.

One hand-off to a worker for the whole sequence, instead of one per call (a thread switch
costs more than a small call). Call ``i`` starts once call ``i - 1`` and its ``settle`` are
done, and its timeout counts from its own start, read on the worker with ``time.monotonic``.
When call ``i`` overruns, the caller stops waiting: the worker is abandoned with it (a
daemon, never given back), ``settle`` never runs for it, the calls after it have not
started, and :func:`call_in_turn` returns ``i``, so the caller can record the timeout and go
on with the rest (in a fresh worker). A call that returns at the very moment it overruns
counts once: either settled or timed out, never both (one lock decides). If the caller is
interrupted while it waits (Ctrl-C), the worker finishes the settle under way, if any, and
starts nothing more.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from agi_core.effects.timeouts import give_back, invoke, take_worker

Call = tuple[Callable[..., Any], tuple[Any, ...]]
Settle = Callable[[int, Any, BaseException | None], None]
"""``settle(index, value, error)``: runs on the worker after call ``index`` returned or raised."""


class _Turns:
    def __init__(self, calls: Sequence[Call], timeouts: Sequence[float], settle: Settle) -> None:
        self.calls, self.timeouts, self.settle = calls, timeouts, settle
        self.timeout_s = timeouts[0]  # the limit of the call under way
        self.lock = threading.Lock()
        self.moved = threading.Condition(self.lock)  # a call started, or the turn finished: the waiter re-checks
        self.finished = threading.Event()
        self.current: int | None = None  # the call under its timeout now
        self.started = 0.0
        self.abandoned = False
        self.error: BaseException | None = None  # what settle raised: the caller raises it

    def run(self) -> None:  # on the worker
        try:
            for index, (function, args) in enumerate(self.calls):
                with self.lock:
                    if self.abandoned:  # the caller stopped waiting (Ctrl-C): start nothing more
                        return
                    self.current, self.started = index, time.monotonic()
                    if self.timeouts[index] != self.timeout_s:  # its deadline may come before the one waited for
                        self.timeout_s = self.timeouts[index]
                        self.moved.notify()
                value, error = None, None
                try:
                    value = invoke(function, args, self.timeout_s)
                except BaseException as exc:  # noqa: BLE001 - settled by the caller's code
                    error = exc
                with self.lock:  # settled under the lock: the caller never gives up halfway through a settle
                    if self.abandoned:  # the caller gave up on this call: it counts as timed out
                        return
                    self.current = None
                    self.settle(index, value, error)
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
            self.error = exc
        finally:
            with self.lock:
                self.finished.set()
                self.moved.notify()

    def wait(self) -> int | None:  # in the caller's thread
        """None when every call is settled; else the index of the call that overran (abandoned)."""
        with self.lock:
            while not self.finished.is_set():
                left = self.timeout_s
                if self.current is not None:
                    left = self.started + self.timeout_s - time.monotonic()
                    if left <= 0:
                        self.abandoned = True
                        return self.current
                self.moved.wait(left)
            return None


def call_in_turn(calls: Sequence[Call], timeout_s: float | Sequence[float], settle: Settle) -> int | None:
    """Run ``function(*args)`` of each call in order on one worker, each under ``timeout_s`` (one
    limit for all, or one per call).

    Returns None when every call ran and was settled, or the index of the call that
    overran (it and the calls after it were not settled). What ``settle`` raises is raised
    here, after the worker stopped.
    """
    if not calls:
        return None
    timeouts = [timeout_s] * len(calls) if isinstance(timeout_s, int | float) else list(timeout_s)
    turns = _Turns(calls, timeouts, settle)
    worker = take_worker()
    worker.jobs.put(turns)
    try:
        overran = turns.wait()
    except BaseException:  # Ctrl-C while waiting: the worker starts and settles nothing more
        with turns.lock:
            turns.abandoned = True
        raise
    if overran is None:
        give_back(worker)
        if turns.error is not None:
            raise turns.error
    return overran
