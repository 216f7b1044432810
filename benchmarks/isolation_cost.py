"""What isolating modules costs a tick: a fixed part (the hand-off to the worker and back) and a part per call.

An isolated module (the default: not ``inline``, a timeout on each phase) runs on a worker thread the
tick hands its steps to, so a call that overruns can be abandoned while the tick goes on. That hand-off
is one round trip per tick (:func:`agi_core.effects.turns.drive`), whatever the number of modules. This
measures, in one run with the ticks of every row alternated, the mixed script of ``tick_throughput.py``
with 0 modules and with 1, 6 and 12 do-nothing modules (``NoOpModule``: five phases), isolated and
inline, and prints per row the CPU time of the whole process per tick (p50: robust to other processes
on the machine, unlike the wall clock) and the context switches per tick (``getrusage``): voluntary (a
thread waits: for the worker, for the GIL) and involuntary. The isolated rows' excess over the inline
ones, flat in the number of modules, is the price of the guarantee that a hung module never stops the
agent::

    python benchmarks/isolation_cost.py [--ticks 1000] [--json]

``--module realistic`` uses ``tick_throughput.py``'s realistic module instead (state, facts, a
contract call, a proposal).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tick_throughput import SCRIPT, BenchModule, NoOpModule, modules_plugin  # the benchmark folder is no package

COUNTS = (1, 6, 12)


def rows(ticks: int, module_class: type) -> dict[str, dict[str, float]]:
    """``{label: {cpu_us_p50, voluntary_switches, involuntary_switches}}`` per tick, rows alternated."""
    from agi_core import Kernel, Plugins

    runs: list[tuple[str, Any]] = [("0", modules_plugin(0))]
    for count in COUNTS:
        runs.append((f"{count} isolated", modules_plugin(count, module_class=module_class)))
        runs.append((f"{count} inline", modules_plugin(count, inline=True, module_class=module_class)))
    cpu: dict[str, list[float]] = {label: [] for label, _plugin in runs}
    switches: dict[str, list[int]] = {label: [0, 0] for label, _plugin in runs}
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        kernels = []
        for label, plugin in runs:
            path = Path(folder) / f"{label.replace(' ', '_')}.db"
            kernel = stack.enter_context(
                Kernel.open(path, seed="bench", plugins=Plugins.builtins(plugin), synchronous="NORMAL")
            )
            kernel.tick("warm up")
            kernels.append((label, kernel))
        for i in range(ticks):
            for label, kernel in kernels:
                before, started = resource.getrusage(resource.RUSAGE_SELF), time.process_time()
                kernel.tick(SCRIPT[i % len(SCRIPT)])
                cpu[label].append(time.process_time() - started)
                after = resource.getrusage(resource.RUSAGE_SELF)
                switches[label][0] += after.ru_nvcsw - before.ru_nvcsw
                switches[label][1] += after.ru_nivcsw - before.ru_nivcsw
    return {
        label: {
            "cpu_us_p50": statistics.median(cpu[label]) * 1e6,
            "voluntary_switches": switches[label][0] / ticks,
            "involuntary_switches": switches[label][1] / ticks,
        }
        for label, _plugin in runs
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ticks", type=int, default=1000, help="ticks per row (rows alternate)")
    parser.add_argument("--module", choices=("noop", "realistic"), default="noop")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    found = rows(args.ticks, NoOpModule if args.module == "noop" else BenchModule)
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    base = found["0"]["cpu_us_p50"]
    print(f"{'modules':<14}{'CPU µs/tick':>12}{'vs 0':>8}{'switches (vol/invol)':>24}")
    for label, row in found.items():
        switched = f"{row['voluntary_switches']:.2f} / {row['involuntary_switches']:.2f}"
        print(f"{label:<14}{row['cpu_us_p50']:>12.0f}{row['cpu_us_p50'] / base:>7.2f}x{switched:>24}")
    for count in COUNTS:
        extra = found[f"{count} isolated"]["cpu_us_p50"] - found[f"{count} inline"]["cpu_us_p50"]
        print(f"isolating {count:>2} module(s) costs {extra:.0f} µs of CPU a tick over running them inline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
