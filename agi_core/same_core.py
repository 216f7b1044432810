"""Hand-offs on one CPU: a thread and the worker it waits for share a core.

A plugin call under a timeout runs on a worker thread while the calling thread waits
(:mod:`agi_core.effects.timeouts`, :mod:`agi_core.effects.turns`). With several CPUs the
scheduler wakes the worker on an idle one, so each hand-off moves the tick's working set
(its objects, and the reference counts of every object both threads touch) from one
core's caches to the other's and back: 225-336 µs of CPU a tick on the project's 2-core
machine, the cost of two modules' own work (``benchmarks/isolation_cost.py``). The caller
only waits meanwhile, so nothing is lost by running the worker on its core: for the length
of a hand-off (:class:`HandOff`) the caller is pinned to the CPU it is on and the worker to
the same one, and the caller's CPU set is put back after. That is done for the modules' turns
and the tick's steps on their worker; a call under a timeout of a tool, a model or a vote is
not pinned, nor one made from a pinned thread, since it may run threads of its own (llama.cpp
starts some for each request) that would inherit the pin and share one CPU.

What a pin could change beyond that, and what is done about it:

- a thread started during a hand-off inherits the pin: when the hand-off ends, a thread
  that appeared meanwhile and is pinned to its CPU gets the caller's CPU set back;
- a native library that sizes its thread pool by the CPUs it may run on when it loads
  (the OpenMP of torch and faiss, OpenBLAS) would size it for one CPU if it loaded during a
  pinned hand-off: hand-offs are pinned only after one ran without importing anything (the
  first ticks, while plugins load what they use, are not), and agi-core's own loads of
  torch, faiss and onnxruntime run in :func:`unpinned`, as a plugin's later load should;
- a worker abandoned with a call that overran gets the caller's CPU set back.

Linux only (``os.sched_setaffinity``). Elsewhere, for a thread allowed a single CPU, and with
``AGI_SAME_CORE=0`` in the environment, a hand-off changes nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Protocol

ENABLED = os.environ.get("AGI_SAME_CORE", "1") != "0" and hasattr(os, "sched_setaffinity")
"""Whether hand-offs are pinned (``AGI_SAME_CORE=0`` turns it off)."""

_TASKS = "/proc/self/task"
_lock = threading.Lock()
_settled = False  # a hand-off ran without importing anything: the ones after it are pinned
_pinned: dict[int, tuple[int, set[int]]] = {}  # native thread id: the CPU a hand-off pinned it to, and its CPUs outside
_known: set[int] = set()  # the process's thread ids at the last look
_known_count = -1  # their number then (the link count of /proc/self/task, a cheap stat)
_getcpu: Callable[[], int] | None = None


class Pinnable(Protocol):
    """A worker thread a hand-off may pin: its native id, and the CPU it is pinned to (None: not pinned)."""

    native_id: int
    cpu: int | None


def _current_cpu() -> int:
    """The CPU this thread runs on (glibc's ``sched_getcpu``, loaded on first use)."""
    global _getcpu
    if _getcpu is None:
        import ctypes

        _getcpu = ctypes.CDLL(None, use_errno=True).sched_getcpu
    return _getcpu()


def _thread_count() -> int:
    return os.stat(_TASKS).st_nlink  # procfs: the threads, plus 2


def _look() -> None:
    """Remember the process's threads, if their number changed since the last look (under ``_lock``)."""
    global _known, _known_count
    count = _thread_count()
    if count != _known_count:
        _known, _known_count = {int(tid) for tid in os.listdir(_TASKS)}, count


def _free_new_threads(cpu: int, saved: set[int]) -> None:
    """Threads started since the last look that inherited the pin to ``cpu`` get ``saved`` (under ``_lock``)."""
    if _thread_count() == _known_count:
        return
    before = _known
    _look()
    for tid in _known - before:
        if tid in _pinned:
            continue
        with contextlib.suppress(OSError):  # it may have ended since
            if os.sched_getaffinity(tid) == {cpu}:
                os.sched_setaffinity(tid, saved)


def _disable() -> None:
    """The system refuses CPU sets (a sandbox): hand-offs stay as they are from now on."""
    global ENABLED
    ENABLED = False


class HandOff:
    """One hand-off (a context manager): the calling thread pinned to its CPU while it waits for a worker
    (:meth:`pin`); its CPU set is put back at the end.

    ``pinned=False`` (a tool's, a model's, a vote's call under a timeout), and a hand-off from a thread already
    pinned (a module's call that calls a model), pin nothing and give the worker the caller's CPUs: such a
    call may run a native library's threads (llama.cpp starts its own for each request), which would inherit a
    pin and share one CPU."""

    __slots__ = ("cpu", "modules", "pinned", "saved", "tid")

    def __init__(self, *, pinned: bool = True) -> None:
        self.cpu = -1  # the CPU of the hand-off; -1: not pinned
        self.saved: set[int] | None = None  # the caller's CPU set, when this hand-off pinned it
        self.modules = len(sys.modules)
        self.tid = 0
        self.pinned = pinned

    def __enter__(self) -> HandOff:
        if not (self.pinned and ENABLED and _settled):
            return self
        tid = threading.get_native_id()
        try:
            with _lock:
                if tid in _pinned:  # a pinned worker handing off in turn (a module's call asking a model)
                    return self
                saved = os.sched_getaffinity(0)
                if len(saved) < 2:
                    return self
                cpu = _current_cpu()
                _look()  # threads started before this hand-off are not its to free
                os.sched_setaffinity(0, {cpu})
                self.cpu, self.saved, self.tid = cpu, saved, tid
                _pinned[tid] = (cpu, saved)
        except OSError:
            _disable()
        return self

    def pin(self, worker: Pinnable) -> None:
        """Run ``worker`` on this hand-off's CPU; when this hand-off is not pinned, on the caller's CPUs."""
        try:
            if self.saved is not None:
                if worker.cpu != self.cpu:
                    os.sched_setaffinity(worker.native_id, {self.cpu})
                worker.cpu = self.cpu
                _pinned[worker.native_id] = (self.cpu, self.saved)
            elif worker.cpu is not None:
                self.release(worker)
        except OSError:
            _disable()

    def release(self, worker: Pinnable) -> None:
        """``worker`` goes back to the caller's CPUs (abandoned with a call that overran, or not to be pinned)."""
        if worker.cpu is None:
            return
        worker.cpu = None
        pinned = _pinned.pop(worker.native_id, None)
        cpus = pinned[1] if pinned is not None else _outside_of(threading.get_native_id())
        with contextlib.suppress(OSError):  # an abandoned thread may have ended
            os.sched_setaffinity(worker.native_id, cpus)

    def __exit__(self, *exc_info: object) -> None:
        global _settled
        if self.saved is not None:
            try:
                with _lock:
                    os.sched_setaffinity(0, self.saved)
                    _pinned.pop(self.tid, None)
                    _free_new_threads(self.cpu, self.saved)
            except OSError:
                _disable()
        _settled = len(sys.modules) == self.modules  # an import meanwhile: the next hand-offs wait for a quiet one


@contextlib.contextmanager
def unpinned() -> Iterator[None]:
    """Run the block on the CPUs the thread had outside the hand-off that pinned it (not pinned: as it is):
    for loading a native library that sizes its thread pool by the CPUs it may run on."""
    pinned = _pinned.get(threading.get_native_id())
    if pinned is None:
        yield
        return
    cpu, outside = pinned
    os.sched_setaffinity(0, outside)
    try:
        yield
    finally:
        os.sched_setaffinity(0, {cpu})


def _outside_of(tid: int) -> set[int]:
    """The CPUs thread ``tid`` (this one) may run on outside the hand-off that pinned it, if one did."""
    pinned = _pinned.get(tid)
    return pinned[1] if pinned is not None else os.sched_getaffinity(0)


def pinned_cpu() -> int | None:
    """The CPU a hand-off pinned this thread to, None if it is not pinned (for tests and diagnostics)."""
    pinned = _pinned.get(threading.get_native_id())
    return None if pinned is None else pinned[0]


def reset_for_tests(*, settled: bool) -> None:
    """Forget the threads seen; ``settled``: whether the next hand-off may be pinned."""
    global _settled, _known_count
    with _lock:
        _settled, _known_count = settled, -1
        _known.clear()


__all__ = ["ENABLED", "HandOff", "Pinnable", "pinned_cpu", "unpinned"]
