"""Vectors in SQLite: which items still need one, storing blobs, reading them back.

Blobs are raw little-endian float32 (``ndarray.tobytes()``), keyed by ``(model, seq)``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from agi_core.longterm.embedder import Embedder
from agi_core.longterm.model import embedding_text
from agi_core.memory.locking import write_block

#: Texts per ``encode`` call while catching up: large enough that sentence-transformers'
#: length sorting keeps batches dense, small enough to show progress.
ENCODE_CHUNK = 2048
READ_CHUNK = 50_000


def missing(conn: sqlite3.Connection, model: str, after_seq: int = 0) -> list[tuple[int, str]]:
    """``(seq, text to embed)`` of items above ``after_seq`` that have no ``model`` vector."""
    rows = conn.execute(
        "SELECT i.seq, i.text, i.speaker FROM ltm_items i "
        "LEFT JOIN ltm_vectors v ON v.model = ? AND v.seq = i.seq "
        "WHERE i.seq > ? AND v.seq IS NULL ORDER BY i.seq",
        (model, after_seq),
    ).fetchall()
    return [(seq, embedding_text(text, speaker)) for seq, text, speaker in rows]


def embed_and_store(
    conn: sqlite3.Connection,
    embedder: Embedder,
    todo: Sequence[tuple[int, str]],
    progress: Callable[[int], None] | None = None,
) -> int:
    """Encode ``todo`` in chunks and insert the blobs; returns how many.

    The inserts join the caller's transaction, or take the write lock once per chunk.
    """
    done = 0
    for start in range(0, len(todo), ENCODE_CHUNK):
        chunk = todo[start : start + ENCODE_CHUNK]
        vectors = embedder.encode([text for _, text in chunk])
        if vectors.shape != (len(chunk), embedder.dim):
            raise ValueError(
                f"embedder {embedder.name!r} returned shape {vectors.shape} for {len(chunk)} texts, "
                f"expected ({len(chunk)}, {embedder.dim})"
            )
        vectors = np.ascontiguousarray(vectors, dtype="<f4")
        with write_block(conn):  # one write-locked transaction per chunk, never across an encode
            conn.executemany(
                "INSERT OR REPLACE INTO ltm_vectors(model, seq, vector) VALUES (?, ?, ?)",
                ((embedder.name, seq, vectors[i].tobytes()) for i, (seq, _) in enumerate(chunk)),
            )
        done += len(chunk)
        if progress is not None:
            progress(len(chunk))
    return done


def read(conn: sqlite3.Connection, model: str, dim: int, after_seq: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(seqs, vectors)`` chunks of stored vectors above ``after_seq``, in seq order."""
    cursor = conn.execute(
        "SELECT seq, vector FROM ltm_vectors WHERE model = ? AND seq > ? ORDER BY seq", (model, after_seq)
    )
    while True:
        rows = cursor.fetchmany(READ_CHUNK)
        if not rows:
            return
        seqs = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        flat = np.frombuffer(b"".join(row[1] for row in rows), dtype="<f4")
        yield seqs, flat.reshape(len(rows), dim).astype(np.float32, copy=False)


def fetch(conn: sqlite3.Connection, model: str, dim: int, seqs: Sequence[int]) -> dict[int, np.ndarray]:
    """The stored vectors of the given items (absent ones are left out)."""
    out: dict[int, np.ndarray] = {}
    for start in range(0, len(seqs), 500):
        part = list(seqs[start : start + 500])
        marks = ",".join("?" * len(part))
        for seq, blob in conn.execute(
            f"SELECT seq, vector FROM ltm_vectors WHERE model = ? AND seq IN ({marks})", (model, *part)
        ):
            out[seq] = np.frombuffer(blob, dtype="<f4")
    return out


def covered(conn: sqlite3.Connection, model: str, max_seq: int) -> tuple[int, str | None]:
    """How many ``model`` vectors have ``seq <= max_seq``, and the id of item ``max_seq``."""
    (count,) = conn.execute(
        "SELECT count(*) FROM ltm_vectors WHERE model = ? AND seq <= ?", (model, max_seq)
    ).fetchone()
    row = conn.execute("SELECT id FROM ltm_items WHERE seq = ?", (max_seq,)).fetchone()
    return count, (row[0] if row else None)


def last_vector(conn: sqlite3.Connection, model: str, at_most: int) -> tuple[int, str | None]:
    """``(seq, id)`` of the highest item with a ``model`` vector and ``seq <= at_most``."""
    row = conn.execute(
        "SELECT v.seq, i.id FROM ltm_vectors v JOIN ltm_items i ON i.seq = v.seq "
        "WHERE v.model = ? AND v.seq <= ? ORDER BY v.seq DESC LIMIT 1",
        (model, at_most),
    ).fetchone()
    return (row[0], row[1]) if row else (0, None)
