"""Every way a command can fail, said in one line that names the problem and the fix.

:func:`explain` turns an exception into that line. ``AgiError`` messages are already one
line; OS and SQLite errors are translated (disk full, corrupt or locked database, missing
file, permission); anything else is a bug, reported as such. ``AGI_DEBUG=1`` (or its
older name ``AGI_RAISE_ERRORS``) shows the traceback instead.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from agi_core.errors import AgiError


def debug_enabled() -> bool:
    """True when ``AGI_DEBUG`` or ``AGI_RAISE_ERRORS`` asks for tracebacks."""
    return any(os.environ.get(name, "") not in ("", "0") for name in ("AGI_DEBUG", "AGI_RAISE_ERRORS"))


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def database_problem(exc: sqlite3.Error, db: Path | str) -> str:
    """The line for a SQLite error on the agent database ``db``."""
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
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError | sqlite3.IntegrityError):
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


def explain(exc: BaseException, db: Path | str | None = None) -> str:
    """One line naming what went wrong and how to fix it."""
    if isinstance(exc, AgiError):
        return _first_line(str(exc)) or type(exc).__name__
    if isinstance(exc, sqlite3.Error):
        return database_problem(exc, db or "the database")
    if isinstance(exc, OSError):
        return os_problem(exc, db)
    if isinstance(exc, UnicodeError):
        return f"input is not valid UTF-8 text ({exc}); convert it to UTF-8"
    if isinstance(exc, MemoryError):
        return "out of memory; give the command a smaller input"
    if isinstance(exc, RecursionError):
        return "input nested too deeply; give the command a flatter input"
    return (
        f"internal error ({type(exc).__name__}: {_first_line(str(exc))}); "
        "run again with AGI_DEBUG=1 to see the traceback, and report it"
    )
