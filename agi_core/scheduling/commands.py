"""The journaled schedule commands, and what a tick does with its clock reading.

``schedule_add``, ``schedule_remove`` and ``schedule_realign`` are kernel commands (each one
tick), so replay adds, removes and realigns the same jobs. :func:`begin_tick` runs at the start of every tick: it
reads the clock once (recorded) and, in a tick whose source is ``schedule:NAME``, moves
that job's next due time past the reading, in the tick's transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agi_core.errors import ConfigError, JobAlreadyRan, ValidationError
from agi_core.externals import Externals
from agi_core.inputs import utf8_size
from agi_core.model import Input
from agi_core.scheduling import jobs
from agi_core.scheduling.clock import iso_ms, read_tick_clock
from agi_core.serialization import from_data, to_data

if TYPE_CHECKING:
    from agi_core.kernel import Kernel
    from agi_core.model import JournalRecord
    from agi_core.reasoning import ReasonContext


def begin_tick(store: Any, clock: Callable[[], int] | None, percept: Input, externals: Externals) -> int | None:
    """The tick's clock reading (None without a clock); fires the job a ``schedule:`` tick runs for.

    The job is re-read under the tick's write lock: a live tick for a job that is no longer
    due (another process fired it since this one saw it due) raises :class:`JobAlreadyRan`.
    Replay keeps what the journal recorded (old journals may hold such a second run).
    """
    now_ms = read_tick_clock(externals, clock)
    if now_ms is not None and percept.source.startswith(jobs.SOURCE_PREFIX):
        found = store.get_job(percept.source[len(jobs.SOURCE_PREFIX) :])
        if found is not None:
            job = from_data(found, jobs.Job)
            if not externals.replaying and (job.next_due_ms is None or job.next_due_ms > now_ms):
                raise JobAlreadyRan(f"job {job.name!r} already ran at this time (another process ran it)")
            store.put_job(to_data(jobs.fired(job, now_ms)))
    return now_ms


def list_jobs(kernel: Kernel) -> list[jobs.Job]:
    return [from_data(row, jobs.Job) for row in kernel.store.all_jobs()]


def next_due(kernel: Kernel, now_ms: int) -> jobs.Job | None:
    """The job to run at ``now_ms`` (earliest due first), if any."""
    row = kernel.store.earliest_due(now_ms)
    return from_data(row, jobs.Job) if row is not None else None


def stepped_back(kernel: Kernel, now_ms: int) -> list[jobs.Job]:
    """The jobs a clock stepped back to ``now_ms`` left due too late (:func:`jobs.realigned`); reads only."""
    return [job for job in list_jobs(kernel) if jobs.realigned(job, now_ms) is not None]


def due_jobs(kernel: Kernel, limit: int = 10) -> list[JournalRecord]:
    """Run the jobs due now, each as its tick (``agi chat`` after each line: a reminder set there fires
    there); at most ``limit``, and none without a clock. A job a clock stepped back left due too late is
    brought back first (a ``schedule_realign`` tick, as ``agi run --follow`` does)."""
    records: list[JournalRecord] = []
    clock = kernel.config.clock
    if clock is not None and stepped_back(kernel, int(clock())):
        records.extend(kernel.command_ticks("schedule_realign", {}))
    while clock is not None and len(records) < limit and (job := next_due(kernel, int(clock()))) is not None:
        record = kernel.tick(job.say, source=job.source)
        if record is None:  # another process ran it first
            break
        records.append(record)
    return records


def schedule_add(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """Store a new job, first due after this tick's clock reading."""
    now_ms = kernel.tick_now_ms
    if now_ms is None:
        raise ConfigError("scheduling needs the kernel's clock; open the kernel with clock=wall_clock() (the CLI does)")
    name = jobs.check_name(args["name"])
    size, limit = utf8_size(str(args["say"])), kernel.config.max_input_bytes
    if size > limit:
        raise ValidationError(f"--say is {size:,} bytes; a tick's input is at most {limit:,} bytes: shorten it")
    if kernel.store.get_job(name) is not None:
        raise ValidationError(f"a job named {name!r} exists; remove it first with: agi schedule remove {name}")
    job = jobs.new_job(args, now_ms, ctx.tick)
    kernel.store.put_job(to_data(job))
    return f"scheduled {job.name}: {job.when()}", to_data(job)


def schedule_remove(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    name = args["name"]
    if not kernel.store.delete_job(name):
        raise ValidationError(f"no job named {name!r}; list the jobs with: agi schedule list")
    return f"removed job {name}", {"removed": name}


def schedule_realign(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """Bring back the due times a wall clock that stepped back left in the future (``agi run --follow``
    runs it when its clock reads less than before): the change is a tick, so replay makes it too."""
    now_ms = kernel.tick_now_ms
    if now_ms is None:
        raise ConfigError("scheduling needs the kernel's clock; open the kernel with clock=wall_clock() (the CLI does)")
    moved = []
    for job in list_jobs(kernel):
        following = jobs.realigned(job, now_ms)
        if following is not None:
            kernel.store.put_job(to_data(following))
            moved.append(following)
    if not moved:
        return "no job was due later than its period from now", {"realigned": []}
    listed = ", ".join(f"{job.name} next {iso_ms(job.next_due_ms or 0)}" for job in moved)
    data = [{"name": job.name, "next_due_ms": job.next_due_ms} for job in moved]
    return f"the clock stepped back; due again from now: {listed}", {"realigned": data}
