"""SQLite against PostgreSQL: durable ticks/s and fact get/put latency at 1, 4 and 16 concurrent agents.

Each agent is its own process running the same Stage-0 script, one durable tick per input
(SQLite ``synchronous=FULL`` in its own file; PostgreSQL ``synchronous_commit=on``, one schema
per agent in one database). Then each agent times ``put_fact`` (a journaled tick of its own) and
``get_fact`` (one read). Both backends run in the same invocation, against a server started by
``scripts/start_postgres.sh`` (or ``--dsn``), and the table gives PostgreSQL / SQLite ratios.
Needs the postgres plugin importable (``pip install -e plugins/agi-plugin-postgres``)::

    python benchmarks/backends.py --ticks 60 --ops 100
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = [
    "2+3",
    "my favorite color is blue",
    "what is my favorite color?",
    "the capital of Peru is Lima",
    "what is the capital of Peru?",
    "hello there",
]


def agent(db: str, ticks: int, ops: int, start: float, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from agi_core import Kernel
    from agi_core.plugins import Plugins

    plugins = Plugins.builtins("agi_plugin_postgres.plugin")
    with Kernel.open(db, plugins=plugins) as kernel:
        kernel.tick("warm up")
        time.sleep(max(0.0, start - time.time()))  # every agent starts ticking together
        began = time.perf_counter()
        for i in range(ticks):
            kernel.tick(SCRIPT[i % len(SCRIPT)])
        elapsed = time.perf_counter() - began
        puts, gets = [], []
        for i in range(ops):
            t0 = time.perf_counter()
            kernel.put_fact(f"user/bench/item/k{i % 10}", i)
            t1 = time.perf_counter()
            kernel.get_fact(f"user/bench/item/k{i % 10}")
            puts.append(t1 - t0)
            gets.append(time.perf_counter() - t1)
    out.put((ticks, elapsed, puts, gets))


def run(dbs: list[str], ticks: int, ops: int) -> dict[str, float]:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 3.0 + 0.3 * len(dbs)
    procs = [ctx.Process(target=agent, args=(db, ticks, ops, start, out)) for db in dbs]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=900) for _ in procs]
    for proc in procs:
        proc.join()
    total_ticks = sum(r[0] for r in results)
    wall = max(r[1] for r in results)
    puts = sorted(x for r in results for x in r[2])
    gets = sorted(x for r in results for x in r[3])
    return {
        "ticks_s": total_ticks / wall,
        "put_p50": _pct(puts, 50),
        "put_p99": _pct(puts, 99),
        "get_p50": _pct(gets, 50),
        "get_p99": _pct(gets, 99),
    }


def _pct(values: list[float], p: int) -> float:
    if len(values) < 2:
        return values[0] * 1000 if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] * 1000 if p < 100 else values[-1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=60, help="timed ticks per agent")
    parser.add_argument("--ops", type=int, default=100, help="timed put_fact and get_fact per agent")
    parser.add_argument("--agents", default="1,4,16")
    parser.add_argument("--dsn", help="an existing server (default: start one with scripts/start_postgres.sh)")
    args = parser.parse_args()
    stop = None
    dsn = args.dsn
    if dsn is None:
        done = subprocess.run([str(ROOT / "scripts" / "start_postgres.sh")], capture_output=True, text=True, check=True)
        lines = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        dsn, stop = lines["DSN"], lines["STOP"]
    counts = [int(n) for n in args.agents.split(",")]
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="agi-bench-backends-") as folder:
            for n in counts:
                tag = uuid.uuid4().hex[:6]
                sqlite = run([f"{folder}/s{n}-{i}.db" for i in range(n)], args.ticks, args.ops)
                pg = run([f"{dsn}&agent=b{tag}_{i}&home={folder}/pg" for i in range(n)], args.ticks, args.ops)
                rows.append((n, sqlite, pg))
                print(f"... {n} agent(s) done", file=sys.stderr, flush=True)
    finally:
        if stop:
            subprocess.run([stop], check=False)
    print(f"{args.ticks} durable ticks + {args.ops} put/get per agent; latencies in ms; ratio = PostgreSQL / SQLite")
    print("| agents | metric | SQLite | PostgreSQL | ratio |")
    print("|---|---|---|---|---|")
    for n, sqlite, pg in rows:
        for metric, label in [
            ("ticks_s", "ticks/s (all agents)"),
            ("put_p50", "put p50"),
            ("put_p99", "put p99"),
            ("get_p50", "get p50"),
            ("get_p99", "get p99"),
        ]:
            print(f"| {n} | {label} | {sqlite[metric]:.2f} | {pg[metric]:.2f} | {pg[metric] / sqlite[metric]:.2f} |")


if __name__ == "__main__":
    main()
