"""Vectors of long-term memory: which items still need one, storing them, reading them back.

Vectors are raw little-endian float32 (``ndarray.tobytes()``), keyed by ``(model, seq)``, kept
by the backend's :class:`~agi_core.memory.backend.LtmRows`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from agi_core.longterm.embedder import Embedder
from agi_core.longterm.model import embedding_text
from agi_core.memory.backend import LtmRows

#: Texts per ``encode`` call while catching up: large enough that sentence-transformers'
#: length sorting keeps batches dense, small enough to show progress.
ENCODE_CHUNK = 2048
READ_CHUNK = 50_000


def missing(rows: LtmRows, model: str, after_seq: int = 0) -> list[tuple[int, str]]:
    """``(seq, text to embed)`` of items above ``after_seq`` that have no ``model`` vector."""
    return [(seq, embedding_text(text, speaker)) for seq, text, speaker in rows.missing_vectors(model, after_seq)]


def embed_and_store(
    rows: LtmRows,
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
        rows.put_vectors(embedder.name, ((seq, vectors[i].tobytes()) for i, (seq, _) in enumerate(chunk)))
        done += len(chunk)
        if progress is not None:
            progress(len(chunk))
    return done


def read(rows: LtmRows, model: str, dim: int, after_seq: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(seqs, vectors)`` chunks of stored vectors above ``after_seq``, in seq order."""
    for chunk in rows.vector_chunks(model, after_seq, READ_CHUNK):
        seqs = np.fromiter((row[0] for row in chunk), dtype=np.int64, count=len(chunk))
        flat = np.frombuffer(b"".join(row[1] for row in chunk), dtype="<f4")
        yield seqs, flat.reshape(len(chunk), dim).astype(np.float32, copy=False)


def fetch(rows: LtmRows, model: str, dim: int, seqs: Sequence[int]) -> dict[int, np.ndarray]:
    """The stored vectors of the given items (absent ones are left out)."""
    return {seq: np.frombuffer(blob, dtype="<f4") for seq, blob in rows.vectors_for(model, seqs).items()}


def covered(rows: LtmRows, model: str, max_seq: int) -> tuple[int, str | None]:
    """How many ``model`` vectors have ``seq <= max_seq``, and the id of item ``max_seq``."""
    return rows.vector_count(model, max_seq), rows.item_id(max_seq)


def last_vector(rows: LtmRows, model: str, at_most: int) -> tuple[int, str | None]:
    """``(seq, id)`` of the highest item with a ``model`` vector and ``seq <= at_most``."""
    return rows.last_vector(model, at_most)
