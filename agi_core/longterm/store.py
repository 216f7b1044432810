"""``LongTermMemory``: items and vectors in the memory backend, a faiss index derived from them.

Writes on the tick path (:meth:`LongTermMemory.add`) insert one row (and its FTS5 row,
by trigger) and never commit or embed: the kernel owns the transaction and wraps each
tick in one transaction. Embedding happens on catch-up, just before a search, in batches;
once the kernel has opened the memory, the batches of each tick's new items are encoded in
the background after the tick (:meth:`LongTermMemory.after_tick`, :mod:`.prefetch`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agi_core.longterm import vectors
from agi_core.longterm.embedder import Embedder, embedder_from_plugins
from agi_core.longterm.importance import clamp_importance, score_importance
from agi_core.longterm.model import Hit, MemoryItem, WorkingMemory, item_id, row_to_item
from agi_core.longterm.prefetch import Prefetch
from agi_core.longterm.query_vectors import QueryVectors
from agi_core.longterm.ranking import RankWeights, weights_for
from agi_core.longterm.search import Searcher
from agi_core.longterm.vindex import IndexPolicy, VectorIndex
from agi_core.memory.backend import LtmRows
from agi_core.memory.sqlite.ltm_rows import SqliteLtmRows, open_connection

if TYPE_CHECKING:
    from agi_core.memory.backend import MemoryBackend

#: Vectors added by catch-ups before the index file is rewritten (ingestion, a long session):
#: a crash then costs at most this many vectors re-read from the rows at the next open.
SAVE_AFTER = 5000
#: Items a catch-up inside a tick encodes itself (or waits for), under the tick's write lock. When more
#: are pending (the first recall of an agent of thousands of ticks), the rest are encoded in the
#: background after the tick and stored by later ticks; the recall meanwhile ranks them by BM25 only.
TICK_ENCODE_LIMIT = 64


class LongTermMemory:
    """Long-term memory on the rows of a kernel-owned memory backend.

    :param conn: the backend's :class:`~agi_core.memory.backend.LtmRows` (``backend.ltm_rows()``),
        or a SQLite connection (the schema is migrated on it).
    :param index_dir: folder for the faiss index file; None keeps the index in memory only.
    :param embedder: an :class:`Embedder`; the plugin-registered ``minilm`` when None
        (built on first use, so a memory that is never searched never loads a model).
    :param policy: exact/approximate index thresholds and HNSW parameters.
    :param weights: the default ranking (``hybrid``, ``agentone``, ``dense``, ``bm25`` or weights).
    """

    def __init__(
        self,
        conn: LtmRows | Any,
        index_dir: str | Path | None = None,
        embedder: Embedder | Callable[[], Embedder] | None = None,
        *,
        policy: IndexPolicy | None = None,
        weights: str | RankWeights = "hybrid",
    ) -> None:
        self.rows: LtmRows = conn if hasattr(conn, "insert_items") else _sqlite_rows(conn)
        self.conn = getattr(self.rows, "conn", None)  # the SQLite connection, when there is one
        self.index_dir = Path(index_dir) if index_dir is not None else None
        self.policy = policy or IndexPolicy()
        self.weights = weights_for(weights)
        self._embedder = embedder
        self._index: VectorIndex | None = None
        self._speakers: set[str] | None = None
        self._owns_conn = False
        self._embedded = 0
        self._spent = 0  # items the current catch-up encoded (or waited for) itself
        self._tick_spent = 0  # items the recalls of the current tick encoded (reset by after_tick)
        #: How many times this object built the index from every stored vector (0 when the
        #: saved file was loaded and caught up): evidence for tests and benchmarks.
        self.builds = 0
        self._unsaved = 0  # vectors added to the index since its file was written
        #: Single queries' vectors, by text (they depend on nothing memory holds).
        self.query_vectors = QueryVectors()
        #: New items' vectors computed between ticks (:meth:`after_tick`); ``prefetching = False`` stops it.
        self.prefetch = Prefetch()
        self.prefetching = True
        self._searched = False  # a catch-up ran: new items are worth encoding ahead
        #: The ``limit`` of :meth:`catch_up` for a recall inside a tick (:meth:`recall`); None: no limit.
        self.tick_encode_limit: int | None = TICK_ENCODE_LIMIT

    @classmethod
    def open(cls, path: str | Path, embedder: Embedder | None = None, **options: Any) -> LongTermMemory:
        """A memory with its own connection to ``path``; the index goes in ``<path>.ltm/``.

        Unlike the kernel's memory, :meth:`close` commits and closes this connection.
        """
        path = Path(path)
        options.setdefault("index_dir", path.with_name(path.name + ".ltm"))
        ltm = cls(open_connection(path), embedder=embedder, **options)
        ltm._owns_conn = True
        return ltm

    @property
    def embedder(self) -> Embedder:
        """The embedder; a factory passed as ``embedder`` (or the default plugin set) builds it on first use."""
        found = self._embedder
        if found is None:
            found = embedder_from_plugins()
        elif not hasattr(found, "encode"):
            found = found()  # type: ignore[operator]
        self._embedder = found
        return found  # type: ignore[return-value]

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        """Use ``embedder`` from now on (its ``name`` keys the vectors: they are not recomputed)."""
        self._embedder = embedder

    # -- writing (tick path: no commit, no embedding) ---------------------------------
    def add(
        self,
        text: str,
        *,
        tick: int = 0,
        kind: str = "message",
        speaker: str | None = None,
        timestamp: str | None = None,
        session: str | None = None,
        importance: float | None = None,
        metadata: Mapping[str, Any] | None = None,
        id: str | None = None,
    ) -> str:
        """Store one memory and return its id. Adding the same content twice is a no-op.

        ``importance`` defaults to AgentOne's heuristics (:func:`score_importance`); ``id``
        defaults to a hash of the tick, kind, speaker, timestamp, session and text.
        """
        record = {
            "text": text,
            "tick": tick,
            "kind": kind,
            "speaker": speaker,
            "timestamp": timestamp,
            "session": session,
            "importance": importance,
            "metadata": metadata,
            "id": id,
        }
        self.add_many([record])
        return str(record["id"])

    def add_many(self, records: Iterable[dict[str, Any]]) -> tuple[int, int]:
        """Store many memories (dicts with :meth:`add`'s fields); returns ``(added, duplicates)``.

        Each dict gets its ``id`` filled in when it had none.
        """
        rows = []
        for rec in records:
            text = rec["text"]
            kind = rec.get("kind") or "message"
            tick = int(rec.get("tick") or 0)
            if rec.get("id") is None:
                rec["id"] = item_id(tick, kind, rec.get("speaker"), rec.get("timestamp"), rec.get("session"), text)
            importance = clamp_importance(rec.get("importance"))
            if importance is None:
                importance = score_importance(text, kind=kind)
            rows.append(
                (
                    rec["id"],
                    tick,
                    kind,
                    text,
                    rec.get("speaker"),
                    rec.get("timestamp"),
                    rec.get("session"),
                    float(importance),
                    json.dumps(dict(rec.get("metadata") or {}), sort_keys=True),
                )
            )
            if self._speakers is not None and rec.get("speaker"):
                self._speakers.add(rec["speaker"])
        added = self.rows.insert_items(rows)
        return added, len(rows) - added

    # -- reading ---------------------------------------------------------------------
    def count(self) -> int:
        return self.rows.count()

    def get(self, id: str) -> MemoryItem | None:
        row = self.rows.item(id)
        return row_to_item(row) if row else None

    def items(self, seqs: Sequence[int]) -> dict[int, MemoryItem]:
        return {row[0]: row_to_item(row) for row in self.rows.items(seqs)}

    def pending(self) -> int:
        """How many items have no vector yet (what the next search or :meth:`catch_up` embeds)."""
        return self.rows.pending(self.embedder.name)

    def speakers(self) -> set[str]:
        if self._speakers is None:
            self._speakers = self.rows.speakers()
        return self._speakers

    # -- the index -------------------------------------------------------------------
    def _consistent(self, index: VectorIndex) -> bool:
        count, last_id = vectors.covered(self.rows, self.embedder.name, index.meta.max_seq)
        return count == index.live and (index.meta.max_seq == 0 or last_id == index.meta.last_id)

    def _last_id(self, seq: int) -> str | None:
        return self.rows.item_id(seq)

    def _build(self, progress: Callable[[int], None] | None = None, limit: int | None = None) -> VectorIndex:
        """A fresh index from every stored vector (embedding the items that lack one, at most ``limit``
        of them: then the index stops before the first item left without one, see :meth:`catch_up`)."""
        emb = self.embedder
        hole = self._embed(vectors.missing(self.rows, emb.name), progress, limit)
        total = self.rows.vector_count(emb.name, None if hole is None else hole - 1)
        index = VectorIndex(emb.name, emb.dim, self.policy.kind_for(total), self.policy)
        for seqs, vecs in vectors.read(self.rows, emb.name, emb.dim, below=hole):
            index.add(seqs, vecs, None)
        index.meta.mark(self._last_id(index.meta.max_seq))
        self.builds += 1
        self._index = index
        self.save_index()  # a crash after this costs a catch-up at the next open, never a build
        return index

    def _load(self) -> VectorIndex | None:
        emb = self.embedder
        return VectorIndex.load(self.index_dir, emb.name, emb.dim, self.policy) if self.index_dir else None

    def index(self, progress: Callable[[int], None] | None = None, limit: int | None = None) -> VectorIndex:
        """The faiss index: loaded from its file if it still matches the rows, else rebuilt.

        The check costs one lookup of the id at the file's ``max_seq`` (entries of undone
        rows are dropped, :meth:`_realign`) and one count of the vectors up to it; a file
        that passes is used as is (and caught up by :meth:`catch_up`).
        """
        if self._index is None:
            loaded = self._load()
            if loaded is not None:
                loaded = self._realign(loaded)
            if loaded is not None and not self._consistent(loaded):
                loaded = None
            self._index = loaded if loaded is not None else self._build(progress, limit)
        return self._index

    def _realign(self, index: VectorIndex) -> VectorIndex | None:
        """``index`` without the entries of rows that are gone; None when it must be rebuilt.

        SQLite's AUTOINCREMENT counter is transactional: after a rolled-back transaction or
        ``agi rollback``, the undone rows' seqs go to the next, different, rows. The item at
        ``max_seq`` then no longer has the id recorded (one primary-key lookup, every
        catch-up). The entries above the newest :attr:`~.vindex.IndexMeta.marks` mark whose
        row still has its id are removed, and the catch-up indexes the rows now there.
        """
        meta = index.meta
        if not meta.max_seq or self._last_id(meta.max_seq) == meta.last_id:
            return index
        good = next((seq for seq, id in reversed(meta.marks) if self._last_id(seq) == id), 0)
        if good == 0:
            return None
        labels = index.labels()
        index.remove(labels[labels > good])
        meta.mark(self._last_id(meta.max_seq))
        if index.needs_rebuild() or not self._consistent(index):
            return None
        return index

    def catch_up(self, progress: Callable[[int], None] | None = None, *, limit: int | None = None) -> int:
        """Embed the items stored since the index was last brought up to date, and index them.

        Returns how many texts were stored. When nothing is pending (the common case) it
        costs one ``max(seq)`` lookup and one lookup of the id at the index's ``max_seq``.

        :param limit: encode (or wait for) at most this many items here, oldest first, whole
            batches; batches the background encoder finished are stored beyond it. The index then
            covers the items below the first one left without a vector, and the rest is encoded
            ahead after the tick (:meth:`encode_ahead`) and stored by the next ticks
            (:meth:`after_tick`): a tick's recall never encodes thousands of memories under the
            write lock. None: everything, as ``agi memory search`` and ``agi ingest`` do.
        """
        self._embedded = self._spent = 0
        self._searched = True
        realigned = self._realign(self.index(progress, limit))
        index = realigned if realigned is not None else self._build(progress, limit)
        top = self.rows.max_seq()
        if top is not None and top > index.meta.max_seq:
            emb = self.embedder
            left = None if limit is None else max(0, limit - self._spent)  # a build may have spent some
            hole = self._embed(vectors.missing(self.rows, emb.name, index.meta.max_seq), progress, left)
            added = 0
            for seqs, vecs in vectors.read(self.rows, emb.name, emb.dim, index.meta.max_seq, below=hole):
                index.add(seqs, vecs, None)
                added += len(seqs)
            index.meta.mark(self._last_id(index.meta.max_seq))
            self._unsaved += added
            if index.needs_rebuild():
                self._build(limit=0 if limit is not None else None)
            elif self._unsaved >= SAVE_AFTER:
                self.save_index()
        return self._embedded

    def _embed(
        self, todo: list[tuple[int, int, str]], progress: Callable[[int], None] | None, limit: int | None
    ) -> int | None:
        """Store the vectors of ``todo`` (at most ``limit`` encoded here, none waited for when there are
        more: :func:`~.vectors.embed_some`); the seq of the first item left without one, or None."""
        emb = self.embedder
        if limit is None or len(todo) <= limit:
            self._embedded += vectors.embed_and_store(self.rows, emb, todo, progress, self.prefetch.take)
            self.prefetch.clear()  # what it still holds is for items that are gone or have a vector
            self._spent += len(todo)
            return None
        stored, spent, hole = vectors.embed_some(self.rows, emb, todo, limit, self.prefetch.done, self.prefetch.busy)
        self._embedded += stored
        self._spent += spent
        if progress is not None and stored:
            progress(stored)
        return hole

    # -- between ticks -----------------------------------------------------------------
    def after_tick(self, store: MemoryBackend) -> None:
        """The kernel's last step of a tick, in its transaction: mirror the tick's episodes when at most
        :data:`~agi_core.longterm.episodes.TICK_MIRROR_LIMIT` are waiting (a larger backlog, ticks made while
        long-term memory was closed or by another process, is mirrored before the next tick, outside it:
        :meth:`before_tick`), and store the vectors the background encoder finished for batches no later item
        can join (:mod:`.prefetch`), if their rows still hold those texts (another process may have rolled
        them back, and their seqs gone to others)."""
        from agi_core.longterm import episodes

        if episodes.waiting(store) <= episodes.TICK_MIRROR_LIMIT:
            episodes.mirror_episodes(store, self)
        self.store_finished()
        self._tick_spent = 0  # the next tick's recalls have the whole tick_encode_limit again

    def before_tick(self, store: MemoryBackend, reseal: Callable[[], None]) -> int:
        """Mirror the episodes waiting, before a tick takes the write lock: transactions of their own of at most
        :data:`~agi_core.longterm.episodes.MIRROR_CHUNK` episodes (:func:`~.episodes.mirror_between_ticks`), so
        a recall in the tick finds them mirrored and another writer waits at most one chunk. The mirror moves
        its progress row outside a tick: ``reseal`` is called when the seal was at the head tick. Returns how
        many episodes were read. The caller does not call it while a transaction is held open for the tick."""
        from agi_core.errors import BackendUnavailable, DatabaseLocked
        from agi_core.longterm import episodes
        from agi_core.seal import SEAL, parse_seal

        try:
            read = episodes.mirror_between_ticks(store, self)
        except (DatabaseLocked, BackendUnavailable):  # the tick waits for the lock or the server; its recall mirrors
            return 0
        seal = store.meta_get(SEAL) if read else None
        if seal is not None and parse_seal(seal)[0] == int(store.meta_get("tick", "0") or 0):
            reseal()
        return read

    def store_finished(self) -> None:
        """Store the vectors the background encoder finished for batches no later item can join, in
        the caller's transaction (or the write lock of their own), if their rows still hold those texts."""
        for batch, found in self.prefetch.finished():
            now = self.items([seq for seq, _ in batch])
            if all(seq in now and now[seq].embedding_text() == text for seq, text in batch):  # not rolled back since
                self.rows.put_vectors(
                    self.embedder.name, ((seq, found[i].tobytes()) for i, (seq, _) in enumerate(batch))
                )

    def encode_ahead(self) -> None:
        """Hand the items without a vector to the background encoder, in the batches a catch-up
        would encode (the kernel calls it after a tick commits; :mod:`.prefetch`).

        Nothing is handed before the first catch-up (a memory that is never searched, such as one
        opened by a rollback, never loads a model) or when :attr:`prefetching` is False. It never
        raises: whatever fails here (the embedder cannot be built, the database is away) is left
        to the catch-up, which encodes what was not handed.
        """
        if not self.prefetching or not self._searched or self._index is None:
            return
        try:
            emb = self.embedder
            seq, id = self.prefetch.mark
            start = seq if seq and self._last_id(seq) == id else self._index.meta.max_seq
            listed = vectors.batches(vectors.missing(self.rows, emb.name, start))
            self.prefetch.hand(emb, listed)
            if len(listed) > 1:
                last = listed[-2][-1][0]
                self.prefetch.mark = (last, self._last_id(last))
        except Exception:  # noqa: BLE001 - the tick has committed; the catch-up reports what is wrong
            return

    def save_index(self) -> None:
        """Write the index file beside the database (no-op without ``index_dir``)."""
        if self._index is not None and self.index_dir is not None:
            self._index.save(self.index_dir)
            self._unsaved = 0

    # -- search ----------------------------------------------------------------------
    def search(
        self, query: str, k: int = 10, *, mode: str | RankWeights | None = None, limit: int | None = None
    ) -> list[Hit]:
        """The ``k`` best memories for ``query``, best first, each with its score breakdown (the catch-up
        before it encodes at most ``limit`` items, see :meth:`catch_up`)."""
        return self.search_many([query], k, mode=mode, limit=limit)[0]

    def search_many(
        self,
        queries: Sequence[str],
        k: int = 10,
        *,
        mode: str | RankWeights | None = None,
        limit: int | None = None,
    ) -> list[list[Hit]]:
        """:meth:`search` for many queries at once (one batched encode, one batched faiss search)."""
        weights = self.weights if mode is None else weights_for(mode)
        if weights.uses_dense or weights.neighbour:
            self.catch_up(limit=limit)
        return Searcher(self, weights).run(queries, k)

    def recall(self, query: str, k: int, mode: str | RankWeights | None = None) -> list[Hit]:
        """:meth:`search` for a tick, under its write lock: the tick's catch-ups together encode at most
        :attr:`tick_encode_limit` items (the hits depend on how far the background came, so the
        kernel records them: the external ``ltm_recall``)."""
        if self.tick_encode_limit is None:
            return self.search(query, k, mode=mode)
        self._spent = 0  # a ranking without vectors catches nothing up
        try:
            return self.search(query, k, mode=mode, limit=max(0, self.tick_encode_limit - self._tick_spent))
        finally:
            self._tick_spent += self._spent

    def working_memory(self, recent_turns: Sequence[MemoryItem | str], query: str, k: int = 10) -> WorkingMemory:
        """Recent turns plus the ``k`` best long-term memories for ``query`` not already among
        them; see :func:`agi_core.longterm.working.working_memory`."""
        from agi_core.longterm.working import working_memory

        return working_memory(self, recent_turns, query, k)

    # -- rollback and shutdown -------------------------------------------------------
    def restore_to(self, tick: int) -> int:
        """Drop memories stored after ``tick`` and bring the index back in line; returns how many.

        Also repairs an index whose items the kernel already removed from SQLite (the
        ``agi_restore_checkpoint`` hook runs after the stores were restored).
        """
        removed = self.rows.delete_after(tick)
        self._speakers = None
        self.prefetch.clear()  # a batch's seqs may come back with other texts
        has_file = self.index_dir is not None and VectorIndex.paths(self.index_dir, self.embedder.name)[0].exists()
        if self._index is None and not has_file:
            return removed
        if self._index is None:  # the file as saved: its removed rows are taken out below, not rebuilt
            self._index = self._load()
        index = self.index()
        labels = index.labels()
        labels = labels[labels >= 0]
        live = set(self.rows.vector_seqs(index.meta.model, index.meta.max_seq))
        stale = labels[~np.isin(labels, np.fromiter(live, dtype=np.int64, count=len(live)))]
        index.remove(stale)
        index.meta.mark(self._last_id(index.meta.max_seq))
        if not self._consistent(index) or index.needs_rebuild():
            self._build()
        self.save_index()
        return removed

    def close(self) -> None:
        """Stop the background encoder, save the index; commit and close the connection if :meth:`open` made it."""
        self.prefetch.close()
        self.save_index()
        if self._owns_conn:
            self.rows.close()  # type: ignore[attr-defined]  # a SqliteLtmRows made by open()


def _sqlite_rows(conn: Any) -> SqliteLtmRows:
    """The rows of a bare SQLite connection, its schema migrated first (never committed)."""
    from agi_core.longterm.schema import migrate

    migrate(conn)
    return SqliteLtmRows(conn)
