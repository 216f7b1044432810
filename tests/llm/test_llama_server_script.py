"""scripts/llama_server.sh: one llama.cpp thread unless AGI_LLAMA_SERVER_THREADS says otherwise
(benchmarks/llama_threads.py: on 2 cores one thread was several times faster than two)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agi_core.llm.testing import free_port

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "llama_server.sh"


def served_threads(threads: str | None) -> list[str]:
    """The ``--n_threads``/``--n_threads_batch`` the script's server runs with (read from its command line)."""
    port = free_port()
    env = {**os.environ, "PYTHON": sys.executable}
    env.pop("AGI_LLAMA_SERVER_THREADS", None)
    if threads is not None:
        env["AGI_LLAMA_SERVER_THREADS"] = threads
    proc = subprocess.Popen([str(SCRIPT), "", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert proc.poll() is None, "the server exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        args = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode().split("\0")  # the script exec'd it
        return [args[args.index(flag) + 1] for flag in ("--n_threads", "--n_threads_batch")]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.mark.llm
def test_the_server_runs_one_thread_unless_the_environment_says_otherwise(smollm2_gguf):
    assert served_threads(None) == ["1", "1"]
    assert served_threads("nproc") == [str(len(os.sched_getaffinity(0)))] * 2  # what nproc counts
    assert served_threads("3") == ["3", "3"]


def test_a_thread_count_that_is_not_one_is_refused_in_one_line():
    done = subprocess.run(
        [str(SCRIPT)], env={**os.environ, "AGI_LLAMA_SERVER_THREADS": "many"}, capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (
        1,
        "AGI_LLAMA_SERVER_THREADS=many is not a thread count; set a positive number or nproc\n",
    )
