"""Reminders at the times users type ("tomorrow at 9", "on Monday at 10am", "tonight at 8", "in 2 hours"),
set through a real kernel on a SQLite file in the machine's local time zone (TZ, set per test), fired by
``agi run --follow``'s loop (:class:`Follow`) and by what ``agi chat`` runs after each line (``due_jobs``) on
a simulated clock, and replayed equal."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agi_core.kernel import Kernel
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.commands import due_jobs
from agi_core.scheduling.follow import Follow
from agi_core.scheduling.goal_phrases import goal_request
from agi_core.scheduling.goals import all_goals


@pytest.mark.parametrize(
    ("line", "asked"),
    [
        ("remind me to call Ana tomorrow at 9", ("remind_on", "call Ana\x1ftomorrow\x1f09:00")),
        ("remind me to call Ana tomorrow at 9am", ("remind_on", "call Ana\x1ftomorrow\x1f09:00")),
        ("Remind me to call Ana at 9 tomorrow.", ("remind_on", "call Ana\x1ftomorrow\x1f09:00")),
        ("remind me to call Ana tomorrow", ("remind_on", "call Ana\x1ftomorrow\x1f09:00")),
        ("remind me to call Ana tonight at 8", ("remind_on", "call Ana\x1ftoday\x1f20:00")),
        ("remind me to call Ana tonight at 12", ("remind_on", "call Ana\x1ftomorrow\x1f00:00")),
        ("remind me to call Ana tonight", ("remind_on", "call Ana\x1ftoday\x1f20:00")),
        ("remind me to call Ana this evening", ("remind_on", "call Ana\x1ftoday\x1f18:00")),
        ("remind me to call Ana tomorrow morning at 8", ("remind_on", "call Ana\x1ftomorrow\x1f08:00")),
        ("remind me to call Ana on Monday at 10am", ("remind_on", "call Ana\x1fmonday\x1f10:00")),
        ("remind me to call Ana on monday at 10", ("remind_on", "call Ana\x1fmonday\x1f10:00")),
        ("remind me to call Ana friday 3pm", ("remind_on", "call Ana\x1ffriday\x1f15:00")),
        ("remind me tomorrow at 9 to go to the bank", ("remind_on", "go to the bank\x1ftomorrow\x1f09:00")),
        ("remind me to sit in the sun tomorrow", ("remind_on", "sit in the sun\x1ftomorrow\x1f09:00")),
        ("remind me to call Ana, tomorrow at 9", ("remind_on", "call Ana\x1ftomorrow\x1f09:00")),
        ("remind me to call Ana at 3", ("remind_at", "call Ana\x1f15:00")),
        ("remind me at 5pm to call Ada", ("remind_at", "call Ada\x1f17:00")),  # as before
        ("remind me to call Ada at 17:30", ("remind_at", "call Ada\x1f17:30")),  # as before
        ("remind me to call Ana in 2 hours", ("remind", "call Ana\x1f2h")),
        ("remind me to call Ana in 3 days", ("remind", "call Ana\x1f3d")),
        ("remind me in half an hour to stretch", ("remind", "stretch\x1f30m")),
        ("remind me to call Ana at 25:00", ("remind_unread", "call Ana\x1fat 25:00")),
        ("remind me at 25:00 to call Ana", ("remind_unread", "call Ana\x1fat 25:00")),
        ("remind me to call Ana next Monday", ("remind_unread", "call Ana\x1fnext Monday")),
        ("remind me to call Ana", ("remind_no_time", "call Ana")),
        ("remind me of my name", None),
        ("remind me how to cook rice", None),
    ],
)
def test_a_reminders_time_is_read_as_typed(line, asked):
    assert goal_request(line) == asked


@pytest.fixture
def zone() -> Iterator[object]:
    """Set the machine's time zone (``TZ``) for one test; put it back after."""
    import os

    before = os.environ.get("TZ")

    def set_zone(name: str) -> ZoneInfo:
        os.environ["TZ"] = name
        time.tzset()
        return ZoneInfo(name)

    yield set_zone
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


def _ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def _agent(tmp_path, start: datetime) -> tuple[Kernel, SimulatedClock]:
    sim = SimulatedClock(_ms(start))
    return Kernel.open(tmp_path / "agent.db", seed="remind", clock=PinnedClock(sim)), sim


def _say(kernel: Kernel, line: str) -> str:
    kernel.config.clock.refresh()
    return kernel.tick(line).final_output


def _job(kernel: Kernel, what: str) -> dict:
    [goal] = [goal for goal in all_goals(kernel.store) if goal.description == what]
    return next(job for job in kernel.store.all_jobs() if job["name"] == f"remind-{goal.id}")


def test_tomorrow_at_9_fires_at_9_local_under_follow(tmp_path, zone):
    """Lisbon (UTC+00:00 in winter): set on Wednesday 18 November at 12:00, due Thursday 09:00, and the
    follow loop's reminder tick comes at that instant, not before."""
    lisbon = zone("Europe/Lisbon")
    kernel, sim = _agent(tmp_path, datetime(2026, 11, 18, 12, 0, tzinfo=lisbon))
    with kernel:
        said = _say(kernel, "remind me to call Ana tomorrow at 9")
        [goal] = all_goals(kernel.store)
        assert said == (
            f"I will remind you to call Ana at 09:00 tomorrow (Thursday 19 November) "
            f"(job remind-{goal.id}, goal {goal.id})."
        )
        due = _ms(datetime(2026, 11, 19, 9, 0, tzinfo=lisbon))
        assert _job(kernel, "call Ana")["next_due_ms"] == due
        loop = Follow(kernel, idle_sleep_s=60.0)
        ticks = list(loop.run(until=lambda: sim.ms >= due + 120_000))
        assert [(t.input.source, t.externals["tick_clock"]) for t in ticks] == [(f"schedule:remind-{goal.id}", [due])]
        assert ticks[0].final_output == f"Reminder: call Ana (goal {goal.id}, active, 0% done)."
        assert kernel.replay().ok


def test_days_and_hours_resolve_in_a_zone_east_of_utc(tmp_path, zone):
    """Kolkata (UTC+05:30), Wednesday 18 November 21:30: tonight's 20:00 has gone by (one line, no job);
    'on Wednesday at 10' is next week's; 'on monday at 10', 'at 9 tomorrow', 'tonight at 11' are local times."""
    kolkata = zone("Asia/Kolkata")
    kernel, _sim = _agent(tmp_path, datetime(2026, 11, 18, 21, 30, tzinfo=kolkata))
    with kernel:
        assert _say(kernel, "remind me to call Ana tonight at 8") == (
            "It is already 21:30, past 20:00 today; say e.g. 'tomorrow at 20:00' or 'in 10 minutes'."
        )
        assert kernel.store.all_jobs() == []
        said = [
            _say(kernel, "remind me to call Bo on monday at 10"),
            _say(kernel, "remind me to call Cy on Wednesday at 10am"),
            _say(kernel, "remind me to call Di at 9 tomorrow"),
            _say(kernel, "remind me to call Ed tonight at 11"),
            _say(kernel, "remind me to call Flo in 3 days"),
        ]
        assert [line.split(" (job ")[0] for line in said] == [
            "I will remind you to call Bo at 10:00 on Monday 23 November",
            "I will remind you to call Cy at 10:00 on Wednesday 25 November",
            "I will remind you to call Di at 09:00 tomorrow (Thursday 19 November)",
            "I will remind you to call Ed at 23:00 today",
            "I will remind you to call Flo at 21:30 on Saturday 21 November (in 3 days)",
        ]
        expected = {
            "call Bo": datetime(2026, 11, 23, 10, 0, tzinfo=kolkata),
            "call Cy": datetime(2026, 11, 25, 10, 0, tzinfo=kolkata),
            "call Di": datetime(2026, 11, 19, 9, 0, tzinfo=kolkata),
            "call Ed": datetime(2026, 11, 18, 23, 0, tzinfo=kolkata),
            "call Flo": datetime(2026, 11, 21, 21, 30, tzinfo=kolkata),
        }
        assert {what: _job(kernel, what)["next_due_ms"] for what in expected} == {
            what: _ms(moment) for what, moment in expected.items()
        }
        assert kernel.replay().ok


def test_a_reminder_across_a_daylight_saving_change_is_due_at_the_local_hour(tmp_path, zone):
    """New York, Saturday 31 October 2026 12:00 EDT (UTC-04:00); clocks go back on Sunday at 02:00, so
    'tomorrow at 9' is 09:00 EST, 14:00Z, not 13:00Z (the offset at the due time is read and recorded)."""
    new_york = zone("America/New_York")
    kernel, _sim = _agent(tmp_path, datetime(2026, 10, 31, 12, 0, tzinfo=new_york))
    with kernel:
        record = kernel.tick("remind me to call Ana tomorrow at 9")
        kernel.tick("remind me to call Bo on Monday at 10am")
        kernel.tick("remind me to call Cy at 8am")
        assert record.externals["utc_offset"] == [-4 * 3600]
        assert record.externals["due_utc_offset"] == [-5 * 3600]  # read at 09:00 EDT, 13:00Z: already EST
        assert {what: _job(kernel, what)["next_due_ms"] for what in ("call Ana", "call Bo", "call Cy")} == {
            "call Ana": _ms(datetime(2026, 11, 1, 14, 0, tzinfo=ZoneInfo("UTC"))),
            "call Bo": _ms(datetime(2026, 11, 2, 10, 0, tzinfo=new_york)),
            "call Cy": _ms(datetime(2026, 11, 1, 8, 0, tzinfo=new_york)),
        }
        assert kernel.replay().ok


def test_a_reminder_set_in_agi_chat_fires_there_on_monday_at_10(tmp_path, zone):
    """``agi chat`` runs the due jobs after each line (``due_jobs``): nothing a second before, the reminder at 10:00."""
    lisbon = zone("Europe/Lisbon")
    kernel, sim = _agent(tmp_path, datetime(2026, 11, 18, 12, 0, tzinfo=lisbon))
    with kernel:
        _say(kernel, "remind me to call Ana on Monday at 10am")
        due = _ms(datetime(2026, 11, 23, 10, 0, tzinfo=lisbon))
        sim.ms = due - 1000
        kernel.config.clock.refresh()
        assert due_jobs(kernel) == []
        sim.ms = due
        kernel.config.clock.refresh()
        [fired] = due_jobs(kernel)
        assert fired.final_output.startswith("Reminder: call Ana (goal g-")
        assert fired.externals["tick_clock"] == [due]
        assert kernel.replay().ok


def test_a_time_not_read_and_no_time_get_one_line_each(tmp_path, zone):
    zone("Europe/Lisbon")
    kernel, _sim = _agent(tmp_path, datetime(2026, 11, 18, 12, 0, tzinfo=ZoneInfo("Europe/Lisbon")))
    with kernel:
        assert _say(kernel, "remind me to call Ana at 25:00") == (
            "I couldn't read the time 'at 25:00'; say e.g. 'tomorrow at 9am' or 'in 10 minutes'."
        )
        assert _say(kernel, "remind me at 25:00 to call Ana") == (
            "I couldn't read the time 'at 25:00'; say e.g. 'tomorrow at 9am' or 'in 10 minutes'."
        )
        assert _say(kernel, f"remind me at {'9' * 200} to call Ana") == (
            f"I couldn't read the time 'at {'9' * 56}…'; say e.g. 'tomorrow at 9am' or 'in 10 minutes'."
        )
        assert _say(kernel, "remind me to call Ana") == (
            "When should I remind you to call Ana? Add a time, e.g. 'tomorrow at 9am' or 'in 10 minutes'."
        )
        assert (kernel.store.all_jobs(), all_goals(kernel.store)) == ([], [])
        assert kernel.replay().ok


@pytest.mark.parametrize("line", ["remind me to call Ana tomorrow at 9", "  Remind\tme  to call Ana on Monday at 10am"])
def test_a_reminder_line_read_otherwise_before_is_known_whatever_its_spacing(line):
    """What records ``parse_rules`` (so an older journal's tick replays as told then): the line is compared."""
    from agi_core.scheduling.goal_phrases import reads_otherwise

    assert reads_otherwise(line)
    assert not reads_otherwise("remind me to call Ana in 10 minutes")  # read alike: nothing recorded


def test_a_second_reminder_for_one_goal_says_which_it_replaces(tmp_path, zone):
    """Lisbon, Wednesday 18 November 12:00: "call Ana tomorrow at 9" then "call Ana on Monday" leave one job (the
    second), and the second reply says so (it replaced the first silently, the ``reminder_replaced`` change);
    a reminder for another goal, or after the first has fired, replaces nothing."""
    lisbon = zone("Europe/Lisbon")
    kernel, sim = _agent(tmp_path, datetime(2026, 11, 18, 12, 0, tzinfo=lisbon))
    with kernel:
        _say(kernel, "remind me to call Ana tomorrow at 9")
        again = _say(kernel, "remind me to call Ana on Monday")
        other = _say(kernel, "remind me to buy milk at 5pm")
        [goal] = [goal for goal in all_goals(kernel.store) if goal.description == "call Ana"]
        assert again == (
            f"I will remind you to call Ana at 09:00 on Monday 23 November (job remind-{goal.id}, goal {goal.id}); "
            "this replaces the reminder at 09:00 tomorrow (Thursday 19 November)."
        )
        assert "replaces" not in other
        assert _job(kernel, "call Ana")["next_due_ms"] == _ms(datetime(2026, 11, 23, 9, 0, tzinfo=lisbon))
        sim.ms = _ms(datetime(2026, 11, 18, 17, 0, tzinfo=lisbon))
        kernel.config.clock.refresh()
        assert len(due_jobs(kernel)) == 1  # the milk reminder fires
        assert "replaces" not in _say(kernel, "remind me to buy milk tomorrow at 8")
        assert kernel.replay().ok
