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

import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any, Protocol, TypeVar

from agi_core.effects.timeouts import give_back, invoke, take_worker
from agi_core.same_core import HandOff

Call = tuple[Callable[..., Any], tuple[Any, ...]]
R = TypeVar("R")
STEP_UNDER_WAY = (
    "agi: stopping once the step under way ends (it holds the tick's transaction); "
    "SIGKILL (kill -9) stops at once and stores nothing of the tick"
)
Settle = Callable[[int, Any, BaseException | None], None]
"""``settle(index, value, error)``: runs on the worker after call ``index`` returned or raised."""


def call_in_turn(calls: Sequence[Call], timeout_s: float | Sequence[float], settle: Settle) -> int | None:
    """Run ``function(*args)`` of each call in order on one worker, each under ``timeout_s`` (one
    limit for all, or one per call).

    Returns None when every call ran and was settled, or the index of the call that
    overran (it and the calls after it were not settled). What ``settle`` raises is raised
    here, after the worker stopped. (A :func:`drive` of one turn with no step after it.)
    """
    if not calls:
        return None
    timeouts = [timeout_s] * len(calls) if isinstance(timeout_s, int | float) else list(timeout_s)
    driver = _Driver(_no_steps(), _Calls(calls, timeouts, settle), 0)
    with HandOff() as here:
        worker = take_worker()
        here.pin(worker)
        worker.jobs.put(driver)
        try:
            overran = driver.wait()
        except BaseException:  # Ctrl-C while waiting: the worker settles the call under way, starts nothing more
            with driver.lock:
                driver.abandoned = True
            raise
        if overran is not None:
            here.release(worker)  # abandoned with the call that overran
            return overran
    give_back(worker)
    if driver.error is not None:
        raise driver.error
    return None


class _Calls:
    """The turn :func:`call_in_turn` hands its driver: the calls, each settled by ``settle``."""

    on_worker = True
    result = None  # what the (absent) step after the calls is sent

    def __init__(self, calls: Sequence[Call], timeouts: Sequence[float], settle: Settle) -> None:
        self.calls, self.timeouts, self.settle = calls, timeouts, settle

    def run(self) -> Any:
        raise AssertionError("call_in_turn's calls run on its worker")

    def timed_out(self, index: int) -> None:
        pass  # the caller records it: call_in_turn returns the index

    def close_from(self, index: int) -> None:
        pass  # the caller closes what it handed over


def _no_steps() -> Steps[None]:
    """Steps that end at once: after call_in_turn's calls there is nothing more to run."""
    return
    yield  # (a generator)


class Turn(Protocol):
    """Phase calls a step generator hands to :func:`drive`; what it gets back is :attr:`result`."""

    @property
    def calls(self) -> Sequence[Call]: ...

    @property
    def timeouts(self) -> Sequence[float]: ...

    @property
    def on_worker(self) -> bool:
        """Whether the calls, and the steps after them, may run on a worker thread."""
        ...

    def run(self) -> Any:
        """Run every call here (the caller's way: each under its own timeout); the :attr:`result`."""
        ...

    def settle(self, index: int, value: Any, error: BaseException | None) -> None: ...

    def timed_out(self, index: int) -> None:
        """Call ``index`` overran and was abandoned."""
        ...

    def close_from(self, index: int) -> None:
        """The calls from ``index`` on will never be settled (the run was interrupted)."""
        ...

    @property
    def result(self) -> Any: ...


Steps = Generator[Turn, Any, R]
"""Steps of a tick: code that yields a :class:`Turn` where phase calls come and returns a value."""


def drive(steps: Steps[R]) -> R:
    """Run ``steps`` to its return value, sending each :class:`Turn` it yields its :attr:`~Turn.result`.

    The steps run in this thread until a turn is ``on_worker``. From there the turn's calls and
    every step after it run on one worker, which this thread watches: one hand-off for the rest,
    instead of one per turn. A call that overruns its timeout is abandoned with its worker
    (``timed_out``) and the rest go on in a fresh one. A step never runs in two threads at once:
    if this thread is interrupted (Ctrl-C) while a step runs, it lets that step end (it works in
    the caller's transaction), then raises; no call or step starts after it.
    """
    sent: Any = None
    while True:
        try:
            turn = steps.send(sent)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if turn.on_worker:
            driver = _Driver(steps, turn, 0)
            del turn  # the driver lets go of it once its calls are settled
            return _drive_on_worker(driver)  # type: ignore[no-any-return]
        sent = turn.run()
        del turn  # its calls' contexts are freed before the next step: fewer objects alive, fewer collections


def _drive_on_worker(driver: _Driver) -> Any:
    with HandOff() as here:
        while True:
            worker = take_worker()
            here.pin(worker)
            worker.jobs.put(driver)
            try:
                overran = driver.wait()
            except BaseException:  # Ctrl-C while waiting: the step under way ends, nothing starts after it
                driver.interrupt()
                raise
            if overran is None:
                break
            here.release(worker)  # abandoned with the call that overran
            driver.turn.timed_out(overran)  # the rest go on in a fresh worker
            driver = _Driver(driver.steps, driver.turn, overran + 1)
    give_back(worker)
    if driver.error is not None:
        driver.turn.close_from(driver.index)
        raise driver.error
    return driver.value


class _Settled:
    """A turn with no call left: what a driver holds while a step runs."""

    calls: Sequence[Call] = ()
    timeouts: Sequence[float] = ()
    on_worker = True
    result = None

    def run(self) -> Any:
        return None

    def settle(self, index: int, value: Any, error: BaseException | None) -> None:
        raise AssertionError("a settled turn has no call")

    def timed_out(self, index: int) -> None:
        raise AssertionError("a settled turn has no call")

    def close_from(self, index: int) -> None:
        pass


_SETTLED = _Settled()


class _Driver:
    """The steps and calls one worker runs, from call ``index`` of ``turn`` on."""

    def __init__(self, steps: Generator[Turn, Any, Any], turn: Turn, index: int) -> None:
        self.steps, self.turn, self.index = steps, turn, index
        self.timeout_s = turn.timeouts[index] if index < len(turn.timeouts) else 1.0  # the limit the waiter uses
        self.lock = threading.Lock()
        self.moved = threading.Condition(self.lock)  # a call started, or the run finished: the waiter re-checks
        self.finished = False
        self.current: int | None = None  # the call under its timeout now
        self.started = 0.0
        self.stepping = False  # a step (the caller's code) is under way
        self.abandoned = False
        self.error: BaseException | None = None
        self.value: Any = None  # what the steps returned

    def wait(self) -> int | None:  # in the caller's thread
        """None when the work ended (every call settled, or it raised); else the index of the call that
        overran (abandoned)."""
        with self.lock:
            while not self.finished:
                left = self.timeout_s
                if self.current is not None:
                    left = self.started + self.timeout_s - time.monotonic()
                    if left <= 0:
                        self.abandoned = True
                        return self.current
                self.moved.wait(left)
            return None

    def run(self) -> None:  # on the worker
        try:
            while True:
                if not self._calls():
                    return
                with self.lock:
                    if self.abandoned:
                        return
                    self.stepping = True
                turn, sent = None, self.turn.result
                self.turn = _SETTLED  # the settled calls' contexts are freed before the step runs
                try:
                    turn = self.steps.send(sent)
                except StopIteration as stop:
                    self.value = stop.value
                finally:
                    with self.lock:  # the step ended: an interrupted caller closes the turn it yielded
                        self.stepping = False  # (no wake-up: an interrupted caller is woken as the run ends,
                        if turn is not None:  # right below; any other wake-up costs the worker a GIL switch)
                            self.turn, self.index = turn, 0
                if turn is None:
                    return
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
            self.error = exc
        finally:
            with self.lock:
                self.finished = True
                self.moved.notify()

    def _calls(self) -> bool:
        """The turn's calls from :attr:`index` on, each settled before the next starts; False once abandoned."""
        turn = self.turn
        for index in range(self.index, len(turn.calls)):
            function, args = turn.calls[index]
            limit = turn.timeouts[index]
            with self.lock:
                if self.abandoned:
                    return False
                self.current, self.started = index, time.monotonic()
                if limit != self.timeout_s:  # its deadline may come before the one waited for
                    self.timeout_s = limit
                    self.moved.notify()
            value, error = None, None
            try:
                value = invoke(function, args, limit)
            except BaseException as exc:  # noqa: BLE001 - settled by the turn
                error = exc
            with self.lock:  # settled under the lock: the caller never gives up halfway through a settle
                if self.abandoned:  # the caller gave up on this call: it counts as timed out
                    return False
                self.current = None
                turn.settle(index, value, error)
                self.index = index + 1
        return True

    def interrupt(self) -> None:
        """The caller stops waiting: the step under way, if any, ends first; nothing starts after it.

        The step works in the caller's transaction, so another Ctrl-C meanwhile only says so: a
        caller leaving first would roll the transaction back while the step goes on writing, each
        later statement then committed on its own. (The plugin calls of a step run under their
        timeouts; SIGKILL stores nothing of the tick.)"""
        with self.lock:
            self.abandoned = True
        while True:
            try:
                with self.lock:
                    while self.stepping:
                        self.moved.wait()  # woken as the run ends, right after the step
                break
            except KeyboardInterrupt:
                print(STEP_UNDER_WAY, file=sys.stderr, flush=True)
        self.turn.close_from(self.index)
