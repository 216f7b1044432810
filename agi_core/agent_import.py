"""``agi import``: an agent created from an export file entirely, or not at all.

Everything that can refuse is checked before anything is written: the target holds no agent,
no ``<db>.key`` with another key and no ``<db>-wal`` of a deleted database lies beside it, the
file's header and key. Then:

1. a given key (or, with ``--unverified`` and no key, a new one) is written under a temporary
   name beside ``<db>.key`` (:func:`~agi_core.journal_key.write_pending`);
2. the rows are read, checked against the file's proof and written in one transaction, which
   also checks the key against the agent's, marks an unverified import and seals the state.
   A database file is built under a temporary name (``.<db>.import-<pid>``), closed (its WAL
   folded in), fsynced and linked to ``<db>``: that link is the commit; a server backend commits
   its transaction;
   An export that carries its journal's archive point's checkpoint has it built beside the temporary
   database and moved into ``<db>.checkpoints/`` just before the link (a kill in between leaves an
   orphan copy there, which the next ``checkpoint create`` removes or the next import replaces);
   Without the exported key (``--unverified``) an archived journal's archive point is checked as far as no
   key is needed and MACed with the new key (:func:`_unproven_base`), as the head is;
3. the key is linked into place. A kill between 2 and 3 leaves the whole agent and its pending
   key, which the next command that opens the agent links (:func:`~agi_core.journal_key.load`).

A kill before the commit leaves no agent and no ``<db>`` or ``<db>.key``; its temporary files
(hidden, named after the dead process) are removed by the next import into the same path.
An import that fails on a server backend removes the agent that opening it created (its empty
schema, through the backend's ``remove_empty_agent``); an agent that existed before is untouched.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agi_core import journal
from agi_core.errors import ConfigError, StorageError
from agi_core.faults import fault_point
from agi_core.journal_key import (
    KEY_ENV,
    JournalKey,
    check_value,
    fsync_folder,
    key_path,
    parse_key,
    publish_pending,
    read_key_file,
    write_pending,
)
from agi_core.journal_key import key_file as store_key_file
from agi_core.memory.backend import CheckpointTransfer, MemoryBackend
from agi_core.memory.sqlite.checkpoints import process_alive
from agi_core.memory.transfer import ExportFile, TransferError, import_rows
from agi_core.opening import is_url, open_store, url_agent_exists
from agi_core.plugins import Plugins

CHECK = "journal_key_check"


def import_agent(
    db: str | Path, file: Path, *, key_file: Path | None, unverified: bool, plugins: Plugins
) -> tuple[int, str, list[str]]:
    """Create the agent in ``db`` from ``file``; returns ``(rows, key source, notes)``: a note is one line
    about what the target could not take (the archive point's checkpoint, on a backend without it)."""
    notes: list[str] = []
    secret, source = _given_secret(key_file)
    if secret is None and not unverified:
        raise ConfigError(
            f"pass --key-file with the journal key of the exported agent (its <db>.key), or set {KEY_ENV}; "
            "without it nothing proves the file's rows (--unverified imports them anyway, marked as unproven)"
        )
    given = secret is not None
    if secret is None:
        secret, source = secrets.token_hex(32), "a new key (imported --unverified, without the exported key)"
    key = JournalKey(secret.encode("utf-8"), source)
    if is_url(db):
        existed = url_agent_exists(str(db), plugins=plugins)
        store = open_store(db, plugins=plugins)
        target_key = store_key_file(store)
        pending = None
        try:
            target_key.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new machine's key folder, as agi run
            pending = _pending_key(target_key, secret, write=source != KEY_ENV)
            with store.tick_transaction():
                count = _fill(store, file, key, given=given, unverified=unverified, notes=notes)
        except BaseException:
            _unlink(pending)
            if existed is False:  # opening the store created the agent's (empty) tables: they go too
                _remove_empty(store)
            raise
        finally:
            store.close()
    else:
        path = _new_file(Path(db), plugins)
        target_key = key_path(path)
        pending = _pending_key(target_key, secret, write=source != KEY_ENV)
        count = _build_file(
            path, file, key, given=given, unverified=unverified, pending=pending, plugins=plugins, notes=notes
        )
    if pending is not None:
        publish_pending(pending, target_key)
    return count, source, notes


def _given_secret(key_file: Path | None) -> tuple[str | None, str]:
    if key_file is not None:
        return read_key_file(key_file), str(key_file)
    if os.environ.get(KEY_ENV):
        return parse_key(os.environ[KEY_ENV], KEY_ENV), KEY_ENV
    return None, ""


def _pending_key(target: Path, secret: str, *, write: bool) -> Path | None:
    """Refuse a ``<db>.key`` that holds another key; write the key under a temporary name unless it is there."""
    if target.exists():
        try:
            held = target.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            held = None
        if held is None or not hmac.compare_digest(held.encode(), secret.encode()):
            raise ConfigError(
                f"{target} already exists and holds another journal key (left by a deleted database?); "
                "remove it, or import into another database name"
            )
        return None
    return write_pending(target, secret) if write else None


def _fill(store: MemoryBackend, file: Path, key: JournalKey, *, given: bool, unverified: bool, notes: list[str]) -> int:
    """Inside the caller's transaction: the rows, checked against the file's proof; the key; the mark; the seal."""
    with file.open("rb") as handle:
        export = ExportFile(handle, key if given else None, unverified=unverified)
        count = import_rows(store, export.tables())
        carried: list[Any] | None = None
        if export.carried is not None:
            added, carried = _carry_checkpoint(store, export, key, notes, given=given)
            count += added
    fault_point("import.rows")
    check = store.meta_get(CHECK)
    if not given:  # a new key: the head is MAC'd with it; the chain before stays as exported (not checkable)
        updates = {CHECK: check_value(key)}
        head = store.meta_get(journal.HEAD)
        if head is not None:
            tick, chain = [*head.split(" "), ""][:2]
            updates[journal.HEAD] = journal.head_value(key, int(tick), chain)
        base = store.meta_get(journal.BASE)
        if base is not None:
            updates[journal.BASE] = _unproven_base(store, key, base, export.carried, carried, notes)
        store.meta_update(updates)
    elif check is not None and not hmac.compare_digest(check, check_value(key)):
        raise TransferError(
            f"the journal key from {key.source} is not the key of the exported agent; pass its <db>.key"
        )
    if not export.proven:
        store.meta_set(journal.UNVERIFIED, f"tick={store.meta_get('tick') or 0} key={'yes' if given else 'no'}")
    store.seal(key)
    return count


def _carry_checkpoint(
    store: MemoryBackend, export: ExportFile, key: JournalKey, notes: list[str], *, given: bool
) -> tuple[int, list[Any] | None]:
    """The checkpoint the export carries (its journal's archive point's), created in ``store`` in the import's
    transaction; returns its rows and its newest journal row (``[tick, id, record, chain]``, None when it has
    none). A backend without :class:`CheckpointTransfer` (SQLite and PostgreSQL have it) gets the agent without
    it, its rows still checked, and a note saying so."""
    assert export.carried is not None
    name, tick = export.carried
    counted: list[Any] = [0, None]

    def tables() -> Iterator[tuple[str, list[str], list[list[Any]]]]:
        for table, columns, rows in export.tables():
            counted[0] += len(rows)
            if table == "journal" and rows:
                newest = max(rows, key=lambda row: int(row[columns.index("tick")]))
                counted[1] = [newest[columns.index(column)] for column in ("tick", "id", "record", "chain")]
            if table == "meta" and not given:  # a new key: the checkpoint's key check and MACs are made with it too
                name_at, value_at = columns.index("key"), columns.index("value")
                rows = [
                    [_remac(key, row[name_at], value) if at == value_at else value for at, value in enumerate(row)]
                    for row in rows
                    if row[name_at] != journal.UNVERIFIED
                ]
                mark: list[Any] = [None] * len(columns)  # the checkpoint's state is unproven too, up to its own tick
                mark[name_at], mark[value_at] = journal.UNVERIFIED, f"tick={tick} key=no"
                rows.append(mark)
            yield table, columns, rows

    if isinstance(store, CheckpointTransfer):
        store.checkpoint_load(name, tick, tables(), key)
        return counted[0], counted[1]
    for _table in tables():
        pass  # read to the end line: every row checked against the proof
    notes.append(
        f"the {store.name} backend cannot build a checkpoint from an export (it has no CheckpointTransfer): the "
        f"archive point's checkpoint {name!r} was not imported, so the agent verifies from tick {tick} but agi replay "
        "is refused; import into SQLite or PostgreSQL to replay"
    )
    return 0, counted[1]


def _remac(key: JournalKey, name: str, value: Any) -> Any:
    """A carried checkpoint's meta ``value`` with its key check or MAC made with ``key`` (an import without the
    exported key: its rows are as unproven as the agent's)."""
    if name == CHECK:
        return check_value(key)
    if name == journal.HEAD and isinstance(value, str):
        tick, chain = [*value.split(" "), "", ""][:2]
        return journal.head_value(key, int(tick), chain) if tick.isdigit() else value
    if name == journal.BASE and isinstance(value, str):
        tick, chain, checkpoint = [*value.split(" "), "", "", ""][:3]
        return journal.base_value(key, int(tick), chain, checkpoint) if tick.isdigit() else value
    return value


def _unproven_base(
    store: MemoryBackend,
    key: JournalKey,
    stored: str,
    carried: tuple[str, int] | None,
    newest: list[Any] | None,
    notes: list[str],
) -> str:
    """The journal's archive point of an agent imported without its key, MACed with the new key (as the head is).

    Its MAC, like the chain's links, cannot be checked without the exported key; what needs no key is checked
    and what does not hold together refused: the point parses; the checkpoint carried is the point's (its
    name and tick) and its journal ends with the point's tick and link; the live journal follows on from it
    (numbering and records as ``journal verify`` checks them, not the links). A note says what stays unproven."""
    tick, chain, checkpoint = [*stored.split(" "), "", "", ""][:3]
    if not tick.isdigit() or not chain or not checkpoint:
        raise TransferError(
            "the export's journal archive point (meta journal_base) is malformed; import the file agi export wrote"
        )
    if carried is not None and carried != (checkpoint, int(tick)):
        raise TransferError(
            f"the export carries checkpoint {carried[0]!r} of tick {carried[1]} but its journal's archive point is "
            f"checkpoint {checkpoint!r} of tick {tick}; import the file agi export wrote"
        )
    if carried is not None and (newest is None or int(newest[0]) != int(tick) or newest[3] != chain):
        raise TransferError(
            f"the checkpoint {checkpoint!r} the export carries does not end at its journal's archive point (tick "
            f"{tick} and its chain link): they are not of one agent; import the file agi export wrote"
        )
    head = int(store.meta_get("tick") or 0)
    followed = journal.verify_rows(store.journal_rows(), key, head, (int(tick), chain))
    if not followed.ok:
        raise TransferError(
            f"the export's journal does not follow on from its archive point (tick {tick}): tick {followed.tick}: "
            f"{followed.problem}; import the file agi export wrote"
        )
    held = f"the carried checkpoint {checkpoint!r} holds tick {tick} and its journal ends with the point's link, and"
    if carried is None:
        held = f"the export carries no checkpoint {checkpoint!r} (an older agi wrote it), and"
    notes.append(
        f"imported without the exported key: the journal's archive point (tick {tick}, checkpoint {checkpoint!r}), "
        f"the chain links through tick {head} and the rows are not proven (nor can agi journal verify --archive "
        f"check the archive files of ticks 1..{tick}: they need that key); checked without it: {held} the live "
        f"journal follows on from tick {tick}; agi replay checks the journal against the checkpoint's state"
    )
    return journal.base_value(key, int(tick), chain, checkpoint)


def _move_checkpoints(temp: Path, path: Path) -> None:
    """The checkpoint files built beside the temporary database, moved beside ``path`` (before it is linked:
    a kill in between leaves orphans the next ``checkpoint create`` removes, or the next import replaces)."""
    built = temp.with_name(temp.name + ".checkpoints")
    if not built.is_dir():
        return
    target = path.with_name(path.name + ".checkpoints")
    target.mkdir(exist_ok=True)
    for item in built.iterdir():
        os.replace(item, target / item.name)
    fsync_folder(target)


# -- a database file: built beside the target, then linked into place ------------------------------
def _new_file(path: Path, plugins: Plugins) -> Path:
    """``path``, checked: no agent there, no leftover WAL; dead imports' temporary files removed."""
    if path.is_dir():
        raise ConfigError(f"{path} is a directory, not an agent database; pass --db with a database file")
    if path.exists():
        store = open_store(path, plugins=plugins)
        try:
            if store.last_chain() or store.meta_get("tick") not in (None, "0"):
                raise ConfigError(f"{path} already holds an agent; import into a new database (or a new agent name)")
        finally:
            store.close()
        raise ConfigError(f"{path} exists (a database with no agent); remove it and import again")
    for suffix in ("-wal", "-journal"):
        leftover = path.with_name(path.name + suffix)
        if leftover.exists():
            raise ConfigError(f"{leftover} is left from a deleted database; remove it and import again")
    pattern = re.compile(rf"^\.{re.escape(path.name)}(?:\.key)?\.import-(\d+)(?:-wal|-shm|-journal|\.checkpoints)?$")
    for candidate in path.parent.glob(f".{path.name}*.import-*"):
        found = pattern.match(candidate.name)
        if found and not process_alive(int(found[1])):
            if candidate.is_dir():
                shutil.rmtree(candidate, ignore_errors=True)
            else:
                candidate.unlink(missing_ok=True)
    return path


def _build_file(
    path: Path,
    file: Path,
    key: JournalKey,
    *,
    given: bool,
    unverified: bool,
    pending: Path | None,
    plugins: Plugins,
    notes: list[str],
) -> int:
    temp = path.with_name(f".{path.name}.import-{os.getpid()}")
    try:
        store = open_store(temp, plugins=plugins)
        try:
            with store.tick_transaction():
                count = _fill(store, file, key, given=given, unverified=unverified, notes=notes)
        finally:
            store.close()  # the last connection folds the WAL into the file and removes it
        if temp.with_name(temp.name + "-wal").exists():
            raise StorageError(f"{temp} kept its write-ahead log after closing; import again")
        _fsync(temp)
        _move_checkpoints(temp, path)
        fault_point("import.built")
        try:
            os.link(temp, path)  # the commit: never replaces a database that appeared meanwhile
        except FileExistsError:
            raise ConfigError(f"{path} appeared while importing; import into a new database") from None
        temp.unlink()
        fsync_folder(path.parent)
        fault_point("import.linked")
    except BaseException:
        _unlink(pending)
        raise
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            temp.with_name(temp.name + suffix).unlink(missing_ok=True)
        shutil.rmtree(temp.with_name(temp.name + ".checkpoints"), ignore_errors=True)
    return count


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_empty(store: MemoryBackend) -> None:
    """A server backend's agent that a failed import created, removed (``remove_empty_agent``, where the
    backend has it); a failure to remove it leaves the import's own error to be reported."""
    remove = getattr(store, "remove_empty_agent", None)
    if remove is not None:
        with contextlib.suppress(StorageError):
            remove()


def _unlink(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)
