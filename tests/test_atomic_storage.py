"""Checkpoints, rollback and database creation are atomic: SIGKILL at every step, and a full disk."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from agi_core import checkpoints
from agi_core.consistency import check_database
from agi_core.memory.migrations import MIGRATIONS
from agi_core.testing import open_kernel

SEED = "atomic"
SCRIPT = "my favorite color is red\nthe capital of Peru is Lima\n2+2\n"


def agi(db, *args, input=None, fault=None, preexec=None):
    """The real ``agi`` command in a subprocess; ``fault`` names the point where it SIGKILLs itself."""
    env = {**os.environ, **({"AGI_FAULT": fault} if fault else {})}
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", SEED, *args],
        input=input,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=preexec,
    )


def state_of(db: Path) -> dict[str, list]:
    with closing(sqlite3.connect(db)) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            for table in ("facts", "episodes", "working", "journal", "journal_archive", "checkpoints")
        }


def assert_consistent(db: Path) -> None:
    assert check_database(db, SEED).problems == []


@pytest.mark.parametrize(
    "fault", ["migration:1", *(f"migration.done:{n}" for n in range(1, len(MIGRATIONS) + 1)), "seal:1"]
)
def test_a_kill_during_creation_leaves_a_database_that_opens(tmp_path, fault):
    db = tmp_path / "a.db"
    killed = agi(db, "run", input=SCRIPT, fault=fault)
    assert killed.returncode == -signal.SIGKILL
    again = agi(db, "run", input=SCRIPT)
    assert again.stdout.splitlines()[-1] == "2+2 = 4", again.stderr
    assert_consistent(db)


@pytest.mark.parametrize("fault", ["seal:1", "checkpoint.copied:1", "checkpoint.renamed:1"])
def test_a_kill_during_checkpoint_create_leaves_no_broken_checkpoint(tmp_path, fault):
    db = tmp_path / "a.db"
    agi(db, "run", input=SCRIPT)
    before = state_of(db)
    assert agi(db, "checkpoint", "create", "one", fault=fault).returncode == -signal.SIGKILL
    assert state_of(db) == before  # no row: the checkpoint never became visible
    assert_consistent(db)
    assert agi(db, "checkpoint", "create", "one").stdout == "checkpoint one at tick 3\n"
    folder = tmp_path / "a.db.checkpoints"
    number = "000002" if fault == "checkpoint.renamed:1" else "000001"  # an orphan's number is not reused
    assert sorted(p.name for p in folder.iterdir()) == [f"{number}-one.db"]  # stale copies are gone
    agi(db, "run", input="my favorite color is blue\n")
    assert agi(db, "rollback", "one").returncode == 0
    assert agi(db, "run", input="what is my favorite color?\n").stdout == "Your favorite color is red.\n"
    assert_consistent(db)


@pytest.mark.parametrize("fault", ["rollback.attached:1", "rollback.copied:1"])
def test_a_kill_during_rollback_changes_nothing(tmp_path, fault):
    db = tmp_path / "a.db"
    agi(db, "run", input=SCRIPT)
    agi(db, "checkpoint", "create", "one")
    agi(db, "run", input="my favorite color is blue\nthe capital of Chile is Santiago\n")
    before = state_of(db)
    assert agi(db, "rollback", "one", fault=fault).returncode == -signal.SIGKILL
    assert state_of(db) == before
    assert_consistent(db)
    done = agi(db, "rollback", "one")
    assert done.stdout.startswith("rolled back to one (tick 3); archived 2 ticks as rollback ")
    after = state_of(db)
    assert [row[1] for row in after["journal_archive"]] == [4, 5]
    assert after["checkpoints"] == before["checkpoints"]
    assert_consistent(db)


def test_stale_temporaries_and_orphaned_copies_are_removed(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, seed=SEED) as kernel:
        kernel.tick("2+2")
        folder = checkpoints.folder_of(kernel.store)
        folder.mkdir()
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        (folder / f".tmp-{dead.stdout.strip()}-x.db").write_bytes(b"partial")
        (folder / f".tmp-{os.getpid()}-y.db").write_bytes(b"in flight")  # a live process's copy stays
        (folder / "000007-ghost.db").write_bytes(b"renamed, row never committed")
        checkpoints.create(kernel, "one")
    assert sorted(p.name for p in folder.iterdir()) == [f".tmp-{os.getpid()}-y.db", "000008-one.db"]


def test_a_checkpoint_row_records_the_sha256_of_a_complete_verified_file(tmp_path):
    with open_kernel(tmp_path / "a.db", seed=SEED) as kernel:
        kernel.tick("my favorite color is red")
        info = checkpoints.create(kernel, "one")
        sha = kernel.conn.execute("SELECT sha256 FROM checkpoints").fetchone()[0]
    path = tmp_path / "a.db.checkpoints" / info.file
    assert sha == checkpoints.file_sha256(path)
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _downgrade(path: Path) -> None:
    """Lay ``path`` out as before this change: old migration records, no seal or head, seed-keyed chain."""
    from agi_core.journal_key import JournalKey

    with closing(sqlite3.connect(path)) as conn:
        conn.execute(
            "DELETE FROM _agi_migrations WHERE name IN "
            "('m006_checkpoint_checksums', 'm007_state_seal', 'm008_one_migration_record')"
        )
        conn.execute("DROP TABLE _agi_seal_rows")
        conn.execute("DROP INDEX facts_tick")
        conn.execute("ALTER TABLE checkpoints DROP COLUMN sha256")
        conn.execute("ALTER TABLE checkpoints DROP COLUMN seal")
        conn.execute("CREATE TABLE rlm_migrations (name TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM meta WHERE key IN ('journal_key_check', 'journal_head', 'state_seal')")
        previous, seed_key = "", JournalKey(SEED.encode(), "seed")
        for tick, text in conn.execute("SELECT tick, record FROM journal ORDER BY tick").fetchall():
            previous = seed_key.mac(previous + "|" + text)
            conn.execute("UPDATE journal SET chain = ? WHERE tick = ?", (previous, tick))
        conn.commit()


def test_an_existing_database_from_before_keeps_opening(tmp_path):
    db = tmp_path / "old.db"
    with open_kernel(db, seed=SEED) as kernel:
        for line in SCRIPT.splitlines():
            kernel.tick(line)
        info = checkpoints.create(kernel, "old")
    (tmp_path / "old.db.key").unlink()
    _downgrade(db)
    _downgrade(tmp_path / "old.db.checkpoints" / info.file)
    assert_consistent(db)
    with open_kernel(db, seed=SEED) as kernel:
        steps = [r[0] for r in kernel.conn.execute("SELECT name FROM _agi_migrations ORDER BY name")]
        assert steps == [step.__name__ for step in MIGRATIONS]
        assert "rlm_migrations" not in {r[0] for r in kernel.conn.execute("SELECT name FROM sqlite_master")}
        kernel.tick("my favorite color is blue")
        checkpoints.rollback(kernel, "old")
        assert kernel.get_fact("user/person/self/favorite_color").value == "red"
        kernel.tick("2+3")
    assert_consistent(db)


# -- a full disk ------------------------------------------------------------------------------
def _tmpfs(folder: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    folder.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)]).returncode == 0


def _fill(folder: Path, leave: int) -> Path:
    """Fill the file system holding ``folder`` until only ``leave`` bytes are free."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 65536):
            pass
    except OSError:
        pass  # ENOSPC: the file system is full
    finally:
        os.close(fd)
    with filler.open("r+b") as handle:
        handle.truncate(max(filler.stat().st_size - leave, 0))
    return filler


@pytest.fixture(params=["tmpfs", "rlimit"])
def full_disk(request, tmp_path):
    """``(folder, limit)``: a real full file system (a 16 MiB tmpfs, filled up by ``limit``; needs root),
    or RLIMIT_FSIZE set in the child process (any write past the limit fails with EFBIG)."""
    folder = tmp_path / "small"
    if request.param == "tmpfs":
        if not _tmpfs(folder, "16m"):
            pytest.skip("mounting a tmpfs needs root (mount -t tmpfs); the rlimit variant still runs")
        yield folder, lambda db: (_fill(folder, 48 * 1024), None)[1]
        subprocess.run(["umount", str(folder)], check=True)
        return
    folder.mkdir()

    def rlimit(db: Path):
        size = db.stat().st_size // 4  # the copy and the rollback each write more than this

        def limit() -> None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

        return limit

    yield folder, rlimit


def test_a_full_disk_fails_checkpoint_and_rollback_in_one_line_and_loses_nothing(full_disk):
    folder, limit = full_disk
    db = folder / "a.db"
    lines = "".join(f"the capital of country{i} is City{i}\n" for i in range(150))
    assert agi(db, "run", input=lines).returncode == 0
    assert agi(db, "checkpoint", "create", "base").returncode == 0
    agi(db, "run", input="my favorite color is red\n")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = state_of(db)
    preexec = limit(db)
    created = agi(db, "checkpoint", "create", "full", preexec=preexec)
    assert created.returncode == 1 and created.stdout == ""
    assert created.stderr.startswith("Error: checkpoint 'full' was not created (")
    assert created.stderr.endswith("); the agent is unchanged — free disk space and retry\n")
    assert len(created.stderr.splitlines()) == 1
    rolled = agi(db, "rollback", "base", preexec=preexec)
    assert rolled.returncode == 1 and len(rolled.stderr.splitlines()) == 1
    assert rolled.stderr.startswith("Error: rollback to 'base' failed (")
    assert rolled.stderr.endswith("); the agent is unchanged\n")
    (folder / "filler").unlink(missing_ok=True)
    assert state_of(db) == before
    assert [p.name for p in (folder / "a.db.checkpoints").iterdir()] == ["000001-base.db"]
    assert_consistent(db)
    assert agi(db, "rollback", "base").returncode == 0
    assert_consistent(db)
