"""What OpenTelemetry tracing costs a tick: median tick time with tracing off and on, in the same run.

The mixed Stage-0 script (math, facts written and read, a ``/clock`` tool call) runs on a fresh
database per round, rounds interleaved: tracing off (the default), then on with the SDK's
in-memory exporter behind the batch processor ``agi --otel`` uses (so the export itself, a
background thread's work, is left out). Prints the median tick (p50) of each, their ratio, the
spans per tick, and what the spans of a tick cost while tracing is off: the no-op ``span()``
timed alone, times the spans a tick opens, against the p50 tick.

    python benchmarks/tracing_overhead.py --ticks 500 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("AGI_LOAD_PLUGINS", "")

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agi_core import tracing
from agi_core.testing import open_kernel

SCRIPT = [
    "12 + 30",
    "my favorite color is blue",
    "what is my favorite color?",
    "/clock",
    "the capital of France is Paris",
    "what is the capital of France?",
    "tell me a joke",
    "7 ^ 3",
]


def tick_times(folder: Path, ticks: int) -> list[float]:
    """Seconds per tick of ``ticks`` ticks of the script on a new database (after one warm-up tick)."""
    times = []
    with open_kernel(folder / f"t{time.perf_counter_ns()}.db", synchronous="OFF") as kernel:
        kernel.tick("hello")
        for index in range(ticks):
            start = time.perf_counter()
            kernel.tick(SCRIPT[index % len(SCRIPT)])
            times.append(time.perf_counter() - start)
    return times


def noop_span_ns(repeat: int = 200_000) -> float:
    """Nanoseconds of one ``with tracing.phase(...)`` (a tick's span) while tracing is off, less the empty loop's."""
    start = time.perf_counter_ns()
    for _ in range(repeat):
        with tracing.phase("act"):
            pass
    spans = time.perf_counter_ns() - start
    start = time.perf_counter_ns()
    for _ in range(repeat):
        pass
    return (spans - (time.perf_counter_ns() - start)) / repeat


def measure(ticks: int, rounds: int) -> dict[str, Any]:
    off: list[float] = []
    on: list[float] = []
    spans = 0
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(rounds):
            off += tick_times(Path(scratch), ticks)
            exporter = InMemorySpanExporter()
            tracing.start(exporter)
            try:
                on += tick_times(Path(scratch), ticks)
            finally:
                tracing.stop()  # flushes the queue into the exporter
            spans += len(exporter.get_finished_spans())
        noop_ns = noop_span_ns()
    p50_off, p50_on = statistics.median(off) * 1e6, statistics.median(on) * 1e6
    per_tick = spans / (rounds * (ticks + 1))
    return {
        "ticks": ticks,
        "rounds": rounds,
        "p50_off_us": round(p50_off, 1),
        "p50_on_us": round(p50_on, 1),
        "ratio_on_off": round(p50_on / p50_off, 3),
        "spans_per_tick": round(per_tick, 2),
        "noop_span_ns": round(noop_ns, 1),
        "off_cost_fraction": round(per_tick * noop_ns / 1e3 / p50_off, 6),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=500, help="ticks per round and setting")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    options = parser.parse_args()
    figures = measure(options.ticks, options.rounds)
    if options.json:
        print(json.dumps(figures))
        return
    print(
        f"tick p50, tracing off: {figures['p50_off_us']:.0f} µs   on (in-memory exporter): "
        f"{figures['p50_on_us']:.0f} µs   ratio on/off {figures['ratio_on_off']:.2f}"
    )
    print(
        f"{figures['spans_per_tick']:.1f} spans per tick; off, a span costs {figures['noop_span_ns']:.0f} ns: "
        f"{figures['off_cost_fraction'] * 100:.3f}% of the p50 tick"
    )


if __name__ == "__main__":
    main()
