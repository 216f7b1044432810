"""How long each tick took: stored beside the journal (``tick_timings``), never in it.

Through a real kernel on SQLite: every tick, command tick and refused input gets a duration; the
journal records and replay are exactly what they were without timings; a rollback drops the
timings of the ticks it undoes; ``agi export`` / ``agi import`` carry them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agi_core import checkpoints
from agi_core.errors import ValidationError
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

SAID = ["my name is Ada", "what is my name?", "3 * 7", "the capital of Peru is Lima", "what is the capital of Peru?"]


def run(db: Path) -> tuple[list[str], dict[int, int]]:
    """The journal's record texts and the stored timings after the same ticks, commands and a refused input."""
    with open_kernel(db, seed="timed") as kernel:
        for text in SAID:
            kernel.tick(text)
        kernel.command("put_fact", {"key": "world/city/lima/country", "value": "peru"})
        kernel.tick("x" * (kernel.config.max_input_bytes + 1))  # refused: a tick that stores only the head
        records = [text for _tick, _id, text, _chain in kernel.store.journal_rows()]
        return records, kernel.store.tick_timings(1, 100)


def test_every_tick_stores_a_duration_and_the_journal_and_replay_do_not_change(tmp_path: Path) -> None:
    records, timings = run(tmp_path / "a.db")
    again, timings_again = run(tmp_path / "b.db")
    assert sorted(timings) == sorted(timings_again) == list(range(1, len(SAID) + 3))
    assert all(type(us) is int and us > 0 for us in [*timings.values(), *timings_again.values()])
    assert records == again  # the same records byte for byte, whatever each tick measured
    assert not any("duration" in text for text in records)
    report = replay(tmp_path / "a.db", seed="timed", plugins=builtin_plugins())
    assert report.ok and report.ticks == len(SAID) + 2
    with open_kernel(tmp_path / "a.db", seed="timed") as kernel:
        assert kernel.store.tick_timings(1, 100) == timings  # replay measured its own ticks in a scratch copy


def test_a_rollback_drops_the_timings_of_the_ticks_it_undoes(tmp_path: Path) -> None:
    with open_kernel(tmp_path / "a.db", seed="timed") as kernel:
        for text in SAID[:3]:
            kernel.tick(text)
        checkpoints.create(kernel, "three")
        kept = kernel.store.tick_timings(1, 100)
        for text in SAID[3:]:
            kernel.tick(text)
        assert sorted(kernel.store.tick_timings(1, 100)) == [1, 2, 3, 4, 5]
        checkpoints.rollback(kernel, "three")
        assert kernel.store.tick_timings(1, 100) == kept
        kernel.tick("2 + 2")
        after = kernel.store.tick_timings(1, 100)
    assert sorted(after) == [1, 2, 3, 4] and after[4] > 0
    assert {tick: us for tick, us in after.items() if tick <= 3} == kept


def test_timings_travel_with_agi_export_and_import(run_agi, tmp_path: Path) -> None:
    first, last = tmp_path / "first.db", tmp_path / "last.db"
    assert run_agi(first, "run", stdin="\n".join(SAID) + "\n").returncode == 0
    assert run_agi(first, "export", "-o", str(tmp_path / "a.jsonl")).returncode == 0
    assert run_agi(last, "import", str(tmp_path / "a.jsonl"), "--key-file", f"{first}.key").returncode == 0
    lines = (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()
    assert '{"table":"tick_timings","columns":["tick","duration_us"],"rows":5}' in lines

    def stored(db: Path) -> list[tuple[int, int]]:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT tick, duration_us FROM tick_timings ORDER BY tick").fetchall()

    assert stored(last) == stored(first) and [tick for tick, _us in stored(first)] == [1, 2, 3, 4, 5]
    assert run_agi(last, "replay").stdout == "replay equal: 5 ticks (1..5), 16 fields each\n"


def test_a_duration_that_is_not_a_whole_number_of_microseconds_is_one_line(tmp_path: Path) -> None:
    with open_kernel(tmp_path / "a.db", seed="timed") as kernel, kernel.store.tick_transaction():
        with pytest.raises(ValidationError) as caught:
            kernel.store.tick_timing_put(7, 1.5)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "the duration of tick 7 must be a whole number of microseconds, 0 or more, not 1.5; "
        "pass the elapsed time as an int"
    )
