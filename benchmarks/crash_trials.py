"""Kill a process running ticks at random moments, 100 times, and tally clean recoveries.

A trial is clean when the reopened database has no partial tick, its journal chain
verifies, and `replay` is equal. Usage: python benchmarks/crash_trials.py [--trials 100]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from agi_core.consistency import crash_trial


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--synchronous", default="FULL", choices=["NORMAL", "FULL"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    clean, ticks = 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.trials):
            trial = crash_trial(Path(folder) / f"t{index}.db", "crash", rng.uniform(0.05, 1.0), args.synchronous)
            clean += trial.clean
            ticks += trial.ticks
            if not trial.clean:
                print(
                    f"trial {index}: killed after {trial.killed_after_s:.2f}s: {trial.problems} "
                    f"replay_ok={trial.replay_ok}"
                )
    print(
        f"crash trials: {clean}/{args.trials} clean ({ticks} ticks committed before the kills, "
        f"synchronous={args.synchronous})"
    )
    return 0 if clean == args.trials else 1


if __name__ == "__main__":
    sys.exit(main())
