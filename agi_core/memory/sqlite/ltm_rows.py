"""The ``ltm_*`` tables of the SQLite backend (:class:`~agi_core.memory.backend.LtmRows`).

Vectors are raw little-endian float32 blobs keyed by ``(model, seq)``; full-text search is
FTS5 (BM25) over ``ltm_items.text``, kept in sync by triggers (:mod:`.ltm_schema`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agi_core.memory.locking import DEFAULT_LOCK_TIMEOUT_S, write_block
from agi_core.memory.row_layouts import ITEM_COLUMNS
from agi_core.memory.sqlite.fts_plan import FtsPlan, or_expression

_IN_CHUNK = 500  # bound parameters per IN (...) list


def open_connection(path: str | Path) -> sqlite3.Connection:
    """A connection of its own to ``path`` whose implicit transactions start with ``BEGIN IMMEDIATE``
    and wait for another writer (:mod:`agi_core.memory.locking`)."""
    return sqlite3.connect(path, timeout=DEFAULT_LOCK_TIMEOUT_S, isolation_level="IMMEDIATE")


class SqliteLtmRows:
    """Long-term memory rows on one SQLite connection; the caller owns the transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.plan = FtsPlan()  # which terms FTS5 scores (its budget can be changed)

    def close(self) -> None:
        """Commit and close (for a connection from :func:`open_connection`)."""
        self.conn.commit()
        self.conn.close()

    # -- items -------------------------------------------------------------------------
    def insert_items(self, rows: Sequence[tuple[Any, ...]]) -> int:
        cursor = self.conn.executemany(
            "INSERT OR IGNORE INTO ltm_items(id, tick, kind, text, speaker, timestamp, session, importance, metadata)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return max(cursor.rowcount, 0)  # summed over the rows; ignored duplicates count 0

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM ltm_items").fetchone()[0])

    def has_sessions(self) -> bool:
        """Whether any memory belongs to a session (an ingested file or conversation; episodes have none)."""
        return self.conn.execute("SELECT 1 FROM ltm_items WHERE session IS NOT NULL LIMIT 1").fetchone() is not None

    def item(self, id: str) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self.conn.execute(
            f"SELECT {ITEM_COLUMNS} FROM ltm_items WHERE id = ?", (id,)
        ).fetchone()
        return row

    def items(self, seqs: Sequence[int]) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for start in range(0, len(seqs), _IN_CHUNK):
            part = list(seqs[start : start + _IN_CHUNK])
            marks = ",".join("?" * len(part))
            out += self.conn.execute(f"SELECT {ITEM_COLUMNS} FROM ltm_items WHERE seq IN ({marks})", part).fetchall()
        return out

    def item_id(self, seq: int) -> str | None:
        row = self.conn.execute("SELECT id FROM ltm_items WHERE seq = ?", (seq,)).fetchone()
        return row[0] if row else None

    def max_seq(self) -> int | None:
        top: int | None = self.conn.execute("SELECT max(seq) FROM ltm_items").fetchone()[0]
        return top

    def max_tick(self) -> int:
        return int(self.conn.execute("SELECT coalesce(max(tick), 0) FROM ltm_items").fetchone()[0])

    def speakers(self) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT DISTINCT speaker FROM ltm_items WHERE speaker IS NOT NULL")}

    def delete_after(self, tick: int) -> int:
        return int(self.conn.execute("DELETE FROM ltm_items WHERE tick > ?", (tick,)).rowcount)

    # -- vectors -----------------------------------------------------------------------
    def missing_vectors(self, model: str, after_seq: int = 0) -> list[tuple[int, int, str, str | None]]:
        return self.conn.execute(
            "SELECT i.seq, i.tick, i.text, i.speaker FROM ltm_items i "
            "LEFT JOIN ltm_vectors v ON v.model = ? AND v.seq = i.seq "
            "WHERE i.seq > ? AND v.seq IS NULL ORDER BY i.seq",
            (model, after_seq),
        ).fetchall()

    def pending(self, model: str) -> int:
        (count,) = self.conn.execute(
            "SELECT count(*) FROM ltm_items i LEFT JOIN ltm_vectors v ON v.model = ? AND v.seq = i.seq "
            "WHERE v.seq IS NULL",
            (model,),
        ).fetchone()
        return int(count)

    def put_vectors(self, model: str, rows: Iterable[tuple[int, bytes]]) -> None:
        with write_block(self.conn):  # one write-locked transaction per call, never across an encode
            self.conn.executemany(
                "INSERT OR REPLACE INTO ltm_vectors(model, seq, vector) VALUES (?, ?, ?)",
                ((model, seq, blob) for seq, blob in rows),
            )

    def vector_chunks(self, model: str, after_seq: int, chunk: int) -> Iterator[list[tuple[int, bytes]]]:
        cursor = self.conn.execute(
            "SELECT seq, vector FROM ltm_vectors WHERE model = ? AND seq > ? ORDER BY seq", (model, after_seq)
        )
        while True:
            rows = cursor.fetchmany(chunk)
            if not rows:
                return
            yield rows

    def vectors_for(self, model: str, seqs: Sequence[int]) -> dict[int, bytes]:
        out: dict[int, bytes] = {}
        for start in range(0, len(seqs), _IN_CHUNK):
            part = list(seqs[start : start + _IN_CHUNK])
            marks = ",".join("?" * len(part))
            sql = f"SELECT seq, vector FROM ltm_vectors WHERE model = ? AND seq IN ({marks})"
            out.update(self.conn.execute(sql, (model, *part)).fetchall())
        return out

    def vector_count(self, model: str, max_seq: int | None = None) -> int:
        if max_seq is None:
            row = self.conn.execute("SELECT count(*) FROM ltm_vectors WHERE model = ?", (model,)).fetchone()
        else:
            sql = "SELECT count(*) FROM ltm_vectors WHERE model = ? AND seq <= ?"
            row = self.conn.execute(sql, (model, max_seq)).fetchone()
        return int(row[0])

    def vector_seqs(self, model: str, max_seq: int) -> list[int]:
        sql = "SELECT seq FROM ltm_vectors WHERE model = ? AND seq <= ?"
        return [row[0] for row in self.conn.execute(sql, (model, max_seq))]

    def last_vector(self, model: str, at_most: int) -> tuple[int, str | None]:
        row = self.conn.execute(
            "SELECT v.seq, i.id FROM ltm_vectors v JOIN ltm_items i ON i.seq = v.seq "
            "WHERE v.model = ? AND v.seq <= ? ORDER BY v.seq DESC LIMIT 1",
            (model, at_most),
        ).fetchone()
        return (row[0], row[1]) if row else (0, None)

    # -- full text ---------------------------------------------------------------------
    def full_text(self, terms: Sequence[str], limit: int) -> dict[int, float]:
        """FTS5 BM25 over a bounded plan (:mod:`.fts_plan`): the rarest terms, ``ORDER BY rank``."""
        chosen = self.plan.choose(self.conn, terms)
        if not chosen:
            return {}
        rows = self.conn.execute(
            "SELECT rowid, rank FROM ltm_fts WHERE ltm_fts MATCH ? ORDER BY rank LIMIT ?",
            (or_expression(chosen), limit),
        )
        return {seq: -score for seq, score in rows}
