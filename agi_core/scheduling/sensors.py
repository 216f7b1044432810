"""The clock sensor, the standard-input reader of ``--follow``, and draining the sensors.

Sensors are polled by ``Kernel.tick()`` (no text): the first percept becomes the tick's
input. :func:`drain` runs ticks until no sensor has anything, bounded so a sensor that
always answers cannot hold the agent forever.
"""

from __future__ import annotations

import io
import os
import queue
import threading
from collections.abc import Iterator
from typing import IO, Any

from agi_core.inputs import Oversized, ReadsLines, read_lines
from agi_core.model import Input, JournalRecord
from agi_core.scheduling.clock import DEFAULT_CLOCK_EVERY_MS, iso_ms

DRAIN_TICKS_MAX = 100  # ticks one drain may run before it yields to the caller


class ClockSensor:
    """A percept every ``every_ms`` of the kernel's clock (off until ``every_ms`` is set: ``--follow``).

    Its percept says the time (``clock 2026-11-23T13:00:00.000Z``, source ``clock``); a
    period missed while the agent was busy gives one percept, not one per period.
    """

    name = "clock"

    def __init__(self) -> None:
        self.every_ms: int | None = None
        self.configured_ms: int | None = DEFAULT_CLOCK_EVERY_MS  # the sensors plugin's clock_every_s setting
        self.next_ms: int | None = None

    def poll(self, kernel: Any) -> Input | None:
        clock = kernel.config.clock
        if not self.every_ms or clock is None:
            return None
        now = int(clock())
        if self.next_ms is None:
            self.next_ms = now + self.every_ms
        if now < self.next_ms:
            return None
        self.next_ms += ((now - self.next_ms) // self.every_ms + 1) * self.every_ms
        text = f"clock {iso_ms(now)}"
        return Input(raw=text, normalized=text, source="clock")


def drain(kernel: Any, limit: int = DRAIN_TICKS_MAX) -> Iterator[JournalRecord]:
    """Tick on sensor percepts until no sensor has one (at most ``limit`` ticks)."""
    for _ in range(limit):
        record = kernel.tick()
        if record is None:
            return
        yield record


class FdReader:
    """``readline(limit)`` over a file descriptor, with ``os.read`` and a buffer of its own.

    A thread blocked reading ``sys.stdin.buffer`` holds that buffered reader's lock, which the
    interpreter takes at shutdown to flush it: with stdin still open (a terminal, a pipe) the
    process aborts with ``Fatal Python error: _enter_buffered_busy``. A thread blocked here holds
    no lock at all, so it is simply abandoned at exit.
    """

    CHUNK = 65536

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()
        self._eof = False

    def readline(self, limit: int) -> bytes:
        """The next line, newline included, at most ``limit`` bytes; ``b""`` at end of input."""
        while True:
            end = self._buffer.find(b"\n", 0, limit)
            if end >= 0:
                return self._take(end + 1)
            if len(self._buffer) >= limit or self._eof:
                return self._take(limit)
            chunk = os.read(self.fd, self.CHUNK)
            self._eof = not chunk
            self._buffer += chunk

    def _take(self, size: int) -> bytes:
        line = bytes(self._buffer[:size])
        del self._buffer[:size]
        return line


class StdinReader:
    """Reads lines of a byte stream on a daemon thread, so the follow loop never blocks on input.

    :meth:`take` returns the next line (a ``str``, or :class:`Oversized` for a line over
    the limit) or None; ``closed`` is set at end of input. A stream with a file descriptor is
    read through :class:`FdReader`, so the thread can still be waiting on it when the process exits.
    """

    def __init__(self, stream: IO[bytes], max_bytes: int) -> None:
        self._lines: queue.SimpleQueue[str | Oversized] = queue.SimpleQueue()
        self.closed = threading.Event()
        source = _unlocked(stream)
        self._thread = threading.Thread(target=self._read, args=(source, max_bytes), name="agi-stdin", daemon=True)
        self._thread.start()

    def _read(self, stream: ReadsLines, max_bytes: int) -> None:
        try:
            for line in read_lines(stream, max_bytes):
                self._lines.put(line)
        finally:
            self.closed.set()

    def take(self) -> str | Oversized | None:
        try:
            return self._lines.get_nowait()
        except queue.Empty:
            return None


def _unlocked(stream: IO[bytes]) -> ReadsLines:
    """The stream's descriptor read without its buffer's lock; the stream itself when it has none (tests' bytes)."""
    try:
        return FdReader(stream.fileno())
    except (io.UnsupportedOperation, AttributeError, ValueError):
        return stream
