"""Query embeddings: a bounded cache by text, and encoding beside the caller's SQL.

A query's vector depends only on the embedder and the text, never on what memory holds,
so the cache needs no invalidation when memories are added or rolled back; it is bounded
(least recently used out first) and per :class:`~agi_core.longterm.LongTermMemory`. Only
single queries use it: a cached vector is exactly ``encode([text])``, so a search returns
the same hits whether its vector was cached or not. A batch (``search_many``) is encoded
as one batch every time (padding may change the last bits of a vector).

:meth:`QueryVectors.start` hands the texts the cache lacks to one worker thread and returns
at once, so the caller can run its full-text query meanwhile (onnxruntime and SQLite both
release the GIL); :meth:`Pending.result` waits for the vectors. The vectors are the same
either way: only the wall time changes (benchmarks/recall_scale.py).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from agi_core.longterm.embedder import Embedder

#: Query vectors kept per memory (384 float32 each: 1.5 KB, so about 0.4 MB in all).
QUERY_CACHE = 256

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_worker() -> None:
    """In a forked child: the parent's thread does not exist there, so start a new one."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_worker)


def _worker() -> ThreadPoolExecutor:
    """The process's query-encoding thread (one: queries are encoded in turn)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agi-query-encode")
        return _pool


class Pending:
    """Vectors being computed for some texts; :meth:`result` waits for them."""

    def __init__(
        self, owner: QueryVectors, name: str, texts: list[str], found: dict[str, np.ndarray], *, cache: bool
    ) -> None:
        self._owner = owner
        self._cache = cache
        self._name = name
        self._texts = texts
        self._found = found
        self._future: Future[np.ndarray] | None = None
        self._missing: list[str] = []

    def result(self) -> np.ndarray:
        """``(len(texts), dim)`` float32, one row per text, in order."""
        if self._future is not None:
            vectors = self._future.result()
            self._future = None
            for text, vector in zip(self._missing, vectors, strict=True):
                self._found[text] = vector
                if self._cache:
                    self._owner.put(self._name, text, vector)
        return np.stack([self._found[text] for text in self._texts])


class QueryVectors:
    """The cache of one memory's query vectors, and the way they are computed.

    :param maxsize: vectors kept (0 disables the cache).
    :param overlap: encode on the worker thread (True) or in the caller's thread, at
        :meth:`start` (False: the baseline the benchmark compares against).
    """

    def __init__(self, maxsize: int = QUERY_CACHE, *, overlap: bool = True) -> None:
        self.maxsize = maxsize
        self.overlap = overlap
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        #: Texts answered from the cache, and texts encoded (evidence for tests).
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._cache)

    def get(self, name: str, text: str) -> np.ndarray | None:
        with self._lock:
            found = self._cache.get((name, text))
            if found is not None:
                self._cache.move_to_end((name, text))
            return found

    def put(self, name: str, text: str, vector: np.ndarray) -> None:
        if self.maxsize <= 0:
            return
        vector = np.array(vector, dtype=np.float32)  # a copy the caller cannot change
        vector.flags.writeable = False
        with self._lock:
            self._cache[(name, text)] = vector
            self._cache.move_to_end((name, text))
            while len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def start(self, embedder: Embedder, texts: Sequence[str]) -> Pending:
        """Begin computing the vectors of ``texts``; a single text already cached is not encoded again."""
        texts = list(texts)
        found: dict[str, np.ndarray] = {}
        cached = self.get(embedder.name, texts[0]) if len(texts) == 1 else None
        if cached is not None:
            found[texts[0]] = cached
            self.hits += 1
        missing = [] if cached is not None else list(dict.fromkeys(texts))
        self.misses += len(missing)
        pending = Pending(self, embedder.name, texts, found, cache=len(texts) == 1)
        if missing:
            pending._missing = missing
            if self.overlap:
                pending._future = _worker().submit(embedder.encode, missing)
            else:
                done: Future[np.ndarray] = Future()
                done.set_result(embedder.encode(missing))
                pending._future = done
        return pending
