"""The secret key of the journal's HMAC chain, the head and the state seal.

Generated at creation (``secrets``) and kept beside the database as ``<db>.key`` (mode
0600), or given by ``AGI_JOURNAL_KEY``. A backend whose agent lives on a server names its own
key file (``store.journal_key_file``: the PostgreSQL plugin's is in the user's data folder,
keyed by server and agent, so the agent opens from any folder). A key is printable text
(:func:`parse_key`); anything else is refused in one line. It is not the seed: ids and timestamps still derive
from the seed (determinism is unchanged), but only the key's holder can forge a chain link.
The database stores ``HMAC(key, "agi-journal-key-check")`` in meta, so a wrong key is named
at once. Databases from before the key (journal rows, no check in meta) keep the seed as
their key, marked in meta as ``journal_key_source = seed``.
"""

from __future__ import annotations

import contextlib
import glob
import hmac
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from agi_core.determinism import HmacSha256
from agi_core.errors import ConfigError

if TYPE_CHECKING:
    from agi_core.memory.backend import MemoryBackend

KEY_ENV = "AGI_JOURNAL_KEY"
_CHECK = "journal_key_check"
_SOURCE = "journal_key_source"


class JournalKey:
    """A MAC key; ``mac(message)`` is HMAC-SHA256 as hex."""

    __slots__ = ("_key", "_mac", "source")

    def __init__(self, key: bytes, source: str) -> None:
        self._key = key
        self._mac = HmacSha256(key)  # the chain link and the head of every tick: the key's states kept
        self.source = source

    def mac(self, message: str) -> str:
        return self._mac.hex(message)


KEY_MAX_CHARS = 1024


def key_path(db: Path) -> Path:
    """The key file beside a database file: ``<db>.key``."""
    return db.with_name(db.name + ".key")


def key_file(store: MemoryBackend) -> Path:
    """Where ``store``'s key is kept: the backend's ``journal_key_file`` when it names one, else ``<db>.key``."""
    named = getattr(store, "journal_key_file", None)
    return Path(named) if named is not None else key_path(Path(store.path))


def parse_key(text: str, source: str) -> str:
    """The key in ``text`` (surrounding spaces and the final newline dropped); a one-line
    :class:`ConfigError` when it is empty, too long or holds a control or non-printable character."""
    key = text.strip()
    if not key or len(key) > KEY_MAX_CHARS or not key.isprintable():
        what = "empty" if not key else "too long" if len(key) > KEY_MAX_CHARS else "not printable text"
        raise ConfigError(
            f"the journal key from {source} is malformed ({what}); a key is 1 to {KEY_MAX_CHARS} printable "
            f"characters: restore the key the agent was created with, or unset {KEY_ENV}"
        )
    return key


def read_key_file(path: Path) -> str:
    """The key held by the file ``path``; a one-line :class:`ConfigError` when it is not a key."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        text = "\x00"  # not text: refused below as not printable
    return parse_key(text, str(path))


def load(store: MemoryBackend, seed: str) -> JournalKey:
    """The key of ``store``'s database, created (file + check) for a new database."""
    path = key_file(store)
    env = os.environ.get(KEY_ENV)
    if env is not None and env != "":
        key = JournalKey(parse_key(env, KEY_ENV).encode("utf-8"), KEY_ENV)
    elif store.meta_get(_SOURCE) == "seed":
        key = JournalKey(seed.encode("utf-8"), "the seed (a database created before journal keys)")
    elif path.is_file() or _recover_pending(path, store.meta_get(_CHECK)):
        key = JournalKey(read_key_file(path).encode("utf-8"), str(path))
    elif store.meta_get(_CHECK) is not None:
        raise ConfigError(
            f"journal key {path} is missing; restore that file (mode 0600) or set {KEY_ENV} to the key "
            f"{store.path} was created with"
        )
    elif store.last_chain():  # journal rows, from before journal keys
        key = JournalKey(seed.encode("utf-8"), "the seed (a database created before journal keys)")
        _record(store, key, legacy=True)
        return key
    else:
        key = JournalKey(_create_key_file(path).encode("ascii"), str(path))
    stored = store.meta_get(_CHECK)
    if stored is None:
        _record(store, key, legacy=False)
    elif not hmac.compare_digest(stored, check_value(key)):
        raise ConfigError(
            f"the journal key from {key.source} is not the key of {store.path}; "
            f"use the key it was created with ({path} or {KEY_ENV})"
        )
    return key


def check_value(key: JournalKey) -> str:
    """What meta stores (``journal_key_check``) to recognize ``key``."""
    return key.mac("agi-journal-key-check")


def _record(store: MemoryBackend, key: JournalKey, *, legacy: bool) -> None:
    with store.tick_transaction():
        store.meta_update({_CHECK: check_value(key), **({_SOURCE: "seed"} if legacy else {})})


def _create_key_file(path: Path) -> str:
    """Write a new random key to ``path`` (0600, fsynced); if another process won the race, use its key."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    secret = secrets.token_hex(32)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, secret.encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if the key exists: never replace a key
    except FileExistsError:
        secret = path.read_text(encoding="ascii").strip()
    finally:
        tmp.unlink()
    fsync_folder(path.parent)
    return secret


def write_pending(path: Path, secret: str) -> Path:
    """Write ``secret`` (0600, fsynced) under a temporary name beside ``path``: ``agi import`` links it
    to ``path`` once the agent is committed; a kill in between is finished by :func:`load`."""
    pending = path.with_name(f".{path.name}.import-{os.getpid()}")
    try:
        fd = os.open(pending, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:  # name the folder the user gave, not the temporary file's hidden name
        raise OSError(exc.errno, exc.strerror, str(path.parent)) from None
    try:
        os.write(fd, secret.encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return pending


def publish_pending(pending: Path, path: Path) -> None:
    """Link the key from :func:`write_pending` into place (never replacing a key), then drop its temporary name."""
    with contextlib.suppress(FileExistsError):
        os.link(pending, path)
    pending.unlink(missing_ok=True)
    fsync_folder(path.parent)


def _recover_pending(path: Path, check: str | None) -> bool:
    """True after linking a killed import's pending key into place: its agent was committed, its key not yet."""
    if check is None:
        return False
    for pending in sorted(path.parent.glob(f".{glob.escape(path.name)}.import-*")):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            secret = pending.read_text(encoding="ascii").strip()
            if hmac.compare_digest(check_value(JournalKey(secret.encode("ascii"), str(pending))), check):
                publish_pending(pending, path)
                return True
    return False


def fsync_folder(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
