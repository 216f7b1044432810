"""``agi journal archive``: old records move to an archive file; the live journal and the file both stay provable.

Real databases, real ``agi`` processes killed with SIGKILL at the archive's fault points."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from agi_core import journal
from agi_core.consistency import check_database
from agi_core.journal_key import JournalKey
from agi_core.memory import blobs
from agi_core.memory.sqlite_store import SqliteStore
from agi_core.replay import replay

ROOT = Path(__file__).resolve().parent.parent
SEED = "arch"


def agi(db: Path, *args: str, stdin: str = "", fault: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGI_LOAD_PLUGINS": "", "AGI_FAULT": fault}
    env.pop("AGI_JOURNAL_KEY", None)
    command = [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", SEED, *args]
    return subprocess.run(command, input=stdin, env=env, capture_output=True, text=True, timeout=120)


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def key_of(db: Path) -> JournalKey:
    return JournalKey(Path(f"{db}.key").read_text(encoding="ascii").strip().encode("ascii"), "test")


def journal_rows(db: Path) -> list[tuple[int, str, str, str]]:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT tick, id, record, chain FROM journal ORDER BY tick").fetchall()


def blob_hashes(db: Path) -> set[str]:
    with closing(sqlite3.connect(db)) as conn:
        return {row[0] for row in conn.execute("SELECT hash FROM blobs")}


def unresolved_refs(db: Path) -> dict[str, set[str]]:
    """Per table, the blob references its rows (any column) hold that the blobs table lacks: must be none."""
    missing: dict[str, set[str]] = {}
    held = blob_hashes(db)
    with closing(sqlite3.connect(db)) as conn:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            if table == "blobs" or table.startswith("ltm_fts"):
                continue
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                    lost = blobs.refs_in(text) - held
                    if lost:
                        missing.setdefault(table, set()).update(lost)
    return missing


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four ticks, checkpoint ``c2`` at tick 2 and ``c4`` at tick 4, then a fifth tick."""
    db = tmp_path_factory.mktemp("agent") / "a.db"
    ok(agi(db, "run", stdin="my name is Ada\nthe capital of Peru is Lima\n"))
    ok(agi(db, "checkpoint", "create", "c2"))
    ok(agi(db, "run", stdin="what is my name?\n12 + 30\n"))
    ok(agi(db, "checkpoint", "create", "c4"))
    ok(agi(db, "run", stdin="what is the capital of Peru?\n"))
    return db


def copy(agent: Path, folder: Path) -> Path:
    for item in agent.parent.iterdir():
        if item.name.startswith(agent.name):
            target = folder / item.name
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, target)
    return folder / agent.name


def test_archived_ticks_leave_a_live_journal_that_verifies_and_replays_and_an_archive_that_verifies(agent, tmp_path):
    db = copy(agent, tmp_path)
    before = journal_rows(db)
    assert ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "one.jsonl"))) == (
        f"archived 2 records (ticks 1..2) to {tmp_path / 'one.jsonl'}; the journal now starts after tick 2\n"
        "deleted 2 blobs (191 bytes) only the archived records referred to\n"
    )
    assert [row[0] for row in journal_rows(db)] == [3, 4, 5]
    assert ok(agi(db, "journal", "verify")).splitlines()[0] == (
        "journal OK: 3 records (ticks 3..5), chain intact from the archive point (tick 2)"
    )
    assert ok(agi(db, "replay")) == "replay equal: 3 ticks (3..5), 16 fields each\n"
    assert ok(agi(db, "journal", "verify", "--archive", str(tmp_path / "one.jsonl"))) == (
        f"archive {tmp_path / 'one.jsonl'}: journal OK: 2 records, chain intact\n"
    )
    assert (
        ok(agi(db, "replay", "--journal", str(tmp_path / "one.jsonl")))
        == "replay equal: 2 ticks (1..2), 16 fields each\n"
    )
    # the archive holds the records exactly as they were chained
    found = list(journal.read_jsonl(tmp_path / "one.jsonl"))
    assert [(t, i, c) for t, i, _text, c in found] == [(t, i, c) for t, i, _text, c in before[:2]]
    # a second archive continues where the first ended; new ticks chain on
    ok(agi(db, "journal", "archive", "--through", "c4", "--to", str(tmp_path / "two.jsonl")))
    assert ok(agi(db, "journal", "verify", "--archive", str(tmp_path / "two.jsonl"))).endswith(
        "journal OK: 2 records (ticks 3..4), chain intact from the archive point (tick 2)\n"
    )
    assert ok(agi(db, "replay", "--journal", str(tmp_path / "two.jsonl"), "--from", "c2")).startswith(
        "replay equal: 2 ticks (3..4)"
    )
    ok(agi(db, "run", stdin="my sister is Maya\n"))
    assert ok(agi(db, "replay")) == "replay equal: 2 ticks (5..6), 16 fields each\n"
    assert check_database(db, SEED).ok
    # an edited archive is named
    lines = (tmp_path / "two.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace("what is my name?", "what is my game?")
    (tmp_path / "two.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    edited = agi(db, "journal", "verify", "--archive", str(tmp_path / "two.jsonl"))
    assert edited.returncode == 1 and "JOURNAL_BROKEN tick=3: chain mismatch" in edited.stdout


def test_with_every_record_archived_the_next_tick_chains_on_from_the_archive_point(agent, tmp_path):
    db = copy(agent, tmp_path)
    ok(agi(db, "checkpoint", "create", "now"))
    ok(agi(db, "journal", "archive", "--through", "now", "--to", str(tmp_path / "all.jsonl")))
    assert journal_rows(db) == []
    assert ok(agi(db, "journal", "verify")).splitlines()[0] == (
        "journal OK: 0 records (none since), chain intact from the archive point (tick 5)"
    )
    ok(agi(db, "run", stdin="12 + 30\n"))
    assert ok(agi(db, "journal", "verify")).splitlines()[0].startswith("journal OK: 1 records (ticks 6..6)")
    assert replay(db).summary() == "replay equal: 1 ticks (6..6), 16 fields each"


def test_bad_archive_arguments_are_one_line_naming_the_fix(agent, tmp_path):
    db = copy(agent, tmp_path)
    (tmp_path / "taken.jsonl").write_text("", encoding="utf-8")
    cases = {
        ("--through", "c2", "--to", str(tmp_path / "taken.jsonl")): "exists; archive to a new file",
        (
            "--through",
            "nope",
            "--to",
            str(tmp_path / "x.jsonl"),
        ): "no checkpoint named 'nope'; existing checkpoints: c2, c4",
    }
    for args, said in cases.items():
        done = agi(db, "journal", "archive", *args)
        assert done.returncode == 1 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    ok(agi(db, "journal", "archive", "--through", "c4", "--to", str(tmp_path / "a.jsonl")))
    again = agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "b.jsonl"))
    assert "checkpoint 'c2' is at tick 2, at or before the archive point (tick 4): nothing to archive" in again.stderr
    older = agi(db, "replay", "--from", "c2")
    assert older.returncode == 1 and "before the journal's archive point (tick 4)" in older.stderr
    assert not (tmp_path / "b.jsonl").exists() and [row[0] for row in journal_rows(db)] == [5]


def test_rollback_to_a_checkpoint_older_than_the_archive_point_restores_its_own_journal(agent, tmp_path):
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c4", "--to", str(tmp_path / "a.jsonl")))
    ok(agi(db, "rollback", "c2"))
    assert [row[0] for row in journal_rows(db)] == [1, 2]  # the checkpoint's copy holds ticks 1..2
    assert ok(agi(db, "journal", "verify")).splitlines()[0] == "journal OK: 2 records, chain intact"
    assert ok(agi(db, "replay")) == "replay equal: 2 ticks (1..2), 16 fields each\n"
    assert ok(agi(db, "journal", "verify", "--archive", str(tmp_path / "a.jsonl"))).endswith("chain intact\n")


def test_the_archive_point_checkpoint_is_never_pruned(agent, tmp_path):
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    store = SqliteStore(db)
    try:
        assert store.checkpoint_prune(0) == ["c4"]
        assert [info.name for info in store.checkpoint_list()] == ["c2"]
    finally:
        store.close()
    assert ok(agi(db, "replay")).startswith("replay equal: 3 ticks (3..5)")


def test_the_archive_point_checkpoint_cannot_be_removed(agent, tmp_path):
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    refused = agi(db, "checkpoint", "remove", "c2")
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert "checkpoint 'c2' is the journal's archive point" in refused.stderr
    assert ok(agi(db, "checkpoint", "list")).splitlines()[0].startswith("c2")
    assert ok(agi(db, "replay")).startswith("replay equal: 3 ticks (3..5)")


@pytest.mark.parametrize("point", ["archive.header", "archive.written", "archive.deleted"])
def test_a_kill_during_archive_leaves_the_database_as_it_was_or_the_archive_complete(agent, tmp_path, point):
    db = copy(agent, tmp_path)
    before, stored = journal_rows(db), blob_hashes(db)
    target = tmp_path / "a.jsonl"
    killed = agi(db, "journal", "archive", "--through", "c4", "--to", str(target), fault=f"{point}:1")
    assert killed.returncode == -9, killed.stderr
    assert check_database(db, SEED).ok, check_database(db, SEED).problems  # opens, verifies, no torn tick
    assert unresolved_refs(db) == {}
    after = journal_rows(db)
    if after == before:  # unchanged: no archive point; the file, if any, is whole and holds ticks 1..4
        assert blob_hashes(db) == stored  # the blobs were deleted in the archive's transaction, or not at all
        assert "journal_base" not in dict(sqlite3.connect(db).execute("SELECT key, value FROM meta").fetchall())
        if target.exists():
            assert str(journal.verify_archive(target, key_of(db))) == "journal OK: 4 records, chain intact"
    else:  # completed: the live journal starts after tick 4 and the file holds exactly what left it
        assert after == before[4:]
        assert [row[0] for row in journal.read_jsonl(target)] == [1, 2, 3, 4]
    assert ok(agi(db, "replay")).startswith("replay equal")
    hidden = [p.name for p in tmp_path.iterdir() if p.name.startswith(".a.jsonl")]
    assert hidden == [] or point == "archive.header"  # a killed write's temporary file; the next write removes it
    ok(agi(db, "checkpoint", "create", "c5"))
    ok(agi(db, "journal", "archive", "--through", "c5", "--to", str(tmp_path / "again.jsonl")))
    assert ok(agi(db, "journal", "verify")).startswith("journal OK: 0 records (none since)")
    assert (
        json.loads((tmp_path / "again.jsonl").read_text(encoding="utf-8").splitlines()[0])[journal.ARCHIVE]["through"]
        == 5
    )


def test_an_archived_agent_moved_by_export_and_import_carries_its_archive_point_and_replays(agent, tmp_path):
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    exported = agi(db, "export", "-o", str(tmp_path / "agent.jsonl"))
    assert "checkpoint 'c2' is in the export (replay starts there)" in ok(exported) + exported.stderr
    moved = tmp_path / "moved.db"
    ok(agi(moved, "import", str(tmp_path / "agent.jsonl"), "--key-file", f"{db}.key"))
    assert ok(agi(moved, "checkpoint", "list")) == "c2\ttick 2\n"  # only the archive point's is carried
    assert ok(agi(moved, "journal", "verify")).splitlines() == [
        "journal OK: 3 records (ticks 3..5), chain intact from the archive point (tick 2)",
        "state OK: every row matches the seal at tick 5",
        "checkpoints OK: 1 verified (sha256, MAC, state digest)",
    ]
    assert ok(agi(moved, "replay")) == "replay equal: 3 ticks (3..5), 16 fields each\n"
    assert ok(agi(moved, "journal", "verify", "--archive", str(tmp_path / "a.jsonl"))).endswith("chain intact\n")
    ok(agi(moved, "run", stdin="my sister is Maya\n"))
    assert ok(agi(moved, "replay")) == "replay equal: 4 ticks (3..6), 16 fields each\n"
    ok(agi(moved, "rollback", "c2"))  # the carried checkpoint restores as one made there
    assert ok(agi(moved, "replay")) == "replay equal: 0 ticks (3..2), 11 fields each\n"
    assert check_database(moved, SEED).ok
    # moved again: the carried checkpoint travels on
    ok(agi(moved, "export", "-o", str(tmp_path / "again.jsonl")))
    ok(agi(tmp_path / "third.db", "import", str(tmp_path / "again.jsonl"), "--key-file", f"{db}.key"))
    assert ok(agi(tmp_path / "third.db", "checkpoint", "list")) == "c2\ttick 2\n"


def test_an_edited_row_of_the_carried_checkpoint_is_refused_and_nothing_is_imported(agent, tmp_path):
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    ok(agi(db, "export", "-o", str(tmp_path / "agent.jsonl")))
    lines = (tmp_path / "agent.jsonl").read_text(encoding="utf-8").splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith('{"checkpoint":"c2"'))
    edited = next(n for n in range(start, len(lines)) if "my name is Ada" in lines[n])
    lines[edited] = lines[edited].replace("my name is Ada", "my name is Eve", 1)
    (tmp_path / "agent.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused = agi(tmp_path / "moved.db", "import", str(tmp_path / "agent.jsonl"), "--key-file", f"{db}.key")
    assert refused.returncode == 1 and "the export was edited" in refused.stderr, refused.stderr
    assert not (tmp_path / "moved.db").exists() and not list((tmp_path / "moved.db.checkpoints").glob("*.db"))


def test_an_archived_agent_exported_by_an_older_agi_still_imports_verifies_and_says_why_it_cannot_replay(tmp_path):
    """tests/fixtures/archived_agent_export_v2.jsonl: this fixture's agent archived through c2, exported (format
    version 2, no checkpoint) by agi-core at b754074."""
    old = ROOT / "tests" / "fixtures" / "archived_agent_export_v2.jsonl"
    moved = tmp_path / "moved.db"
    ok(agi(moved, "import", str(old), "--key-file", f"{old}.key"))
    assert ok(agi(moved, "journal", "verify")).startswith("journal OK: 3 records (ticks 3..5), chain intact from")
    refused = agi(moved, "replay")
    assert refused.returncode == 1 and refused.stderr == (
        "Error: the journal starts after tick 2 (archived) and the checkpoint holding the state then, 'c2', is not "
        "here (an export written before agi export carried it, or an import into a backend without checkpoint "
        "transfer): replay on the agent that archived it, or export it again and import it into SQLite or "
        "PostgreSQL\n"
    )


def test_a_rollback_to_the_archive_point_or_later_keeps_the_archived_records_out_of_the_live_journal(agent, tmp_path):
    """c2 and c4 were made before the archive, so their copies still hold ticks 1..2: those are in the archive
    file, and the live journal keeps starting after the archive point (verify and replay from it)."""
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    ok(agi(db, "rollback", "c4"))
    assert [row[0] for row in journal_rows(db)] == [3, 4]
    assert ok(agi(db, "journal", "verify")).splitlines()[0] == (
        "journal OK: 2 records (ticks 3..4), chain intact from the archive point (tick 2)"
    )
    assert ok(agi(db, "replay")) == "replay equal: 2 ticks (3..4), 16 fields each\n"
    ok(agi(db, "rollback", "c2"))
    assert journal_rows(db) == []
    assert ok(agi(db, "journal", "verify")).splitlines()[:2] == [
        "journal OK: 0 records (none since), chain intact from the archive point (tick 2)",
        "state OK: every row matches the seal at tick 2",
    ]
    ok(agi(db, "run", stdin="my sister is Maya\n"))
    assert ok(agi(db, "replay")) == "replay equal: 1 ticks (3..3), 16 fields each\n"
    # nothing lost: ticks 1..2 in the archive file, the undone 5 (to c4) and 3..4 (to c2) in the rollbacks' archive
    assert [row[0] for row in journal.read_jsonl(tmp_path / "a.jsonl")] == [1, 2]
    undone = sorted(row[1] for row in sqlite3.connect(db).execute("SELECT rollback, tick FROM journal_archive"))
    assert undone == [3, 4, 5]
    assert check_database(db, SEED).ok


def test_archive_with_vacuum_gives_the_archived_records_pages_back_and_the_agent_still_verifies_and_replays(
    agent, tmp_path
):
    db = copy(agent, tmp_path)
    (tmp_path / "plain").mkdir()
    kept = copy(agent, tmp_path / "plain")
    before = db.stat().st_size
    said = ok(agi(db, "journal", "archive", "--through", "c4", "--to", str(tmp_path / "a.jsonl"), "--vacuum"))
    after = db.stat().st_size
    assert said.splitlines()[-1] == f"vacuumed: the database went from {before:,} bytes before the archive to {after:,}"
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    ok(agi(kept, "journal", "archive", "--through", "c4", "--to", str(tmp_path / "b.jsonl")))  # without: no smaller
    assert db.stat().st_size < before <= kept.stat().st_size
    assert ok(agi(db, "journal", "verify")).splitlines()[0].startswith("journal OK: 1 records (ticks 5..5)")
    assert ok(agi(db, "replay")) == "replay equal: 1 ticks (5..5), 16 fields each\n"
    assert check_database(db, SEED).ok


def test_a_rollback_to_a_checkpoint_of_another_history_keeps_its_own_journal(agent, tmp_path):
    """c4 (ticks 1..4 as first said) is rolled back to after the archive point moved to another history's tick
    4: its record there has another chain link, so it keeps its own journal, whole from tick 1."""
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c4", "--to", str(tmp_path / "a.jsonl")))
    ok(agi(db, "rollback", "c2"))  # older than the point: its own journal, ticks 1..2
    ok(agi(db, "run", stdin="my sister is Maya\n7 * 6\n"))  # another tick 3 and 4
    ok(agi(db, "checkpoint", "create", "other4"))
    ok(agi(db, "journal", "archive", "--through", "other4", "--to", str(tmp_path / "b.jsonl")))
    ok(agi(db, "rollback", "c4"))
    assert [row[0] for row in journal_rows(db)] == [1, 2, 3, 4]
    assert ok(agi(db, "journal", "verify")).splitlines()[0] == "journal OK: 4 records, chain intact"
    assert ok(agi(db, "replay")) == "replay equal: 4 ticks (1..4), 16 fields each\n"


@pytest.mark.parametrize("point", ["import.rows", "import.built"])
def test_a_kill_while_importing_a_carried_checkpoint_leaves_no_agent_and_the_next_import_is_whole(
    agent, tmp_path, point
):
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    ok(agi(db, "export", "-o", str(tmp_path / "agent.jsonl")))
    moved = tmp_path / "moved.db"
    killed = agi(moved, "import", str(tmp_path / "agent.jsonl"), "--key-file", f"{db}.key", fault=f"{point}:1")
    assert killed.returncode == -9, killed.stderr
    assert not moved.exists() and not Path(f"{moved}.key").exists()
    ok(agi(moved, "import", str(tmp_path / "agent.jsonl"), "--key-file", f"{db}.key"))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".moved", "moved"))) == [
        "moved.db",
        "moved.db.checkpoints",
        "moved.db.key",
    ]  # the killed import's temporary database and checkpoint folder are gone
    assert [p.name for p in (tmp_path / "moved.db.checkpoints").iterdir()] == ["000001-c2.db"]
    assert ok(agi(moved, "replay")) == "replay equal: 3 ticks (3..5), 16 fields each\n"
    verified = ok(agi(moved, "journal", "verify")).splitlines()
    assert verified[2] == "checkpoints OK: 1 verified (sha256, MAC, state digest)"


def test_an_archived_agent_imported_unverified_without_its_key_verifies_and_replays_and_says_what_is_unproven(
    agent, tmp_path
):
    """Without the exported key nothing is proven, the archive point's MAC included: the import checks what needs
    no key (the carried checkpoint is the point's and ends with its link; the live journal follows on), MACs the
    point with the new key as it does the head, and says what stays unproven; verify and replay then work."""
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    ok(agi(db, "export", "-o", str(tmp_path / "agent.jsonl")))
    moved = tmp_path / "moved.db"
    imported = agi(moved, "import", str(tmp_path / "agent.jsonl"), "--unverified")
    ok(imported)
    assert (
        "agi: imported without the exported key: the journal's archive point (tick 2, checkpoint 'c2'), the chain "
        "links through tick 5 and the rows are not proven" in imported.stderr
    ), imported.stderr
    assert "checked without it: the carried checkpoint 'c2' holds tick 2" in imported.stderr
    said = ok(agi(moved, "journal", "verify")).splitlines()
    assert said[0] == (
        "journal OK: 3 records (ticks 3..5), no link checked; ticks 3..5 and the archive point (tick 2) were "
        "imported without their key (agi import --unverified) and cannot be checked"
    )
    assert said[1].startswith("IMPORTED_UNVERIFIED at tick 5")
    assert ok(agi(moved, "replay")) == "replay equal: 3 ticks (3..5), 16 fields each\n"
    ok(agi(moved, "run", stdin="my sister is Maya\n"))
    assert (
        ok(agi(moved, "journal", "verify"))
        .splitlines()[0]
        .startswith("journal OK: 4 records (ticks 3..6), chain intact after tick 5; ticks 3..5 and the archive point")
    )
    assert ok(agi(moved, "replay")) == "replay equal: 4 ticks (3..6), 16 fields each\n"
    ok(agi(moved, "rollback", "c2"))  # the carried checkpoint's state is marked unproven too
    assert ok(agi(moved, "journal", "verify")).splitlines()[1].startswith("IMPORTED_UNVERIFIED at tick 2")
    archive = agi(moved, "journal", "verify", "--archive", str(tmp_path / "a.jsonl"))
    assert archive.returncode == 1 and "imported with --unverified without its exported key" in archive.stderr


@pytest.mark.parametrize("edit", ["point_link", "point_checkpoint"])
def test_an_unverified_import_refuses_an_archive_point_that_does_not_hold_together(agent, tmp_path, edit):
    db = copy(agent, tmp_path)
    ok(agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl")))
    ok(agi(db, "export", "-o", str(tmp_path / "agent.jsonl")))
    lines = (tmp_path / "agent.jsonl").read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith('["journal_base",'))
    row = json.loads(lines[at])
    tick, chain, checkpoint, mac = row[1].split(" ")
    row[1] = " ".join([tick, "0" * 64, checkpoint, mac] if edit == "point_link" else [tick, chain, "c4", mac])
    lines[at] = json.dumps(row)
    (tmp_path / "agent.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused = agi(tmp_path / "moved.db", "import", str(tmp_path / "agent.jsonl"), "--unverified")
    expected = {
        "point_link": "the checkpoint 'c2' the export carries does not end at its journal's archive point",
        "point_checkpoint": "the export carries checkpoint 'c2' of tick 2 but its journal's archive point is "
        "checkpoint 'c4' of tick 2",
    }[edit]
    assert refused.returncode == 1 and expected in refused.stderr, refused.stderr
    assert not (tmp_path / "moved.db").exists() and not list((tmp_path / "moved.db.checkpoints").glob("*.db"))


def test_archive_deletes_the_blobs_only_the_archived_records_referred_to_and_a_rollback_brings_back_its_own(
    agent, tmp_path
):
    """Each tick's working memory is a blob its record alone refers to: archived, nothing refers to it any more,
    and the archive deletes it in its transaction. A blob any other row refers to stays (here: an undone tick's
    record in the rollbacks' archive, the later records, the episodes); a rollback to a checkpoint whose rows
    refer to deleted blobs takes them back from the checkpoint's copy."""
    db = copy(agent, tmp_path)
    ok(agi(db, "rollback", "c4"))  # tick 5 undone: its record (and its blobs' only references) in journal_archive
    ok(agi(db, "run", stdin="my brother is Tom\n"))
    stored = blob_hashes(db)
    said = ok(agi(db, "journal", "archive", "--through", "c4", "--to", str(tmp_path / "a.jsonl")))
    left = blob_hashes(db)
    assert left < stored, said
    assert said.splitlines()[1].startswith(f"deleted {len(stored - left)} blobs (")
    assert unresolved_refs(db) == {}  # every reference of every table still resolves
    assert ok(agi(db, "journal", "verify")).splitlines()[0].startswith("journal OK: 1 records (ticks 5..5)")
    assert ok(agi(db, "replay")) == "replay equal: 1 ticks (5..5), 16 fields each\n"
    ok(agi(db, "journal", "export", "--archived", "-o", str(tmp_path / "undone.jsonl")))  # the undone tick's blobs
    assert str(journal.verify_archive(tmp_path / "a.jsonl", key_of(db))) == "journal OK: 4 records, chain intact"
    ok(agi(db, "rollback", "c2"))  # older than the point: its own journal from tick 1, whose blobs were deleted
    assert unresolved_refs(db) == {}
    assert ok(agi(db, "journal", "verify")).splitlines()[0] == "journal OK: 2 records, chain intact"
    assert ok(agi(db, "replay")) == "replay equal: 2 ticks (1..2), 16 fields each\n"
    assert check_database(db, SEED).ok
