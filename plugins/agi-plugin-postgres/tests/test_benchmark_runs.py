"""benchmarks/backends.py still runs against both backends (tiny sizes; its figures are not asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_backends_benchmark_prints_a_row_per_metric_and_agent_count(postgres_dsn, child_env):
    tiny = ["--ticks", "2", "--ops", "3", "--agents", "1,2", "--dsn", postgres_dsn]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "backends.py"), *tiny],
        capture_output=True,
        text=True,
        timeout=300,
        env=child_env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [
        line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| 1 ") or line.startswith("| 2 ")
    ]
    assert [(r[0], r[1]) for r in rows] == [
        (f"| {n}", metric)
        for n in (1, 2)
        for metric in ("ticks/s (all agents)", "put p50", "put p99", "get p50", "get p99")
    ]
    assert all(float(r[4].rstrip(" |")) > 0 for r in rows)  # a ratio for every row
