"""``agi serve`` as users start it: a real process, loopback by default, a token to bind elsewhere, no database made."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TOKEN = "s3cret-token-of-24-chars"
ENV = {**os.environ, "AGI_LOAD_PLUGINS": "inspector"}  # the installed plugin's entry point, only it


def agi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agi_core", *args], capture_output=True, text=True, timeout=120, env=ENV, check=False
    )


@contextmanager
def served(*args: str) -> Iterator[str]:
    """``agi ARGS serve --port 0 …`` running; yields its URL (from the line it prints)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agi_core", *args], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=ENV
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"agi inspector on (http://\S+/) ", line)
        assert found, line + process.stderr.read()
        yield found.group(1)
    finally:
        process.terminate()
        process.communicate(timeout=60)


def status(url: str, token: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_serve_answers_on_loopback_read_only(agent_db: Path) -> None:
    with served("--db", str(agent_db), "serve", "--port", "0") as url:
        assert url.startswith("http://127.0.0.1:")
        assert status(url) == 200 and status(url + "ticks/2") == 200
        with urllib.request.urlopen(url + "chat", timeout=60) as answer:
            assert b'id="read-only"' in answer.read()


def test_serve_beyond_loopback_needs_the_token(agent_db: Path) -> None:
    refused = agi("--db", str(agent_db), "serve", "--host", "0.0.0.0", "--port", "0")
    assert refused.returncode == 1
    assert refused.stderr == (
        "Error: agi serve --host 0.0.0.0 would show the agent to the network; give a token with --token "
        "or AGI_SERVE_TOKEN (or serve on 127.0.0.1)\n"
    )
    with served("--db", str(agent_db), "serve", "--host", "0.0.0.0", "--port", "0", "--token", TOKEN) as url:
        local = url.replace("0.0.0.0", "127.0.0.1")
        assert status(local) == 401 and status(local, "wrong-token-wrong-token") == 401
        assert status(local, TOKEN) == 200


def test_serve_creates_no_database(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    done = agi("--db", str(missing), "serve", "--port", "0")
    assert (done.returncode, done.stderr) == (1, f"Error: no agent database at {missing} (create one with agi run)\n")
    assert list(tmp_path.iterdir()) == []


def test_the_lazy_summary_is_the_command_s_own() -> None:
    """``agi --help`` prints the summary without importing the command: it must say what the command says."""
    from agi_plugin_inspector.cli import serve
    from agi_plugin_inspector.plugin import SERVE

    assert SERVE == ("agi_plugin_inspector.cli:serve", (serve.help or "").splitlines()[0])
