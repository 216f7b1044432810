"""Every way a command can fail, said in one line that names the problem and the fix.

:func:`explain` turns an exception into that line. ``AgiError`` messages are already one
line; OS and SQLite errors are translated (disk full, corrupt or locked database, missing
file, permission); anything else is a bug, reported as such. ``AGI_DEBUG=1`` (or its
older name ``AGI_RAISE_ERRORS``) shows the traceback instead.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from agi_core.errors import AgiError, database_problem, os_problem

if TYPE_CHECKING:
    from pathlib import Path


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def is_storage_failure(exc: BaseException) -> bool:
    """An OS error or a SQLite error (sqlite3 is not imported for this: ``agi --help`` does not need it)."""
    sqlite3 = sys.modules.get("sqlite3")
    return isinstance(exc, OSError) or (sqlite3 is not None and isinstance(exc, sqlite3.Error))


def explain(exc: BaseException, db: Path | str | None = None) -> str:
    """One line naming what went wrong and how to fix it."""
    if isinstance(exc, AgiError):
        return _first_line(str(exc)) or type(exc).__name__
    if is_storage_failure(exc) and not isinstance(exc, OSError):
        return database_problem(exc, db or "the database")  # type: ignore[arg-type]
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
