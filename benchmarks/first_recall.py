"""The first recall of an agent that never used long-term memory, with another writer waiting.

An agent of ``--ticks`` rule-only ticks (no retrieval module: its episodes were never mirrored nor
embedded) is copied twice; on each copy the retrieval module asks a question while a second
connection (as a second ``agi`` process, the inspector or ``agi send`` would) tries to take the
write lock ``--writer-after`` seconds into the tick. Measured for the code as it is (the tick's
catch-up encodes at most ``TICK_ENCODE_LIMIT`` items, the rest in the background) and, in the same
run, for the baseline (``tick_encode_limit = None``: the tick embeds every memory under the lock,
as before): the tick's wall time, how long the other writer waited for the lock, and, for the
bounded code, how long the background took to store every vector (ticks going on meanwhile).
The MiniLM model is loaded before either run. Each run also gives the episodes mirrored into long-term
memory inside the question's tick (its transaction) and how long that tick held the write lock.

``--base PATH`` (a checkout of an older commit, e.g. ``git archive b754074 | tar -x -C /tmp/base``) instead
compares that code's bounded first recall with this code's, each in a process of its own on a copy of the
same agent, alternated ``--rounds`` times. Usage::

    python benchmarks/first_recall.py [--ticks 3000] [--writer-after 0.2] [--json]
    python benchmarks/first_recall.py --base PATH [--rounds 3] [--ticks 3000] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import agi_plugin_retrieval.plugin as retrieval

from agi_core.longterm import episodes, vectors
from agi_core.testing import open_kernel

COLOURS = ("red", "blue", "green", "teal")
QUESTION = "which colour does my friend number 17 like?"


def make_agent(db: Path, ticks: int) -> None:
    with open_kernel(db, seed="first-recall") as kernel:
        for i in range(ticks):
            kernel.tick(f"note {i}: my friend number {i} likes {COLOURS[i % 4]} and lives in town {i % 97}")


def copy_agent(base: Path, to: Path) -> Path:
    to.mkdir()
    db = to / base.name
    shutil.copy(base, db)
    shutil.copy(base.with_name(base.name + ".key"), db.with_name(db.name + ".key"))
    return db


class Writer(threading.Thread):
    """A second connection that takes the write lock ``after`` seconds from its start, and how long it waited."""

    def __init__(self, db: Path, after: float) -> None:
        super().__init__(daemon=True)
        self.db, self.after, self.waited = db, after, 0.0

    def run(self) -> None:
        time.sleep(self.after)
        conn = sqlite3.connect(self.db, timeout=600, isolation_level=None)
        began = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        self.waited = time.perf_counter() - began
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('first_recall_probe', 'x')")
        conn.execute("COMMIT")
        conn.close()


class InTick:
    """Episodes mirrored while the kernel holds a tick's write lock, and how long its ticks held it, until closed."""

    def __init__(self, kernel: Any) -> None:
        self.kernel, self.mirrored, self.held_s = kernel, 0, 0.0
        self._mirror, self._lock = episodes._mirror, kernel.write_lock
        episodes._mirror = self.mirror  # type: ignore[assignment]  # instrumentation: the real mirror runs
        kernel.write_lock = self.write_lock

    def mirror(self, store: Any, memory: Any, *args: Any) -> int:
        read = int(self._mirror(store, memory, *args))
        if self.kernel._locked:
            self.mirrored += read
        return read

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        with self._lock():
            began = time.perf_counter()
            yield
        self.held_s += time.perf_counter() - began

    def close(self) -> None:
        episodes._mirror = self._mirror  # type: ignore[assignment]
        del self.kernel.write_lock  # the class's again


def measure(db: Path, *, bounded: bool, writer_after: float) -> dict[str, Any]:
    with open_kernel(db, retrieval, seed="first-recall") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        memory.embedder.warm_up()  # type: ignore[attr-defined]  # MiniLM: its load is not what is measured
        if not bounded:
            memory.tick_encode_limit = None
        writer = Writer(db, writer_after)
        writer.start()
        in_tick = InTick(kernel)
        began = time.perf_counter()
        kernel.tick(QUESTION)
        tick_s = time.perf_counter() - began
        in_tick.close()
        writer.join()
        pending, top = memory.pending(), memory.rows.max_seq()
        ticks_after = 0
        while any(seq <= top for seq, _tick, _text in vectors.missing(memory.rows, memory.embedder.name)):
            # the background encodes; each tick stores what it finished, and its recall indexes it
            memory.prefetch.wait()
            kernel.tick(f"what does my friend number {ticks_after} like?")
            ticks_after += 1
        drained_s = time.perf_counter() - began
        return {
            "tick_s": round(tick_s, 3),
            "mirrored_in_tick": in_tick.mirrored,
            "tick_lock_held_s": round(in_tick.held_s, 3),
            "writer_waited_s": round(writer.waited, 3),
            "pending_after_tick": pending,
            "all_stored_s": round(drained_s, 3),
            "ticks_until_all_stored": ticks_after,
        }


def in_process(code: Path, db: Path, writer_after: float) -> dict[str, Any]:
    """:func:`measure` (bounded) on ``db`` with the code of the checkout ``code``, in a process of its own."""
    paths = [str(code), *(str(p) for p in sorted((code / "plugins").glob("agi-plugin-*")))]
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(db), "--writer-after", str(writer_after)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        cwd=str(db.parent),
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def against_base(args: argparse.Namespace) -> None:
    """This code's bounded first recall against ``--base``'s, alternated ``--rounds`` times."""
    here = Path(__file__).resolve().parents[1]
    rows: dict[str, list[dict[str, Any]]] = {"base": [], "this": []}
    with tempfile.TemporaryDirectory(prefix="agi-first-recall-") as tmp:
        base = Path(tmp) / "base" / "agent.db"
        base.parent.mkdir()
        make_agent(base, args.ticks)
        for round_ in range(args.rounds):
            for name, code in (("base", args.base.resolve()), ("this", here)):
                db = copy_agent(base, Path(tmp) / f"{name}{round_}")
                rows[name].append({**in_process(code, db, args.writer_after), "load_average": os.getloadavg()[0]})
    keys = ("tick_s", "mirrored_in_tick", "tick_lock_held_s", "writer_waited_s")
    result = {
        "ticks": args.ticks,
        "rounds": rows,
        "median": {name: {key: statistics.median(r[key] for r in runs) for key in keys} for name, runs in rows.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, runs in rows.items():
        for row in runs:
            print(
                f"{name:>4}: tick {row['tick_s']:.2f} s, {row['mirrored_in_tick']} episodes mirrored in it, lock held "
                f"{row['tick_lock_held_s']:.2f} s, other writer waited {row['writer_waited_s']:.2f} s "
                f"(load average {row['load_average']:.1f})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ticks", type=int, default=3000)
    parser.add_argument("--writer-after", type=float, default=0.2)
    parser.add_argument("--base", type=Path, help="a checkout of the older code to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child, bounded=True, writer_after=args.writer_after)))
        return
    if args.base is not None:
        against_base(args)
        return
    with tempfile.TemporaryDirectory(prefix="agi-first-recall-") as tmp:
        base = Path(tmp) / "base" / "agent.db"
        base.parent.mkdir()
        make_agent(base, args.ticks)
        before = measure(copy_agent(base, Path(tmp) / "before"), bounded=False, writer_after=args.writer_after)
        after = measure(copy_agent(base, Path(tmp) / "after"), bounded=True, writer_after=args.writer_after)
    result = {
        "ticks": args.ticks,
        "load_average": os.getloadavg()[0],
        "before": before,
        "after": after,
        "tick_ratio": round(after["tick_s"] / before["tick_s"], 4),
        "writer_wait_ratio": round(after["writer_waited_s"] / max(before["writer_waited_s"], 1e-6), 4),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"agent of {args.ticks} ticks, load average {result['load_average']:.2f}")
    for name in ("before", "after"):
        row = result[name]
        print(
            f"{name:>6}: first recalling tick {row['tick_s']:.2f} s, "
            f"other writer waited {row['writer_waited_s']:.2f} s, "
            f"{row['pending_after_tick']} memories left to the background, "
            f"all stored after {row['all_stored_s']:.1f} s ({row['ticks_until_all_stored']} more ticks)"
        )
    print(f"ratio after/before: tick {result['tick_ratio']:.3f}, other writer's wait {result['writer_wait_ratio']:.3f}")


if __name__ == "__main__":
    main()
