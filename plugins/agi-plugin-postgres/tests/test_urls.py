"""A bad --db URL or an unreachable server is one line naming the problem and the fix."""

from __future__ import annotations

import pytest

from agi_core.errors import ConfigError, StorageError

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

    with pytest.raises(StorageError) as caught:
        PostgresStore(f"postgresql:///agi?host={tmp_path}&agent=ada&home={tmp_path}")
    text = str(caught.value)
    assert text.startswith(f"PostgreSQL at postgresql:///agi?host={tmp_path}&agent=ada&home={tmp_path} failed")
    assert "\n" not in text
