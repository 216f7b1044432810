"""The embedded SQLite backend (a :class:`~agi_core.memory.backend.MemoryBackend`): one file per agent.

Semantic facts, episodes, working memory, journal, meta, blobs, intents and jobs are here;
the seal, checkpoints, RLM rows and long-term memory rows in :mod:`agi_core.memory.sqlite`.
The kernel runs each tick inside :meth:`SqliteStore.tick_transaction`; every write happens
inside it, so a tick is stored entirely or not at all. Hot-path statements are constant SQL
strings, which sqlite3 keeps prepared in its statement cache.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from agi_core.errors import StorageError, database_problem, os_problem
from agi_core.faults import fault_point
from agi_core.inputs import clean_text, preview
from agi_core.memory import blobs, goals_table, jobs_table, module_state_table
from agi_core.memory import tick_timings as timings_table
from agi_core.memory.backend import CheckpointInfo, RawRows, RollbackReport
from agi_core.memory.keys import check_key
from agi_core.memory.locking import (
    DEFAULT_LOCK_TIMEOUT_S,
    begin_immediate,
    connect,
    data_version,
    is_lock_error,
    lock_error,
    write_block,
    write_transaction,
)
from agi_core.memory.migrations import migrate, refuse_other_programs_database
from agi_core.memory.savepoint import savepoint
from agi_core.memory.sqlite import blob_collect, checkpoint_transfer, checkpoints, raw_rows, seal
from agi_core.memory.sqlite.ltm_rows import SqliteLtmRows
from agi_core.memory.sqlite.rlm_rows import SqliteRlmRows
from agi_core.memory.stored_text import StoredText
from agi_core.memory.user_inputs import USER_INPUT_LIKE, is_user_input
from agi_core.model import EpisodicEntry, SemanticEntry, SemanticRead, WorkingMemory
from agi_core.serialization import dumps, from_data, to_data

if TYPE_CHECKING:
    from agi_core.journal_key import JournalKey


SQLITE_MIN_BYTES = 512  # the smallest page: a database file holds none (0 bytes) or at least one
WAL_SIZE_LIMIT = 64 * 2**20  # the -wal file is cut back to this once checkpointed (PRAGMA journal_size_limit)


def _refuse_other_file(path: Path) -> None:
    """Raise (the line SQLite's own refusal gets) for a file that is there, not empty, and too short to be a
    database: SQLite takes a one-byte file for an empty database and writes over it (it refuses longer files
    that are not databases itself). Only the file's size is read: opening and closing the file would drop
    every POSIX lock this process's other connections hold on it (SQLite's own warning), and another process
    could then reset the write-ahead log under them."""
    try:
        size = path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):
        return
    if 0 < size < SQLITE_MIN_BYTES:
        raise sqlite3.DatabaseError("file is not a database")


class SqliteStore(StoredText):
    """All of an agent's stores in one SQLite database file."""

    name = "sqlite"

    def __init__(
        self, path: str | Path, *, synchronous: str = "FULL", lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
    ) -> None:
        self.path = Path(path)
        self.synchronous = synchronous
        self._lazy_next = False  # lazy_commit(): the next transaction commits without waiting for the disk
        self._relaxed = False  # synchronous=NORMAL is set (since a lazy transaction; _relax)
        self._hold_next: tuple[bool, bool] | None = None  # hold(more, isolated): for the next tick
        self._held = False  # a tick's transaction is open, held for the next tick of its batch (hold)
        self._lost = 0  # held transactions lost (rolled back): data_version changes with each
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _refuse_other_file(self.path)
            self.conn = connect(self.path, lock_timeout_s)
            self.conn.text_factory = _decode  # stored invalid UTF-8 reads as U+FFFD, never a crash
            refuse_other_programs_database(self.conn)
            self.conn.execute("PRAGMA journal_mode=WAL")
            # a large transaction (a rollback, an import, a 1 MB fact) grows the -wal file; without a limit it
            # never shrinks back (268 MB after a rollback of a 100k-tick agent, for good)
            self.conn.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
            self.conn.execute(f"PRAGMA synchronous={synchronous}")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.execute("PRAGMA recursive_triggers=ON")
            migrate(self.conn)
        except sqlite3.OperationalError as exc:
            if is_lock_error(exc):
                raise lock_error(self.conn, self.path) from None
            raise StorageError(database_problem(exc, self.path)) from None
        except sqlite3.Error as exc:
            raise StorageError(database_problem(exc, self.path)) from None
        except OSError as exc:
            raise StorageError(os_problem(exc, self.path)) from None

    def close(self) -> None:
        try:
            self.commit_held()
        finally:
            self.conn.close()  # rolls back an open transaction; closing twice is harmless

    @contextlib.contextmanager
    def tick_transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE … COMMIT, rolled back entirely if anything raises.

        Waits up to the lock timeout for another writer, then raises :class:`DatabaseLocked`.
        After :meth:`lazy_commit` this one transaction commits with ``synchronous=NORMAL`` (:meth:`_relax`).
        After :meth:`hold` it joins the transaction the tick before it held open, if any, and may be held
        open itself instead of committing; any other transaction commits a held one first.
        A SQLite error that ends the tick (a full disk, a corrupt page) is raised as a :class:`StorageError`
        whose one line names the problem and the fix (:func:`~agi_core.errors.database_problem`).
        """
        if getattr(self.conn, "opened", False) and not self.conn.in_transaction:
            self.conn.rollback()  # an earlier transaction SQLite dropped, its owner gone: over, as a tick begins
        try:
            with self._tick_transaction():
                yield
        except sqlite3.Error as exc:
            raise StorageError(database_problem(exc, self.path)) from exc

    @contextlib.contextmanager
    def _tick_transaction(self) -> Iterator[None]:
        holding, self._hold_next = self._hold_next, None
        if self._held and holding is None:
            self.commit_held()
        hold, isolated = holding or (False, False)
        lazy, self._lazy_next = self._lazy_next, False
        if self._held:
            with self._joined(hold=hold, lazy=lazy, isolated=isolated):
                yield
            return
        self._relax(lazy and self.synchronous.upper() in ("FULL", "EXTRA"))
        if hold:
            begin_immediate(self.conn, self.path)
            try:
                yield
            except BaseException:
                self.conn.rollback()  # (none open if SQLite rolled it back itself: a full disk)
                self._relax(False)
                raise
            self._held = True
            return
        try:
            with write_transaction(self.conn, self.path):
                yield
        except BaseException:
            if not self.conn.in_transaction:
                self._relax(False)
            raise

    @contextlib.contextmanager
    def _joined(self, *, hold: bool, lazy: bool, isolated: bool) -> Iterator[None]:
        """A tick inside the held transaction: held again (``hold``), or the transaction's commit, durable
        unless ``lazy``. A tick that raises loses the whole transaction (every tick in it is rolled back), or
        only itself when ``isolated`` (a savepoint: each page it changes is copied first, a cost)."""
        self._held = False
        if isolated:
            self.conn.execute("SAVEPOINT agi_held_tick")
        try:
            yield
        except BaseException:
            if isolated and self.conn.in_transaction:  # (SQLite may have rolled it all back: a full disk)
                self.conn.execute("ROLLBACK TO agi_held_tick")
                self.conn.execute("RELEASE agi_held_tick")
                self._held = True  # the ticks before it stay held
            else:
                self._lose()
            raise
        if isolated:
            self.conn.execute("RELEASE agi_held_tick")
        if hold:
            self._held = True
            return
        self._commit_or_lose()
        if not lazy and self._relaxed:
            self.sync()  # begun relaxed by the batch's first tick: this commit waits for the disk, as asked

    def hold(self, more: bool, *, isolated: bool = False) -> None:
        """The next tick joins the transaction a tick before it held open, and with ``more`` (more of its batch
        in hand) it is held open in turn instead of committing: a batch is one transaction (one commit, each
        page written once). A process killed before that commit loses the batch's ticks, and so does a tick
        that raises in it (:attr:`lost` counts those transactions), unless it is ``isolated``: then it is
        undone alone. For inputs that come again when lost (a message, acknowledged once its tick is durable),
        and for a host's :meth:`Kernel.group_commit` block (isolated: an input it refuses undoes nothing else)."""
        self._hold_next = (more, isolated)

    def commit_held(self) -> None:
        """Commit the transaction a tick held open (:meth:`hold`), if one is; lost if the commit fails."""
        if self._held:
            self._held = False
            self._commit_or_lose()

    def _commit_or_lose(self) -> None:
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            self._lose()
            raise

    @property
    def holding(self) -> bool:
        """True while a tick's transaction is held open (:meth:`hold`): its ticks are not committed yet."""
        return self._held

    @property
    def lost(self) -> int:
        """How many held transactions were rolled back (a tick in one raised, or its commit failed)."""
        return self._lost

    def _lose(self) -> None:
        self._held = False
        self._lost += 1
        self.conn.rollback()  # (none open if SQLite rolled it back itself: a full disk)

    def _relax(self, lazy: bool) -> None:
        """``synchronous=NORMAL`` for a lazy transaction, the configured level otherwise. NORMAL stays set from
        one lazy transaction to the next (a batch switches twice, not twice a tick) and is put back before a
        transaction that is not lazy (:meth:`tick_transaction`, :meth:`write_block`) and by :meth:`sync`."""
        if lazy != self._relaxed:
            self.conn.execute("PRAGMA synchronous=NORMAL" if lazy else f"PRAGMA synchronous={self.synchronous}")
            self._relaxed = lazy  # (a PRAGMA outside any transaction: SQLite refuses it inside one)

    def lazy_commit(self) -> None:
        """Let the next :meth:`tick_transaction` commit without waiting for the disk (WAL, ``synchronous=NORMAL``):
        kept through a crash of the process, lost by a power loss or an OS crash unless a durable commit or
        :meth:`sync` follows (the write-ahead log is one file: its fsync covers every commit in it)."""
        self._lazy_next = True

    def sync(self) -> None:
        """Make every commit so far durable: fsync the write-ahead log, what a ``synchronous=FULL`` commit does.
        Without a log file everything is in the database file, synced by the checkpoint that emptied the log.
        Commits after this wait for the disk again (until the next :meth:`lazy_commit`). A held
        transaction (:meth:`hold`) is committed first."""
        self.commit_held()
        self._fsync_log()
        if not self.conn.in_transaction:
            self._relax(False)

    def sync_log(self) -> None:
        """fsync the write-ahead log: every commit that returned before is durable (a checkpoint that emptied
        the log synced the database file first). It uses no connection, so it may run on another thread (it
        does not commit a held transaction: :meth:`commit_held` first, on the connection's thread).
        With ``synchronous`` below FULL no commit waits for the disk, so this does not either."""
        if self.synchronous.upper() in ("FULL", "EXTRA"):
            self._fsync_log()

    def _fsync_log(self) -> None:
        try:
            fd = os.open(f"{self.path}-wal", os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            os.fsync(fd)
        except OSError as exc:
            raise StorageError(os_problem(exc, self.path)) from None
        finally:
            os.close(fd)

    def write_block(self) -> contextlib.AbstractContextManager[None]:
        """Inside the open transaction if there is one (a held one is committed first), else a
        :meth:`tick_transaction` of its own."""
        self.commit_held()
        if not self.conn.in_transaction:
            self._relax(False)  # a transaction of its own waits for the disk
        return write_block(self.conn, self.path)

    @contextlib.contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """One read transaction (WAL: a consistent snapshot), unless a transaction is already open."""
        began = not self.conn.in_transaction
        if began:
            self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if began:
                self.conn.rollback()

    def data_version(self) -> int:
        """Changes whenever another connection (another process) commits to this database, and when a
        held transaction is lost (:meth:`hold`): what a cache read from it holds is gone."""
        return data_version(self.conn) + (self._lost << 32)

    def savepoint(self, name: str) -> contextlib.AbstractContextManager[None]:
        """A nested step that can fail alone (F5: a failed SEM write keeps the tick)."""
        return savepoint(self.conn, name)

    # -- meta --------------------------------------------------------------------------
    def meta_get(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def meta_set(self, key: str, value: str) -> None:
        self.meta_update({key: value})

    def meta_update(self, values: dict[str, str]) -> None:
        self.conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            values.items(),
        )

    def meta_items(self, prefix: str = "") -> list[tuple[str, str]]:
        if not prefix:
            return self.conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
        return self.conn.execute(
            "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key", (len(prefix), prefix)
        ).fetchall()

    def meta_delete(self, key: str) -> bool:
        return self.conn.execute("DELETE FROM meta WHERE key = ?", (key,)).rowcount > 0

    # -- semantic ----------------------------------------------------------------------
    def sem_read(self, key: str) -> SemanticRead:
        """Rule S7; a miss is ``exists=False`` and nothing else (S9)."""
        row = self.conn.execute("SELECT value, updated_at FROM facts WHERE key = ?", (check_key(key),)).fetchone()
        if row is None:
            return SemanticRead(exists=False)
        return SemanticRead(exists=True, value=self.load_json(row[0]), last_updated=row[1])

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        """Store ``entry`` unless a newer value is stored (S5, S8, F2); True if it was written."""
        check_key(entry.key)
        try:
            value = self.store_json(entry.value)
        except (TypeError, ValueError) as exc:
            raise StorageError(
                f"value for {entry.key} is not JSON-serializable ({exc}); "
                "store strings, numbers, booleans, lists or objects"
            ) from None
        try:
            cursor = self.conn.execute(
                "INSERT INTO facts (key, id, value, fact, relations, updated_at, tick) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET id = excluded.id, value = excluded.value, fact = excluded.fact, "
                "relations = excluded.relations, updated_at = excluded.updated_at, tick = excluded.tick "
                "WHERE excluded.updated_at >= facts.updated_at",
                (entry.key, entry.id, value, _fact_text(entry.fact), dumps(entry.relations), entry.updated_at, tick),
            )
        except sqlite3.Error as exc:
            raise StorageError(str(exc)) from None  # the SQLite message as it is (F5 records it)
        return cursor.rowcount == 1

    def facts(self, prefix: str = "", limit: int | None = None) -> list[SemanticEntry]:
        """Facts whose key starts with ``prefix``, in key order; at most ``limit`` rows are read."""
        rows = self.conn.execute(  # a key range, so the primary-key index serves it (and LIMIT stops the scan)
            "SELECT id, key, value, fact, relations, updated_at FROM facts WHERE key >= ? AND key < ? "
            "ORDER BY key LIMIT ?",
            (prefix, prefix + "\U0010ffff", -1 if limit is None else limit),
        ).fetchall()
        return [
            SemanticEntry(
                id=r[0],
                key=r[1],
                value=self.load_json(r[2]),
                fact=r[3],
                relations=orjson.loads(r[4]),
                updated_at=r[5],
            )
            for r in rows
        ]

    # -- episodic ----------------------------------------------------------------------
    def add_episodes(self, entries: list[EpisodicEntry], tick: int) -> None:
        self.conn.executemany(
            "INSERT INTO episodes (id, tick, event, context, timestamp) VALUES (?, ?, ?, ?, ?)",
            [
                (entry.id, tick, self.store_text(entry.event), self.store_json(entry.context), entry.timestamp)
                for entry in entries
            ],
        )

    def episodes(
        self, limit: int | None = None, *, newest_first: bool = False, user_inputs: bool = False
    ) -> list[EpisodicEntry]:
        order = "DESC" if newest_first else "ASC"
        where = f"WHERE {USER_INPUT_LIKE}" if user_inputs else ""
        rows = self.conn.execute(
            f"SELECT id, event, context, timestamp FROM episodes {where} ORDER BY seq {order} LIMIT ?",
            (-1 if limit is None else limit,),
        ).fetchall()
        found = [
            EpisodicEntry(id=r[0], event=self.load_text(r[1]), context=self.load_json(r[2]), timestamp=r[3])
            for r in rows
        ]
        return [e for e in found if is_user_input(e.context)] if user_inputs else found

    def episode_rows(self, after_seq: int = 0, limit: int | None = None) -> list[tuple[int, int, str, str, str]]:
        return self.conn.execute(
            "SELECT seq, tick, event, context, timestamp FROM episodes WHERE seq > ? ORDER BY seq LIMIT ?",
            (after_seq, -1 if limit is None else limit),
        ).fetchall()

    def last_episode_seq(self) -> int:
        return int(self.conn.execute("SELECT coalesce(max(seq), 0) FROM episodes").fetchone()[0])

    def episode_ticks(self) -> list[tuple[int, int]]:
        return self.conn.execute("SELECT tick, count(*) FROM episodes GROUP BY tick ORDER BY tick").fetchall()

    # -- working -----------------------------------------------------------------------
    def working(self) -> WorkingMemory:
        row = self.conn.execute("SELECT data FROM working WHERE id = 1").fetchone()
        return WorkingMemory() if row is None else from_data(orjson.loads(row[0]), WorkingMemory)

    def set_working(self, memory: WorkingMemory) -> None:
        self.conn.execute(
            "INSERT INTO working (id, data) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            (dumps(to_data(memory)),),
        )

    # -- journal -----------------------------------------------------------------------
    def append_journal(self, tick: int, record_id: str, record_json: str, chain: str) -> None:
        self.conn.execute(
            "INSERT INTO journal (tick, id, record, chain) VALUES (?, ?, ?, ?)", (tick, record_id, record_json, chain)
        )

    def journal_rows(self, since: int = 0) -> Iterator[tuple[int, str, str, str]]:
        """``(tick, id, record JSON text, chain)`` exactly as stored, in tick order.

        A cursor, not a generator: the query runs now, so a caller that stops early leaves
        nothing that would run against a closed database later.
        """
        return self.conn.execute("SELECT tick, id, record, chain FROM journal WHERE tick > ? ORDER BY tick", (since,))

    def archived_rows(self) -> Iterator[tuple[str, int, str, str, str]]:
        """``(rollback, tick, id, record, chain)`` of the ticks undone by rollbacks (a cursor, as above)."""
        return self.conn.execute(
            "SELECT rollback, tick, id, record, chain FROM journal_archive ORDER BY rollback, tick"
        )

    def archived_count(self) -> int:
        """How many journal rows rollbacks archived (:meth:`archived_rows`, counted without reading them)."""
        return int(self.conn.execute("SELECT count(*) FROM journal_archive").fetchone()[0])

    def last_chain(self) -> str:
        """The newest record's chain link; with every record archived, the archive point's (``journal_base``)."""
        row = self.conn.execute("SELECT chain FROM journal ORDER BY tick DESC LIMIT 1").fetchone()
        if row:
            return str(row[0])
        base = self.meta_get("journal_base")
        return base.split(" ")[1] if base and base.count(" ") >= 1 else ""

    def journal_archive_through(self, tick: int, chain: str, base: str, key: JournalKey) -> tuple[int, int, int]:
        """Delete the records up to ``tick`` (archived: ``agi_core.archive``) and the blobs no row refers to any
        more (:mod:`~agi_core.memory.sqlite.blob_collect`), and store the archive point ``base``, in one
        transaction with the seal brought up to it; the record of ``tick`` must still carry ``chain`` (another
        process archived or rolled back meanwhile: nothing changes). Returns the records, blobs and blob bytes
        deleted."""
        with self.tick_transaction():
            row = self.conn.execute("SELECT chain FROM journal WHERE tick = ?", (tick,)).fetchone()
            if row is None or row[0] != chain:
                raise StorageError(
                    f"the journal changed while tick {tick} was being archived (another agi process archived or "
                    "rolled back); nothing was archived: run agi journal archive again"
                )
            deleted = self.conn.execute("DELETE FROM journal WHERE tick <= ?", (tick,)).rowcount
            freed = blob_collect.delete_unreferenced(self.conn)
            self.meta_update({"journal_base": base})
            self.seal(key)
            fault_point("archive.deleted")  # the rows and blobs deleted and the point stored, not yet committed
        return int(deleted), *freed

    def vacuum(self) -> int:
        """Rebuild the file without its free pages (``VACUUM``: the pages of archived records) and fold the
        write-ahead log back in; returns :meth:`file_bytes` after. One transaction, like a tick's: a kill
        leaves the file as it was or rebuilt."""
        self.commit_held()
        try:
            self.conn.execute("VACUUM")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError as exc:
            if is_lock_error(exc):
                raise lock_error(self.conn, self.path) from None
            raise StorageError(database_problem(exc, self.path)) from None
        except sqlite3.Error as exc:
            raise StorageError(database_problem(exc, self.path)) from None
        return self.file_bytes()

    def file_bytes(self) -> int:
        """The database file's size plus its write-ahead log's."""
        wal = self.path.with_name(self.path.name + "-wal")
        return self.path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)

    def journal_extent(self) -> tuple[int, int]:
        count, last = self.conn.execute("SELECT count(*), coalesce(max(tick), 0) FROM journal").fetchone()
        return int(count), int(last)

    # -- intents (agi_core.effects.intents) ---------------------------------------------
    def intent_add(self, tick: int, tool: str, args_json: str) -> None:
        self.conn.execute("INSERT INTO intents (tick, tool, args) VALUES (?, ?, ?)", (tick, tool, args_json))

    def intent_receipt(self, tick: int, receipt_tick: int) -> None:
        self.conn.execute("UPDATE intents SET receipt_tick = ? WHERE tick = ?", (receipt_tick, tick))

    def intents(self, *, pending_only: bool = False) -> list[tuple[int, str, dict[str, Any], int | None]]:
        """``(tick, tool, args, receipt_tick)`` in tick order; only those without a receipt if asked."""
        where = "WHERE receipt_tick IS NULL " if pending_only else ""
        rows = self.conn.execute(f"SELECT tick, tool, args, receipt_tick FROM intents {where}ORDER BY tick")
        return [(tick, tool, orjson.loads(args), receipt) for tick, tool, args, receipt in rows]

    # -- messages (agi_core.messaging) ---------------------------------------------------
    def inbox_add(self, message_id: str, tick: int, sender: str, conversation: str) -> bool:
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO messages_in (id, tick, sender, conversation) VALUES (?, ?, ?, ?)",
            (message_id, tick, sender, conversation),
        )
        return cursor.rowcount == 1

    def inbox_has(self, message_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM messages_in WHERE id = ?", (message_id,)).fetchone() is not None

    def inbox_known(self, message_ids: list[str]) -> set[str]:
        ids = orjson.dumps(message_ids).decode()
        rows = self.conn.execute("SELECT id FROM messages_in WHERE id IN (SELECT value FROM json_each(?))", (ids,))
        return {row[0] for row in rows}

    def outbox_add(self, message_id: str, tick: int, recipient: str, message_json: str) -> None:
        self.conn.execute(
            "INSERT INTO messages_out (id, tick, recipient, message) VALUES (?, ?, ?, ?)",
            (message_id, tick, recipient, message_json),
        )

    def outbox_unpublished(self, through_tick: int | None = None) -> list[str]:
        rows = self.conn.execute(
            "SELECT message FROM messages_out WHERE published = 0 AND tick <= ? ORDER BY tick, rowid",
            (_LAST_TICK if through_tick is None else through_tick,),
        )
        return [row[0] for row in rows]

    def outbox_published(self, *message_ids: str) -> None:
        self.conn.execute(  # one statement for a flush's rows
            "UPDATE messages_out SET published = 1 WHERE id IN (SELECT value FROM json_each(?))",
            (orjson.dumps(message_ids).decode(),),
        )

    def outbox_message(self, message_id: str) -> str | None:
        row = self.conn.execute("SELECT message FROM messages_out WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else str(row[0])

    # -- module state (agi_core.modules) -------------------------------------------------
    def module_state_get(self, module: str, key: str, default: Any = None) -> Any:
        text = module_state_table.get_value(self.conn, module, key)
        return default if text is None else orjson.loads(text)

    def module_state_put(self, module: str, key: str, value: Any, tick: int = 0, *, text: str | None = None) -> None:
        module_state_table.put_value(self.conn, module, key, dumps(value) if text is None else text, tick)

    def module_state_put_many(self, rows: list[tuple[str, str, str, int]]) -> None:
        """:meth:`module_state_put` of each ``(module, key, JSON text, tick)``, in order, as one statement (the
        module runner's writes of a run of phase calls)."""
        module_state_table.put_values(self.conn, rows)

    def module_state_delete(self, module: str, key: str) -> bool:
        return module_state_table.delete_value(self.conn, module, key)

    def module_state_items(self, module: str) -> list[tuple[str, Any]]:
        return [(key, orjson.loads(text)) for key, text in module_state_table.items(self.conn, module)]

    def module_state_sizes(self) -> dict[str, tuple[int, int]]:
        return module_state_table.sizes(self.conn)

    # -- tick timings (agi_core.memory.tick_timings) ---------------------------------------
    def tick_timing_put(self, tick: int, duration_us: int) -> None:
        timings_table.put(self.conn, tick, duration_us)

    def tick_timings(self, first: int, last: int) -> dict[int, int]:
        return timings_table.between(self.conn, first, last)

    # -- goals (agi_core.scheduling.goals) -------------------------------------------------
    def goals(self) -> list[dict[str, Any]]:
        return goals_table.all_goals(self.conn)

    def goal(self, goal_id: str) -> dict[str, Any] | None:
        return goals_table.goal(self.conn, goal_id)

    def goal_child_progress(self, parent: str) -> list[tuple[str, float]]:
        return goals_table.child_progress(self.conn, parent)

    def goal_ancestors(self, goal_id: str) -> list[dict[str, Any]]:
        return goals_table.ancestors(self.conn, goal_id)

    def goals_ranked(self, status: str, limit: int | None = None) -> list[dict[str, Any]]:
        return goals_table.ranked(self.conn, status, limit)

    def goal_counts(self) -> dict[str, int]:
        return goals_table.counts(self.conn)

    def goal_titles(self, statuses: tuple[str, ...]) -> list[tuple[str, str]]:
        return goals_table.titles(self.conn, statuses)

    def put_goal(self, goal: dict[str, Any]) -> None:
        goals_table.put_goal(self.conn, goal)

    def delete_goal(self, goal_id: str) -> bool:
        return goals_table.delete_goal(self.conn, goal_id)

    # -- jobs (agi_core.scheduling) -------------------------------------------------------
    def all_jobs(self) -> list[dict[str, Any]]:
        return jobs_table.all_jobs(self.conn)

    def get_job(self, name: str) -> dict[str, Any] | None:
        return jobs_table.get_job(self.conn, name)

    def put_job(self, job: dict[str, Any]) -> None:
        jobs_table.put_job(self.conn, job)

    def delete_job(self, name: str) -> bool:
        return jobs_table.delete_job(self.conn, name)

    def earliest_due(self, now_ms: int) -> dict[str, Any] | None:
        return jobs_table.earliest_due(self.conn, now_ms)

    # -- raw rows, for agi export / agi import (agi_core.memory.transfer) -----------------
    def table_names(self) -> set[str]:
        return raw_rows.table_names(self.conn)

    def dump_table(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        return raw_rows.dump_table(self.conn, table)

    def load_table(self, table: str, columns: list[str], rows: list[list[Any]]) -> None:
        raw_rows.load_table(self.conn, table, columns, rows)

    # -- seal and checkpoints (agi_core.memory.sqlite) ---------------------------------
    def seal(self, key: JournalKey) -> None:
        seal.seal(self.conn, key)

    def read_seal(self) -> tuple[int, int, str] | None:
        return seal.read_seal(self.conn)

    def seal_problems(self, key: JournalKey, head_tick: int) -> list[str]:
        return seal.check(self.conn, key, head_tick)

    def checkpoint_create(self, name: str, key: JournalKey) -> CheckpointInfo:
        return checkpoints.create(self, name, key)

    def checkpoint_list(self) -> list[CheckpointInfo]:
        return checkpoints.list_checkpoints(self)

    def checkpoint_rollback(self, name: str, key: JournalKey, rollback_id: Callable[[int, int], str]) -> RollbackReport:
        self.commit_held()  # (it attaches the checkpoint's file: outside any transaction)
        return checkpoints.rollback(self, name, key, rollback_id)

    def checkpoint_prune(self, keep: int) -> list[str]:
        return checkpoints.prune(self, keep)

    def checkpoint_remove(self, name: str) -> CheckpointInfo:
        return checkpoints.remove(self, name)

    def checkpoint_problems(self, name: str, key: JournalKey) -> list[str]:
        return checkpoints.problems(self, key, name)

    def checkpoint_rows(self, name: str, key: JournalKey) -> contextlib.AbstractContextManager[RawRows]:
        return checkpoint_transfer.rows(self, name, key)

    def checkpoint_load(
        self, name: str, tick: int, tables: Iterable[tuple[str, list[str], list[list[Any]]]], key: JournalKey
    ) -> CheckpointInfo:
        return checkpoint_transfer.load(self, name, tick, tables, key)

    # -- RLM state and long-term memory rows --------------------------------------------
    def rlm_rows(self) -> SqliteRlmRows:
        return SqliteRlmRows(self.conn)

    def ltm_rows(self) -> SqliteLtmRows:
        return SqliteLtmRows(self.conn)

    # -- blobs ---------------------------------------------------------------------------
    def put_blob(self, hex_digest: str, data: bytes) -> None:
        """Store one blob (content-addressed, so storing it twice changes nothing)."""
        self.conn.execute("INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)", (hex_digest, data))

    def get_blob(self, hex_digest: str) -> str:
        row = self.conn.execute("SELECT data FROM blobs WHERE hash = ?", (hex_digest,)).fetchone()
        if row is None:
            raise StorageError(
                f"blob sha256:{hex_digest} is missing from {self.path}; the database was edited or truncated, "
                "roll back to a checkpoint or restore a backup"
            )
        return _decode(bytes(row[0]))

    def blob_items(self) -> Iterator[tuple[str, bytes]]:
        for hex_digest, data in self.conn.execute("SELECT hash, data FROM blobs ORDER BY hash"):
            yield hex_digest, bytes(data)

    def store_text(self, text: str) -> str:
        """``text`` (lone surrogates as U+FFFD), or its blob reference when it is large (the blob is written now)."""
        return blobs.put_text(clean_text(text), self.put_blob)


_LAST_TICK = 2**63 - 1  # every tick (SQLite's largest integer)


def _fact_text(fact: str) -> str:
    """A fact's readable rendering; past the blob threshold only a preview (the value is kept whole)."""
    return clean_text(fact if len(fact) < blobs.BLOB_THRESHOLD else preview(fact))


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


if TYPE_CHECKING:
    from agi_core.memory.backend import MemoryBackend

    def _conforms(store: SqliteStore) -> MemoryBackend:  # mypy checks SqliteStore against the protocol here
        return store
