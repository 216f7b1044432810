"""How the kernel's ticks share durable points: a :meth:`~CommitBatching.group_commit` block (one sync, or
one transaction, for several ticks) and :meth:`~CommitBatching.held_batches` (a fetched batch of messages is
one transaction) (docs/messaging.md). A part of :class:`~agi_core.kernel.core.Kernel`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from agi_core.errors import StorageError
from agi_core.memory.backend import GroupCommit, MemoryBackend
from agi_core.messaging.mailbox import Mailbox


class CommitBatching:
    """The kernel's commit batching; :class:`~agi_core.kernel.core.Kernel` sets these attributes."""

    store: MemoryBackend
    mailbox: Mailbox | None
    grouped: bool  # inside group_commit(): ticks commit without waiting for the disk
    batches_held: bool  # inside held_batches(): a fetched batch of messages is one transaction
    _holds: bool  # the store is a HeldBatch: its ticks may share one held transaction

    @contextlib.contextmanager
    def group_commit(self) -> Iterator[None]:
        """Run several ticks with one durable point: each tick inside commits without waiting for the disk,
        and leaving the block makes them all durable (one fsync) before the messages they received are
        acknowledged and those they sent are published, all at once (docs/messaging.md). On a store that
        can (:class:`~agi_core.memory.backend.HeldBatch`: SQLite) the block is one transaction, committed
        when it is left: a kill inside it stores none of its ticks. A tick that raises inside it is undone
        alone (a savepoint); if the transaction itself is lost (a full disk), leaving the block raises
        :class:`~agi_core.errors.StorageError`.

        A tick that records a write/external intent is made durable before its tool runs. What the
        ticks inside return is durable once the block is left: show it to anyone only then. On a store
        without :class:`~agi_core.memory.backend.GroupCommit`, or nested, the ticks commit as usual.
        """
        if self.grouped or not isinstance(self.store, GroupCommit):
            yield
            return
        lost = self.store.lost if self._holds else 0  # type: ignore[attr-defined]
        self.grouped = True
        try:
            yield
        finally:
            self.grouped = False
            self.store.sync()  # every tick of the group durable (even one whose after-commit work raised) …
            if self.mailbox is not None:
                self.mailbox.settle(synced=True)  # … before their messages are acknowledged and published
        if self._holds and self.store.lost != lost:  # type: ignore[attr-defined]
            raise StorageError(
                "the transaction of a Kernel.group_commit() block was lost (its commit, or a tick in it, failed "
                "in the database): nothing the block returned before that error is stored; run those inputs again"
            )

    @contextlib.contextmanager
    def held_batches(self) -> Iterator[None]:
        """For a caller that ticks back to back (``agi run``, the follow loop): inside this block a fetched
        batch of messages is one transaction, held open from one tick to the next and committed by its last
        (on a :class:`~agi_core.memory.backend.HeldBatch` store: SQLite; docs/messaging.md). Another process's
        write waits for the batch, so a caller that pauses between ticks stays outside (each tick commits); a
        batch still held when the block is left is committed then (:meth:`settle`)."""
        outer, self.batches_held = self.batches_held, True
        try:
            yield
        finally:
            self.batches_held = outer
            if not outer and self.holding:
                self.settle()

    @property
    def holding(self) -> bool:
        """True while the last ticks sit in a transaction not yet committed: a fetched batch of messages is one
        transaction, committed by its last tick, and so is a :meth:`group_commit` block (docs/messaging.md). A
        kill before that undoes them (messages come again): show what they returned once this is False
        (``agi run`` waits), or call :meth:`settle`."""
        return self._holds and self.store.holding  # type: ignore[attr-defined]

    def settle(self) -> None:
        """Commit the ticks held so far (:attr:`holding`) and make them durable; the messages they took are then
        acknowledged and those they sent published."""
        if self.mailbox is not None:
            self.mailbox.settle()
        elif self._holds:
            self.store.sync()  # type: ignore[attr-defined]  # (a HeldBatch store is a GroupCommit store)
