"""Embedding long-term memory for the memory page without holding the page lock.

The first search of an agent embeds every memory that has no vector yet: minutes of an
embedder's time on an agent of thousands of ticks. :class:`CatchUp` does that in a background
thread: the encodes run outside the inspector's lock, and only the listing (with the episodes
mirrored first, as ``agi memory search`` does) and the storing of each group of vectors take it,
so every other page keeps answering. A search then finds the vectors stored and only indexes them.

The encodes are the batches a catch-up would make (:func:`agi_core.longterm.vectors.batches`), so the
vectors are the ones the search would have computed itself. A group is stored only for items whose
rows still hold the texts that were encoded: another process may have rolled them back since, and
their seqs gone to other memories (those are left to the search's own catch-up).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from agi_core.longterm import vectors

#: Items encoded between two takings of the lock (each taking stores their vectors).
GROUP_ITEMS = 256
#: Seconds :meth:`CatchUp.stop` waits for the group being encoded (an embedder that never returns is left).
STOP_WAIT_S = 60.0


class CatchUp:
    """One background pass at a time over the items without a vector: ``done`` of ``total`` embedded so far.

    :param kernel: the inspector's open kernel.
    :param lock: the lock every page takes to use the kernel.
    """

    def __init__(self, kernel: Any, lock: AbstractContextManager[Any]) -> None:
        self.kernel = kernel
        self.lock = lock
        self.done = 0
        self.total = 0
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self._stopping = threading.Event()
        self._mark: tuple[int, str | None] = (0, None)  # (seq, id) of the last item a finished pass covered

    def ready(self, wait_s: float) -> bool:
        """Start a pass unless one runs, wait for it at most ``wait_s`` seconds; True when it has finished."""
        with self._start:
            if self._stopping.is_set():
                return False
            if self._thread is None or not self._thread.is_alive():
                self.done = self.total = 0
                self._thread = threading.Thread(target=self._run, name="agi-inspector-embed", daemon=True)
                self._thread.start()
            thread = self._thread
        thread.join(wait_s)
        return not thread.is_alive()

    def stop(self) -> None:
        """End the pass after the group it is encoding, and wait for it (the server is stopping: a thread left
        in the embedder's native code as the interpreter exits aborts the process)."""
        with self._start:
            self._stopping.set()
            thread = self._thread
        if thread is not None:
            thread.join(STOP_WAIT_S)

    def _run(self) -> None:
        try:
            self._pass()
        except Exception:  # noqa: BLE001 - the search's own catch-up meets it again and reports it
            return

    def _pass(self) -> None:
        with self.lock:
            memory = self.kernel.long_term_memory()  # the episodes mirrored into long-term memory first
        embedder = memory.embedder  # built outside the lock: loading the model takes seconds
        with self.lock:
            seq, id = self._mark
            start = seq if seq and memory.rows.item_id(seq) == id else 0  # a rollback since: list from the start
            todo = vectors.missing(memory.rows, embedder.name, start)
        self.total = len(todo)
        for group in _groups(vectors.batches(todo)):
            if self._stopping.is_set():
                return  # the next pass lists what this one did not store
            found = [vectors.encode(embedder, batch) for batch in group]  # outside the lock
            with self.lock:
                self._store(memory, embedder.name, group, found)
            self.done += sum(len(batch) for batch in group)
        if todo:
            last = todo[-1][0]
            with self.lock:
                self._mark = (last, memory.rows.item_id(last))

    @staticmethod
    def _store(memory: Any, model: str, group: list[vectors.Batch], found: list[Any]) -> None:
        """Store the vectors of the batches whose items still hold the texts encoded."""
        now = memory.items([seq for batch in group for seq, _ in batch])
        rows = [
            (seq, batch_vectors[i].tobytes())
            for batch, batch_vectors in zip(group, found, strict=True)
            if all(seq in now and now[seq].embedding_text() == text for seq, text in batch)
            for i, (seq, _) in enumerate(batch)
        ]
        if rows:
            memory.rows.put_vectors(model, rows)


def _groups(batches: list[vectors.Batch], items: int = GROUP_ITEMS) -> Iterator[list[vectors.Batch]]:
    """``batches`` in runs of about ``items`` items (a batch is never split)."""
    group: list[vectors.Batch] = []
    size = 0
    for batch in batches:
        group.append(batch)
        size += len(batch)
        if size >= items:
            yield group
            group, size = [], 0
    if group:
        yield group
