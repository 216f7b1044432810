"""A real PostgreSQL server for the session (scripts/start_postgres.sh), stopped at the end."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def postgres_dsn() -> object:
    """The DSN of a fresh server (unix socket in a temporary folder); AGI_TEST_POSTGRES_DSN reuses one."""
    pytest.importorskip("psycopg", reason="pip install -e plugins/agi-plugin-postgres (requirements-test.txt)")
    if os.environ.get("AGI_TEST_POSTGRES_DSN"):
        yield os.environ["AGI_TEST_POSTGRES_DSN"]
        return
    done = subprocess.run(
        [str(ROOT / "scripts" / "start_postgres.sh")], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    try:
        yield lines["DSN"]
    finally:
        subprocess.run([lines["STOP"]], check=False, timeout=60)


@pytest.fixture
def agent_url(postgres_dsn: str, tmp_path: Path):
    """``url(name) -> --db URL`` of a new agent named after the test (its local files in tmp_path)."""
    run = uuid.uuid4().hex[:8]  # a reused server (AGI_TEST_POSTGRES_DSN) keeps earlier runs' agents

    def url(name: str) -> str:
        return f"{postgres_dsn}&agent={name}_{run}&home={tmp_path}"

    return url


@pytest.fixture
def agi():
    """``agi(db, *args, stdin="")``: the real ``agi`` in a subprocess, with the postgres plugin allowed."""

    def run(db: str, *args: str, stdin: str = "", check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", db, *args],
            input=stdin,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check:
            assert done.returncode == 0, done.stderr
        return done

    return run


@pytest.fixture(name="child_env")
def child_env_fixture() -> dict[str, str]:
    return child_env()


def child_env() -> dict[str, str]:
    """This checkout and the plugin first on PYTHONPATH (the caller's path after), the plugin allowed."""
    path = os.pathsep.join([str(ROOT), str(PLUGIN), *filter(None, [os.environ.get("PYTHONPATH", "")])])
    return {**os.environ, "PYTHONPATH": path, "AGI_LOAD_PLUGINS": "postgres"}
