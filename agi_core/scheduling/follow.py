"""``agi run --follow``: the agent's life between signals.

Each turn of the loop reads the clock once (the kernel records that reading in the tick
it runs) and runs one tick. On its first turn, and when the clock reads less than it did (a
wall clock stepped back: NTP, a VM restored), a job left due too late is brought back by a
``schedule_realign`` tick first. Then, in this order: a due scheduled job (source
``schedule:NAME``), the next standard-input line (or the lines queued there, up to 16, as
ticks with one durable point: ``Kernel.group_commit``), a percept of any registered sensor
(the clock sensor among them), then, when none of those is due, some module has ``maintain``
and ``maintain_every_ms`` passed since the last maintenance (or the loop's start), a
maintenance tick (source ``maintain``; Letta's sleep-time agents), else, when
``step_every_ms`` passed since the last look, a step of the active goal's plan (source
``goal:ID``; off by default). A due maintenance gives way to the other ticks for one turn
only, then goes first: a steady stream of lines (or percepts, or jobs) cannot postpone it.
With nothing to do it sleeps briefly. SIGINT or SIGTERM sets the stop flag: the tick under
way finishes and the loop returns. When a server backend's server goes away the loop waits
for it (the kernel's ``reconnect_s``; ``agi run --follow``: as long as it takes) and goes on.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agi_core.errors import BackendUnavailable, ConfigError
from agi_core.inputs import Oversized
from agi_core.memory.reconnect import Reconnect
from agi_core.model import JournalRecord
from agi_core.scheduling import plans
from agi_core.scheduling.clock import PinnedClock
from agi_core.scheduling.commands import next_due, stepped_back
from agi_core.scheduling.goal_commands import StepTaken
from agi_core.scheduling.sensors import ClockSensor, StdinReader

IDLE_SLEEP_S = 0.05  # how long an idle loop waits before it looks again
STDIN_GROUP = 16  # queued standard-input lines taken in one turn, as ticks with one durable point


def _some(record: JournalRecord | None) -> list[JournalRecord]:
    return [] if record is None else [record]


class Follow:
    """The follow loop over one kernel, opened with ``clock=PinnedClock(...)``."""

    def __init__(
        self,
        kernel: Any,
        *,
        stdin: StdinReader | None = None,
        clock_every_ms: int | None = None,
        maintain_every_ms: int | None = None,
        step_every_ms: int | None = None,
        idle_sleep_s: float = IDLE_SLEEP_S,
        stop: threading.Event | None = None,
    ) -> None:
        clock = kernel.config.clock
        if not isinstance(clock, PinnedClock):
            raise ConfigError("the follow loop needs a kernel opened with clock=PinnedClock(...)")
        self.kernel, self.clock, self.stdin = kernel, clock, stdin
        self.idle_sleep_s = idle_sleep_s
        self.maintain_every_ms = maintain_every_ms if maintain_every_ms and kernel.has_maintenance else None
        self._last_maintain_ms: int | None = None  # the clock reading of the last maintenance (or the first turn)
        self._maintain_passed_over = False  # a due maintenance gave way to other ticks in the last turn
        self.step_every_ms = step_every_ms or None
        self._last_step_ms: int | None = None  # the clock reading of the last look for a goal step (or the first turn)
        self._last_reading: int | None = None  # the previous turn's clock reading: less now means it stepped back
        self.stop = stop or threading.Event()
        sensor = kernel.sensors.get("clock")
        if isinstance(sensor, ClockSensor):
            sensor.every_ms = clock_every_ms or None

    def step(self) -> JournalRecord | None:
        """One turn: read the clock, run the one tick that is due (None when idle; a write/external
        call's receipt tick when the tick recorded one)."""
        ticks = self.turn()
        return ticks[-1] if ticks else None

    def turn(self) -> list[JournalRecord]:
        """One turn: the tick that is due, and its receipt tick when it recorded an intent ([] when idle)."""
        now_ms = self.clock.refresh()
        stepped, self._last_reading = self._last_reading is None or now_ms < self._last_reading, now_ms
        # first turn (or the clock stepped back: NTP, a VM restored): an interval from now, not from then
        if self._last_maintain_ms is None or now_ms < self._last_maintain_ms:
            self._last_maintain_ms = now_ms
        if self._last_step_ms is None or now_ms < self._last_step_ms:
            self._last_step_ms = now_ms
        if stepped and stepped_back(self.kernel, now_ms):
            return self.kernel.command_ticks("schedule_realign", {})
        maintain = self.maintain_every_ms is not None and now_ms - self._last_maintain_ms >= self.maintain_every_ms
        if maintain and self._maintain_passed_over:  # passed over once: it goes first (a steady stream of lines)
            return self._maintain(now_ms)
        due = self._due_ticks(now_ms)
        if due:
            self._maintain_passed_over = maintain
            return due
        if maintain:
            return self._maintain(now_ms)
        if self.step_every_ms is not None and now_ms - self._last_step_ms >= self.step_every_ms:
            self._last_step_ms = now_ms
            goal = plans.next_runnable(self.kernel.store)
            if goal is not None:
                step = {"goal": goal.id, "step": plans.next_index(goal)}
                try:
                    return self.kernel.command_ticks("goal_step", step, source=f"goal:{goal.id}")
                except StepTaken:
                    return []  # another process took this step since we looked; nothing was stored
        return []

    def _maintain(self, now_ms: int) -> list[JournalRecord]:
        self._last_maintain_ms, self._maintain_passed_over = now_ms, False
        return [self.kernel.maintain()]

    def _due_ticks(self, now_ms: int) -> list[JournalRecord]:
        """A due job's tick; else the lines standard input has queued (up to :data:`STDIN_GROUP`), one
        tick each with one durable point (``Kernel.group_commit``); else a sensor's percept."""
        job = next_due(self.kernel, now_ms)
        if job is not None:
            return _some(self.kernel.tick(job.say, source=job.source))
        queued = self.stdin.take_queued(STDIN_GROUP) if self.stdin is not None else []
        lines = [line for line in queued if isinstance(line, Oversized) or line.strip()]
        if len(lines) > 1:  # returned once all are durable: printed only then
            with self.kernel.group_commit():
                return [record for line in lines for record in _some(self._line_tick(line))]
        if lines:
            return _some(self._line_tick(lines[0]))
        return _some(self.kernel.tick())

    def _line_tick(self, line: str | Oversized) -> JournalRecord | None:
        if isinstance(line, Oversized):
            return self.kernel.refuse_input(line)
        return self.kernel.tick(line)

    def run(self, until: Callable[[], bool] | None = None) -> Iterator[JournalRecord]:
        """Step until :attr:`stop` is set (or ``until()`` is true), sleeping on the clock when idle. A tick is
        yielded once it has committed: those of a batch of messages wait for the batch's (``Kernel.holding``)."""
        unshown: list[JournalRecord] = []
        with self.kernel.held_batches():  # back to back: a batch of messages is one transaction
            for ticks in self._turns(until):
                unshown += ticks
                if unshown and not self.kernel.holding:
                    yield from unshown
                    unshown = []
        yield from unshown  # stopped inside a batch: committed as the block ended

    def _turns(self, until: Callable[[], bool] | None) -> Iterator[list[JournalRecord]]:
        while not self.stop.is_set() and not (until is not None and until()):
            try:
                ticks = self.turn()
            except BackendUnavailable as exc:  # between ticks (a tick waits for it itself): wait, then go on
                try:
                    Reconnect(self.kernel.store, self.kernel.config.reconnect_s, stop=self.stop).wait(exc)
                except BackendUnavailable:
                    if self.stop.is_set():
                        return
                    raise
                continue
            yield ticks
            if not ticks:
                self.clock.sleep(self.idle_sleep_s, self.stop)


@contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[threading.Event]:
    """SIGINT and SIGTERM set ``stop`` instead of killing the process; the old handlers come back after.

    A second signal while the tick under way has not finished acts as it would without the
    loop (SIGINT interrupts, SIGTERM terminates): a hung tick can still be stopped. (A step
    running on the modules' worker ends first on SIGINT: it holds the tick's transaction.)
    Once the caller sets the event this yields (the loop is over: the agent is sealing and
    closing, local work that ends), further signals are ignored until the block is left.

    The handler takes no lock: it writes a byte on a pipe and a relay thread sets ``stop``.
    ``stop.set()`` in the handler itself deadlocked when the signal landed while the main
    thread held the event's lock inside ``stop.wait()`` (the loop's idle sleep).
    """
    reader, writer = os.pipe()
    signals = 0
    closing = threading.Event()

    def handler(signum: int, frame: Any) -> None:
        nonlocal signals
        signals += 1
        if closing.is_set():
            return  # the loop is over; the agent seals and closes, then exits 0
        if signals > 1:
            for sig, old in previous.items():
                signal.signal(sig, old)
            signal.raise_signal(signum)
            return
        os.write(writer, b"\0")

    def relay() -> None:
        if os.read(reader, 1):  # b"" when the context closes without a signal
            stop.set()

    relay_thread = threading.Thread(target=relay, name="agi-signal-relay", daemon=True)
    relay_thread.start()
    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield closing
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        os.close(writer)
        relay_thread.join()
        os.close(reader)
