"""What running tools under a timeout costs a tick: ``/clock`` ticks with the timeout on and off.

With ``timeout_s=2`` (the default) each tool call is handed to a daemon worker thread; with
``timeout_s=0`` it runs in the ticking thread with no limit: the baseline, measured in the
same run, in interleaved rounds. Prints µs per tick for both and their ratio.

    python benchmarks/tool_timeout_overhead.py --ticks 1000 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("AGI_LOAD_PLUGINS", "")

from agi_core.testing import open_kernel


def per_tick_us(folder: Path, ticks: int, timeout_s: float) -> float:
    with open_kernel(folder / f"t{timeout_s}-{time.perf_counter_ns()}.db", synchronous="OFF", timeout_s=timeout_s) as k:
        k.tick("/clock")
        start = time.perf_counter()
        for _ in range(ticks):
            k.tick("/clock")
        return (time.perf_counter() - start) / ticks * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    timed, inline = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(options.rounds):
            inline.append(per_tick_us(Path(scratch), options.ticks, 0))
            timed.append(per_tick_us(Path(scratch), options.ticks, 2))
    base, cost = statistics.median(inline), statistics.median(timed)
    print(f"tool tick, inline (timeout 0): {base:.0f} µs   under timeout (2 s): {cost:.0f} µs", end="   ")
    print(f"ratio {cost / base:.2f}")


if __name__ == "__main__":
    main()
