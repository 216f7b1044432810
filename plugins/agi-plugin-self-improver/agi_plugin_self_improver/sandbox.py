"""The shadow replay's sandbox: bubblewrap, a read-only root, no network, a tmpfs workspace, CPU/memory/time limits.

Where ``bwrap`` is missing or cannot create its namespaces the evaluation refuses
(:class:`SandboxUnavailable`, one line); it never runs unsandboxed.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agi_core.errors import AgiError, ConfigError

#: the workspace inside the sandbox: a tmpfs, gone with the process
WORKSPACE = "/tmp"
INPUT = "/tmp/in"


class SandboxUnavailable(AgiError):
    """bubblewrap is missing or cannot run here: the evaluation refuses."""


def bwrap_path() -> str:
    """The ``bwrap`` binary, checked once: it must start a namespace with no network."""
    found = shutil.which(os.environ.get("AGI_BWRAP", "bwrap"))
    if found is None:
        raise SandboxUnavailable(
            "shadow replay refused: bubblewrap (bwrap) is not installed; "
            "install it with scripts/install_bubblewrap.sh (apt-get install bubblewrap)"
        )
    probe = subprocess.run(
        [found, "--ro-bind", "/", "/", "--unshare-net", "--tmpfs", "/tmp", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0:
        why = (probe.stderr.strip().splitlines() or [f"exit {probe.returncode}"])[-1]
        raise SandboxUnavailable(
            f"shadow replay refused: bubblewrap cannot create its sandbox here ({why}); "
            "allow unprivileged user namespaces or run as root"
        )
    return found


def command(bwrap: str, inbox: Path, *, cpu_s: int, memory_mb: int, timeout_s: float) -> list[str]:
    """The sandboxed command: the shadow replay of :mod:`agi_plugin_self_improver.shadow`."""
    return [
        "timeout",
        "--signal=KILL",
        str(int(timeout_s)),
        bwrap,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", WORKSPACE,
        *_python_under_workspace(),
        "--ro-bind", str(inbox), INPUT,
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
        "--chdir", WORKSPACE,
        "--setenv", "HOME", WORKSPACE,
        "--",
        "prlimit",
        f"--cpu={cpu_s}",
        f"--as={memory_mb * 1024 * 1024}",
        "--nproc=256",
        "--",
        sys.executable,
        "-m",
        "agi_plugin_self_improver.shadow",
        f"{INPUT}/spec.json",
    ]  # fmt: skip


def _python_under_workspace() -> list[str]:
    """``--ro-bind`` options for what this Python runs from that lies under the workspace's path: the
    tmpfs would hide a virtual environment or a checkout in /tmp (the interpreter, sys.path)."""
    workspace = Path(WORKSPACE)
    wanted = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    wanted.update(Path(entry) for entry in sys.path if entry)
    found = sorted({path.resolve() for path in wanted if path.exists()} | {path for path in wanted if path.exists()})
    under = [path for path in found if path.is_relative_to(workspace) and path != workspace]
    outermost = [path for path in under if not any(path != other and path.is_relative_to(other) for other in under)]
    return [option for path in outermost for option in ("--ro-bind", str(path), str(path))]


def copy_agent(kernel: Any, inbox: Path) -> str:
    """A consistent copy of the agent's database (and its key and files) in ``inbox``; the copy's name."""
    from agi_core.journal_key import key_path
    from agi_core.memory.sqlite_store import SqliteStore

    store = kernel.store
    if not isinstance(store, SqliteStore):
        raise ConfigError(f"shadow replay needs the sqlite backend, not {store.name!r}; export the agent to sqlite")
    source = Path(store.path)
    target = inbox / source.name
    with sqlite3.connect(target) as copy:
        store.conn.backup(copy)
    copy.close()
    if key_path(source).exists():
        shutil.copy2(key_path(source), key_path(target))
    files = source.with_name(source.name + ".state")
    if files.is_dir():
        shutil.copytree(files, target.with_name(target.name + ".state"))
    return target.name


def shadow_replay(kernel: Any, proposal: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """Run the proposal's shadow replay in the sandbox: its scores, or ``{"contained": why}`` when it broke a limit."""
    bwrap = bwrap_path()
    timeout_s = float(settings.get("sandbox_timeout_s", 60))
    memory_mb = int(settings.get("sandbox_memory_mb", 4096))
    with tempfile.TemporaryDirectory(prefix="agi-shadow-") as folder:
        inbox = Path(folder)
        name = copy_agent(kernel, inbox)
        spec = {"db": f"{INPUT}/{name}", "proposal": proposal}
        (inbox / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        argv = command(bwrap, inbox, cpu_s=max(1, int(timeout_s)), memory_mb=memory_mb, timeout_s=timeout_s)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s + 30)
        except subprocess.TimeoutExpired:
            return {"contained": f"killed after {timeout_s:g} s (time limit)"}
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])  # type: ignore[no-any-return]
    return {"contained": _why(done.returncode, timeout_s, done.stderr), "rc": done.returncode}


def _why(rc: int, timeout_s: float, stderr: str) -> str:
    if rc in (124, 137, -9):
        return f"killed after {timeout_s:g} s (time limit)"
    if rc in (152, -24):
        return "killed at its CPU limit"
    tail = [line for line in stderr.strip().splitlines() if line.strip()]
    return f"exit {rc}: {tail[-1][:300] if tail else 'no output'}"
