"""Scheduled jobs: what a job is, when it is next due, and what firing it changes.

A job says ``say`` as a tick whose ``input.source`` is ``schedule:NAME`` when it is due.
Missed runs coalesce: however many periods passed, a due job fires once and its next
due time moves past now (``missed`` counts the periods skipped). A wall clock that steps
back (NTP, a VM restored) brings an ``every`` or ``cron`` job's due time back with it
(:func:`realigned`): it stayed due at the old time, silent for as long as the clock stepped.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import attrs

from agi_core.errors import ValidationError
from agi_core.scheduling.clock import iso_ms
from agi_core.scheduling.when import cron_next_ms
from agi_core.serialization import dumps

SOURCE_PREFIX = "schedule:"
JOB_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
CRON_MISSED_COUNT_MAX = 1000  # missed cron runs are counted up to this many


@attrs.frozen
class Job:
    """A scheduled job; ``spec`` is the period in ms (every), the time in ms (at) or the cron expression."""

    name: str
    kind: Literal["every", "at", "cron"]
    spec: str
    say: str
    next_due_ms: int | None
    last_run_ms: int | None = None
    runs: int = 0
    missed: int = 0
    created_tick: int = 0

    @property
    def source(self) -> str:
        return SOURCE_PREFIX + self.name

    def when(self) -> str:
        """How the job repeats, as the user wrote it."""
        if self.kind == "every":
            return f"every {format_duration(int(self.spec))}"
        if self.kind == "at":
            return f"at {iso_ms(int(self.spec))}"
        return f"cron {self.spec!r}"

    def line(self) -> str:
        """One line for ``agi schedule list``."""
        following = iso_ms(self.next_due_ms) if self.next_due_ms is not None else "done"
        return (
            f"{self.name}: {self.when()}, next {following}, runs {self.runs}, missed {self.missed}: {dumps(self.say)}"
        )


def check_name(name: str) -> str:
    if not JOB_NAME.match(name):
        raise ValidationError(
            f"job name {name!r} is not allowed; use 1-64 of a-z, 0-9, '_' and '-', starting with a letter or digit"
        )
    return name


def new_job(args: dict[str, Any], now_ms: int, tick: int) -> Job:
    """The job that ``schedule_add`` args describe, first due after ``now_ms``."""
    name, say = check_name(args["name"]), str(args["say"])
    if "every_ms" in args:
        return Job(name, "every", str(int(args["every_ms"])), say, now_ms + int(args["every_ms"]), created_tick=tick)
    if "at_ms" in args:
        at = int(args["at_ms"])
        if at <= now_ms:
            raise ValidationError(f"--at {iso_ms(at)} is in the past (now {iso_ms(now_ms)}); give a future time")
        return Job(name, "at", str(at), say, at, created_tick=tick)
    return Job(name, "cron", args["cron"], say, cron_next_ms(args["cron"], now_ms), created_tick=tick)


def fired(job: Job, now_ms: int) -> Job:
    """``job`` after running at ``now_ms``: next due strictly after now, missed periods counted."""
    due = job.next_due_ms if job.next_due_ms is not None else now_ms
    if due > now_ms:  # another process ran it first: count the run, keep the due time
        return attrs.evolve(job, last_run_ms=now_ms, runs=job.runs + 1)
    if job.kind == "at":
        following, missed = None, 0
    elif job.kind == "every":
        period = int(job.spec)
        steps = max(0, (now_ms - due) // period) + 1
        following, missed = due + steps * period, steps - 1
    else:
        following, missed = cron_next_ms(job.spec, now_ms), _cron_missed(job.spec, due, now_ms)
    return attrs.evolve(job, next_due_ms=following, last_run_ms=now_ms, runs=job.runs + 1, missed=job.missed + missed)


def realigned(job: Job, now_ms: int) -> Job | None:
    """``job`` due again from ``now_ms`` when the clock stepped back past its due time, else None.

    An ``every`` job due more than one period from now gets a period from now; a ``cron`` job
    due after the expression's next time from now gets that time. An ``at`` job keeps its time.
    """
    if job.next_due_ms is None or job.kind == "at":
        return None
    if job.kind == "every":
        following = now_ms + int(job.spec)
    else:
        following = cron_next_ms(job.spec, now_ms)
    return attrs.evolve(job, next_due_ms=following) if job.next_due_ms > following else None


def _cron_missed(expr: str, due_ms: int, now_ms: int) -> int:
    count, moment = 0, due_ms
    while count < CRON_MISSED_COUNT_MAX:
        moment = cron_next_ms(expr, moment)
        if moment > now_ms:
            break
        count += 1
    return count


def format_duration(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"
