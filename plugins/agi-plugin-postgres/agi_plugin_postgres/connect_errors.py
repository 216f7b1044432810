"""A connection the server refused, or that nobody answered: one line naming the problem and the fix.

libpq reports a failed connection with no SQLSTATE, only its text (``connection to server on
socket "…" failed: FATAL:  database "x" does not exist``). The three a user fixes themselves are
recognized in it: a missing database, a missing role, a refused password. Anything else (refused,
no socket, a timeout, an unknown host, a server starting up or shutting down) means no server
answers there: :class:`BackendUnavailable`, which ``agi run --follow`` waits out.
"""

from __future__ import annotations

from typing import Any

import psycopg

from agi_core.errors import BackendUnavailable, StorageError
from agi_plugin_postgres.url import AgentUrl

START = "start the server (scripts/start_postgres.sh), or fix the --db URL (or AGI_DB)"


def is_connect_failure(exc: BaseException) -> bool:
    """True for an error raised while connecting (libpq gives it no SQLSTATE)."""
    return isinstance(exc, psycopg.OperationalError) and exc.sqlstate is None


def connect_error(url: AgentUrl, exc: BaseException) -> StorageError:
    """The error for a failed connection to ``url``'s server: :class:`BackendUnavailable` when no
    server answers, else a :class:`StorageError` whose line says what to create or correct."""
    text = " ".join(str(exc).split())
    detail = text.rsplit(" failed: ", 1)[-1].removeprefix("FATAL: ").strip() or type(exc).__name__
    info = _conninfo(url.dsn)
    user = info.get("user") or "(your login name)"
    where = f"PostgreSQL at {url.shown}"
    if "does not exist" in detail and detail.startswith("database "):
        database = info.get("dbname") or info.get("user") or "(your login name)"
        return StorageError(
            f"{where} has no database {database!r} ({detail}); create it: {_command('createdb', info, database)}"
            ", or name an existing database in the --db URL"
        )
    if "does not exist" in detail and detail.startswith("role "):
        return StorageError(
            f"{where} has no user {user!r} ({detail}); create it: {_command('createuser', info, user)}, "
            "or name an existing user in the --db URL (postgresql://USER@HOST/DB)"
        )
    if "password authentication failed" in detail or "no password supplied" in detail:
        return StorageError(
            f"{where} refused the password of user {user!r} ({detail}); put the right one in the --db URL "
            "(postgresql://USER:PASSWORD@HOST/DB), PGPASSWORD or ~/.pgpass"
        )
    cause = text.split(": ", 1)[1] if text.startswith(("connection failed:", "connection is bad:")) else text
    cause = cause.split(" Is the server running")[0] or type(exc).__name__  # libpq's hint: the line says it
    return BackendUnavailable(f"no PostgreSQL server answers at {url.shown} ({cause}); {START}")


def _conninfo(dsn: str) -> dict[str, Any]:
    from psycopg.conninfo import conninfo_to_dict

    return {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}


def _command(tool: str, info: dict[str, Any], name: str) -> str:
    """``createdb -h HOST -p PORT -U USER NAME``, with the parts the URL gives."""
    flags = [f"{flag} {info[key]}" for flag, key in (("-h", "host"), ("-p", "port")) if info.get(key)]
    if tool == "createdb" and info.get("user"):
        flags.append(f"-U {info['user']}")
    return " ".join([tool, *flags, name])
