"""Issue 22 item 2: the recorded wall clock on every episode, and questions about time answered from it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agi_core.kernel import Kernel
from agi_core.replay import replay_records
from agi_core.scheduling import time_answers
from agi_core.scheduling.clock import CLOCK_EXTERNAL, PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow
from agi_core.scheduling.time_answers import ago
from agi_core.scheduling.wall_time import time_text
from agi_core.testing import builtin_plugins

START_MS = 1_795_000_000_000  # 2026-11-18T…Z


def local(ms):
    moment = datetime.fromtimestamp(ms / 1000, UTC).astimezone()
    total = int(moment.utcoffset().total_seconds())
    sign, total = ("+" if total >= 0 else "-"), abs(total)
    return moment, f"UTC{sign}{total // 3600:02d}:{total % 3600 // 60:02d}"


def day(moment):
    return f"{moment:%A} {moment.day} {moment:%B} {moment.year}"


@pytest.fixture
def sim():
    return SimulatedClock(START_MS)


@pytest.fixture
def kernel(tmp_path, sim):
    with Kernel.open(tmp_path / "a.db", seed="time", clock=PinnedClock(sim)) as opened:
        yield opened


def tick(kernel, sim, text, after_s=0):
    sim.advance(after_s)
    kernel.config.clock.refresh()
    return kernel.tick(text)


def test_what_time_and_what_day_come_from_the_recorded_clock(kernel, sim):
    moment, offset = local(START_MS)
    record = tick(kernel, sim, "what time is it?")
    assert record.final_output == f"It is {moment:%H:%M} ({offset}) on {day(moment)}."
    assert record.externals[CLOCK_EXTERNAL] == [START_MS]
    assert tick(kernel, sim, "what's the date?").final_output == f"Today is {day(moment)}."
    assert kernel.replay().ok


def test_stage0_and_the_llm_brains_clock_tool_say_the_time_in_one_wording(tmp_path, sim):
    """One formatter (``wall_time.time_text``): "It is 17:11 (UTC+00:00) on …" from both brains."""
    moment, offset = local(START_MS)
    said = f"It is {moment:%H:%M} ({offset}) on {day(moment)}."
    assert time_text(START_MS, moment.utcoffset().total_seconds()) == said
    assert time_text(1_795_000_000_000, 3600) == "It is 12:06 (UTC+01:00) on Wednesday 18 November 2026."
    assert time_text(1_795_000_000_000, -5 * 3600 - 1800) == "It is 05:36 (UTC-05:30) on Wednesday 18 November 2026."
    with Kernel.open(tmp_path / "a.db", seed="time", clock=PinnedClock(sim), brain="llm") as kernel:
        rule = kernel.tick("what time is it?")  # Stage-0's time rule, first under the LLM brain too
        tool = kernel.tick("/clock")  # the LLM brain's clock tool, no model
        again = kernel.tick("what time is it again?")
        assert kernel.replay().ok
    assert tool.agent_outputs["llm_brain"]["mode"] == "tool"
    assert rule.final_output == tool.final_output == again.final_output == said


def test_every_episode_carries_its_ticks_wall_clock(kernel, sim):
    tick(kernel, sim, "my name is Ada")
    tick(kernel, sim, "hello", after_s=90)
    walls = [(e.context["kind"], e.context["wall_ms"]) for e in kernel.store.episodes()]
    assert walls == [
        ("input", START_MS),
        ("action", START_MS),
        ("input", START_MS + 90_000),
        ("action", START_MS + 90_000),
    ]


def test_how_long_ago_did_i_tell_you_reads_the_writing_ticks_clock(kernel, sim):
    tick(kernel, sim, "my favorite color is blue")
    tick(kernel, sim, "my sister lives in Lyon", after_s=60)
    moment, offset = local(START_MS)
    said = tick(kernel, sim, "how long ago did I tell you my favourite colour?", after_s=180).final_output
    assert said == f"You told me 4 minutes ago ({day(moment)} {moment:%H:%M} {offset}): “my favorite color is blue”."
    assert tick(kernel, sim, "when did I tell you where my sister lives?").final_output.startswith(
        "You told me 3 minutes"
    )
    assert tick(kernel, sim, "how long ago did I tell you my name?").final_output == "You haven't told me that yet."
    assert kernel.replay().ok


def test_when_did_we_last_talk_finds_the_previous_conversation(kernel, sim):
    tick(kernel, sim, "my name is Ada")
    said = tick(kernel, sim, "when did we last talk?", after_s=30).final_output
    assert said.startswith("We have been talking since ") and said.endswith("no conversation before this one.")
    tick(kernel, sim, "hello", after_s=2 * 3600)
    moment, offset = local(START_MS + 30_000)
    said = tick(kernel, sim, "when did we last talk?", after_s=60).final_output
    assert said == (
        f"Before this conversation, we last talked 2 hours and 1 minute ago ({day(moment)} {moment:%H:%M} {offset}), "
        "when you said “when did we last talk?”."
    )


def test_without_a_clock_the_told_time_is_not_made_up(tmp_path):
    with Kernel.open(tmp_path / "a.db", seed="noclock") as kernel:
        kernel.tick("my favorite color is blue")
        said = kernel.tick("how long ago did I tell you my favorite color?").final_output
        assert said == "You told me in tick 1 (“my favorite color is blue”), but I have no clock reading for that tick."


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(0, "0 seconds"), (1, "1 second"), (59, "59 seconds"), (60, "1 minute"), (3720, "1 hour and 2 minutes"),
     (86400 * 2 + 3600, "2 days and 1 hour")],
)  # fmt: skip
def test_ago_says_how_long_in_words(seconds, words):
    assert ago(seconds) == words


def test_remind_me_at_5pm_sets_a_reminder_that_fires_then(kernel, sim):
    from agi_core.scheduling.commands import due_jobs

    moment, _offset = local(START_MS)
    said = tick(kernel, sim, "remind me at 5pm to call Ada").final_output
    day_word = "today" if moment.hour < 17 else "tomorrow"
    assert said.startswith(f"I will remind you to call Ada at 17:00 {day_word} (job remind-g-")
    [job] = kernel.store.all_jobs()
    due = datetime.fromtimestamp(job["next_due_ms"] / 1000, UTC).astimezone()
    assert (due.hour, due.minute, 0 < job["next_due_ms"] - START_MS <= 86_400_000) == (17, 0, True)
    assert due_jobs(kernel) == []  # not yet due
    sim.ms = job["next_due_ms"] + 1000
    kernel.config.clock.refresh()
    [fired] = due_jobs(kernel)  # what agi chat runs after each line
    assert (fired.input.source, fired.final_output.startswith("Reminder: call Ada (goal g-")) == (
        f"schedule:{job['name']}",
        True,
    )
    assert kernel.replay().ok


def _idle_for_three_hours(kernel, sim):
    """``agi run --follow`` with the default clock (a tick every 30 s) and nobody talking: 359 clock ticks."""
    tick(kernel, sim, "my name is Ada")
    loop = Follow(kernel, clock_every_ms=30_000, idle_sleep_s=30.0)
    assert len(list(loop.run(until=lambda: sim.ms >= START_MS + 3 * 3600_000))) == 359
    return tick(kernel, sim, "when did we last talk?", after_s=1)


def test_when_did_we_last_talk_looks_past_an_idle_follow_agents_clock_ticks(kernel, sim):
    """The answer read the newest 400 episodes, which an idle agent's clock ticks fill in 100 minutes
    (with maintenance, in about an hour): three hours later it said "This is the first time we talk."."""
    record = _idle_for_three_hours(kernel, sim)
    moment, offset = local(START_MS)
    gap = ago((record.externals[CLOCK_EXTERNAL][0] - START_MS) / 1000)
    assert record.final_output == (
        f"Before this conversation, we last talked {gap} ago ({day(moment)} {moment:%H:%M} {offset}), "
        "when you said “my name is Ada”."
    )
    assert record.externals["last_talk_scan"] == [4000]
    records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    assert replay_records(records, seed="time", plugins=builtin_plugins()).ok


def test_a_journal_from_before_the_wider_last_talk_scan_replays_equal(kernel, sim, monkeypatch):
    """Journals written when the answer read 400 episodes only (no ``last_talk_scan``) replay as written."""
    with monkeypatch.context() as patched:
        patched.setattr(time_answers, "_look_further", lambda ctx, limit: False)  # the rule before
        record = _idle_for_three_hours(kernel, sim)
    assert record.final_output == "This is the first time we talk."
    records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    report = replay_records(records, seed="time", plugins=builtin_plugins())
    assert (report.ok, report.mismatch) == (True, None)


def test_how_long_ago_did_i_tell_you_parses_only_the_records_that_wrote_the_fact(kernel, sim, monkeypatch):
    """The answer read the whole journal into one list and parsed it newest first down to the writing tick: on a
    months-long agent (100,000 ticks) 4.7 s and 227 MB for one question. Now only a record that may hold the
    write is parsed; every clock tick recalls the user's name, so most records hold its key."""
    tick(kernel, sim, "my name is Ada")
    loop = Follow(kernel, clock_every_ms=30_000, idle_sleep_s=30.0)
    list(loop.run(until=lambda: sim.ms >= START_MS + 4 * 3600_000))
    tick(kernel, sim, "my name is Bea", after_s=60)
    list(loop.run(until=lambda: sim.ms >= START_MS + 8 * 3600_000))
    assert kernel.tick_count > 950
    parsed, load_json = [], kernel.store.load_json
    monkeypatch.setattr(kernel.store, "load_json", lambda text: parsed.append(text) or load_json(text))
    said = tick(kernel, sim, "how long ago did I tell you my name?", after_s=1).final_output
    assert said.startswith("You told me 3 hours and 59 minutes ago (") and said.endswith("): “my name is Bea”.")
    assert len([text for text in parsed if '"sem_writes":' in text]) == 2  # the two ticks that wrote the name
    assert tick(kernel, sim, "forget my name").final_output
    said = tick(kernel, sim, "how long ago did I tell you my name?", after_s=1).final_output
    assert said == "You asked me to forget that, so I no longer know it."
