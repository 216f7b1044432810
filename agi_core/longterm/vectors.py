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

#: Most texts in one ``encode`` call: large enough that sentence-transformers' length sorting
#: keeps batches dense, small enough to show progress.
ENCODE_CHUNK = 2048
READ_CHUNK = 50_000


#: One ``encode`` call: ``(seq, text)`` of consecutive items of one tick (see :func:`batches`).
Batch = tuple[tuple[int, str], ...]


def missing(rows: LtmRows, model: str, after_seq: int = 0) -> list[tuple[int, int, str]]:
    """``(seq, tick, text to embed)`` of items above ``after_seq`` that have no ``model`` vector."""
    return [
        (seq, tick, embedding_text(text, speaker))
        for seq, tick, text, speaker in rows.missing_vectors(model, after_seq)
    ]


def batches(todo: Sequence[tuple[int, int, str]]) -> list[Batch]:
    """``todo`` (in seq order) cut into ``encode`` calls: each run of items of one tick with
    consecutive seqs, cut every ``ENCODE_CHUNK`` items from the start of the run.

    An embedder's vector of a text may depend on the other texts of its call (ONNX MiniLM: about
    1e-8), so the calls are a function of the items alone, never of when they are embedded: the
    prefetch between ticks (:mod:`agi_core.longterm.prefetch`) encodes exactly these batches, and
    an item stored between two others (or its vector) splits their run whether or not it is in
    ``todo``.
    """
    out: list[Batch] = []
    run: list[tuple[int, str]] = []
    for i, (seq, tick, text) in enumerate(todo):
        if run and (tick != todo[i - 1][1] or seq != todo[i - 1][0] + 1 or len(run) == ENCODE_CHUNK):
            out.append(tuple(run))
            run = []
        run.append((seq, text))
    if run:
        out.append(tuple(run))
    return out


def embed_and_store(
    rows: LtmRows,
    embedder: Embedder,
    todo: Sequence[tuple[int, int, str]],
    progress: Callable[[int], None] | None = None,
    ready: Callable[[Batch], np.ndarray | None] | None = None,
) -> int:
    """Encode ``todo`` in :func:`batches` and insert the blobs; returns how many.

    :param ready: a batch's vectors computed ahead (:meth:`~agi_core.longterm.prefetch.Prefetch.take`),
        or None to encode it here.

    The inserts join the caller's transaction, or take the write lock once per batch.
    """
    done = 0
    for batch in batches(todo):
        found = ready(batch) if ready is not None else None
        vectors = found if found is not None else encode(embedder, batch)
        rows.put_vectors(embedder.name, ((seq, vectors[i].tobytes()) for i, (seq, _) in enumerate(batch)))
        done += len(batch)
        if progress is not None:
            progress(len(batch))
    return done


def embed_some(
    rows: LtmRows,
    embedder: Embedder,
    todo: Sequence[tuple[int, int, str]],
    limit: int,
    finished: Callable[[Batch], np.ndarray | None],
    busy: Callable[[Batch], bool],
) -> tuple[int, int, int | None]:
    """:func:`embed_and_store` in seq order, encoding at most ``limit`` items here and waiting for none.

    A batch whose vectors the background finished (``finished``) is stored; one it is still encoding
    (``busy``) ends the pass, and so does one that would take the items encoded here past ``limit``.
    Returns how many items were stored, how many of them were encoded here, and the seq of the first
    item left without a vector (None when none is): the index covers the items below it only.
    """
    stored = spent = 0
    for batch in batches(todo):
        found = finished(batch)
        if found is None:
            if busy(batch) or spent + len(batch) > limit:
                return stored, spent, batch[0][0]
            found = encode(embedder, batch)
            spent += len(batch)
        rows.put_vectors(embedder.name, ((seq, found[i].tobytes()) for i, (seq, _) in enumerate(batch)))
        stored += len(batch)
    return stored, spent, None


def encode(embedder: Embedder, batch: Batch) -> np.ndarray:
    """The batch's vectors as contiguous little-endian float32, their shape checked."""
    vectors = embedder.encode([text for _, text in batch])
    if vectors.shape != (len(batch), embedder.dim):
        raise ValueError(
            f"embedder {embedder.name!r} returned shape {vectors.shape} for {len(batch)} texts, "
            f"expected ({len(batch)}, {embedder.dim})"
        )
    return np.ascontiguousarray(vectors, dtype="<f4")


def read(
    rows: LtmRows, model: str, dim: int, after_seq: int = 0, below: int | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(seqs, vectors)`` chunks of stored vectors above ``after_seq`` (and below ``below``), in seq order."""
    for chunk in rows.vector_chunks(model, after_seq, READ_CHUNK):
        last = below is not None and chunk[-1][0] >= below
        if last:
            chunk = [row for row in chunk if row[0] < below]  # type: ignore[operator]
        if chunk:
            seqs = np.fromiter((row[0] for row in chunk), dtype=np.int64, count=len(chunk))
            flat = np.frombuffer(b"".join(row[1] for row in chunk), dtype="<f4")
            yield seqs, flat.reshape(len(chunk), dim).astype(np.float32, copy=False)
        if last:
            return


def fetch(rows: LtmRows, model: str, dim: int, seqs: Sequence[int]) -> dict[int, np.ndarray]:
    """The stored vectors of the given items (absent ones are left out)."""
    return {seq: np.frombuffer(blob, dtype="<f4") for seq, blob in rows.vectors_for(model, seqs).items()}


def covered(rows: LtmRows, model: str, max_seq: int) -> tuple[int, str | None]:
    """How many ``model`` vectors have ``seq <= max_seq``, and the id of item ``max_seq``."""
    return rows.vector_count(model, max_seq), rows.item_id(max_seq)


def last_vector(rows: LtmRows, model: str, at_most: int) -> tuple[int, str | None]:
    """``(seq, id)`` of the highest item with a ``model`` vector and ``seq <= at_most``."""
    return rows.last_vector(model, at_most)
