"""A PostgreSQL agent's journal key lives in the user's data folder, keyed by server and agent:
the agent opens from any folder (issue 21: it used to be NAME.key in whatever folder ran first)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path


def test_an_agent_without_home_opens_from_any_folder_with_its_key_in_the_user_data_folder(
    postgres_dsn, child_env, tmp_path: Path
):
    url = f"{postgres_dsn}&agent=roamer_{uuid.uuid4().hex[:8]}"
    env = {**child_env, "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("AGI_JOURNAL_KEY", None)

    def agi(folder: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        folder.mkdir(exist_ok=True)
        return subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", url, *args],
            input=stdin,
            env=env,
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = agi(tmp_path / "one", "run", stdin="the capital of Peru is Lima\n")
    assert first.returncode == 0, first.stderr
    second = agi(tmp_path / "two", "run", stdin="what is the capital of Peru?\n")  # another folder
    assert second.returncode == 0, second.stderr
    assert second.stdout == "The capital of Peru is Lima.\n"
    (key,) = (tmp_path / "data" / "agi-core" / "journal-keys").glob(f"*/{url.split('agent=')[1]}.key")
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert not list((tmp_path / "one").glob("*.key")) and not list((tmp_path / "two").glob("*.key"))
    verified = agi(tmp_path / "three", "journal", "verify")
    assert "journal OK: 2 records, chain intact" in verified.stdout, verified.stderr


def test_the_first_import_without_home_on_a_new_machine_makes_the_key_folder(postgres_dsn, child_env, tmp_path: Path):
    """On a fresh HOME the journal-keys folder did not exist and agi import failed ('…/journal-keys/<server>: no
    such file or directory'); agi run made it. The import makes it now, 0700 as agi run does."""
    env = {**child_env, "HOME": str(tmp_path / "home")}
    for name in ("XDG_DATA_HOME", "AGI_JOURNAL_KEY"):
        env.pop(name, None)

    def agi(db: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", db, *args],
            input=stdin,
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )

    db = str(tmp_path / "a.db")
    assert agi(db, "run", stdin="the capital of Peru is Lima\n").returncode == 0
    assert agi(db, "export", "-o", str(tmp_path / "a.jsonl")).returncode == 0
    url = f"{postgres_dsn}&agent=fresh_{uuid.uuid4().hex[:8]}"
    keys = tmp_path / "home" / ".local" / "share" / "agi-core" / "journal-keys"
    assert not keys.exists()
    imported = agi(url, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key")
    assert imported.returncode == 0, imported.stderr
    (key,) = keys.glob(f"*/{url.split('agent=')[1]}.key")
    assert oct(key.parent.stat().st_mode & 0o777) == "0o700" and oct(key.stat().st_mode & 0o777) == "0o600"
    assert agi(url, "run", stdin="what is the capital of Peru?\n").stdout == "The capital of Peru is Lima.\n"
