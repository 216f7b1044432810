"""Replay reads the journal a batch at a time, each batch in a short read snapshot: a live writer's WAL is
checkpointed during a long replay, and a rollback racing the read is refused or harmless, never mixed in."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from agi_core import journal
from agi_core.archive import archive
from agi_core.cli.transfer import write_atomically
from agi_core.errors import ValidationError
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

TICKS = 600


def test_a_live_writers_wal_is_checkpointed_while_a_long_replay_runs(tmp_path):
    """The replay held one read transaction from its verification to its last tick: every frame the writer
    added since stayed in the WAL (a PASSIVE checkpoint copied none of them) until the replay ended."""
    db = tmp_path / "a.db"
    with open_kernel(db, seed="wal") as writer:
        for i in range(TICKS):
            writer.tick(f"note {i}: the replay reads this")
        done: dict[str, object] = {}
        replaying = threading.Thread(target=lambda: done.setdefault("report", replay(db, seed="wal")))
        checkpoints = sqlite3.connect(db)  # the writer's side: what `PRAGMA wal_checkpoint` can copy now
        full = 0
        try:
            replaying.start()
            while replaying.is_alive():
                writer.tick("live: still here")
                busy, frames, copied = checkpoints.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                full += busy == 0 and frames > 0 and copied == frames and replaying.is_alive()
        finally:
            replaying.join()
            checkpoints.close()
    report = done["report"]
    assert report.ok and report.ticks >= TICKS, report.summary()  # type: ignore[attr-defined]  # and what it verified
    assert full >= 3, f"{full} full checkpoints during the replay"


def _agent(tmp_path, ticks: int):
    kernel = open_kernel(tmp_path / "a.db", seed="race")
    for i in range(ticks):
        kernel.tick(f"line {i}")
        if i + 1 in (10, 25):
            kernel.checkpoint(f"at{i + 1}")
    return kernel


def _rows(kernel, batch: int):
    key, store = kernel.journal_key, kernel.store
    verified = journal.verify(store, key)
    assert verified.ok
    return journal.rows_in_batches(store, key, verified, "", batch=batch)  # no archive point: the chain starts at ""


def test_a_rollback_of_ticks_already_read_is_refused(tmp_path):
    """Ticks 11-20 were read (and replayed) before another process rolled back to tick 10 and wrote other
    ticks: the next batch finds tick 20 changed, and the read stops with one line saying why."""
    with _agent(tmp_path, 30) as kernel:
        rows = _rows(kernel, batch=10)
        assert [next(rows)[0] for _ in range(20)] == list(range(1, 21))
        kernel.rollback("at10")
        for i in range(15):
            kernel.tick(f"another line {i}")
        with pytest.raises(ValidationError, match="the journal changed while it was read, after tick 20"):
            next(rows)


def test_a_rollback_of_ticks_not_yet_read_is_harmless(tmp_path):
    """Rolled back to tick 25 after tick 20 was read: ticks 21-25 are those read before, 26-30 those written
    since, whose chain follows on from them; what was read is the journal as it is now."""
    with _agent(tmp_path, 30) as kernel:
        rows = _rows(kernel, batch=10)
        read = [next(rows) for _ in range(20)]
        kernel.rollback("at25")
        for i in range(5):
            kernel.tick(f"another line {i}")
        read += list(rows)
        assert read == list(kernel.store.journal_rows())
        assert [row[2] for row in read[25:]] != [] and "another line 0" in read[25][2]


def test_an_archive_racing_the_read_is_refused(tmp_path):
    """``agi journal archive`` moved ticks 1-25 to a file after ticks 1-10 were read: tick 10 is gone."""
    with _agent(tmp_path, 30) as kernel:
        rows = _rows(kernel, batch=10)
        assert [next(rows)[0] for _ in range(10)] == list(range(1, 11))
        archive(kernel, "at25", tmp_path / "archive.jsonl", write_atomically)
        with pytest.raises(ValidationError, match=r"after tick 10 \(the record of that tick is not the one read"):
            next(rows)


def test_a_replay_reads_the_whole_journal_in_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "READ_BATCH", 7)
    with _agent(tmp_path, 30):
        pass
    report = replay(tmp_path / "a.db", seed="race", plugins=builtin_plugins())
    assert (report.ok, report.ticks) == (True, 30)


def test_records_longer_than_a_batchs_characters_are_read_one_a_batch(tmp_path, monkeypatch):
    """Each batch reads the row the last one ended with again; a record of READ_BYTES characters or more filled
    the batch alone, which then held no new row and was taken for a journal cut short ("the journal now ends
    there"): a module's 100k-float state did it. Every record is that long here."""
    monkeypatch.setattr(journal, "READ_BYTES", 10)
    with _agent(tmp_path, 12):
        pass
    report = replay(tmp_path / "a.db", seed="race", plugins=builtin_plugins())
    assert (report.ok, report.ticks) == (True, 12)
