"""Scheduled jobs under a simulated clock: coalescing, --at, cron, the commands, replay."""

from __future__ import annotations

import pytest

from agi_core.errors import ConfigError, ValidationError
from agi_core.kernel import Kernel
from agi_core.memory import jobs_table
from agi_core.replay import replay
from agi_core.scheduling.clock import CLOCK_EXTERNAL, PinnedClock, SimulatedClock, iso_ms
from agi_core.scheduling.commands import due_jobs, list_jobs, next_due
from agi_core.scheduling.follow import Follow
from agi_core.scheduling.when import cron_next_ms, parse_at_ms, parse_duration_ms
from tests.autonomy.conftest import START_MS

S = 1000
MIN = 60 * S


def _add(kernel, name, say="time check", **when):
    return kernel.command("schedule_add", {"name": name, "say": say, **when})


def _run_until(kernel, sim, until_ms, **options):
    loop = Follow(kernel, idle_sleep_s=1.0, **options)
    return list(loop.run(until=lambda: sim.ms >= until_ms))


def _job(kernel, name):
    return next(job for job in list_jobs(kernel) if job.name == name)


def test_an_every_job_ticks_once_per_period_with_its_source(kernel, sim):
    _add(kernel, "ping", every_ms=10 * S)
    records = _run_until(kernel, sim, START_MS + 35 * S)
    assert [r.input.source for r in records] == ["schedule:ping"] * 3
    assert [r.input.raw for r in records] == ["time check"] * 3
    assert [r.externals[CLOCK_EXTERNAL] for r in records] == [[START_MS + k * 10 * S] for k in (1, 2, 3)]
    assert _job(kernel, "ping").runs == 3


def test_missed_runs_coalesce_into_one_tick_and_next_due_moves_past_now(kernel, sim):
    _add(kernel, "ping", every_ms=10 * S)
    sim.advance(95)  # nine periods passed while the agent was not running
    loop = Follow(kernel)
    record = loop.step()
    assert record is not None and record.input.source == "schedule:ping"
    job = _job(kernel, "ping")
    assert (job.runs, job.missed, job.last_run_ms) == (1, 8, START_MS + 95 * S)
    assert job.next_due_ms == START_MS + 100 * S
    assert loop.step() is None  # nothing else is due at the same instant


def test_an_at_job_runs_once_and_is_then_done(kernel, sim):
    _add(kernel, "once", say="stand up", at_ms=START_MS + 60 * S)
    records = _run_until(kernel, sim, START_MS + 180 * S)
    assert [(r.input.source, r.input.raw) for r in records] == [("schedule:once", "stand up")]
    assert records[0].externals[CLOCK_EXTERNAL] == [START_MS + 60 * S]
    job = _job(kernel, "once")
    assert (job.next_due_ms, job.runs) == (None, 1)
    assert job.line().startswith("once: at ") and ", next done," in job.line()


def test_a_cron_job_runs_on_its_minutes_and_coalesces(kernel, sim):
    _add(kernel, "minutely", cron="* * * * *")
    first = _job(kernel, "minutely").next_due_ms
    assert first == (START_MS // MIN + 1) * MIN  # the next whole minute, UTC
    records = _run_until(kernel, sim, first + 2 * MIN + S)
    assert [r.externals[CLOCK_EXTERNAL][0] for r in records] == [first, first + MIN, first + 2 * MIN]
    sim.advance(10 * 60)  # ten minutes pass without the loop
    assert Follow(kernel).step() is not None
    job = _job(kernel, "minutely")
    assert (job.runs, job.missed) == (4, 9)
    assert job.next_due_ms == cron_next_ms("* * * * *", sim.ms) > sim.ms
    assert Follow(kernel).step() is None


def test_jobs_are_ordered_by_due_time_then_name(kernel, sim):
    _add(kernel, "b", every_ms=5 * S)
    _add(kernel, "a", every_ms=5 * S)
    _add(kernel, "c", every_ms=3 * S)
    sim.advance(5)
    loop = Follow(kernel)
    assert [loop.step().input.source for _ in range(3)] == ["schedule:c", "schedule:a", "schedule:b"]
    assert loop.step() is None


def test_schedule_add_and_remove_refuse_bad_requests_and_store_nothing(kernel, sim):
    _add(kernel, "ping", every_ms=S)
    ticks = kernel.tick_count
    with pytest.raises(ValidationError, match="a job named 'ping' exists; remove it first"):
        _add(kernel, "ping", every_ms=S)
    with pytest.raises(ValidationError, match="is in the past"):
        _add(kernel, "late", at_ms=START_MS - S)
    with pytest.raises(ValidationError, match="job name 'Bad Name' is not allowed"):
        _add(kernel, "Bad Name", every_ms=S)
    with pytest.raises(ValidationError, match="--say is 65,537 bytes; a tick's input is at most 65,536 bytes"):
        _add(kernel, "big", say="x" * 65_537, every_ms=S)
    with pytest.raises(ValidationError, match="no job named 'nope'"):
        kernel.command("schedule_remove", {"name": "nope"})
    assert kernel.tick_count == ticks
    assert [job.name for job in list_jobs(kernel)] == ["ping"]
    assert kernel.command("schedule_remove", {"name": "ping"}).final_output == "removed job ping"
    assert list_jobs(kernel) == []


def test_scheduling_without_a_clock_is_refused(tmp_path):
    with Kernel.open(tmp_path / "plain.db") as plain:
        with pytest.raises(ConfigError, match="scheduling needs the kernel's clock"):
            _add(plain, "ping", every_ms=S)
        with pytest.raises(ConfigError, match="needs a kernel opened with clock=PinnedClock"):
            Follow(plain)
        assert plain.tick_count == 0


def test_a_kernel_without_a_clock_records_no_clock_reading(tmp_path):
    with Kernel.open(tmp_path / "plain.db") as plain:
        assert CLOCK_EXTERNAL not in plain.tick("hello").externals


def test_replay_reproduces_the_jobs_table_from_recorded_clock_readings(kernel, sim, tmp_path):
    _add(kernel, "ping", every_ms=10 * S)
    _add(kernel, "cronjob", cron="*/2 * * * *")
    _add(kernel, "once", at_ms=START_MS + 30 * S)
    _run_until(kernel, sim, START_MS + 5 * MIN)
    sim.advance(3600)
    Follow(kernel).step()
    kernel.command("schedule_remove", {"name": "once"})
    live_jobs = jobs_table.all_jobs(kernel.store.conn)
    rows = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    import orjson

    with Kernel.open(tmp_path / "replayed.db", seed="autonomy") as offline:  # no clock: readings are served
        for text in rows:
            replayed = offline.replay_tick(orjson.loads(text))
            assert offline.last_journal_text == text, replayed.tick
        assert jobs_table.all_jobs(offline.store.conn) == live_jobs
    assert [job["name"] for job in live_jobs] == ["cronjob", "ping"]


def test_a_clock_that_steps_back_brings_every_and_cron_jobs_back_and_replay_rebuilds_them(kernel, sim, tmp_path):
    """A wall clock stepped back an hour (NTP, a VM restored) left a job every 60 s due at its old time:
    silent for the hour. A journaled schedule_realign tick brings it (and a cron job) back; --at keeps its time."""
    _add(kernel, "ping", every_ms=60 * S)
    _add(kernel, "minutely", cron="* * * * *")
    _add(kernel, "once", at_ms=START_MS + 2 * 3600 * S)
    _run_until(kernel, sim, START_MS + 61 * S)
    assert _job(kernel, "ping").next_due_ms == START_MS + 120 * S
    sim.ms -= 3600 * S  # the clock steps back an hour
    stepped_ms = sim.ms
    records = _run_until(kernel, sim, stepped_ms + 150 * S)
    realign = records[0]
    assert realign.router_decision.agent == "command:schedule_realign"
    assert realign.externals[CLOCK_EXTERNAL] == [stepped_ms]
    assert realign.final_output == (
        "the clock stepped back; due again from now: "
        f"minutely next {iso_ms(cron_next_ms('* * * * *', stepped_ms))}, ping next {iso_ms(stepped_ms + 60 * S)}"
    )
    pings = [r.externals[CLOCK_EXTERNAL][0] for r in records if r.input.source == "schedule:ping"]
    assert pings == [stepped_ms + 60 * S, stepped_ms + 120 * S]  # a period from now, not an hour from now
    assert sum(r.input.source == "schedule:minutely" for r in records) >= 2
    assert _job(kernel, "once").next_due_ms == START_MS + 2 * 3600 * S
    assert sum(r.router_decision.agent == "command:schedule_realign" for r in records) == 1
    live_jobs = jobs_table.all_jobs(kernel.store.conn)
    rows = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    import orjson

    with Kernel.open(tmp_path / "replayed.db", seed="autonomy") as offline:  # the realignment replays too
        for text in rows:
            offline.replay_tick(orjson.loads(text))
            assert offline.last_journal_text == text
        assert jobs_table.all_jobs(offline.store.conn) == live_jobs


def test_agi_chat_brings_jobs_back_after_a_clock_step_back_too(kernel, sim):
    """agi chat runs due jobs after each line (due_jobs): a clock stepped back an hour left a job every
    60 s silent for the hour there, though --follow realigned it."""
    _add(kernel, "ping", every_ms=60 * S)

    def _chat_jobs(kernel):
        kernel.config.clock.refresh()  # the fixture's clock is pinned; agi chat's reads the wall clock each time
        return due_jobs(kernel)

    sim.ms += 61 * S
    assert [r.input.source for r in _chat_jobs(kernel)] == ["schedule:ping"]
    sim.ms -= 3600 * S  # the clock steps back an hour
    realigned = _chat_jobs(kernel)
    assert [r.router_decision.agent for r in realigned] == ["command:schedule_realign"]
    assert _job(kernel, "ping").next_due_ms == sim.ms + 60 * S
    sim.ms += 60 * S
    assert [r.input.source for r in _chat_jobs(kernel)] == ["schedule:ping"]  # a period later, not an hour
    assert _chat_jobs(kernel) == []


@pytest.mark.parametrize(
    ("text", "ms"), [("1s", 1000), ("90s", 90_000), ("1h30m", 5_400_000), ("2d", 172_800_000), ("250ms", 250)]
)
def test_durations(text, ms):
    assert parse_duration_ms(text) == ms


def test_a_fraction_is_exact_and_a_fraction_of_a_millisecond_is_refused(tmp_path):
    """--every 1.5s is 1500 ms exactly (1.1s: 1100, not float's 1100.0000000000002); 1.0005s and 1000.4ms were
    rounded to 1000 ms without a word: a fraction of a millisecond is now refused, naming the forms."""
    assert [parse_duration_ms(text) for text in ("1.5s", "1.1s", "2.5m", "0.1h", "1.25d")] == [
        1500,
        1100,
        150_000,
        360_000,
        108_000_000,
    ]
    for text in ("1.0005s", "1000.4ms", "1.0000000000000001d"):
        with pytest.raises(ValidationError) as refused:
            parse_duration_ms(text)
        assert str(refused.value) == (
            f"{text!r} is not a whole number of milliseconds; write e.g. 1.5s or 1500ms (a fraction down to 1 ms)"
        )
    with Kernel.open(tmp_path / "a.db", clock=PinnedClock(SimulatedClock(START_MS))) as kernel:
        _add(kernel, "ping", every_ms=parse_duration_ms("1.5s"))
        assert (_job(kernel, "ping").spec, _job(kernel, "ping").when()) == ("1500", "every 1500ms")


@pytest.mark.parametrize("text", ["", "5", "1x", "s", "1 h 2"])
def test_bad_durations_say_how_to_write_one(text):
    with pytest.raises(ValidationError, match="is not a duration; write a number and a unit"):
        parse_duration_ms(text)


def test_at_times_without_an_offset_are_utc():
    assert parse_at_ms("2026-11-23T14:00:00") == parse_at_ms("2026-11-23T14:00:00Z")
    assert parse_at_ms("2026-11-23T15:00:00+01:00") == parse_at_ms("2026-11-23T14:00:00Z")
    assert iso_ms(parse_at_ms("2026-11-23T14:00:00Z")) == "2026-11-23T14:00:00.000Z"
    with pytest.raises(ValidationError, match="is not an ISO 8601 time"):
        parse_at_ms("tomorrow")


def test_the_pinned_clock_reads_its_source_once_per_refresh(sim):
    pinned = PinnedClock(sim)
    assert pinned() == START_MS
    sim.advance(5)
    assert pinned() == START_MS  # the tick's reading does not move within a turn
    assert pinned.refresh() == START_MS + 5 * S


def test_a_job_edited_outside_the_journal_is_named_by_verify(tmp_path, sim):
    import sqlite3
    from contextlib import closing

    from agi_core.integrity import verify_agent

    db = tmp_path / "sealed.db"
    with Kernel.open(db, seed="t", clock=PinnedClock(sim)) as opened:
        _add(opened, "ping", every_ms=10 * S)
    with Kernel.open(db, seed="t") as reopened:
        assert verify_agent(reopened.store, reopened.journal_key).problems() == []
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("UPDATE jobs SET say = 'rm -rf /' WHERE name = 'ping'")
        conn.commit()
    with Kernel.open(db, seed="t") as reopened:
        problems = verify_agent(reopened.store, reopened.journal_key).problems()
    assert problems == ["STATE_CHANGED jobs key 'ping': changed outside the journal"]


def test_firing_a_job_that_is_not_due_keeps_its_due_time():
    from agi_core.scheduling.jobs import Job, fired

    job = Job("ping", "every", str(10 * S), "hi", next_due_ms=START_MS + 10 * S)
    again = fired(job, START_MS + 5 * S)  # a second follower ran it after the first advanced it
    assert (again.next_due_ms, again.runs, again.missed) == (START_MS + 10 * S, 1, 0)


def test_two_followers_that_both_saw_a_job_due_run_it_once(tmp_path, sim):
    """Both processes' loops see the job due; the second tick re-reads it under the write lock and stops."""
    db = tmp_path / "shared.db"
    with (
        Kernel.open(db, seed="autonomy", clock=PinnedClock(sim)) as first,
        Kernel.open(db, seed="autonomy", clock=PinnedClock(sim)) as second,
    ):
        _add(first, "ping", every_ms=10 * S)
        sim.advance(10)
        now_ms = first.config.clock.refresh()
        second.config.clock.refresh()
        seen = [next_due(first, now_ms), next_due(second, now_ms)]
        assert [job.name for job in seen] == ["ping", "ping"]
        ran = first.tick(seen[0].say, source=seen[0].source)
        skipped = second.tick(seen[1].say, source=seen[1].source)
        assert ran is not None and skipped is None
        assert (_job(second, "ping").runs, second.tick_count) == (1, 2)
    assert replay(db, seed="autonomy").ok
