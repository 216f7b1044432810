"""One exception hierarchy for the whole framework.

Every message is a single line that names the thing that is wrong and how to fix it;
the CLI prints it as is and exits non-zero (``AGI_RAISE_ERRORS=1`` re-raises instead).
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path


class AgiError(Exception):
    """Base class of every error agi-core raises on purpose."""


class JobAlreadyRan(AgiError):
    """A live ``schedule:`` tick found its job no longer due: another process ran it first.

    Raised inside the tick's transaction, so the tick leaves nothing; :meth:`Kernel.tick`
    returns None for it. Two ``agi run --follow`` processes on one agent thus run a due job once.
    """


class ConfigError(AgiError):
    """A setting, option or environment variable has a value the kernel cannot use."""


class PluginError(AgiError):
    """A plugin failed to load, declared something invalid, or raised in a hook."""


class RegistrationError(PluginError):
    """A plugin registered something twice, or something that does not match its schema."""

    @classmethod
    def duplicate(cls, kind: str, name: str, first: str, second: str) -> RegistrationError:
        """``name`` (a ``kind``: module, tool, contract…) registered by plugin ``first``, then by ``second``."""
        if first == second:
            return cls(f"plugin {first!r} registers the {kind} {name!r} twice; give each {kind} its own name")
        return cls(
            f"{kind} {name!r} is registered by both plugins {first!r} and {second!r}; rename one of the two, "
            f"or disable one plugin (AGI_DISABLE_PLUGINS={second})"
        )


class ValidationError(AgiError):
    """Data does not match its schema; ``path`` is the JSON path of the first problem."""

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.path = path


class MemoryKeyError(AgiError):
    """A semantic-memory key breaks the canonical key rules (S1-S3)."""


class StorageError(AgiError):
    """The store could not read or write; nothing already stored was changed."""


class ToolError(AgiError):
    """A tool was called with bad arguments, refused by policy, or failed."""


class ReplayMismatch(AgiError):
    """A replayed tick differs from the recorded one."""


class TransactionLost(StorageError):
    """The database rolled back the open transaction by itself after an error (SQLite does for a full disk, an
    I/O error, no memory): nothing the transaction wrote is stored, and the tick cannot go on and be stored."""


class DatabaseLocked(StorageError):
    """Another process held the database's write lock longer than the lock timeout."""


class NoDatabaseError(StorageError):
    """A command that only reads was pointed at a path with no agent database; nothing was created."""


class BackendUnavailable(StorageError):
    """The store's server cannot be reached (stopped, restarting, network); nothing of the failed
    transaction was committed unless its commit was under way. Retrying later may succeed."""


class TransportUnreachable(StorageError):
    """The messaging transport's broker cannot be reached as the message box opens (stopped, restarting,
    network): ``agi send`` keeps its message in the outbox for later; an agent does not start."""


def database_problem(exc: sqlite3.Error, db: Path | str) -> str:
    """The line for a SQLite error on the agent database ``db``."""
    import sqlite3

    text = str(exc)
    lowered = text.lower()
    if "disk is full" in lowered or "database or disk is full" in lowered:
        return f"disk full while writing {db}; free space and retry"
    if "locked" in lowered or "busy" in lowered:
        return f"{db} is locked by another process ({text}); retry when it has finished"
    if "readonly" in lowered or "read-only" in lowered:
        return f"{db} is read-only ({text}); make the file and its folder writable, or pass --db with another file"
    if "unable to open" in lowered:
        return f"cannot open {db} ({text}); check that its folder exists and is writable"
    if "another program's tables" in lowered:
        return f"{db} is not an agi database ({text}); pass --db with another file"
    corrupt = isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)
    if corrupt and not isinstance(exc, sqlite3.IntegrityError):
        return (
            f"{db} is not an agi database or is corrupt ({text}); "
            "restore it from a checkpoint or pass --db with another file"
        )
    return f"the database {db} failed ({type(exc).__name__}: {text}); retry, or run with AGI_DEBUG=1 and report it"


def os_problem(exc: OSError, db: Path | str | None) -> str:
    """The line for an operating-system error (the file it names, else the database)."""
    what = exc.filename if exc.filename is not None else db
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        return f"disk full while writing {what}; free space and retry"
    if exc.errno == errno.EDQUOT:
        return f"disk quota exceeded while writing {what}; free space and retry"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"permission denied on {what}; make it readable/writable or use another path"
    if exc.errno == errno.ENOENT:
        return f"{what}: no such file or directory; check the path"
    if exc.errno == errno.EISDIR:
        return f"{what} is a directory; pass a file"
    if exc.errno == errno.EROFS:
        return f"{what} is on a read-only file system; use a path on a writable one"
    return f"{what}: {reason}; check the path and retry"


def debug_enabled() -> bool:
    """True when ``AGI_DEBUG`` or ``AGI_RAISE_ERRORS`` asks for tracebacks."""
    return any(os.environ.get(name, "") not in ("", "0") for name in ("AGI_DEBUG", "AGI_RAISE_ERRORS"))
