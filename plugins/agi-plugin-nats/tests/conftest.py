"""A real nats-server with JetStream (scripts/start_nats.sh) for the session, and ``agi`` in subprocesses."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = Path(__file__).resolve().parents[1]


def start_nats(folder: Path) -> dict[str, str]:
    """``{"URL": …, "STOP": …}`` of a server started in ``folder`` (free port; idempotent)."""
    done = subprocess.run(
        [str(ROOT / "scripts" / "start_nats.sh"), str(folder)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


@pytest.fixture(name="start_nats")
def start_nats_fixture():
    """``start(folder) -> {"URL", "STOP"}``: a server of the test's own (to stop it in the test)."""
    return start_nats


@pytest.fixture(scope="session")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> object:
    """The URL of this session's server (each xdist worker starts its own, on its own free port)."""
    pytest.importorskip("nats", reason="pip install -e plugins/agi-plugin-nats (requirements-test.txt)")
    server = start_nats(tmp_path_factory.mktemp("nats"))
    try:
        yield server["URL"]
    finally:
        subprocess.run([server["STOP"]], check=False, timeout=60)


@pytest.fixture
def deployment(nats_url: str) -> str:
    """A messaging URL of its own for one test (a deployment: one stream), acks redelivered after 1 s."""
    return f"{nats_url}/t{uuid.uuid4().hex[:12]}?ack_wait=1"
