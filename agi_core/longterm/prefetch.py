"""Encoding new memories between ticks, so that a recall finds their vectors ready.

After each tick (:meth:`~agi_core.longterm.store.LongTermMemory.after_tick`) the items without
a vector are cut into the batches a catch-up would encode (:func:`~agi_core.longterm.vectors.batches`)
and handed to one background thread, which only calls the embedder's ``encode``: no database
access off the caller's thread (onnxruntime and torch release the GIL while they compute).

A batch's vectors are used only for exactly the same ``(seq, text)`` items, so they are
``encode`` of the texts the catch-up would have encoded itself: the prefetch changes when the
vectors are computed, never what they are. A batch that failed, was not handed, or is not done
within :attr:`Prefetch.wait_s` is encoded by the caller, as without the prefetch.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future, wait
from concurrent.futures import TimeoutError as NotDone
from typing import Any

import numpy as np

from agi_core.longterm import vectors
from agi_core.longterm.embedder import Embedder
from agi_core.longterm.vectors import Batch

#: Seconds the interpreter's exit waits for an encode under way in an agent never closed (see :func:`_finish_at_exit`)
EXIT_WAIT_S = 10.0


class _Encoder:
    """One daemon thread running the encodes handed to it, in order. Not a ``ThreadPoolExecutor``:
    Python joins its threads at exit, so an embedder that never returns (a plugin's remote call)
    would keep the process from exiting; a daemon thread is left behind instead (after at most
    :data:`EXIT_WAIT_S`)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.SimpleQueue()
        )
        self._dropping = False  # at exit: what is queued is cancelled, not run
        self._thread = threading.Thread(target=self._run, name="agi-ltm-prefetch", daemon=True)
        self._thread.start()
        _RUNNING.add(self)

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((future, function, args))
        return future

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, function, args = job
            if self._dropping:
                future.cancel()
            if future.set_running_or_notify_cancel():  # a cancelled one is skipped
                try:
                    future.set_result(function(*args))
                except BaseException as exc:  # noqa: BLE001 - handed to whoever takes the batch
                    future.set_exception(exc)

    def shutdown(self, *, wait: bool) -> None:
        """Stop after the encode under way (``wait``: return once it has)."""
        self._jobs.put(None)
        if wait:
            self._thread.join()

    def finish(self, timeout_s: float) -> None:
        """Cancel what is queued and stop after the encode under way, waiting for it at most ``timeout_s``."""
        self._dropping = True
        self._jobs.put(None)
        self._thread.join(timeout_s)


#: the encoders whose thread may still run (a closed agent's stopped, and is dropped with it)
_RUNNING: weakref.WeakSet[_Encoder] = weakref.WeakSet()


@atexit.register
def _finish_at_exit() -> None:
    """An agent never closed (a script that ends without ``kernel.close()``) may leave its encoder inside
    torch or onnxruntime when the interpreter exits; the C++ runtime, torn down under that thread,
    aborts the process ("terminate called without an active exception", exit 134). So at exit each
    encoder drops what is queued and finishes the encode under way first (at most :data:`EXIT_WAIT_S`)."""
    for encoder in list(_RUNNING):
        encoder.finish(EXIT_WAIT_S)


class Prefetch:
    """The batches handed to the background encoder, and their futures.

    A batch is *closed* when a later item exists that cannot join it (another tick, a gap in
    the seqs, or the batch is full): its vectors may be stored before any search. The last
    batch handed may still grow (a later item of the same tick); it is only used by a
    catch-up that asks for it as it is.
    """

    #: Seconds a catch-up waits for a batch still being encoded before encoding it itself; after
    #: that, nothing more is handed until that encode returns (a hung encoder costs one wait).
    wait_s = 60.0

    def __init__(self) -> None:
        self._pool: _Encoder | None = None
        self._pid = os.getpid()
        self._handed: dict[Batch, Future[np.ndarray]] = {}
        self._closed: set[Batch] = set()
        self._late: Future[np.ndarray] | None = None  # the encode a catch-up stopped waiting for
        #: ``(seq, id)`` of the last item of the last closed batch: the next listing starts after it.
        self.mark: tuple[int, str | None] = (0, None)
        #: Batches whose background vectors were used, and how many of them a caller waited for
        #: (evidence for tests and benchmarks).
        self.used = 0
        self.waited = 0
        #: Batches a caller stopped waiting for (:attr:`wait_s`).
        self.timeouts = 0

    def _here(self) -> None:
        """In a process forked since, the thread and its batches are the parent's: start afresh."""
        if self._pid != os.getpid():
            self._pid, self._pool, self._handed, self._closed = os.getpid(), None, {}, set()
            self.mark, self._late = (0, None), None

    def _executor(self) -> _Encoder:
        if self._pool is None:
            self._pool = _Encoder()
        return self._pool

    def hand(self, embedder: Embedder, listed: list[Batch]) -> None:
        """Encode the batches ``listed`` (a listing's, in seq order) in the background; all but the last are closed.

        A batch handed before that is neither closed nor listed again (the last one grew) is dropped.
        """
        self._here()
        if self._late is not None and not self._late.done():
            return  # the thread is still in the encode a catch-up gave up on: the catch-ups encode
        self._late = None
        keep = set(listed)
        for stale in [batch for batch in self._handed if batch not in keep and batch not in self._closed]:
            self._handed.pop(stale).cancel()
        for i, batch in enumerate(listed):
            if batch not in self._handed:
                try:
                    self._handed[batch] = self._executor().submit(vectors.encode, embedder, batch)
                except RuntimeError:  # the interpreter is shutting down (no new thread): the catch-up encodes it
                    return
            if i < len(listed) - 1:
                self._closed.add(batch)

    def any_finished(self) -> bool:
        """Whether :meth:`finished` would give a batch (a glance: nothing taken out)."""
        self._here()
        return any(future.done() for batch, future in self._handed.items() if batch in self._closed)

    def finished(self) -> list[tuple[Batch, np.ndarray]]:
        """The closed batches whose vectors are ready, in the order handed, taken out (to be stored)."""
        self._here()
        ready = []
        for batch in [batch for batch in self._handed if batch in self._closed and self._handed[batch].done()]:
            found = self.take(batch)
            if found is not None:
                ready.append((batch, found))
        return ready

    def done(self, batch: Batch) -> np.ndarray | None:
        """``batch``'s vectors, taken out, if the background has finished them; None without waiting
        (not handed, still queued or running, or its encode failed)."""
        self._here()
        future = self._handed.get(batch)
        if future is None or not future.done() or future.cancelled() or future.exception() is not None:
            return None
        return self.take(batch)

    def busy(self, batch: Batch) -> bool:
        """Whether ``batch`` is handed and still queued or being encoded."""
        self._here()
        future = self._handed.get(batch)
        return future is not None and not future.done()

    def take(self, batch: Batch) -> np.ndarray | None:
        """``batch``'s vectors, waiting for them if they are being computed; None if it was not handed
        (or not as it is now), its encode failed, or it is not done within :attr:`wait_s`."""
        self._here()
        future = self._handed.pop(batch, None)
        self._closed.discard(batch)
        if future is None:
            return None
        running = not future.done()
        try:
            found = future.result(timeout=self.wait_s)
        except NotDone:  # stuck or very slow: the caller encodes this batch and the ones queued behind it
            self.timeouts += 1
            self.clear()
            self._late = future
            return None
        except Exception:  # noqa: BLE001 - any failure of the background encode: the caller encodes it
            return None
        self.used += 1
        self.waited += running
        return found

    def wait(self) -> None:
        """Block until every batch handed so far is encoded (or failed), and any encode a catch-up
        gave up on has returned: for tests and benchmarks."""
        self._here()
        wait([*self._handed.values(), *([self._late] if self._late is not None else [])])

    def clear(self) -> None:
        """Forget every batch (queued ones are cancelled) and start the next listing afresh."""
        self._here()
        for future in self._handed.values():
            future.cancel()
        self._handed.clear()
        self._closed.clear()
        self.mark = (0, None)

    def close(self) -> None:
        """:meth:`clear`, then stop the thread (after the encode it is running, unless a catch-up gave up on it)."""
        self.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=self._late is None or self._late.done())  # what was queued is cancelled
            self._pool = None

    def __len__(self) -> int:
        """How many batches are handed and not yet taken."""
        return len(self._handed)
