"""Replay speed: record a journal of N mixed ticks live, replay it, compare ticks/s.

Usage: python benchmarks/replay_speed.py [--ticks 10000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from agi_core import Kernel, Plugins
from agi_core.replay import replay

SCRIPT = [
    "12 + 30",
    "my favorite color is blue",
    "what is my favorite color?",
    "the capital of France is Paris",
    "what is the capital of France?",
    "tell me a joke",
    "7 ^ 3",
    "/clock",
    "my favourite food is ramen",
    "what is the capital of Peru?",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "live.db"
        start = time.perf_counter()
        with Kernel.open(db, seed="bench", plugins=Plugins.builtins()) as kernel:
            for i in range(args.ticks):
                kernel.tick(SCRIPT[i % len(SCRIPT)])
        live_s = time.perf_counter() - start
        start = time.perf_counter()
        report = replay(db, seed="bench", plugins=Plugins.builtins())
        replay_s = time.perf_counter() - start
    if not report.ok:
        print(report.summary())
        return 1
    live, replayed = args.ticks / live_s, report.ticks / replay_s
    print(f"live:   {live:8.0f} ticks/s ({args.ticks} ticks, {live_s:.2f} s)")
    print(f"replay: {replayed:8.0f} ticks/s ({report.ticks} ticks compared on 11 fields, {replay_s:.2f} s)")
    print(f"replay / live: {replayed / live:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
