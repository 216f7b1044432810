"""N writer processes on one agent database: throughput, and every tick journaled exactly once.

For each N (default 1, 2, 4, 8) a fresh database gets N real processes, each opening its own
kernel and, once all are open, running M ticks of unique inputs. Afterwards the journal is
read back: an input missing is *lost*, an input journaled twice is *duplicated* (goal 0/0);
the ticks must be numbered 1..N*M, the HMAC chain must verify and replay must be equal.
Throughput is N*M over the wall time from the common start to the last process's end, and
its ratio to N=1 measured in the same run.
Usage: python benchmarks/concurrency.py [--writers 1 2 4 8] [--ticks 200] [--json]
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agi_core import Determinism, Kernel, Plugins, journal
from agi_core.memory.sqlite_store import SqliteStore
from agi_core.replay import replay


def inputs_of(writer: int, ticks: int) -> list[str]:
    """Unique lines of one writer: facts it states (one entity each, so recall cost stays flat) and sums."""
    return [f"the capital of w{writer}c{j} is p{j}" if j % 2 else f"{writer} + {j}" for j in range(ticks)]


def writer(db: str, index: int, ticks: int, synchronous: str, start: Any, times: Any) -> None:
    with Kernel.open(db, seed="bench", plugins=Plugins.builtins(), synchronous=synchronous) as kernel:
        start.wait()
        began = time.monotonic()
        for line in inputs_of(index, ticks):
            kernel.tick(line)
        times.put((began, time.monotonic()))


def tally(db: Path, writers: int, ticks: int) -> dict[str, Any]:
    """Lost and duplicated inputs, tick numbering, chain and replay of the resulting journal."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT tick, record FROM journal ORDER BY tick").fetchall()
    finally:
        conn.close()
    seen = collections.Counter(json.loads(text)["input"]["raw"] for _tick, text in rows)
    expected = [line for w in range(writers) for line in inputs_of(w, ticks)]
    store = SqliteStore(db)
    try:
        verified = journal.verify(store, Determinism("bench")).ok
    finally:
        store.close()
    return {
        "journaled": len(rows),
        "lost": sum(1 for line in expected if line not in seen),
        "duplicated": sum(count - 1 for count in seen.values() if count > 1),
        "numbered": [tick for tick, _text in rows] == list(range(1, len(rows) + 1)),
        "chain_ok": verified,
        "replay_ok": replay(db, seed="bench", plugins=Plugins.builtins()).ok,
    }


def measure(db: Path, writers: int, ticks: int, synchronous: str) -> dict[str, Any]:
    Kernel.open(db, seed="bench", plugins=Plugins.builtins()).close()  # created once, before the clock
    context = multiprocessing.get_context("spawn")
    start, times = context.Barrier(writers), context.Queue()
    processes = [
        context.Process(target=writer, args=(str(db), index, ticks, synchronous, start, times))
        for index in range(writers)
    ]
    for process in processes:
        process.start()
    spans = [times.get(timeout=600) for _ in processes]
    for process in processes:
        process.join()
    failed = [process.exitcode for process in processes if process.exitcode != 0]
    elapsed = max(end for _begin, end in spans) - min(begin for begin, _end in spans)
    return {
        "writers": writers,
        "ticks": writers * ticks,
        "seconds": elapsed,
        "ticks_per_s": writers * ticks / elapsed,
        "failed_processes": len(failed),
        **tally(db, writers, ticks),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--ticks", type=int, default=200, help="ticks per writer process")
    parser.add_argument("--synchronous", default="FULL", choices=["NORMAL", "FULL"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agi-concurrency-") as folder:
        rows = [
            measure(Path(folder) / f"{i}-writers-{n}.db", n, args.ticks, args.synchronous)
            for i, n in enumerate(args.writers)
        ]
    base = rows[0]["ticks_per_s"]
    for row in rows:
        row["ratio_to_first"] = row["ticks_per_s"] / base
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        first = rows[0]["writers"]
        print(f"{args.ticks} ticks per writer, synchronous={args.synchronous}; ratio: ticks/s over N={first}")
        print(f"{'N':>3} {'ticks':>6} {'ticks/s':>8} {'ratio':>6} {'lost':>5} {'dup':>4}  numbered chain replay")
        for r in rows:
            print(
                f"{r['writers']:>3} {r['ticks']:>6} {r['ticks_per_s']:>8.0f} {r['ratio_to_first']:>6.2f} "
                f"{r['lost']:>5} {r['duplicated']:>4}  {r['numbered']!s:>8} {r['chain_ok']!s:>5} {r['replay_ok']!s:>6}"
            )
    checks = ("numbered", "chain_ok", "replay_ok")
    good = all(r["lost"] == r["duplicated"] == r["failed_processes"] == 0 and all(r[c] for c in checks) for r in rows)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
