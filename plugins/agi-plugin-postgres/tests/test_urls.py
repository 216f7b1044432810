"""A bad --db URL or an unreachable server is one line naming the problem and the fix."""

from __future__ import annotations

import shlex
import subprocess
import uuid
from pathlib import Path

import pytest

from agi_core.errors import BackendUnavailable, ConfigError, StorageError

psycopg = pytest.importorskip("psycopg", reason="pip install -e plugins/agi-plugin-postgres")


def test_the_url_splits_into_the_dsn_the_agent_and_its_folder(tmp_path):
    from agi_plugin_postgres.url import parse

    url = parse(f"postgresql://ada:secret@db.example:5433/agi?sslmode=require&agent=ada_1&home={tmp_path}")
    assert (url.dsn, url.agent, url.schema, url.home) == (
        "postgresql://ada:secret@db.example:5433/agi?sslmode=require",
        "ada_1",
        "agent_ada_1",
        tmp_path,
    )
    assert url.shown == f"postgresql://ada:***@db.example:5433/agi?sslmode=require&agent=ada_1&home={tmp_path}"
    assert parse("postgresql:///agi?host=/run/pg&agent=bo").dsn == "postgresql:///agi?host=%2Frun%2Fpg"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "postgresql://h/agi",
            "postgresql://h/agi names no agent; add ?agent=NAME (lower-case letters, digits, _)",
        ),
        (
            "postgresql://h/agi?agent=Ada",
            "agent name 'Ada' in postgresql://h/agi?agent=Ada is not usable as a schema name; use up to 40 "
            "lower-case letters, digits and _, starting with a letter",
        ),
        (
            "postgresql://h/agi?agent=a;drop",
            "agent name 'a;drop' in postgresql://h/agi?agent=a;drop is not usable as a schema name; use up to 40 "
            "lower-case letters, digits and _, starting with a letter",
        ),
    ],
)
def test_a_url_without_a_usable_agent_name_is_refused(url, message):
    from agi_plugin_postgres.url import parse

    with pytest.raises(ConfigError) as caught:
        parse(url)
    assert str(caught.value) == message


def test_a_parameter_libpq_does_not_know_is_one_line():
    """It was 'internal error (ProgrammingError: invalid URI query parameter …)' at the first tick."""
    from agi_plugin_postgres.url import parse

    with pytest.raises(ConfigError, match=r'is not a URL libpq accepts \(.*"bogusparam".*\); agent= and home= are agi'):
        parse("postgresql://h/agi?agent=a&bogusparam=1")


def test_no_server_at_the_url_is_one_line(tmp_path):
    from agi_plugin_postgres.store import PostgresStore

    with pytest.raises(BackendUnavailable) as caught:
        PostgresStore(f"postgresql:///agi?host={tmp_path}&agent=ada&home={tmp_path}")
    assert str(caught.value) == (
        f"no PostgreSQL server answers at postgresql:///agi?host={tmp_path}&agent=ada&home={tmp_path} (connection "
        f'to server on socket "{tmp_path}/.s.PGSQL.5432" failed: No such file or directory); start the server '
        "(scripts/start_postgres.sh), or fix the --db URL (or AGI_DB)"
    )


def _with(dsn: str, **parts: str) -> str:
    """``dsn`` with its database (``db=``) or query parameters replaced."""
    from urllib.parse import parse_qsl, urlencode, urlsplit

    split = urlsplit(dsn)
    query = {**dict(parse_qsl(split.query)), **{k: v for k, v in parts.items() if k != "db"}}
    path = "/" + parts["db"] if "db" in parts else split.path
    return f"{split.scheme}://{split.netloc}{path}?{urlencode(query, safe='/')}"


def _run(command: str) -> None:
    done = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr


def _admin(dsn: str, *statements: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def test_a_missing_database_names_the_createdb_that_makes_it(postgres_dsn, tmp_path):
    """It was 'failed for agent …: connection failed: … FATAL: database "x" does not exist', no fix."""
    from agi_plugin_postgres.store import PostgresStore

    name = f"missing_{uuid.uuid4().hex[:8]}"
    url = _with(postgres_dsn, db=name, agent="ada", home=str(tmp_path))
    with pytest.raises(StorageError) as caught:
        PostgresStore(url)
    text = str(caught.value)
    assert not isinstance(caught.value, BackendUnavailable)  # a follower does not wait for it
    assert text.startswith(f'PostgreSQL at {url} has no database {name!r} (database "{name}" does not exist); ')
    command = text.split("; create it: ", 1)[1].removesuffix(", or name an existing database in the --db URL")
    assert command.startswith("createdb -h ") and command.endswith(f" -U agi {name}")
    _run(command)  # the fix the line gives works
    assert PostgresStore(url).meta_get("tick") is None


def test_a_missing_user_names_the_createuser_that_makes_it(postgres_dsn, tmp_path):
    from agi_plugin_postgres.store import PostgresStore

    user = f"nobody_{uuid.uuid4().hex[:8]}"
    url = _with(postgres_dsn, user=user, agent="ada", home=str(tmp_path))
    with pytest.raises(StorageError) as caught:
        PostgresStore(url)
    text = str(caught.value)
    assert text.startswith(f'PostgreSQL at {url} has no user {user!r} (role "{user}" does not exist); create it: ')
    command = text.split("; create it: ", 1)[1].split(", or name an existing user", 1)[0]
    assert command.startswith("createuser -h ") and command.endswith(f" {user}")
    _run(f"{command} -U agi --superuser")  # as the server's owner (the user running it needs that right)
    assert PostgresStore(url).meta_get("tick") is None


def test_a_refused_password_says_where_the_password_goes(postgres_dsn, tmp_path):
    """The test server trusts every local user: one user of its own is made to need a password."""
    from agi_plugin_postgres.store import PostgresStore

    user = f"pw_{uuid.uuid4().hex[:8]}"
    _admin(postgres_dsn, f"CREATE ROLE {user} LOGIN SUPERUSER PASSWORD 'right'")
    with psycopg.connect(postgres_dsn) as conn:
        (hba,) = conn.execute("SHOW hba_file").fetchone()
    rules = Path(hba).read_text(encoding="utf-8")
    Path(hba).write_text(f"local all {user} scram-sha-256\n{rules}", encoding="utf-8")
    _admin(postgres_dsn, "SELECT pg_reload_conf()")
    query = _with(postgres_dsn, user=user).split("?", 1)[1]
    url = f"postgresql://{user}:wrong@/agi?{query}&agent=ada&home={tmp_path}"
    with pytest.raises(StorageError) as caught:
        PostgresStore(url)
    shown = url.replace(":wrong@", ":***@")
    assert str(caught.value) == (
        f"PostgreSQL at {shown} refused the password of user {user!r} (password authentication failed for user "
        f'"{user}"); put the right one in the --db URL (postgresql://USER:PASSWORD@HOST/DB), PGPASSWORD or ~/.pgpass'
    )
    assert "wrong" not in str(caught.value)
    assert PostgresStore(url.replace(":wrong@", ":right@")).meta_get("tick") is None
