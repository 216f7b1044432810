"""Issue 12: no SQL outside the memory backends (``agi_core/memory/``).

Everything stored goes through :class:`agi_core.memory.backend.MemoryBackend`, so another backend
(PostgreSQL) can serve the whole kernel. The scan fails on, in any module of ``agi_core/``
outside ``agi_core/memory/``: a call to ``.execute``/``.executemany``/``.executescript``, a call to
``sqlite3.connect``, or an ``import sqlite3`` that is not for type hints only (under
``TYPE_CHECKING``) or local to a function. ``ALLOWED`` lists the exceptions left, each with its
reason; it only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agi_core"
BACKENDS = PACKAGE / "memory"
SQL_CALLS = {"execute", "executemany", "executescript"}

# module (relative to agi_core/) -> reason it may still run SQL; empty: every query is in memory/
ALLOWED: dict[str, str] = {}


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def sql_uses(source: str) -> list[str]:
    """``line: what`` for each SQL call and each module-level ``import sqlite3`` in ``source``."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            if func.attr in SQL_CALLS:
                found.append(f"{node.lineno}: .{func.attr}()")
            elif func.attr == "connect" and isinstance(func.value, ast.Name) and func.value.id == "sqlite3":
                found.append(f"{node.lineno}: sqlite3.connect()")
    for node in tree.body:  # module level only: a function-local import (errors.py's isinstance checks) runs no SQL
        if _type_checking_block(node):
            continue
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
            names = ["sqlite3"]
        if "sqlite3" in names:
            found.append(f"{node.lineno}: import sqlite3")
    return found


def test_no_module_outside_memory_runs_sql():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(BACKENDS):
            continue
        name = path.relative_to(PACKAGE).as_posix()
        uses = sql_uses(path.read_text(encoding="utf-8"))
        if uses and name not in ALLOWED:
            offenders[name] = uses
    assert offenders == {}, "move this SQL behind agi_core.memory.backend (a backend module in agi_core/memory/)"


def test_the_allow_list_only_names_modules_that_still_need_it():
    stale = [name for name in ALLOWED if not sql_uses((PACKAGE / name).read_text(encoding="utf-8"))]
    assert stale == []


def test_the_scan_catches_each_kind_of_sql_use():
    source = (
        "import sqlite3\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    import sqlite3\n"
        "def f(conn, store):\n"
        "    import sqlite3\n"
        "    conn.execute('SELECT 1')\n"
        "    store.conn.executemany('INSERT', [])\n"
        "    conn.executescript('')\n"
        "    sqlite3.connect(':memory:')\n"
        "    store.execute_plan()\n"
    )
    assert sql_uses(source) == [
        "7: .execute()",
        "8: .executemany()",
        "9: .executescript()",
        "10: sqlite3.connect()",
        "1: import sqlite3",
    ]
    assert sql_uses("from sqlite3 import connect\n") == ["1: import sqlite3"]
