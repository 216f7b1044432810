"""The PostgreSQL memory backend: the SQLite store's interface over one schema per agent.

A tick is one transaction on one pooled connection that first takes the agent's advisory
lock (``pg_advisory_xact_lock``), so any number of processes tick one agent in turn and
each sees what the previous one committed; different agents tick in parallel. Facts under
``world/`` are also written to the shared ``agi_world`` schema (see :mod:`.world`) and read
from there, so every agent on the database shares them. Rows hold the same text as the
SQLite store, which keeps export/import byte-for-byte.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import itertools
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool, PoolTimeout

from agi_core.errors import BackendUnavailable, ConfigError, DatabaseLocked, StorageError
from agi_core.inputs import clean_text
from agi_core.journal_key import JournalKey
from agi_core.memory import blobs, jobs_table
from agi_core.memory.backend import CheckpointError, CheckpointInfo, RollbackReport
from agi_core.memory.keys import check_key
from agi_core.memory.locking import DEFAULT_LOCK_TIMEOUT_S
from agi_core.memory.stored_text import StoredText
from agi_core.memory.tick_timings import check_duration
from agi_core.memory.user_inputs import USER_INPUT_LIKE, is_user_input
from agi_core.model import EpisodicEntry, SemanticEntry, SemanticRead, WorkingMemory
from agi_core.serialization import dumps, from_data, to_data
from agi_plugin_postgres import schema, snapshots, world
from agi_plugin_postgres import seal as sealing
from agi_plugin_postgres.connect_errors import connect_error, is_connect_failure
from agi_plugin_postgres.goals import PostgresGoals
from agi_plugin_postgres.ltm import PostgresLtmRows
from agi_plugin_postgres.rlm import PostgresRlmRows
from agi_plugin_postgres.transfer import JOB_TEXTS, PostgresCheckpointTransfer
from agi_plugin_postgres.url import WORLD_SCHEMA, AgentUrl, from_path, parse

POOL_MAX = 32
STREAM_BATCH = 100  # journal rows fetched at a time (:meth:`PostgresStore._streamed`)
PROBE_TIMEOUT_S = 2  # libpq's connect_timeout (whole seconds, 2 at least) for one try at reconnecting
# The pool logs each broken connection it drops as a warning, which Python prints on stderr when the
# application set up no logging: a server restart gave 12-21 such lines. The kernel says it in one line.
logging.getLogger("psycopg").addHandler(logging.NullHandler())
_JOB_COLUMNS = ", ".join(jobs_table.COLUMNS)
_pools: dict[str, ConnectionPool[Any]] = {}
_pools_lock = threading.Lock()

SQLITE_ONLY = (
    "is not implemented by the postgres backend yet; agi export the agent and agi import it into a "
    "SQLite --db to use it"
)


def pool_for(dsn: str) -> ConnectionPool[Any]:
    """One pool per server and database, shared by every agent of this process."""
    with _pools_lock:
        pool = _pools.get(dsn)
        if pool is None:
            psycopg.connect(dsn, connect_timeout=10).close()  # a wrong URL or a stopped server: one clear error now
            pool = ConnectionPool(
                dsn, min_size=1, max_size=POOL_MAX, kwargs={"autocommit": True}, open=True, name="agi"
            )
            _pools[dsn] = pool
        return pool


def server_away(exc: BaseException) -> bool:
    """True when ``exc`` says the server cannot be reached (connection lost or refused, a shutdown or
    restart under way, the pool unable to connect), not that a statement failed."""
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")


class NotOnPostgres(ConfigError, AttributeError):
    """A protocol part this backend lacks: one line when called, and hasattr()/isinstance() see it as absent."""


@atexit.register
def close_pools() -> None:
    with _pools_lock:
        for pool in _pools.values():
            pool.close()
        _pools.clear()


class PostgresStore(PostgresGoals, PostgresCheckpointTransfer, StoredText):
    """One agent's stores in its PostgreSQL schema, plus the shared ``world/`` facts."""

    name = "postgres"

    def __init__(
        self, path: str | Path, *, synchronous: str = "FULL", lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
    ) -> None:
        self.url: AgentUrl = parse(str(path) if isinstance(path, str) else from_path(path))
        self.agent = self.url.agent
        self.path = self.url.home / self.agent  # local files: <home>/workspace …
        self.journal_key_file = self.url.journal_key_file()  # home= given: <home>/<agent>.key; else user data
        self.s = self.url.schema
        self.durable = synchronous.upper() != "OFF"
        self._lazy_next = False  # lazy_commit(): the next transaction commits with synchronous_commit off
        self.lock_timeout_ms = int(lock_timeout_s * 1000)
        self._tx: psycopg.Connection[Any] | None = None
        self._own_commits = 0
        # the folders this store creates for home=, deepest first (remove_empty_agent removes them again)
        self._made_folders = [p for p in (self.url.home, *self.url.home.parents) if not p.exists()]
        try:
            self.url.home.mkdir(parents=True, exist_ok=True)
            self.pool = pool_for(self.url.dsn)
            self.pool.check()  # the process's pool may hold connections a server restart broke: replace them
            with self.pool.connection(timeout=max(lock_timeout_s, 1.0)) as conn, conn.transaction():
                schema.migrate(conn, WORLD_SCHEMA, schema.WORLD_STEPS)
                schema.migrate(conn, self.s, schema.AGENT_STEPS)
        except psycopg.Error as exc:
            raise (
                connect_error(self.url, exc) if is_connect_failure(exc) else StorageError(self._problem(exc))
            ) from None
        except OSError as exc:
            raise StorageError(f"cannot use the folder {self.url.home} for agent {self.agent!r} ({exc})") from None
        except PoolTimeout:
            raise StorageError(
                f"no connection to PostgreSQL at {self.url.shown}; start the server or fix the URL"
            ) from None

    @staticmethod
    def agent_exists(location: str) -> bool:
        """Whether the agent the URL names was created (its schema holds its tables); creates nothing,
        neither on the server nor in ``home`` (read-only commands ask this before opening)."""
        url = parse(location)
        try:
            with pool_for(url.dsn).connection(timeout=10) as conn:
                row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"{url.schema}.meta",)).fetchone()
        except psycopg.Error as exc:
            raise (connect_error(url, exc) if is_connect_failure(exc) else StorageError(_problem(url, exc))) from None
        return bool(row and row[0])

    def remove_empty_agent(self) -> bool:
        """Drop this agent's schema when it holds no agent (``agi import`` failed after opening it: the
        import's rows were rolled back, the tables it created were not), and the ``home`` folders this
        store created if they are empty; True if the schema was dropped. An agent with a tick or a
        journal row is never dropped."""
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (self.url.lock_key,))
                if conn.execute("SELECT to_regclass(%s)", (f"{self.s}.meta",)).fetchone() == (None,):
                    return False
                held = conn.execute(
                    f"SELECT EXISTS (SELECT 1 FROM {self.s}.journal) "
                    f"OR EXISTS (SELECT 1 FROM {self.s}.meta WHERE key = 'tick' AND value <> '0')"
                ).fetchone()
                if held != (False,):
                    return False
                conn.execute(f"DROP SCHEMA {self.s} CASCADE")
        except psycopg.Error as exc:
            raise self._failure(exc) from None
        for folder in self._made_folders:
            with contextlib.suppress(OSError):
                folder.rmdir()
        return True

    def _problem(self, exc: BaseException) -> str:
        return _problem(self.url, exc)

    def _failure(self, exc: BaseException) -> StorageError:
        """The error to raise for a psycopg error: :class:`BackendUnavailable` when the server is away,
        :class:`DatabaseLocked` past the lock timeout (inside a tick: its lock, or a row another tick holds)."""
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return DatabaseLocked(
                f"agent {self.agent!r} at {self.url.shown} is locked by another writer for more than "
                f"{self.lock_timeout_ms / 1000:g} s; retry, or raise --lock-timeout"
            )
        if server_away(exc):
            return BackendUnavailable(
                f"PostgreSQL at {self.url.shown} is unreachable for agent {self.agent!r} ({_first_line(exc)})"
            )
        return StorageError(self._problem(exc))

    def reconnect(self) -> None:
        """One try at reaching the server again: a new connection, then the pool's idle connections
        checked (the broken ones replaced). :class:`BackendUnavailable` while it is still away."""
        try:
            psycopg.connect(self.url.dsn, connect_timeout=PROBE_TIMEOUT_S).close()
            self.pool.check()
        except psycopg.Error as exc:
            raise self._failure(exc) from None

    @property
    def conn(self) -> Any:
        raise ConfigError(f"a raw SQLite connection {SQLITE_ONLY}")

    def __getattr__(self, name: str) -> Any:
        """A part of the MemoryBackend protocol this backend does not implement yet: one line, naming it."""
        if name.startswith("_"):
            raise AttributeError(name)
        raise NotOnPostgres(f"{name} {SQLITE_ONLY}")

    def close(self) -> None:
        """The pool stays open for the process's other agents (closed at exit)."""

    # -- connections and the tick transaction ---------------------------------------------
    @contextlib.contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        try:
            if self._tx is not None:
                yield self._tx
                return
            with self.pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            raise self._failure(exc) from None

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._conn() as conn:
            return conn.execute(sql.format(s=self.s, w=WORLD_SCHEMA), _without_nul(params)).fetchall()

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        with self._conn() as conn:
            return conn.execute(sql.format(s=self.s, w=WORLD_SCHEMA), _without_nul(params)).fetchone()

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        with self._conn() as conn:
            return conn.execute(sql.format(s=self.s, w=WORLD_SCHEMA), _without_nul(params)).rowcount

    @contextlib.contextmanager
    def tick_transaction(self) -> Iterator[None]:
        """One transaction holding the agent's advisory lock; rolled back entirely if anything raises.

        Waits up to the lock timeout for another process's tick of this agent, then raises
        :class:`DatabaseLocked`.
        """
        if self._tx is not None:
            raise StorageError(f"agent {self.agent!r}: a tick transaction is already open in this process")
        lazy, self._lazy_next = self._lazy_next, False
        try:
            with self.pool.connection() as conn:
                with conn.transaction():
                    conn.execute(
                        "SELECT set_config('lock_timeout', %s, true), set_config('synchronous_commit', %s, true), "
                        "pg_advisory_xact_lock(%s)",
                        (f"{self.lock_timeout_ms}ms", "on" if self.durable and not lazy else "off", self.url.lock_key),
                    )
                    self._tx = conn
                    try:
                        yield
                        conn.execute(f"UPDATE {self.s}._version SET v = v + 1 WHERE id = 1")
                    finally:
                        self._tx = None
                self._own_commits += 1
        except psycopg.Error as exc:
            raise self._failure(exc) from None

    def lazy_commit(self) -> None:
        """Let the next :meth:`tick_transaction` commit with ``synchronous_commit`` off: it survives a crash of
        this process (not of the server) until a synchronous commit or :meth:`sync` flushes the log past it."""
        self._lazy_next = True

    def sync(self) -> None:
        """Make every commit so far durable: a transaction that writes commits with ``synchronous_commit`` on,
        so the server flushes its write-ahead log up to that commit record, past every earlier commit.

        It must write: PostgreSQL commits a transaction that wrote no WAL record (an id alone is not
        one) asynchronously, whatever ``synchronous_commit`` says, and the lazy commits before it were
        lost by a server crash (``pg_ctl restart -m immediate``). It rewrites the version row with its
        own value (the data version does not move)."""
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute("SELECT set_config('synchronous_commit', 'on', true)")
                conn.execute(f"UPDATE {self.s}._version SET v = v WHERE id = 1")
        except psycopg.Error as exc:
            raise self._failure(exc) from None

    @contextlib.contextmanager
    def write_block(self) -> Iterator[None]:
        """Inside the caller's transaction if one is open, else a tick transaction of its own."""
        if self._tx is not None:
            yield
        else:
            with self.tick_transaction():
                yield

    @contextlib.contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Reads inside see one state: they run in one REPEATABLE READ transaction (or the open one)."""
        if self._tx is not None:
            yield
            return
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                self._tx = conn
                try:
                    yield
                finally:
                    self._tx = None
        except psycopg.Error as exc:
            raise self._failure(exc) from None

    def data_version(self) -> int:
        """Changes whenever another connection (another process) commits to this agent."""
        row = self._one("SELECT v FROM {s}._version WHERE id = 1")
        return (int(row[0]) if row else 0) - self._own_commits

    @contextlib.contextmanager
    def savepoint(self, name: str) -> Iterator[None]:
        """A nested step that can fail alone (F5: a failed SEM write keeps the tick)."""
        if self._tx is None:
            raise StorageError(f"savepoint {name!r} outside a tick transaction")
        try:
            with self._tx.transaction(savepoint_name=name):
                yield
        except psycopg.Error as exc:  # the step's own failure, or rolling back to the savepoint failed
            raise self._failure(exc) from None

    # -- meta --------------------------------------------------------------------------
    def meta_get(self, key: str, default: str | None = None) -> str | None:
        row = self._one("SELECT value FROM {s}.meta WHERE key = %s", (key,))
        return row[0] if row else default

    def meta_set(self, key: str, value: str) -> None:
        self.meta_update({key: value})

    def meta_items(self, prefix: str = "") -> list[tuple[str, str]]:
        rows = self._all(
            'SELECT key, value FROM {s}.meta WHERE left(key, %s) = %s ORDER BY key COLLATE "C"', (len(prefix), prefix)
        )
        return [(k, v) for k, v in rows]

    def meta_delete(self, key: str) -> bool:
        return self._run("DELETE FROM {s}.meta WHERE key = %s", (key,)) > 0

    def meta_update(self, values: dict[str, str]) -> None:
        with self._conn() as conn, conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self.s}.meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [_without_nul(item) for item in values.items()],
            )

    # -- semantic ----------------------------------------------------------------------
    def shares(self, key: str) -> bool:
        """True for keys in the shared knowledge scope (read from and written to ``agi_world``)."""
        return world.is_shared(key)

    def sem_read(self, key: str) -> SemanticRead:
        """Rule S7; a ``world/`` key reads the shared value and names its writer when it is another agent."""
        check_key(key)
        if world.is_shared(key):
            with self._conn() as conn:
                found = world.read(conn, key)
            if found is None:
                return SemanticRead(exists=False)
            text, updated_at, writer = found
            source = None if writer == self.agent else writer
            return SemanticRead(exists=True, value=self.load_world_json(text), last_updated=updated_at, source=source)
        row = self._one("SELECT value, updated_at FROM {s}.facts WHERE key = %s", (key,))
        if row is None:
            return SemanticRead(exists=False)
        return SemanticRead(exists=True, value=self.load_json(row[0]), last_updated=row[1])

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        """Store ``entry`` unless a newer value is stored (S5, S8, F2); True if it was written.

        A ``world/`` fact is also written to the shared scope: last committed write wins there,
        with this agent as its writer and a new version in the key's history.
        """
        check_key(entry.key)
        try:
            value = self.store_json(entry.value)
        except (TypeError, ValueError) as exc:
            raise StorageError(
                f"value for {entry.key} is not JSON-serializable ({exc}); "
                "store strings, numbers, booleans, lists or objects"
            ) from None
        row = (entry.key, entry.id, value, _fact_text(entry.fact), dumps(entry.relations), entry.updated_at, tick)
        try:
            with self._conn() as conn:
                written = (
                    conn.execute(
                        f"INSERT INTO {self.s}.facts (key, id, value, fact, relations, updated_at, tick) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (key) DO UPDATE SET id = excluded.id, "
                        "value = excluded.value, fact = excluded.fact, relations = excluded.relations, "
                        f"updated_at = excluded.updated_at, tick = excluded.tick "
                        f"WHERE excluded.updated_at >= {self.s}.facts.updated_at",
                        row,
                    ).rowcount
                    == 1
                )
                if written and world.is_shared(entry.key):
                    world.write(conn, self.s, row, self.agent)
        except psycopg.Error as exc:
            raise self._failure(exc) from None
        return written

    def facts(self, prefix: str = "", limit: int | None = None) -> list[SemanticEntry]:
        """Facts whose key starts with ``prefix``, in key order (``world/`` ones from the shared scope)."""
        table = "{w}.facts" if world.is_shared(prefix) else "{s}.facts"
        rows = self._all(
            f"SELECT id, key, value, fact, relations, updated_at FROM {table} WHERE key >= %s AND key < %s "
            'ORDER BY key COLLATE "C" LIMIT %s',
            (prefix, prefix + "\U0010ffff", limit),
        )
        load = self.load_world_json if world.is_shared(prefix) else self.load_json
        return [
            SemanticEntry(id=r[0], key=r[1], value=load(r[2]), fact=r[3], relations=orjson.loads(r[4]), updated_at=r[5])
            for r in rows
        ]

    def history(self, key: str) -> list[tuple[int, str, Any, int]]:
        """``(version, writer, value, tick)`` of every write of the shared fact ``key``, oldest first."""
        with self._conn() as conn:
            return [(v, w, self.load_world_json(t), tick) for v, w, t, tick in world.history(conn, key)]

    # -- episodic ----------------------------------------------------------------------
    def add_episodes(self, entries: list[EpisodicEntry], tick: int) -> None:
        with self._conn() as conn, conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self.s}.episodes (seq, id, tick, event, context, timestamp) VALUES "
                f"((SELECT coalesce(max(seq), 0) + 1 FROM {self.s}.episodes), %s, %s, %s, %s, %s)",
                [
                    (entry.id, tick, self.store_text(entry.event), self.store_json(entry.context), entry.timestamp)
                    for entry in entries
                ],
            )

    def episodes(
        self, limit: int | None = None, *, newest_first: bool = False, user_inputs: bool = False
    ) -> list[EpisodicEntry]:
        order = "DESC" if newest_first else "ASC"
        where = "WHERE " + USER_INPUT_LIKE.replace("%", "%%") if user_inputs else ""
        rows = self._all(
            f"SELECT id, event, context, timestamp FROM {{s}}.episodes {where} ORDER BY seq {order} LIMIT %s",
            (limit,),
        )
        found = [
            EpisodicEntry(id=r[0], event=self.load_text(r[1]), context=self.load_json(r[2]), timestamp=r[3])
            for r in rows
        ]
        return [e for e in found if is_user_input(e.context)] if user_inputs else found

    def episode_rows(self, after_seq: int = 0, limit: int | None = None) -> list[tuple[int, int, str, str, str]]:
        rows = self._all(
            "SELECT seq, tick, event, context, timestamp FROM {s}.episodes WHERE seq > %s ORDER BY seq LIMIT %s",
            (after_seq, limit),
        )
        return [(int(a), int(b), c, d, e) for a, b, c, d, e in rows]

    def last_episode_seq(self) -> int:
        row = self._one("SELECT coalesce(max(seq), 0) FROM {s}.episodes")
        return int(row[0]) if row else 0

    def episode_ticks(self) -> list[tuple[int, int]]:
        return [
            (int(t), int(n))
            for t, n in self._all("SELECT tick, count(*) FROM {s}.episodes GROUP BY tick ORDER BY tick")
        ]

    # -- working -----------------------------------------------------------------------
    def working(self) -> WorkingMemory:
        row = self._one("SELECT data FROM {s}.working WHERE id = 1")
        return WorkingMemory() if row is None else from_data(orjson.loads(row[0]), WorkingMemory)

    def set_working(self, memory: WorkingMemory) -> None:
        self._run(
            "INSERT INTO {s}.working (id, data) VALUES (1, %s) ON CONFLICT (id) DO UPDATE SET data = excluded.data",
            (dumps(to_data(memory)),),
        )

    # -- journal -----------------------------------------------------------------------
    def append_journal(self, tick: int, record_id: str, record_json: str, chain: str) -> None:
        self._run(
            "INSERT INTO {s}.journal (tick, id, record, chain) VALUES (%s, %s, %s, %s)",
            (tick, record_id, record_json, chain),
        )

    def journal_rows(self, since: int = 0) -> Iterator[tuple[int, str, str, str]]:
        """``(tick, id, record JSON text, chain)`` exactly as stored, in tick order, streamed (:meth:`_streamed`)."""
        return self._streamed("SELECT tick, id, record, chain FROM {s}.journal WHERE tick > %s ORDER BY tick", (since,))

    def archived_rows(self) -> Iterator[tuple[str, int, str, str, str]]:
        """``(rollback, tick, id, record, chain)`` of the ticks undone by rollbacks, streamed (:meth:`_streamed`)."""
        return self._streamed(
            'SELECT rollback, tick, id, record, chain FROM {s}.journal_archive ORDER BY rollback COLLATE "C", tick'
        )

    def _streamed(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[Any]:
        """The rows of ``sql`` through a server-side cursor, ``STREAM_BATCH`` at a time (a months-long journal is
        never held whole), as SQLite's cursor gives them. The query runs now, in the open transaction (a tick's,
        a read snapshot's: read the rows inside it) or in one of its own on a pooled connection, held until the
        rows are read or the iterator is closed."""
        rows = self._stream(sql, params)
        next(rows)  # the query runs now, as a cursor's would
        return rows

    def _stream(self, sql: str, params: tuple[Any, ...]) -> Iterator[Any]:
        with contextlib.ExitStack() as held:
            conn = held.enter_context(self._conn())
            if conn is not self._tx:
                held.enter_context(conn.transaction())  # a server-side cursor lives in a transaction
            cursor = held.enter_context(conn.cursor(name=f"agi_rows_{next(_CURSOR_NAMES)}"))
            cursor.itersize = STREAM_BATCH
            cursor.execute(sql.format(s=self.s, w=WORLD_SCHEMA), _without_nul(params))
            yield None
            yield from cursor

    def archived_count(self) -> int:
        """How many journal rows rollbacks archived (:meth:`archived_rows`, counted without fetching them)."""
        row = self._one("SELECT count(*) FROM {s}.journal_archive")
        return int(row[0]) if row else 0

    def last_chain(self) -> str:
        row = self._one("SELECT chain FROM {s}.journal ORDER BY tick DESC LIMIT 1")
        return row[0] if row else ""

    def journal_extent(self) -> tuple[int, int]:
        row = self._one("SELECT count(*), coalesce(max(tick), 0) FROM {s}.journal")
        return (int(row[0]), int(row[1])) if row else (0, 0)

    # -- intents -----------------------------------------------------------------------
    def intent_add(self, tick: int, tool: str, args_json: str) -> None:
        self._run("INSERT INTO {s}.intents (tick, tool, args) VALUES (%s, %s, %s)", (tick, tool, args_json))

    def intent_receipt(self, tick: int, receipt_tick: int) -> None:
        self._run("UPDATE {s}.intents SET receipt_tick = %s WHERE tick = %s", (receipt_tick, tick))

    def intents(self, *, pending_only: bool = False) -> list[tuple[int, str, dict[str, Any], int | None]]:
        where = "WHERE receipt_tick IS NULL " if pending_only else ""
        rows = self._all(f"SELECT tick, tool, args, receipt_tick FROM {{s}}.intents {where}ORDER BY tick")
        return [(tick, tool, orjson.loads(args), receipt) for tick, tool, args, receipt in rows]

    # -- messages (agi_core.messaging) ---------------------------------------------------
    def inbox_add(self, message_id: str, tick: int, sender: str, conversation: str) -> bool:
        added = self._run(
            "INSERT INTO {s}.messages_in (id, tick, sender, conversation) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (id) DO NOTHING",
            (message_id, tick, sender, conversation),
        )
        return added == 1

    def inbox_has(self, message_id: str) -> bool:
        return self._one("SELECT 1 FROM {s}.messages_in WHERE id = %s", (message_id,)) is not None

    def inbox_known(self, message_ids: list[str]) -> set[str]:
        return {row[0] for row in self._all("SELECT id FROM {s}.messages_in WHERE id = ANY(%s)", (message_ids,))}

    def outbox_add(self, message_id: str, tick: int, recipient: str, message_json: str) -> None:
        self._run(
            "INSERT INTO {s}.messages_out (id, tick, recipient, message) VALUES (%s, %s, %s, %s)",
            (message_id, tick, recipient, message_json),
        )

    def outbox_unpublished(self, through_tick: int | None = None) -> list[str]:
        rows = self._all(
            "SELECT message FROM {s}.messages_out WHERE NOT published AND (%s::bigint IS NULL OR tick <= %s) "
            "ORDER BY tick, id",
            (through_tick, through_tick),
        )
        return [row[0] for row in rows]

    def outbox_published(self, *message_ids: str) -> None:
        self._run("UPDATE {s}.messages_out SET published = TRUE WHERE id = ANY(%s)", (list(message_ids),))

    def outbox_message(self, message_id: str) -> str | None:
        row = self._one("SELECT message FROM {s}.messages_out WHERE id = %s", (message_id,))
        return None if row is None else str(row[0])

    # -- tick timings (agi_core.memory.tick_timings) ---------------------------------------
    def tick_timing_put(self, tick: int, duration_us: int) -> None:
        self._run(
            "INSERT INTO {s}.tick_timings (tick, duration_us) VALUES (%s, %s) "
            "ON CONFLICT (tick) DO UPDATE SET duration_us = excluded.duration_us",
            (tick, check_duration(tick, duration_us)),
        )

    def tick_timings(self, first: int, last: int) -> dict[int, int]:
        rows = self._all(
            "SELECT tick, duration_us FROM {s}.tick_timings WHERE tick BETWEEN %s AND %s ORDER BY tick", (first, last)
        )
        return {int(tick): int(duration) for tick, duration in rows}

    def rlm_rows(self) -> PostgresRlmRows:
        return PostgresRlmRows(self)

    def ltm_rows(self) -> PostgresLtmRows:
        return PostgresLtmRows(self)

    # -- scheduled jobs (agi_core.scheduling.jobs) -------------------------------------------
    def _job(self, row: tuple[Any, ...]) -> dict[str, Any]:
        job = dict(zip(jobs_table.COLUMNS, row, strict=True))
        for column in JOB_TEXTS:
            job[column] = self.text_back(job[column])
        return job

    def all_jobs(self) -> list[dict[str, Any]]:
        rows = self._all(f'SELECT {_JOB_COLUMNS} FROM {{s}}.jobs ORDER BY name COLLATE "C"')
        return [self._job(row) for row in rows]

    def get_job(self, name: str) -> dict[str, Any] | None:
        row = self._one(f"SELECT {_JOB_COLUMNS} FROM {{s}}.jobs WHERE name = %s", (_text_ref(name),))
        return self._job(row) if row else None

    def put_job(self, job: dict[str, Any]) -> None:
        """Insert or replace the job ``job["name"]``; its texts kept whole (:meth:`keep_text`)."""
        updates = ", ".join(f"{c} = excluded.{c}" for c in jobs_table.COLUMNS[1:])
        marks = ", ".join(["%s"] * len(jobs_table.COLUMNS))
        self._run(
            f"INSERT INTO {{s}}.jobs ({_JOB_COLUMNS}) VALUES ({marks}) ON CONFLICT (name) DO UPDATE SET {updates}",
            tuple(self.keep_text(job[c]) if c in JOB_TEXTS else job[c] for c in jobs_table.COLUMNS),
        )

    def delete_job(self, name: str) -> bool:
        return self._run("DELETE FROM {s}.jobs WHERE name = %s", (_text_ref(name),)) > 0

    def earliest_due(self, now_ms: int) -> dict[str, Any] | None:
        row = self._one(
            f"SELECT {_JOB_COLUMNS} FROM {{s}}.jobs WHERE next_due_ms IS NOT NULL AND next_due_ms <= %s "
            'ORDER BY next_due_ms, name COLLATE "C" LIMIT 1',
            (now_ms,),
        )
        return self._job(row) if row else None

    # -- module state (agi_core.modules) --------------------------------------------------
    def module_state_get(self, module: str, key: str, default: Any = None) -> Any:
        row = self._one("SELECT value FROM {s}.module_state WHERE module = %s AND key = %s", (module, key))
        return default if row is None else orjson.loads(row[0])

    def module_state_put(self, module: str, key: str, value: Any, tick: int = 0, *, text: str | None = None) -> None:
        """Last write wins; the value is stored as canonical JSON text (``text`` when given), as on SQLite."""
        self._run(
            "INSERT INTO {s}.module_state (module, key, value, tick) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (module, key) DO UPDATE SET value = excluded.value, tick = excluded.tick",
            (module, key, dumps(value) if text is None else text, tick),
        )

    def module_state_delete(self, module: str, key: str) -> bool:
        return self._run("DELETE FROM {s}.module_state WHERE module = %s AND key = %s", (module, key)) > 0

    def module_state_items(self, module: str) -> list[tuple[str, Any]]:
        rows = self._all(
            'SELECT key, value FROM {s}.module_state WHERE module = %s ORDER BY key COLLATE "C"', (module,)
        )
        return [(key, orjson.loads(text)) for key, text in rows]

    def module_state_sizes(self) -> dict[str, tuple[int, int]]:
        rows = self._all("SELECT module, count(*), sum(octet_length(value)) FROM {s}.module_state GROUP BY module")
        return {module: (int(count), int(size or 0)) for module, count, size in rows}

    # -- the state seal (see .seal) ---------------------------------------------------------
    def seal(self, key: JournalKey) -> None:
        """Bring the seal up to the stored tick; call inside a write transaction."""
        with self._conn() as conn:
            sealing.seal(conn, self.s, key)

    def read_seal(self) -> tuple[int, int, str] | None:
        with self._conn() as conn:
            return sealing.read_seal(conn, self.s)

    def seal_problems(self, key: JournalKey, head_tick: int) -> list[str]:
        with self._conn() as conn:
            return sealing.check(conn, self.s, key, head_tick)

    # -- checkpoints (schema snapshots, see .snapshots) ------------------------------------
    def checkpoint_create(self, name: str, key: JournalKey) -> CheckpointInfo:
        """Seal, then copy the agent's tables into a schema of their own, in one transaction."""
        with self.tick_transaction():
            assert self._tx is not None
            sealing.seal(self._tx, self.s, key)
            tick = int(self.meta_get("tick", "0") or 0)
            snap = snapshots.create(self._tx, self.s, name, tick, key)
        return CheckpointInfo(name, tick, snap)

    def checkpoint_list(self) -> list[CheckpointInfo]:
        rows = self._all("SELECT name, tick, snapshot FROM {s}.checkpoints ORDER BY seq")
        return [CheckpointInfo(name, int(tick), snap) for name, tick, snap in rows]

    def checkpoint_rollback(self, name: str, key: JournalKey, rollback_id: Callable[[int, int], str]) -> RollbackReport:
        """Check the checkpoint, then restore it in one transaction (undone ticks archived)."""
        with self.tick_transaction():
            assert self._tx is not None
            found = snapshots.problems(self._tx, self.s, name, key)
            if found == [f"no checkpoint named {name!r}"]:
                known = ", ".join(info.name for info in self.checkpoint_list()) or "none"
                raise CheckpointError(f"no checkpoint named {name!r}; existing checkpoints: {known}")
            if found:
                raise CheckpointError(f"checkpoint {name!r} is damaged ({found[0]}); the agent is unchanged")
            tick, undone, made_id = snapshots.restore(self._tx, self.s, name, rollback_id)
        return RollbackReport(name, tick, undone, made_id)

    def checkpoint_prune(self, keep: int) -> list[str]:
        with self.tick_transaction():
            assert self._tx is not None
            return snapshots.prune(self._tx, self.s, keep)

    def checkpoint_remove(self, name: str) -> CheckpointInfo:
        with self.tick_transaction():
            assert self._tx is not None
            return snapshots.remove(self._tx, self.s, name)

    def checkpoint_problems(self, name: str, key: JournalKey) -> list[str]:
        with self._conn() as conn:
            return snapshots.problems(conn, self.s, name, key)

    # -- blobs ---------------------------------------------------------------------------
    def put_blob(self, hex_digest: str, data: bytes) -> None:
        self._run("INSERT INTO {s}.blobs (hash, data) VALUES (%s, %s) ON CONFLICT DO NOTHING", (hex_digest, data))

    def get_blob(self, hex_digest: str, table: str = "{s}.blobs") -> str:
        row = self._one(f"SELECT data FROM {table} WHERE hash = %s", (hex_digest,))
        if row is None:
            raise StorageError(
                f"blob sha256:{hex_digest} is missing from agent {self.agent!r} at {self.url.shown}; "
                "the database was edited, restore a backup"
            )
        return bytes(row[0]).decode("utf-8", errors="replace")

    def blob_items(self) -> Iterator[tuple[str, bytes]]:
        return iter([(h, bytes(d)) for h, d in self._all('SELECT hash, data FROM {s}.blobs ORDER BY hash COLLATE "C"')])

    def store_text(self, text: str) -> str:
        """``text`` (lone surrogates as U+FFFD; with a NUL, which TEXT cannot hold, as a blob), or its reference."""
        text = clean_text(text)
        if "\x00" in text:  # PostgreSQL TEXT has no NUL: the bytes go to a blob, the row keeps its reference
            data = text.encode("utf-8")
            ref = blobs.MARKER + hashlib.sha256(data).hexdigest()
            self.put_blob(ref[len(blobs.MARKER) :], data)
            return ref
        return blobs.put_text(text, self.put_blob)

    def keep_text(self, text: str) -> str:
        """``text`` as a TEXT column holds it whole: with a NUL (which TEXT cannot hold), or looking like a
        reference, its blob's reference (read back by :meth:`text_back`); else ``text`` itself."""
        ref = _text_ref(text)
        if ref != text:
            self.put_blob(ref[len(blobs.MARKER) :], text.encode("utf-8"))
        return ref

    def text_back(self, text: str) -> str:
        """The text :meth:`keep_text` stored (``text`` itself unless it is a reference)."""
        return self.load_text(text) if text.startswith(blobs.MARKER) else text

    def load_world_json(self, text: str) -> Any:
        data = orjson.loads(text)
        return blobs.resolve(data, lambda h: self.get_blob(h, "{w}.blobs")) if blobs.MARKER in text else data


def _text_ref(text: str) -> str:
    """What :meth:`PostgresStore.keep_text` stores for ``text`` (a lookup by it needs no write)."""
    if "\x00" in text or text.startswith(blobs.MARKER):
        return blobs.MARKER + hashlib.sha256(text.encode("utf-8")).hexdigest()
    return text


def _without_nul(params: Any) -> Any:
    """A statement's parameters with any NUL, which PostgreSQL TEXT cannot hold, as U+FFFD: the backstop
    that keeps a tick from failing on a text no column keeps whole (a text that must come back whole is
    stored by :meth:`PostgresStore.keep_text` or :meth:`PostgresStore.store_text` first)."""
    if not any(isinstance(value, str) and "\x00" in value for value in params):
        return params
    return tuple(value.replace("\x00", "\ufffd") if isinstance(value, str) else value for value in params)


def _problem(url: AgentUrl, exc: BaseException) -> str:
    return f"PostgreSQL at {url.shown} failed for agent {url.agent!r}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


_CURSOR_NAMES = itertools.count(1)
"""Names of the server-side cursors (unique while open on one connection)."""


def _fact_text(fact: str) -> str:
    from agi_core.inputs import preview

    return clean_text(fact if len(fact) < blobs.BLOB_THRESHOLD else preview(fact)).replace("\x00", "\ufffd")
