"""Running plugin code under a timeout, on daemon worker threads that may be abandoned.

A call that overruns is abandoned: its thread is left behind (a daemon, so it never keeps
the process alive) and the caller gets :class:`TimedOut`. Workers are reused while they
finish in time, so a call costs a queue hand-off, not a thread start. ``async def``
functions are awaited with ``asyncio.run`` on the worker, under the same timeout.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

from agi_core import tracing
from agi_core.errors import AgiError
from agi_core.same_core import HandOff, pinned_cpu, unpinned


class TimedOut(AgiError):
    """A plugin call ran past its timeout and was abandoned."""


class _Job:
    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], timeout_s: float) -> None:
        self.traced = tracing.abandonable()  # None while tracing is off
        self.function = tracing.carry(function, self.traced)  # spans keep their parent; abandoned with the call
        self.args, self.timeout_s = args, timeout_s
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = invoke(self.function, self.args, self.timeout_s)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, who isolates it
            self.error = exc
        finally:
            self.done.set()


def invoke(function: Callable[..., Any], args: tuple[Any, ...], timeout_s: float) -> Any:
    """``function(*args)`` in this thread, awaited (under ``timeout_s``) if it returns a coroutine."""
    value = function(*args)
    if hasattr(value, "__await__"):  # an async def tool: await it here (asyncio loads only then)
        import asyncio

        value = asyncio.run(_awaited(value, timeout_s))
    return value


async def _awaited(awaitable: Any, timeout_s: float) -> Any:
    """Await under the same timeout, cancelling the coroutine when it overruns."""
    import asyncio

    limit = asyncio.timeout(timeout_s if timeout_s > 0 else None)
    try:
        async with limit:
            return await awaitable
    except TimeoutError:
        if limit.expired():
            raise TimedOut(f"timed out after {timeout_s:g} s") from None
        raise


class Runnable(Protocol):
    def run(self) -> None: ...


class Worker:
    """A daemon thread running the jobs put on its queue, one after another; a hand-off may pin it to
    its caller's CPU (:class:`agi_core.same_core.HandOff`)."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Runnable] = queue.SimpleQueue()
        thread = threading.Thread(target=self._loop, name="agi-plugin-call", daemon=True)
        thread.start()
        self.native_id: int = thread.native_id or 0
        self.cpu: int | None = pinned_cpu()  # the CPU a hand-off pinned it to (started by a pinned thread: its)

    def _loop(self) -> None:
        while True:
            self.jobs.get().run()


_idle: list[Worker] = []
_lock = threading.Lock()


def take_worker() -> Worker:
    """An idle worker (a new one if none is idle); :func:`give_back` it once its job finished in time."""
    with _lock:
        return _idle.pop() if _idle else Worker()


def give_back(worker: Worker) -> None:
    with _lock:
        _idle.append(worker)


def call_with_timeout(function: Callable[..., Any], args: tuple[Any, ...], timeout_s: float) -> Any:
    """``function(*args)`` (awaited if it is a coroutine), or :class:`TimedOut` after ``timeout_s``.

    Whatever the call raises is raised here, ``SystemExit`` included. ``timeout_s <= 0``
    runs it in the calling thread, with no timeout.
    """
    job = _Job(function, args, timeout_s)
    if timeout_s <= 0:
        with unpinned():  # as on a worker: a tool or a model may run threads of its own
            job.run()
    else:
        with HandOff(pinned=False) as here:  # not pinned: a tool or a model may run threads of its own
            worker = take_worker()
            here.pin(worker)
            worker.jobs.put(job)
            if not job.done.wait(timeout_s):
                here.release(worker)
                if job.traced is not None:  # its spans end now, failed, inside the caller's trace
                    job.traced.abandon("TimedOut", f"timed out after {timeout_s:g} s and was abandoned")
                raise TimedOut(f"timed out after {timeout_s:g} s")
        give_back(worker)
    if job.error is not None:
        raise job.error
    return job.value
