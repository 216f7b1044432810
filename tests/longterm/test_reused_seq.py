"""The faiss index never maps a vector to the wrong row when item ``seq`` numbers are reused.

SQLite's AUTOINCREMENT counter (``sqlite_sequence``) is transactional: a rolled-back
transaction, or ``agi rollback`` (which copies the checkpoint's ``sqlite_sequence``), hands
the same ``seq`` to the next, different, memory. An index that caught up with the undone
rows must then drop them, and index the new rows, before it answers.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from agi_core import checkpoints
from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.longterm import IndexPolicy, LongTermMemory
from agi_core.testing import open_kernel

KEPT = [
    "I adopted a grey greyhound puppy called Pixel last week.",
    "My sister moved to Lisbon to study marine biology.",
    "I'm learning to play the cello, lessons are on Tuesdays.",
]
UNDONE = ["I bought a red racing bicycle yesterday.", "The plumber fixed the leaking kitchen tap."]
REPLACING = ["My cat Tofu sleeps on the windowsill.", "We booked a ski trip to the Alps in February."]


def _assert_index_matches_rows(ltm: LongTermMemory) -> None:
    """Every live index entry holds the vector SQLite stores for that seq, and every row is indexed."""
    seqs = [s for (s,) in ltm.rows.conn.execute("SELECT seq FROM ltm_items ORDER BY seq")]  # type: ignore[attr-defined]
    found, stored = ltm.index().stored(np.array(seqs, dtype=np.int64))
    assert found.all(), f"rows {[s for s, f in zip(seqs, found, strict=True) if not f]} are not indexed"
    blobs = ltm.rows.vectors_for(ltm.embedder.name, seqs)
    for i, seq in enumerate(seqs):
        assert np.allclose(stored[i], np.frombuffer(blobs[seq], dtype="<f4")), f"seq {seq}: stale vector in the index"


def _check_new_rows_found(ltm: LongTermMemory) -> None:
    for text in REPLACING:
        assert ltm.search(text, k=1, mode="dense")[0].item.text == text
    for text in UNDONE:  # the undone memories' vectors must not answer for the rows now at their seqs
        assert all(hit.item.text not in REPLACING or hit.breakdown.dense < 0.5 for hit in ltm.search(text, k=5))
    _assert_index_matches_rows(ltm)


def _run_undone_transaction(ltm: LongTermMemory, conn: sqlite3.Connection, tick: int) -> None:
    for i, text in enumerate(UNDONE):
        ltm.add(text, tick=tick + i)
    assert ltm.search(UNDONE[0], k=1, mode="dense")[0].item.text == UNDONE[0]  # indexed inside the transaction
    conn.rollback()


def test_rolled_back_transaction_reuses_seqs_and_the_index_follows(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    for i, text in enumerate(KEPT):
        ltm.add(text, tick=i + 1)
    ltm.catch_up()
    conn.commit()
    _run_undone_transaction(ltm, conn, tick=4)
    for i, text in enumerate(REPLACING):
        ltm.add(text, tick=4 + i)
    seqs = sorted(s for (s,) in conn.execute("SELECT seq FROM ltm_items"))
    assert seqs == [1, 2, 3, 4, 5]  # the undone rows' seqs went to the new rows
    _check_new_rows_found(ltm)
    assert ltm.builds == 1  # repaired in place, not rebuilt
    conn.commit()
    ltm.close()
    reopened = LongTermMemory(conn, tmp_path / "index", MiniLMEmbedder())
    _check_new_rows_found(reopened)
    assert reopened.builds == 0


def test_hnsw_index_follows_reused_seqs(conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder, policy=IndexPolicy(flat_max=2, max_tombstones=0.9))
    for i, text in enumerate(KEPT):
        ltm.add(text, tick=i + 1)
    ltm.catch_up()
    conn.commit()
    assert ltm.index().meta.kind == "hnsw"
    _run_undone_transaction(ltm, conn, tick=4)
    for i, text in enumerate(REPLACING):
        ltm.add(text, tick=4 + i)
    _check_new_rows_found(ltm)


def test_index_saved_with_undone_rows_is_repaired_on_open(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """A process saved the index while the transaction was open, then the transaction was undone;
    the next process's rows reuse the seqs, and their vectors are stored before it opens the index."""
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    for i, text in enumerate(KEPT):
        ltm.add(text, tick=i + 1)
    ltm.catch_up()
    conn.commit()
    for i, text in enumerate(UNDONE):
        ltm.add(text, tick=4 + i)
    ltm.catch_up()
    ltm.save_index()
    conn.rollback()
    writer = LongTermMemory(conn, None, embedder)  # stores rows and vectors, keeps no index file
    for i, text in enumerate(REPLACING):
        writer.add(text, tick=4 + i)
    writer.catch_up()
    conn.commit()
    again = MiniLMEmbedder()
    reopened = LongTermMemory(conn, tmp_path / "index", again)
    _check_new_rows_found(reopened)
    assert reopened.builds == 0  # the undone entries were taken out of the saved file, not rebuilt
    assert again.texts_encoded == len(REPLACING) + len(UNDONE)  # the four queries: nothing re-embedded


def test_agi_rollback_then_new_ticks_reusing_seqs(tmp_path: Path, _minilm_loaded: None) -> None:
    db = tmp_path / "a.db"
    with open_kernel(db, seed="ltm") as kernel:
        kernel.tick("my favorite color is teal")
        checkpoints.create(kernel, "one")
        kernel.tick("remember that my dentist appointment is on Friday")
        assert "dentist" in kernel.long_term.search("dentist appointment", 1)[0].item.text
        kernel.long_term.save_index()
        checkpoints.rollback(kernel, "one")
        kernel.tick("my brother lives in Osaka")
        kernel.long_term_memory()  # mirror the new tick's episodes
        texts = {t for (t,) in kernel.store.conn.execute("SELECT text FROM ltm_items")}  # type: ignore[attr-defined]
        assert "my brother lives in Osaka" in texts
        hits = kernel.long_term.search("dentist appointment on Friday", 4, mode="dense")
        assert all("dentist" not in hit.item.text for hit in hits)
        assert kernel.long_term.search("Where does my brother live?", 1, mode="dense")[0].item.text == (
            "my brother lives in Osaka"
        )
        _assert_index_matches_rows(kernel.long_term)
