"""Where the journal key comes from: AGI_JOURNAL_KEY, a backend's own key file, ``<db>.key``;
a malformed key (env or file) is refused in one line and nothing is stored."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agi_core import Kernel
from agi_core.errors import ConfigError
from agi_core.journal_key import key_file, parse_key
from agi_core.memory.sqlite_store import SqliteStore

ROOT = Path(__file__).resolve().parents[1]


def _agi(db: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "AGI_JOURNAL_KEY"}
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        input="hello\n",
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("text", "what"), [("   ", "empty"), ("ab\x07cd", "not printable text"), ("k" * 1025, "too long")]
)
def test_a_malformed_key_is_named_in_one_line(text, what):
    with pytest.raises(ConfigError) as caught:
        parse_key(text, "AGI_JOURNAL_KEY")
    message = str(caught.value)
    assert "\n" not in message and f"the journal key from AGI_JOURNAL_KEY is malformed ({what})" in message


def test_a_key_keeps_its_inner_spaces_and_drops_the_newline():
    assert parse_key("correct horse battery staple\n", "f") == "correct horse battery staple"


def test_the_cli_refuses_a_malformed_env_key_in_one_line_and_creates_nothing(tmp_path):
    db = tmp_path / "a.db"
    done = _agi(db, "run", AGI_JOURNAL_KEY="bad\tkey")
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "the journal key from AGI_JOURNAL_KEY is malformed (not printable text)" in line
    assert not (tmp_path / "a.db.key").exists()


def test_a_key_file_that_holds_no_key_is_named_and_the_agent_is_untouched(tmp_path):
    db = tmp_path / "a.db"
    assert _agi(db, "run").returncode == 0
    before = db.read_bytes()
    (tmp_path / "a.db.key").write_bytes(b"\xff\xfe\x00garbage")
    done = _agi(db, "run")
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert f"the journal key from {tmp_path / 'a.db.key'} is malformed (not printable text)" in line
    assert db.read_bytes() == before


def test_a_backend_that_names_its_key_file_gets_its_key_there_from_any_folder(tmp_path, monkeypatch):
    """A store with ``journal_key_file`` (a server agent's) keeps its key there, not beside ``path``."""
    keys = tmp_path / "user-data" / "journal-keys" / "server" / "alice.key"

    class ServerLikeStore(SqliteStore):
        journal_key_file = keys

    monkeypatch.setattr("agi_core.memory.sqlite_store.SqliteStore", ServerLikeStore)
    db = tmp_path / "somewhere" / "alice.db"
    db.parent.mkdir()
    store = ServerLikeStore(db)
    assert key_file(store) == keys
    store.close()
    with Kernel.open(db, plugins=None, backend="sqlite") as kernel:
        kernel.tick("hello")
    assert keys.is_file() and not (db.parent / "alice.db.key").exists()
