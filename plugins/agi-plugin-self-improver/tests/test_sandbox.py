"""The sandbox is real: hostile proposals are contained and recorded; without bubblewrap the evaluation refuses."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest
from agi_plugin_self_improver import improver
from agi_plugin_self_improver.proposals import code
from agi_plugin_self_improver.sandbox import SandboxUnavailable

from agi_core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]


def evaluated(agent, rephrased, source: str, **settings) -> dict:
    """Evaluate the code proposal ``source`` on the rephrased transcript; the stored proposal, never promoted."""
    with agent() as kernel:
        for line in rephrased:
            kernel.tick(line)
        for key, value in settings.items():
            kernel.command("config_set", {"plugin": "self_improver", "key": key, "value": value})
        proposal = improver.add(kernel, code(source, "test", "hostile"))
        improver.evaluate(kernel, proposal["id"])
        with pytest.raises(ConfigError, match=f"proposal {proposal['id']} is rejected, not accepted"):
            improver.promote(kernel, proposal["id"])
        assert kernel.plugin_settings.values("self_improver")["code"] == {}
    with agent() as kernel:  # recorded in the agent
        return improver.stored(kernel)[proposal["id"]]


def test_a_write_outside_the_sandbox_is_contained(agent, rephrased, bwrap, tmp_path):
    outside_tmp, outside_repo = tmp_path / "escaped.txt", ROOT / "escaped-by-proposal.txt"
    source = (
        f"import os\nos.makedirs({str(tmp_path)!r}, exist_ok=True)\nopen({str(outside_tmp)!r}, 'w').write('out')\n"
        f"open({str(outside_repo)!r}, 'w').write('out')\n"
    )
    try:
        proposal = evaluated(agent, rephrased, source)
    finally:
        escaped = outside_repo.exists()
        outside_repo.unlink(missing_ok=True)
    assert not escaped  # the root is read-only
    assert not outside_tmp.exists()  # /tmp is the sandbox's own tmpfs
    assert proposal["status"] == "rejected"
    assert proposal["scores"]["contained"].startswith("exit 1: ")
    assert "Read-only file system" in proposal["scores"]["contained"]


def test_the_network_is_unreachable(agent, rephrased, bwrap):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        source = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5).sendall(b'leak')\n"
        proposal = evaluated(agent, rephrased, source)
        server.settimeout(0.5)
        with pytest.raises(TimeoutError):  # nobody connected
            server.accept()
    assert proposal["status"] == "rejected"
    assert proposal["scores"]["contained"].startswith("exit 1: ")
    assert any(word in proposal["scores"]["contained"] for word in ("unreachable", "refused"))


def test_a_loop_forever_is_killed_at_the_time_limit(agent, rephrased, bwrap):
    started = time.monotonic()
    proposal = evaluated(agent, rephrased, "while True:\n    pass\n", sandbox_timeout_s=3)
    assert time.monotonic() - started < 30
    assert proposal["status"] == "rejected"
    assert proposal["scores"]["contained"] in ("killed after 3 s (time limit)", "killed at its CPU limit")


def test_memory_beyond_the_limit_is_refused(agent, rephrased, bwrap):
    proposal = evaluated(agent, rephrased, "hog = bytearray(2 * 1024**3)\n", sandbox_memory_mb=512)
    assert proposal["status"] == "rejected"
    assert proposal["scores"]["contained"] == (
        f"exit 1: plugin 'improvement:{proposal['id']}' failed in import: MemoryError"
    )


def test_without_bubblewrap_the_evaluation_refuses(agi, rephrased, tmp_path):
    agi("run", stdin="\n".join(rephrased) + "\n")
    pid = agi("improve", "propose").stdout.split("\t")[0]
    refused = agi("improve", "evaluate", pid, env={"AGI_BWRAP": str(tmp_path / "no-bwrap")})
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "Error: shadow replay refused: bubblewrap (bwrap) is not installed; "
        "install it with scripts/install_bubblewrap.sh (apt-get install bubblewrap)"
    ]
    assert agi("improve", "list").stdout.split("\t")[1] == "proposed"  # nothing ran, nothing recorded


def test_a_bubblewrap_that_cannot_create_namespaces_refuses(agent, rephrased, tmp_path, monkeypatch):
    fake = tmp_path / "fake-bwrap"  # a fake: this container lets bwrap create namespaces
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("AGI_BWRAP", str(fake))
    with agent() as kernel:
        for line in rephrased:
            kernel.tick(line)
        (proposal,) = improver.propose(kernel)
        with pytest.raises(SandboxUnavailable) as refused:
            improver.evaluate(kernel, proposal["id"])
        assert str(refused.value) == (
            "shadow replay refused: bubblewrap cannot create its sandbox here "
            "(bwrap: No permissions to create new namespace); allow unprivileged user namespaces or run as root"
        )
        assert improver.stored(kernel)[proposal["id"]]["status"] == "proposed"


def test_a_python_or_checkout_under_tmp_stays_visible_under_the_workspace_tmpfs(tmp_path, monkeypatch):
    """The workspace is a tmpfs on /tmp: a venv or checkout under /tmp (a CI clone) is bound back, read-only."""
    from agi_plugin_self_improver import sandbox

    checkout = tmp_path / "clone"
    (checkout / "inner").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [*sys.path, str(checkout), str(checkout / "inner")])
    argv = sandbox.command("bwrap", tmp_path / "inbox", cpu_s=1, memory_mb=64, timeout_s=1)
    binds = [tuple(argv[i + 1 : i + 3]) for i, arg in enumerate(argv) if arg == "--ro-bind"]
    assert str(tmp_path).startswith(sandbox.WORKSPACE + "/")
    assert (str(checkout.resolve()), str(checkout.resolve())) in binds
    assert all(not path.startswith(str(checkout / "inner")) for path, _ in binds)  # the outermost only
    assert argv.index("--tmpfs") < argv.index(str(checkout.resolve()))  # bound after the tmpfs, on top of it
