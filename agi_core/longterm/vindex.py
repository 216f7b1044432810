"""The faiss index derived from the vectors stored in SQLite, and its file beside the DB.

Exact search (``IndexFlatIP``) up to :attr:`IndexPolicy.flat_max` vectors, HNSW above
(``IndexHNSWFlat``, inner product). The numbers come from measurements on MiniLM
embeddings, 2 CPU cores (docs/long-term-memory.md, "Index choice").

The index never holds the only copy of anything: SQLite has every vector, so a missing,
stale or foreign index file is rebuilt from the blobs (no re-embedding). The sidecar
JSON records what the file covers: the model, the highest item ``seq`` added, how many
vectors it holds, how many of those were deleted since (tombstones), the id of the
item at ``max_seq`` and the ``(seq, id)`` marks of the last catch-ups (:attr:`IndexMeta.marks`),
which :class:`~agi_core.longterm.LongTermMemory` compares with the rows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from agi_core.same_core import unpinned

FORMAT = 1

#: ``(seq, id)`` marks kept: one per catch-up that added vectors, the newest last.
MARKS_KEPT = 64

#: Measured (docs/long-term-memory.md, 10k MiniLM vectors, 2 cores): below 8 queries
#: the SIMD loop wins, from 8 on sgemm does (0.36 vs 0.60 ms/query at 8, 0.07 vs 0.55 at
#: 256). faiss-cpu ships 128000 here, which keeps batches of up to 128k queries off BLAS.
BLAS_THRESHOLD = 8

_faiss: Any = None


def faiss_module() -> Any:
    """Import faiss on first use and set the BLAS threshold once per process."""
    global _faiss
    if _faiss is None:
        # faiss and torch ship separate OpenMP runtimes: idle threads must sleep, not spin
        # (see agi_core.default_plugins.embedder_minilm). A value set by the user wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        with unpinned():  # its OpenMP sizes the thread pool by the CPUs it may run on as it loads
            import faiss

        faiss.cvar.distance_compute_blas_threshold = BLAS_THRESHOLD
        _faiss = faiss
    return _faiss


@attrs.frozen
class IndexPolicy:
    """When to switch to approximate search, and the HNSW parameters.

    :param flat_max: up to this many vectors the index is exact (``IndexFlatIP``).
    :param hnsw_m: graph degree M.
    :param ef_construction: build-time beam width.
    :param ef_search: query-time beam width (raised to ``k`` when ``k`` is larger).
    :param max_tombstones: share of deleted-but-indexed vectors that triggers a rebuild.
    """

    flat_max: int = 20_000
    hnsw_m: int = 32
    ef_construction: int = 80
    ef_search: int = 256
    max_tombstones: float = 0.1

    def kind_for(self, count: int) -> str:
        return "flat" if count <= self.flat_max else "hnsw"


@attrs.define
class IndexMeta:
    """The sidecar JSON: what the index file covers."""

    model: str
    dim: int
    kind: str
    count: int = 0
    tombstones: int = 0
    max_seq: int = 0
    last_id: str | None = None
    format: int = FORMAT
    #: ``[seq, id]`` of the item at ``max_seq`` after each of the last catch-ups (oldest first).
    #: A mark whose row still has that id says the index is right up to that seq: SQLite hands
    #: a rolled-back row's seq to the next row, so a mark that no longer matches shows where
    #: the index went stale.
    marks: list[list[Any]] = attrs.field(factory=list)

    def mark(self, last_id: str | None) -> None:
        """Record ``last_id`` as the id of the item at ``max_seq``."""
        self.last_id = last_id
        if self.max_seq and last_id is not None and (not self.marks or self.marks[-1] != [self.max_seq, last_id]):
            older = [m for m in self.marks if m[0] < self.max_seq][-(MARKS_KEPT - 1) :]
            self.marks = [*older, [self.max_seq, last_id]]


class VectorIndex:
    """A faiss index keyed by item ``seq``, plus its sidecar metadata."""

    def __init__(self, model: str, dim: int, kind: str, policy: IndexPolicy) -> None:
        faiss = faiss_module()
        self.policy = policy
        self.meta = IndexMeta(model=model, dim=dim, kind=kind)
        if kind == "flat":
            inner = faiss.IndexFlatIP(dim)
        else:
            inner = faiss.IndexHNSWFlat(dim, policy.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            inner.hnsw.efConstruction = policy.ef_construction
            inner.hnsw.efSearch = policy.ef_search
        self.index = faiss.IndexIDMap(inner)
        self._positions: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    # -- content -----------------------------------------------------------------------
    @property
    def live(self) -> int:
        return self.meta.count - self.meta.tombstones

    def add(self, seqs: np.ndarray, vectors: np.ndarray, last_id: str | None) -> None:
        """Add vectors (seqs ascending, all above ``max_seq``)."""
        if len(seqs) == 0:
            return
        self.index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), seqs.astype(np.int64))
        self._positions = None
        self.meta.count += len(seqs)
        self.meta.max_seq = int(seqs[-1])
        self.meta.last_id = last_id

    def stored(self, seqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(found, vectors)``: which of ``seqs`` the index holds, and their vectors (zeros where
        not found), read from faiss's own storage (no copy of the index, no database read)."""
        faiss = faiss_module()
        if self._positions is None:
            labels = self.labels()
            pos = np.flatnonzero(labels >= 0)
            if np.any(np.diff(labels[pos]) <= 0):  # seqs are added in order; this is a safeguard
                pos = pos[np.argsort(labels[pos], kind="stable")]
            inner = faiss.downcast_index(self.index.index)
            flat = inner if self.meta.kind == "flat" else faiss.downcast_index(inner.storage)
            xb = faiss.rev_swig_ptr(flat.get_xb(), flat.ntotal * self.meta.dim).reshape(flat.ntotal, self.meta.dim)
            self._positions = (labels[pos], pos, xb)  # a view of faiss's storage, valid until the next change
        live, pos, xb = self._positions
        seqs = np.asarray(seqs, dtype=np.int64)
        at = np.minimum(np.searchsorted(live, seqs), max(len(live) - 1, 0))
        found = live[at] == seqs if len(live) else np.zeros(len(seqs), dtype=bool)
        out = np.zeros((len(seqs), self.meta.dim), dtype=np.float32)
        if found.any():
            out[found] = xb[pos[at[found]]]
        return found, out

    def labels(self) -> np.ndarray:
        """The item seqs the index holds (removed entries read -1)."""
        return faiss_module().vector_to_array(self.index.id_map).astype(np.int64)

    def remove(self, seqs: np.ndarray) -> None:
        """Forget these items. Flat indexes delete them; HNSW cannot, so their labels are
        set to -1, which searches exclude (they count as tombstones until a rebuild)."""
        if len(seqs) == 0:
            return
        faiss = faiss_module()
        self._positions = None
        if self.meta.kind == "flat":
            gone = self.index.remove_ids(faiss.IDSelectorBatch(np.asarray(seqs, dtype=np.int64)))
            self.meta.count -= int(gone)
        else:
            labels = self.labels()
            dead = np.isin(labels, seqs)
            labels[dead] = -1
            faiss.copy_array_to_vector(labels, self.index.id_map)
            self.meta.tombstones += int(dead.sum())
        live = self.labels()
        live = live[live >= 0]
        self.meta.max_seq = int(live.max()) if len(live) else 0
        self.meta.marks = [m for m in self.meta.marks if m[0] <= self.meta.max_seq]

    def needs_rebuild(self) -> bool:
        """Too many tombstones, or the size crossed the flat/HNSW boundary."""
        if self.meta.count and self.meta.tombstones / self.meta.count > self.policy.max_tombstones:
            return True
        return self.policy.kind_for(self.live) != self.meta.kind

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, seqs)`` of shape ``(nq, k)``; missing slots have seq -1."""
        if self.meta.count == 0:
            nq = len(queries)
            return np.zeros((nq, 0), np.float32), np.zeros((nq, 0), np.int64)
        k = min(k, self.live)
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if self.meta.kind == "flat":
            return self.index.search(queries, k)
        faiss = faiss_module()
        params = faiss.SearchParametersHNSW()
        params.efSearch = max(self.policy.ef_search, k)
        if self.meta.tombstones:
            live_only = faiss.IDSelectorRange(0, 2**62)  # removed entries carry the label -1
            params.sel = live_only
        scores, seqs = self.index.search(queries, k, params=params)
        return scores, seqs

    # -- files -------------------------------------------------------------------------
    @staticmethod
    def paths(folder: Path, model: str) -> tuple[Path, Path]:
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model)
        return folder / f"ltm-{safe}.faiss", folder / f"ltm-{safe}.json"

    def save(self, folder: Path) -> None:
        """Write the index, then its sidecar (each through a temporary file and a rename)."""
        faiss = faiss_module()
        folder.mkdir(parents=True, exist_ok=True)
        index_path, meta_path = self.paths(folder, self.meta.model)
        tmp = index_path.with_suffix(".faiss.tmp")
        faiss.write_index(self.index, str(tmp))
        os.replace(tmp, index_path)
        tmp_meta = meta_path.with_suffix(".json.tmp")
        tmp_meta.write_text(json.dumps(attrs.asdict(self.meta), sort_keys=True))
        os.replace(tmp_meta, meta_path)

    @classmethod
    def load(cls, folder: Path, model: str, dim: int, policy: IndexPolicy) -> VectorIndex | None:
        """The saved index for ``model``, or None if absent, unreadable or of another shape."""
        index_path, meta_path = cls.paths(folder, model)
        if not index_path.exists() or not meta_path.exists():
            return None
        try:
            meta = IndexMeta(**json.loads(meta_path.read_text()))
        except (ValueError, TypeError):
            return None
        if meta.format != FORMAT or meta.model != model or meta.dim != dim or meta.kind not in ("flat", "hnsw"):
            return None
        faiss = faiss_module()
        try:
            index = faiss.read_index(str(index_path))
        except RuntimeError:
            return None
        if index.ntotal != meta.count or index.d != dim:
            return None
        self = cls.__new__(cls)
        self.policy = policy
        self.meta = meta
        self.index = index
        self._positions = None
        return self
