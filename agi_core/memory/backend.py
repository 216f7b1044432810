"""The ``MemoryBackend`` protocol: everything an agent stores, and the tick as its transaction.

A memory backend is a plugin (hook ``agi_register_memory_backends``): a factory
``(path, *, synchronous, lock_timeout_s) -> MemoryBackend``. SQLite
(:class:`agi_core.memory.sqlite_store.SqliteStore`) is the embedded default. The kernel and
everything around it (checkpoints, replay, verify, RLM state, long-term memory, jobs) talk to
the backend through these protocols only; no SQL runs outside ``agi_core/memory/`` and the
backends' own packages. :mod:`agi_core.testing.conformance` is the executable definition of a
correct backend: ``pytest --agi-backend=NAME``.

Rules every method follows (the conformance suite checks them):

* **Transactions.** Every write happens inside :meth:`Transactions.tick_transaction` (or
  :meth:`Transactions.write_block`). When the block raises, *nothing* it wrote is kept,
  in any store below (facts, episodes, working, journal, meta, blobs, intents, jobs, RLM
  rows, LTM rows, module state, goals, tick timings, checkpoint rows). Reads see the caller's own
  uncommitted writes. Writers of any number of processes serialize on one agent: a
  transaction that waits longer than ``lock_timeout_s`` raises
  :class:`~agi_core.errors.DatabaseLocked`.
* **Ordering.** Lists come back in a defined order (stated per method), never in storage order.
* **Errors.** Bad input raises an :class:`~agi_core.errors.AgiError` subclass with a one-line
  message naming the problem and the fix (:class:`~agi_core.errors.MemoryKeyError` for a key,
  :class:`~agi_core.errors.ValidationError` for NaN/infinity, :class:`~agi_core.errors.StorageError`
  for anything the store cannot keep) and stores nothing. Lone surrogates in text are stored
  as U+FFFD; stored bytes that are not UTF-8 read back with U+FFFD, never an exception.
* **Limits.** Fact keys are canonical (``^[a-z0-9_/]+$``) and at most
  :data:`~agi_core.memory.keys.MAX_KEY_CHARS` characters. Strings of
  :data:`~agi_core.memory.blobs.BLOB_THRESHOLD` characters or more are stored once, as
  content-addressed blobs, and read back whole.
* **Derived state.** The faiss index of long-term memory is *not* stored here: it is rebuilt
  from :class:`LtmRows` on any backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

from agi_core.errors import AgiError

if TYPE_CHECKING:
    from agi_core.journal_key import JournalKey
    from agi_core.model import EpisodicEntry, SemanticEntry, SemanticRead, WorkingMemory

JournalRow = tuple[int, str, str, str]  # (tick, record id, stored record JSON text, chain link)
ArchivedRow = tuple[str, int, str, str, str]  # (rollback id, tick, record id, stored record text, chain link)
EpisodeRow = tuple[int, int, str, str, str]  # (seq, tick, stored event text, stored context JSON, timestamp)


class CheckpointError(AgiError):
    """A checkpoint name is invalid, unknown or already taken, or its file is damaged."""


@attrs.frozen
class CheckpointInfo:
    """One whole-agent checkpoint: its name, the tick it holds, and the backend's own reference
    to the snapshot (a file name for SQLite, a schema or version id for a server)."""

    name: str
    tick: int
    file: str


@attrs.frozen
class RollbackReport:
    name: str
    tick: int
    archived_ticks: int
    rollback_id: str


class Transactions(Protocol):
    """The transaction boundary of a tick, and what a cache needs to stay valid."""

    name: str  # the name the backend is registered under ("sqlite", "postgresql" …)
    path: Path  # where the agent's side files live: <path>.key, <path>.ltm/, <path>.state/, <path>.checkpoints/

    def tick_transaction(self) -> AbstractContextManager[None]:
        """One write transaction: everything written inside is committed at the end, or nothing
        if the block raises (the exception propagates). Takes the agent's write lock at entry,
        before the first read, so two writers never interleave; waits at most ``lock_timeout_s``,
        then raises :class:`~agi_core.errors.DatabaseLocked`. Not reentrant."""
        ...

    def write_block(self) -> AbstractContextManager[None]:
        """Inside the caller's transaction if one is open, else a :meth:`tick_transaction` of its own."""
        ...

    def read_snapshot(self) -> AbstractContextManager[None]:
        """Reads inside see one consistent state (no other writer's commit appears midway);
        inside an open transaction it adds nothing. Writes nothing."""
        ...

    def savepoint(self, name: str) -> AbstractContextManager[None]:
        """A nested step inside the open transaction that can fail alone: if the block raises,
        only its writes are undone (the exception propagates) and the transaction goes on.
        ``name`` is an identifier (``[a-z_]+``). Never commits."""
        ...

    def data_version(self) -> int:
        """A number that changes when *another* connection or process commits to this agent (not
        this one): a kernel re-reads its caches when it differs from the value it last saw."""
        ...

    def close(self) -> None:
        """Release the connection(s); an open transaction is rolled back. Idempotent."""
        ...


class MetaStore(Protocol):
    """String key/value settings of the agent (tick, counter, seed, journal head, seal …)."""

    def meta_get(self, key: str, default: str | None = None) -> str | None: ...

    def meta_set(self, key: str, value: str) -> None: ...

    def meta_update(self, values: dict[str, str]) -> None:
        """Set every pair (last write wins per key)."""
        ...

    def meta_items(self, prefix: str = "") -> list[tuple[str, str]]:
        """Every ``(key, value)`` whose key starts with ``prefix`` (all by default), in key order."""
        ...

    def meta_delete(self, key: str) -> bool:
        """Remove ``key``; False when it was not there."""
        ...


class FactStore(Protocol):
    """Semantic memory: facts under canonical keys, last validated write wins."""

    def sem_read(self, key: str) -> SemanticRead:
        """``{exists, value, last_updated}``; a miss is ``exists=False`` and nothing else.
        An invalid key raises :class:`~agi_core.errors.MemoryKeyError`."""
        ...

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        """Store ``entry`` unless the stored fact has a *newer* ``updated_at`` (equal: the new one
        wins); True if written. Invalid key: :class:`~agi_core.errors.MemoryKeyError`; NaN or
        infinity anywhere in the value: :class:`~agi_core.errors.ValidationError`; a value that is
        not JSON: :class:`~agi_core.errors.StorageError`. Nothing is stored when it raises."""
        ...

    def facts(self, prefix: str = "", limit: int | None = None) -> list[SemanticEntry]:
        """Facts whose key starts with ``prefix``, in key order (code point order), at most ``limit``."""
        ...


class EpisodeStore(Protocol):
    """Episodic memory: an append-only log of events, numbered by ``seq`` in insertion order."""

    def add_episodes(self, entries: list[EpisodicEntry], tick: int) -> None:
        """Append ``entries`` in order, all tagged with ``tick``; ``seq`` increases by one each."""
        ...

    def episodes(
        self, limit: int | None = None, *, newest_first: bool = False, user_inputs: bool = False
    ) -> list[EpisodicEntry]:
        """Episodes in insertion order (or reversed), at most ``limit``; with ``user_inputs`` only the
        user's inputs (context ``kind`` input, ``source`` user), however many other episodes lie between."""
        ...

    def episode_rows(self, after_seq: int = 0, limit: int | None = None) -> list[EpisodeRow]:
        """Raw rows with ``seq > after_seq``, in seq order (event and context as stored; see BlobStore); with
        ``limit``, the first ``limit`` of them only (a keyset read: the next page starts after the last seq)."""
        ...

    def last_episode_seq(self) -> int:
        """The highest ``seq`` stored, 0 when none."""
        ...

    def episode_ticks(self) -> list[tuple[int, int]]:
        """``(tick, number of episodes)`` for every tick that has episodes, in tick order."""
        ...


class WorkingStore(Protocol):
    """Working memory: one bounded value, replaced whole."""

    def working(self) -> WorkingMemory:
        """The stored value, or an empty :class:`~agi_core.model.WorkingMemory`."""
        ...

    def set_working(self, memory: WorkingMemory) -> None: ...


class JournalStore(Protocol):
    """The tamper-evident journal and the archive of ticks undone by rollbacks.

    Rows are stored and returned byte-for-byte as given: the HMAC chain covers the exact text.
    """

    def append_journal(self, tick: int, record_id: str, record_json: str, chain: str) -> None:
        """Append the record of ``tick``; a tick already stored raises (never overwritten)."""
        ...

    def journal_rows(self, since: int = 0) -> Iterator[JournalRow]:
        """Rows with ``tick > since`` in tick order; the query runs at the call (a caller that
        stops early leaves nothing running)."""
        ...

    def archived_rows(self) -> Iterator[ArchivedRow]:
        """Undone ticks, ordered by rollback id then tick."""
        ...

    def last_chain(self) -> str:
        """The chain link of the newest record, ``""`` when the journal is empty."""
        ...

    def journal_extent(self) -> tuple[int, int]:
        """``(number of records, highest tick)``; ``(0, 0)`` when empty."""
        ...


class BlobStore(Protocol):
    """Content-addressed large strings (sha256 hex of the UTF-8 bytes -> the bytes)."""

    def put_blob(self, hex_digest: str, data: bytes) -> None:
        """Store once; storing the same digest again changes nothing."""
        ...

    def get_blob(self, hex_digest: str) -> str:
        """The text; a missing blob raises :class:`~agi_core.errors.StorageError`."""
        ...

    def blob_items(self) -> Iterator[tuple[str, bytes]]:
        """Every ``(digest, bytes)`` as stored (verify re-hashes them), in digest order."""
        ...

    def store_text(self, text: str) -> str:
        """``text``, or its blob reference when it is large (the blob is written now)."""
        ...

    def load_text(self, text: str) -> str: ...

    def store_json(self, data: object) -> str:
        """Canonical JSON of ``data``, large strings as blob references."""
        ...

    def store_record(self, data: dict[str, Any]) -> str:
        """A journal record's stored text (canonical JSON, large strings as blob references)."""
        ...

    def load_json(self, text: str) -> Any:
        """Stored JSON text back as data, blob references resolved."""
        ...


class MessageStore(Protocol):
    """Agent-to-agent messages: received ids (unique) and sent messages, in their ticks' transactions."""

    def inbox_add(self, message_id: str, tick: int, sender: str, conversation: str) -> bool:
        """Record a received message's id; False (nothing written) when the id is there already."""
        ...

    def inbox_has(self, message_id: str) -> bool: ...

    def inbox_known(self, message_ids: list[str]) -> set[str]:
        """The ids of ``message_ids`` the inbox holds (a fetched batch's duplicates, in one query)."""
        ...

    def outbox_add(self, message_id: str, tick: int, recipient: str, message_json: str) -> None: ...

    def outbox_unpublished(self, through_tick: int | None = None) -> list[str]:
        """The JSON of sent messages not yet published, in tick order (only those of ticks up to ``through_tick``)."""
        ...

    def outbox_published(self, *message_ids: str) -> None:
        """Mark the sent messages ``message_ids`` published (a flush's rows: one statement where it can)."""
        ...

    def outbox_message(self, message_id: str) -> str | None:
        """The JSON of the sent message ``message_id`` (published or not); None when none has that id
        (the message box reads the question a reply answers)."""
        ...


@runtime_checkable
class GroupCommit(Protocol):
    """Optional: commits that need not each wait for the disk (the message box takes a fetched batch of
    messages in ticks committed this way, then one durable point, then acknowledges them all)."""

    def lazy_commit(self) -> None:
        """The next :meth:`Transactions.tick_transaction` may commit without waiting for the disk: it survives
        a crash of the process, and a power loss once a later durable commit or :meth:`sync` has returned."""
        ...

    def sync(self) -> None:
        """Make every commit so far durable (what a durable commit would have done)."""
        ...


@runtime_checkable
class HeldBatch(Protocol):
    """Optional, beside :class:`GroupCommit`: several ticks in one transaction, held open from one to the next:
    a fetched batch of messages (their inputs come again if they are lost: a message is acknowledged only once
    its tick is durable), or a host's ``Kernel.group_commit`` block (each tick isolated by a savepoint)."""

    def hold(self, more: bool, *, isolated: bool = False) -> None:
        """The next tick joins the transaction the tick before it held open; with ``more`` it is held open in
        turn instead of committing. A tick that raises in it loses it all, unless ``isolated`` (then only that
        tick is undone). Any other transaction, :meth:`GroupCommit.sync` and closing commit it first."""
        ...

    def commit_held(self) -> None:
        """Commit the held transaction, if there is one (a failed commit loses it)."""
        ...

    @property
    def holding(self) -> bool:
        """True while a transaction is held open: the ticks in it are not committed yet."""
        ...

    @property
    def lost(self) -> int:
        """How many held transactions were rolled back (a tick in one raised, or its commit failed): their
        ticks are gone, and the messages they took must be ticked again."""
        ...


@runtime_checkable
class BackgroundSync(Protocol):
    """Optional, beside :class:`GroupCommit`: a sync that may run on another thread while the store's
    connection goes on (the message box makes a batch durable while it ticks the next one)."""

    def sync_log(self) -> None:
        """Make every commit that returned before this call durable; safe on any thread."""
        ...


class IntentStore(Protocol):
    """Write/external tool calls committed before they run, and their receipts."""

    def intent_add(self, tick: int, tool: str, args_json: str) -> None: ...

    def intent_receipt(self, tick: int, receipt_tick: int) -> None: ...

    def intents(self, *, pending_only: bool = False) -> list[tuple[int, str, dict[str, Any], int | None]]:
        """``(tick, tool, args, receipt_tick)`` in tick order; only those without a receipt if asked."""
        ...


class JobStore(Protocol):
    """Scheduled jobs (:mod:`agi_core.scheduling.jobs`) as dicts with the fields of ``jobs_table.COLUMNS``."""

    def all_jobs(self) -> list[dict[str, Any]]:
        """Every job, in name order."""
        ...

    def get_job(self, name: str) -> dict[str, Any] | None: ...

    def put_job(self, job: dict[str, Any]) -> None:
        """Insert or replace the job named ``job["name"]``."""
        ...

    def delete_job(self, name: str) -> bool:
        """True if a job was deleted."""
        ...

    def earliest_due(self, now_ms: int) -> dict[str, Any] | None:
        """The job due soonest among those with ``next_due_ms <= now_ms`` (ties by name)."""
        ...


class SealStore(Protocol):
    """The keyed state seal (:mod:`agi_core.seal`): tampering with stored rows is detected."""

    def seal(self, key: JournalKey) -> None:
        """Bring the seal up to the stored tick; call inside a write transaction. An edited seal is
        never re-sealed over."""
        ...

    def read_seal(self) -> tuple[int, int, str] | None:
        """``(tick, digest, mac)`` of the stored seal, or None."""
        ...

    def seal_problems(self, key: JournalKey, head_tick: int) -> list[str]:
        """One line per row added, changed or deleted outside the journal, naming table and key."""
        ...


class CheckpointStore(Protocol):
    """Whole-agent snapshots and rollback.

    A checkpoint holds *every* store above (facts, episodes, working, journal position, meta,
    intents, jobs, RLM rows, LTM rows, module state, goals, tick timings) as of the last committed tick.
    Rollback restores all of them in one transaction (all or nothing), appends the undone
    journal rows to the archive, and keeps: the checkpoint list, the archive, blobs, and the
    journal key's meta rows.
    """

    def checkpoint_create(self, name: str, key: JournalKey) -> CheckpointInfo:
        """Snapshot the agent; its row appears only once the snapshot is complete. A taken name
        raises :class:`CheckpointError`; a storage failure leaves no checkpoint and raises
        :class:`~agi_core.errors.StorageError`."""
        ...

    def checkpoint_list(self) -> list[CheckpointInfo]:
        """Every checkpoint, oldest first."""
        ...

    def checkpoint_rollback(self, name: str, key: JournalKey, rollback_id: Callable[[int, int], str]) -> RollbackReport:
        """Restore checkpoint ``name`` after checking its integrity (a damaged or edited one raises
        :class:`CheckpointError`, the agent unchanged). ``rollback_id(live_tick, archived_rows)``
        names the rollback in the archive."""
        ...

    def checkpoint_prune(self, keep: int) -> list[str]:
        """Delete the oldest checkpoints beyond ``keep``; returns their names."""
        ...

    def checkpoint_remove(self, name: str) -> CheckpointInfo:
        """Delete checkpoint ``name`` (an unknown name raises :class:`CheckpointError` naming the
        existing ones); the agent and the other checkpoints are unchanged, and a rollback to it
        racing with the removal is refused, the agent unchanged."""
        ...

    def checkpoint_problems(self, name: str, key: JournalKey) -> list[str]:
        """Integrity of one checkpoint (its checksum, its row's MAC, its sealed state)."""
        ...


class RlmRows(Protocol):
    """Rows of RLM state (:mod:`agi_core.state`): states, variables, mutations, checkpoints.

    Variable rows are dicts with the keys of ``agi_core.memory.row_layouts.VARIABLE_COLUMNS``. Every write
    runs inside the tick's transaction (or :meth:`atomic`)."""

    def atomic(self) -> AbstractContextManager[None]:
        """A savepoint in the caller's transaction (one is opened, uncommitted, if none is)."""
        ...

    def ready(self) -> bool:
        """True when the RLM tables exist."""
        ...

    def state_row(self, state_id: str) -> dict[str, Any] | None:
        """The state's row, ``{column: value}`` over ``row_layouts.STATE_COLUMNS`` (RLM state builds its
        ``StateInfo`` from it), or None."""
        ...

    def state_ids(self, parent: str | None = None) -> list[str]:
        """Every state (or the children of ``parent``), in creation order."""
        ...

    def insert_state(
        self,
        state_id: str,
        session_id: str | None,
        tree_id: str | None,
        parent_state_id: str | None,
        result_name: str | None,
        now: str,
    ) -> None: ...

    def set_completion(self, state_id: str, status: str) -> None: ...

    def touch_state(self, state_id: str, timestamp: str) -> None:
        """Count one mutation and set ``last_updated_at``."""
        ...

    def variables(
        self, namespace: str | None = None, *, owner: str | None = None, expiring: bool = False
    ) -> list[dict[str, Any]]:
        """Variable rows of ``namespace`` (or owned by ``owner``; only those with an expiry if
        ``expiring``), ordered by namespace then name."""
        ...

    def variable(self, namespace: str, name: str) -> dict[str, Any] | None: ...

    def count_variables(self, namespace: str) -> int: ...

    def put_variable(self, row: dict[str, Any]) -> None:
        """Insert or replace one full row."""
        ...

    def delete_variable(self, namespace: str, name: str) -> None: ...

    def count_access(self, namespace: str, name: str) -> None: ...

    def mutation_exists(self, state_id: str, mutation_id: str) -> bool: ...

    def add_mutation(self, state_id: str, values: Sequence[Any]) -> None:
        """Append ``(mutation_id, operation, variable_name, old, new, source, timestamp, metadata)``."""
        ...

    def prune_mutations(self, state_id: str, keep: int) -> int:
        """Keep the newest ``keep`` mutations of the state; returns how many went."""
        ...

    def mutations(self, state_id: str, limit: int | None = None) -> list[tuple[Any, ...]]:
        """At most ``limit`` of the state's mutations, newest first, as ``add_mutation`` stored them."""
        ...

    def checkpoint_count(self, state_id: str) -> int: ...

    def checkpoint_exists(self, checkpoint_id: str) -> bool: ...

    def add_checkpoint(self, values: Sequence[Any]) -> None:
        """``(checkpoint_id, state_id, name, description, timestamp, snapshot)``; numbered in order."""
        ...

    def checkpoint_row(self, state_id: str, checkpoint_id: str) -> tuple[Any, ...] | None:
        """``(checkpoint_id, state_id, name, timestamp, snapshot, description)``, or None."""
        ...

    def checkpoint_rows(self, state_id: str) -> list[tuple[Any, ...]]:
        """The state's checkpoints as :meth:`checkpoint_row` gives them, oldest first."""
        ...

    def delete_checkpoint(self, checkpoint_id: str) -> None: ...

    def restore_variables(self, state_id: str, rows: Iterable[dict[str, Any]], status: str) -> None:
        """Replace the state's own variables with ``rows`` and set its completion status."""
        ...


class LtmRows(Protocol):
    """Long-term memory rows (:mod:`agi_core.longterm`): items, their vectors, full-text search.

    Items are numbered by ``seq`` (never reused); ``seq`` is also the item's id in the derived
    faiss index. Item rows are tuples in ``agi_core.memory.row_layouts.ITEM_COLUMNS`` order."""

    def insert_items(self, rows: Sequence[tuple[Any, ...]]) -> int:
        """Insert ``(id, tick, kind, text, speaker, timestamp, session, importance, metadata)`` rows
        in order, ignoring ids already stored; returns how many were added."""
        ...

    def count(self) -> int: ...

    def item(self, id: str) -> tuple[Any, ...] | None: ...

    def items(self, seqs: Sequence[int]) -> list[tuple[Any, ...]]: ...

    def item_id(self, seq: int) -> str | None: ...

    def max_seq(self) -> int | None: ...

    def max_tick(self) -> int: ...

    def speakers(self) -> set[str]: ...

    def delete_after(self, tick: int) -> int:
        """Delete items (and their vectors) of ticks after ``tick``; returns how many."""
        ...

    def missing_vectors(self, model: str, after_seq: int = 0) -> list[tuple[int, int, str, str | None]]:
        """``(seq, tick, text, speaker)`` of items above ``after_seq`` without a ``model`` vector, in seq order."""
        ...

    def pending(self, model: str) -> int: ...

    def put_vectors(self, model: str, rows: Iterable[tuple[int, bytes]]) -> None:
        """Insert or replace float32 little-endian vectors, in their own write block."""
        ...

    def vector_chunks(self, model: str, after_seq: int, chunk: int) -> Iterator[list[tuple[int, bytes]]]:
        """Stored vectors above ``after_seq`` in seq order, ``chunk`` rows at a time."""
        ...

    def vectors_for(self, model: str, seqs: Sequence[int]) -> dict[int, bytes]: ...

    def vector_count(self, model: str, max_seq: int | None = None) -> int: ...

    def vector_seqs(self, model: str, max_seq: int) -> list[int]: ...

    def last_vector(self, model: str, at_most: int) -> tuple[int, str | None]: ...

    def full_text(self, terms: Sequence[str], limit: int) -> dict[int, float]:
        """``{seq: score}`` (higher is better, BM25) of the best ``limit`` items matching any of
        ``terms`` (lower-case words); a backend may leave out its most common terms to bound the
        work, and one without full-text search returns ``{}`` (ranking then uses vectors)."""
        ...


MAX_STATE_VALUE_BYTES = 4 * 1024 * 1024
"""The largest value (bytes of canonical JSON) a module may store under one key, unless the kernel is
configured otherwise (``KernelConfig.module_state_max_bytes``, ``--module-state-max``)."""


@runtime_checkable
class ModuleStateStore(Protocol):
    """Per-module, namespaced state (cognitive modules, migration ``m012_module_state``).

    Written in the tick's transaction, so checkpoints, rollback, replay and the seal cover it."""

    def module_state_get(self, module: str, key: str, default: Any = None) -> Any:
        """The JSON value stored under ``(module, key)`` (a stored null is None), or ``default`` when none is.
        (A backend without ``default`` still works; a module then reads its stored nulls as missing.)"""
        ...

    def module_state_put(self, module: str, key: str, value: Any, tick: int = 0, *, text: str | None = None) -> None:
        """Last write wins; ``value`` is JSON (NaN raises :class:`~agi_core.errors.ValidationError`);
        ``tick`` is the tick that wrote it; ``text``, when given, is ``value``'s canonical JSON already made
        (the module runner serializes a value once)."""
        ...

    def module_state_delete(self, module: str, key: str) -> bool:
        """Remove ``(module, key)``; False if it was not stored."""
        ...

    def module_state_items(self, module: str) -> list[tuple[str, Any]]:
        """Every ``(key, value)`` of the module, in key order."""
        ...

    def module_state_sizes(self) -> dict[str, tuple[int, int]]:
        """``{module: (keys, bytes of canonical JSON)}`` of every module with state (``agi modules``)."""
        ...


@runtime_checkable
class GoalStore(Protocol):
    """The goal DAG (migration ``m013_goals``): goals as dicts with a string ``id``."""

    def goals(self) -> list[dict[str, Any]]:
        """Every goal (the fields of ``goals_table.COLUMNS``), in the order they were first put."""
        ...

    def goal(self, goal_id: str) -> dict[str, Any] | None:
        """The goal ``goal_id``, or None: one indexed read."""
        ...

    def goal_child_progress(self, parent: str) -> list[tuple[str, float]]:
        """``(status, progress)`` of each goal whose ``parent`` is ``parent``, in the order they were first put:
        one indexed read."""
        ...

    def goal_ancestors(self, goal_id: str) -> list[dict[str, Any]]:
        """The goal's parent, that goal's parent, … up to a goal without one, nearest first, in one query;
        an id met twice (a cycle stored outside the goal commands) or a missing parent ends the chain."""
        ...

    def goals_ranked(self, status: str, limit: int | None = None) -> list[dict[str, Any]]:
        """The goals with ``status``, highest ``priority`` first, then in the order they were first put."""
        ...

    def goal_counts(self) -> dict[str, int]:
        """``{status: number of goals}``, statuses with no goal left out."""
        ...

    def goal_titles(self, statuses: tuple[str, ...]) -> list[tuple[str, str]]:
        """``(id, description)`` of the goals with one of ``statuses``, in the order they were first put."""
        ...

    def put_goal(self, goal: dict[str, Any]) -> None:
        """Insert, or update by ``goal["id"]`` keeping its place in the order."""
        ...

    def delete_goal(self, goal_id: str) -> bool: ...


@runtime_checkable
class TickTimingStore(Protocol):
    """How long each tick took, in microseconds (migration ``m016_tick_timings``): a measurement, never an input.

    Written in the tick's transaction, so a tick that fails leaves none and a rollback drops those of
    the ticks it undoes; exported and imported with the agent. Not part of the journal record, the
    state seal or what replay compares (a replay measures its own ticks in its scratch copy)."""

    def tick_timing_put(self, tick: int, duration_us: int) -> None:
        """Record that ``tick`` took ``duration_us`` microseconds (last write wins); a duration that is not a
        non-negative integer raises :class:`~agi_core.errors.ValidationError` and stores nothing."""
        ...

    def tick_timings(self, first: int, last: int) -> dict[int, int]:
        """``{tick: duration_us}`` of the ticks from ``first`` to ``last`` (both included) that have one."""
        ...


@runtime_checkable
class RawRows(Protocol):
    """Every table's rows exactly as stored, for ``agi export`` / ``agi import`` (:mod:`agi_core.memory.transfer`)."""

    def table_names(self) -> set[str]:
        """The tables this backend holds (an export lists only those of ``transfer.TABLES``)."""
        ...

    def dump_table(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """``(columns, rows)`` of ``table`` as stored (bytes as ``bytes``), in primary-key order."""
        ...

    def load_table(self, table: str, columns: list[str], rows: list[list[Any]]) -> None:
        """Insert ``rows`` inside the caller's transaction (meta rows replace existing ones); a column
        this backend lacks raises :class:`~agi_core.errors.StorageError`."""
        ...


@runtime_checkable
class CheckpointTransfer(Protocol):
    """A checkpoint moved by ``agi export`` / ``agi import``: the journal's archive point's (``agi journal
    archive``, whose replay starts from that checkpoint's state); a replay from a checkpoint whose copy is no
    file is built from its rows too. SQLite and PostgreSQL have it; a backend without it gets an archived agent
    that verifies but does not replay (the conformance suite's ``lacks``: ``"checkpoint transfer"``)."""

    def checkpoint_rows(self, name: str, key: JournalKey) -> AbstractContextManager[RawRows]:
        """Checkpoint ``name``'s snapshot as raw rows (read only), after checking its integrity (a damaged or
        edited one raises :class:`CheckpointError`)."""
        ...

    def checkpoint_load(
        self, name: str, tick: int, tables: Iterable[tuple[str, list[str], list[list[Any]]]], key: JournalKey
    ) -> CheckpointInfo:
        """Create checkpoint ``name`` of tick ``tick`` from ``tables`` (as :meth:`checkpoint_rows` gave them),
        sealed with ``key``; its row is inserted in the caller's transaction, so it commits with the caller's
        import or not at all. Rows that do not hold tick ``tick`` raise :class:`CheckpointError`."""
        ...


class MemoryBackend(
    Transactions,
    MetaStore,
    FactStore,
    EpisodeStore,
    WorkingStore,
    JournalStore,
    BlobStore,
    IntentStore,
    MessageStore,
    JobStore,
    GoalStore,
    ModuleStateStore,
    TickTimingStore,
    SealStore,
    CheckpointStore,
    Protocol,
):
    """Everything the kernel stores, one agent per instance.

    The RLM and long-term rows are reached through :meth:`rlm_rows` and :meth:`ltm_rows`.
    The kernel still checks ``isinstance(backend, ModuleStateStore)`` / ``GoalStore`` / ``TickTimingStore`` before
    using those parts, so a partial backend runs (without modules' state or tick timings, refusing goals); the
    conformance suite fails it unless its conformance class declares the part in ``lacks``.
    """

    def rlm_rows(self) -> RlmRows:
        """The RLM state rows, in this backend's transactions."""
        ...

    def ltm_rows(self) -> LtmRows:
        """The long-term memory rows, in this backend's transactions."""
        ...


BackendFactory = Callable[..., MemoryBackend]  # (path, *, synchronous="FULL", lock_timeout_s=30.0)
