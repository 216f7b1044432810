"""The clock and file sensors, the standard-input reader of ``--follow``, and draining the sensors.

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
from pathlib import Path
from typing import IO, Any

from agi_core.inputs import Oversized, ReadsLines, normalize, read_lines
from agi_core.model import Input, JournalRecord, Percept
from agi_core.scheduling import DEFAULT_CLOCK_EVERY_MS
from agi_core.scheduling.clock import iso_ms

DRAIN_TICKS_MAX = 100  # ticks one drain may run before it yields to the caller


class ClockSensor:
    """A percept every ``every_ms`` of the kernel's clock (off until ``every_ms`` is set: ``--follow``).

    Its percept says the time (``clock 2026-11-23T13:00:00.000Z``, source ``clock``); a
    period missed while the agent was busy gives one percept, not one per period. A clock that
    steps back starts a period from its new time (it stayed silent for as long as it stepped).
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
        if self.next_ms is None or self.next_ms - now > self.every_ms:
            # first poll, or the wall clock stepped back (NTP, a VM resumed): a period from now, not from then
            self.next_ms = now + self.every_ms
        if now < self.next_ms:
            return None
        self.next_ms += ((now - self.next_ms) // self.every_ms + 1) * self.every_ms
        text = f"clock {iso_ms(now)}"
        return Input(raw=text, normalized=text, source="clock")


class FileSensor:
    """A percept for each file that appears in ``folder`` (off while ``folder`` is None), oldest first.

    Its cursor, ``[mtime_ns, name]`` of the last file reported, is stored by the tick that takes
    the percept (:class:`~agi_core.model.Percept`), so a file that appeared while the agent was
    down is reported when it runs again, and each file once (again only if it is changed later).
    Hidden files (a leading ``.``) and folders are left out. The percept is ``file NAME`` (source
    ``env``, ``metadata={"file": NAME, "bytes": SIZE}``).
    """

    name = "files"

    def __init__(self) -> None:
        self.folder: Path | None = None  # the sensors plugin's watch_dir setting

    def poll(self, kernel: Any) -> Percept | None:
        if self.folder is None:
            return None
        stored = kernel.sensor_cursor(self.name)
        mark = (int(stored[0]), str(stored[1])) if stored else (-1, "")
        newest: tuple[int, str, int] | None = None
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    if entry.name.startswith(".") or not entry.is_file():
                        continue
                    stat = entry.stat()
                    found = (stat.st_mtime_ns, entry.name, stat.st_size)
                    if found[:2] > mark and (newest is None or found < newest):
                        newest = found
        except OSError:  # the folder is missing or unreadable: nothing to report
            return None
        if newest is None:
            return None
        mtime_ns, name, size = newest
        text = f"file {name}"
        percept = Input(raw=text, normalized=normalize(text), source="env", metadata={"file": name, "bytes": size})
        return Percept(percept, [mtime_ns, name])


def drain(kernel: Any, limit: int = DRAIN_TICKS_MAX) -> Iterator[JournalRecord]:
    """Tick on sensor percepts until no sensor has one (at most ``limit`` ticks). A tick is yielded once it
    has committed: those of a batch of messages wait for the batch's commit (``Kernel.holding``)."""
    unshown: list[JournalRecord] = []
    with kernel.held_batches():  # back to back: a batch of messages is one transaction
        for _ in range(limit):
            record = kernel.tick()
            if record is None:
                break
            unshown.append(record)
            if not kernel.holding:
                yield from unshown
                unshown = []
    yield from unshown  # the limit, inside a batch: committed as the block ended


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

    def take_queued(self, limit: int) -> list[str | Oversized]:
        """The lines read so far and not yet taken, at most ``limit``, in order."""
        lines: list[str | Oversized] = []
        while len(lines) < limit and (line := self.take()) is not None:
            lines.append(line)
        return lines


def _unlocked(stream: IO[bytes]) -> ReadsLines:
    """The stream's descriptor read without its buffer's lock; the stream itself when it has none (tests' bytes)."""
    try:
        return FdReader(stream.fileno())
    except (io.UnsupportedOperation, AttributeError, ValueError):
        return stream
