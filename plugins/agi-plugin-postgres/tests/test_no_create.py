"""Read-only commands on an agent that does not exist fail in one line and create nothing:
no schema on the server, no key file, no folder (as on SQLite: tests/cli/test_no_create.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agi_core.testing.read_only import READ_ONLY_COMMANDS

psycopg = pytest.importorskip("psycopg", reason="pip install -e plugins/agi-plugin-postgres")

READ_ONLY = [*READ_ONLY_COMMANDS, ["goals", "list"], ["export"]]  # plus the others opened with existing=True


def _schemas(dsn: str) -> set[str]:
    with psycopg.connect(dsn) as conn:
        return {row[0] for row in conn.execute("SELECT nspname FROM pg_namespace")}


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch):
    """``cli(*args)``: the ``agi`` group in this process (click's runner), the postgres plugin allowed."""
    import agi_core.plugins
    from agi_core.cli.main import make_cli

    monkeypatch.setenv("AGI_LOAD_PLUGINS", "postgres")
    monkeypatch.setattr(agi_core.plugins, "_default", None)  # loaded again, with the plugin; forgotten after
    monkeypatch.delenv("AGI_DEBUG", raising=False)
    monkeypatch.delenv("AGI_RAISE_ERRORS", raising=False)
    return lambda *args: CliRunner().invoke(make_cli(), list(args), prog_name="agi")


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_read_only_command_on_a_missing_agent_creates_nothing(cli, agent_url, postgres_dsn, tmp_path, args):
    url = agent_url("ghost").replace(f"home={tmp_path}", f"home={tmp_path / 'home'}")
    before = _schemas(postgres_dsn)
    result = cli("--db", url, *args)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: no agent database at {url} (create one with agi run)\n"
    assert _schemas(postgres_dsn) == before  # no agent_ghost_… schema (and agi_world untouched)
    assert list(tmp_path.iterdir()) == []  # no home folder, no ghost_….key


def test_journal_verify_on_a_mistyped_agent_as_a_process(agi, agent_url, postgres_dsn, tmp_path: Path):
    """The case from issue 18: it created 21 tables and ghost.key, then said "journal OK: 0 records"."""
    url = agent_url("ghost")
    done = agi(url, "journal", "verify", check=False)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"Error: no agent database at {url} (create one with agi run)\n"
    assert f"agent_{url.split('agent=')[1].split('&')[0]}" not in _schemas(postgres_dsn)
    assert list(tmp_path.iterdir()) == []


def test_read_only_commands_still_read_an_agent_that_exists(agi, agent_url):
    url = agent_url("present")
    agi(url, "run", stdin="my favorite color is green\n")
    assert agi(url, "journal", "verify").stdout.startswith("journal OK: 1 records, chain intact")
    read = json.loads(agi(url, "memory", "get", "user/person/self/favorite_color").stdout)
    assert (read["exists"], read["value"]) == (True, "green")


@pytest.mark.parametrize(
    ("query", "name", "times"),
    [
        ("agent=a&agent=b", "agent", 2),
        ("agent=a&home=/x&home=/y", "home", 2),
        ("agent=a&port=1&port=2&port=3", "port", 3),
    ],
)
def test_a_repeated_url_parameter_is_refused(query, name, times):
    from agi_plugin_postgres.url import parse

    from agi_core.errors import ConfigError

    url = f"postgresql://h/agi?{query}"
    with pytest.raises(ConfigError) as caught:
        parse(url)
    assert str(caught.value) == f"{url} gives {name}= {times} times; give each parameter once"


def test_a_url_that_cannot_be_split_is_one_line(cli, tmp_path):
    result = cli("--db", "postgresql://ada:secret@[::1/agi?agent=x", "journal", "verify")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: --db postgresql://ada:***@[::1/agi?agent=x is not a valid URL (Invalid IPv6 URL); write "
        "postgresql://HOST[:PORT]/DB?agent=NAME (an IPv6 host in brackets: postgresql://[::1]/DB?agent=NAME)\n"
    )
