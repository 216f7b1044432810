"""Whole-agent checkpoints: rollback restores every store exactly; undone ticks are archived."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from agi_core import checkpoints
from agi_core.checkpoints import CheckpointError
from agi_core.cli.main import make_cli
from agi_core.hookspecs import hookimpl
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

STATE_TABLES = ("facts", "episodes", "working", "meta")


def _dump(kernel):
    conn = kernel.store.conn
    return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() for table in STATE_TABLES}


def test_rollback_restores_facts_episodes_working_memory_and_counter_exactly(tmp_path):
    restored_ticks = []

    class IndexPlugin:
        @hookimpl
        def agi_restore_checkpoint(self, kernel, tick):
            restored_ticks.append(tick)

    with open_kernel(tmp_path / "a.db", IndexPlugin(), seed="c") as kernel:
        for text in ["my favorite color is red", "the capital of Peru is Lima", "2+2"]:
            kernel.tick(text)
        checkpoints.create(kernel, "three")
        before, counter = _dump(kernel), kernel.determinism.counter
        for text in ["my favorite color is blue", "the capital of Chile is Santiago", "what is my favorite color?"]:
            kernel.tick(text)
        report = checkpoints.rollback(kernel, "three")
        assert _dump(kernel) == before
        assert (kernel.tick_count, kernel.determinism.counter, report.archived_ticks) == (3, counter, 3)
        assert kernel.tick("what is my favorite color?").final_output == "Your favorite color is red."
        assert restored_ticks == [3]
        archived = list(kernel.store.archived_rows())
        assert [row[1] for row in archived] == [4, 5, 6]
    assert replay(tmp_path / "a.db", seed="c", plugins=builtin_plugins()).ok


def test_checkpoint_names_are_checked(agi_kernel):
    checkpoints.create(agi_kernel, "a")
    with pytest.raises(CheckpointError, match="a checkpoint named 'a' exists; choose another name"):
        checkpoints.create(agi_kernel, "a")
    with pytest.raises(CheckpointError, match=r"checkpoint name '\.\./x' is invalid"):
        checkpoints.create(agi_kernel, "../x")
    with pytest.raises(CheckpointError, match="no checkpoint named 'zzz'; existing checkpoints: a"):
        checkpoints.rollback(agi_kernel, "zzz")


def test_retention_keeps_the_newest_hundred_and_they_still_replay(tmp_path):
    with open_kernel(tmp_path / "a.db", seed="c") as kernel:
        for i in range(checkpoints.CHECKPOINT_LIMIT + 3):
            kernel.tick(f"{i}+1")
            checkpoints.create(kernel, f"c{i}")
        kept = checkpoints.list_checkpoints(kernel.store)
    assert len(kept) == checkpoints.CHECKPOINT_LIMIT and kept[0].name == "c3"
    assert len(list((tmp_path / "a.db.checkpoints").iterdir())) == checkpoints.CHECKPOINT_LIMIT
    report = replay(tmp_path / "a.db", seed="c", plugins=builtin_plugins(), checkpoint="c3")
    assert report.ok and (report.first_tick, report.ticks) == (5, 99)


def test_cli_checkpoint_rollback_and_archived_export(tmp_path):
    cli, db = make_cli(), str(tmp_path / "a.db")

    def agi(*args, input=None):
        return CliRunner().invoke(cli, ["--db", db, "--seed", "c", *args], input=input)

    agi("run", input="my favorite color is red\n")
    assert agi("checkpoint", "create", "base").output == "checkpoint base at tick 1\n"
    agi("run", input="my favorite color is blue\n")
    assert agi("checkpoint", "list").output == "base\ttick 1\n"
    assert agi("rollback", "base").output.startswith("rolled back to base (tick 1); archived 1 ticks as rollback ")
    assert agi("run", input="what is my favorite color?\n").output == "Your favorite color is red.\n"
    exported = agi("journal", "export", "--archived").stdout.splitlines()
    assert '"final_output":"Got it: your favorite color is blue."' in exported[0]
