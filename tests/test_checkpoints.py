"""Whole-agent checkpoints: rollback restores every store exactly; undone ticks are archived."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from agi_core import checkpoints
from agi_core.checkpoints import CheckpointError
from agi_core.cli.main import make_cli
from agi_core.errors import StorageError
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


def _files(db):
    return sorted(path.name for path in (db.parent / (db.name + ".checkpoints")).iterdir())


def test_cli_checkpoint_remove_deletes_one_checkpoint_and_its_copy_and_refuses_an_unknown_name(tmp_path):
    cli, db = make_cli(), tmp_path / "a.db"

    def agi(*args, input=None):
        return CliRunner().invoke(cli, ["--db", str(db), "--seed", "c", *args], input=input)

    for name, text in [("a", "my favorite color is red"), ("b", "my favorite color is blue"), ("c", "2+2")]:
        agi("run", input=text + "\n")
        agi("checkpoint", "create", name)
    assert _files(db) == ["000001-a.db", "000002-b.db", "000003-c.db"]
    assert agi("checkpoint", "remove", "b").output == "removed checkpoint b (tick 2)\n"
    assert agi("checkpoint", "list").output == "a\ttick 1\nc\ttick 3\n"
    assert _files(db) == ["000001-a.db", "000003-c.db"]
    unknown = agi("checkpoint", "remove", "b")
    assert (unknown.exit_code, unknown.output) == (1, "Error: no checkpoint named 'b'; existing checkpoints: a, c\n")
    verify = agi("journal", "verify")
    assert verify.exit_code == 0, verify.output
    assert agi("rollback", "a").exit_code == 0
    assert agi("run", input="what is my favorite color?\n").output.strip() == "Your favorite color is red."
    assert agi("rollback", "c").exit_code == 0
    assert replay(db, seed="c", plugins=builtin_plugins(), checkpoint="a").ok


def test_cli_checkpoint_keep_and_prune_remove_the_oldest(tmp_path):
    cli, db = make_cli(), tmp_path / "a.db"

    def agi(*args, input=None):
        return CliRunner().invoke(cli, ["--db", str(db), "--seed", "c", *args], input=input)

    for name in ["d1", "d2", "d3"]:
        agi("run", input="2+2\n")
        assert agi("checkpoint", "create", name, "--keep", "2").exit_code == 0
    assert agi("checkpoint", "list").output == "d2\ttick 2\nd3\ttick 3\n"
    assert agi("checkpoint", "create", "d4", "--keep", "2").output == "checkpoint d4 at tick 3\nremoved checkpoint d2\n"
    assert agi("checkpoint", "prune", "--keep", "1").output == "removed checkpoint d3\n"
    assert agi("checkpoint", "prune", "--keep", "1").output == "no checkpoint removed\n"
    assert _files(db) == ["000004-d4.db"]
    bad = agi("checkpoint", "create", "d5", "--keep", "0")
    assert bad.output == "Error: --keep 0 is out of range; keep 1 to 100 checkpoints\n"
    assert agi("checkpoint", "list").output == "d4\ttick 3\n"


def test_a_rollback_to_a_checkpoint_another_process_removes_meanwhile_is_refused_and_the_agent_unchanged(
    tmp_path, monkeypatch
):
    """Two connections on one database, as two processes have: the removal lands between the
    rollback's check of the file and its transaction (the window is forced, the parts are real)."""
    from agi_core.memory.sqlite import checkpoints as sqlite_checkpoints

    with open_kernel(tmp_path / "a.db", seed="c") as kernel, open_kernel(tmp_path / "a.db", seed="c") as other:
        kernel.tick("my favorite color is red")
        checkpoints.create(kernel, "one")
        kernel.tick("my favorite color is blue")
        before = _dump(kernel)
        checked = sqlite_checkpoints.check_file

        def check_then_removed(store, key, name):
            path = checked(store, key, name)
            checkpoints.remove(other.store, name)
            return path

        monkeypatch.setattr(sqlite_checkpoints, "check_file", check_then_removed)
        with pytest.raises((CheckpointError, StorageError), match="'one'"):
            checkpoints.rollback(kernel, "one")
        assert _dump(kernel) == before
        assert kernel.tick("what is my favorite color?").final_output == "Your favorite color is blue."
    assert replay(tmp_path / "a.db", seed="c", plugins=builtin_plugins()).ok


def test_a_checkpoint_made_under_a_removed_name_before_the_removal_unlinks_keeps_its_file(tmp_path, monkeypatch):
    """The removal's unlink comes after its commit; another process may create the name in between."""
    from agi_core.memory.sqlite import checkpoints as sqlite_checkpoints

    with open_kernel(tmp_path / "a.db", seed="c") as kernel, open_kernel(tmp_path / "a.db", seed="c") as other:
        kernel.tick("my favorite color is red")
        checkpoints.create(kernel, "daily")
        other.tick("my favorite color is blue")
        discard = sqlite_checkpoints._discard

        def created_meanwhile(folder, file):
            checkpoints.create(other, "daily")
            discard(folder, file)

        monkeypatch.setattr(sqlite_checkpoints, "_discard", created_meanwhile)
        checkpoints.remove(kernel.store, "daily")
        monkeypatch.undo()
        assert kernel.store.checkpoint_problems("daily", kernel.journal_key) == []
        kernel.tick("my favorite color is green")
        assert checkpoints.rollback(kernel, "daily").tick == 2
        assert kernel.tick("what is my favorite color?").final_output == "Your favorite color is blue."
