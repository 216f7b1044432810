"""Per-tick CPU of messaging ticks and of a plain Stage-0 tick, optionally under cProfile.

Two kernels on memory:// (alice, bob): N sends by alice inside ``Kernel.group_commit()`` (groups of
16, as benchmarks/messaging.py), then N message ticks by bob; then a plain Stage-0 loop
(tick_throughput.py's SCRIPT). Prints the median (p50) and the 10th percentile (p10: the reading
least disturbed by other processes) of ``time.process_time`` per tick of each kind, or with
``--profile KIND`` the top functions of that kind (tottime and cumulative).
Usage: python benchmarks/tick_profile.py [--messages 1000] [--ticks 500] [--profile send|take|stage0]
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from agi_core import Kernel, Plugins

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tick_throughput import SCRIPT

GROUP = 16


def run(messages: int, ticks: int, profile: str | None) -> dict[str, float]:
    plugins = Plugins.builtins()
    url = f"memory://profile{uuid.uuid4().hex[:8]}"
    prof = cProfile.Profile()
    spans: dict[str, list[float]] = {"send": [], "take": [], "stage0": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        alice = Kernel.open(folder / "alice.db", seed="bench", plugins=plugins, messaging=url)
        bob = Kernel.open(folder / "bob.db", seed="bench", plugins=plugins, messaging=url)
        alice.command("set_name", {"name": "alice"})
        bob.command("set_name", {"name": "bob"})
        for start in range(0, messages, GROUP):
            with alice.group_commit():
                for n in range(start, min(start + GROUP, messages)):
                    if profile == "send":
                        prof.enable()
                    began = time.process_time()
                    alice.command("send_message", {"to": "bob", "text": f"note {n}"})
                    spans["send"].append(time.process_time() - began)
                    if profile == "send":
                        prof.disable()
        taken = 0
        while taken < messages:
            if profile == "take":
                prof.enable()
            began = time.process_time()
            record = bob.tick()
            spent = time.process_time() - began
            if profile == "take":
                prof.disable()
            if record is not None:
                spans["take"].append(spent)
                taken += 1
        alice.close()
        bob.close()
        carol = Kernel.open(folder / "carol.db", seed="bench", plugins=plugins)
        for text in itertools.islice(itertools.cycle(SCRIPT), ticks):
            if profile == "stage0":
                prof.enable()
            began = time.process_time()
            carol.tick(text)
            spans["stage0"].append(time.process_time() - began)
            if profile == "stage0":
                prof.disable()
        carol.close()
    if profile:
        for key in ("tottime", "cumulative"):
            pstats.Stats(prof).sort_stats(key).print_stats(35)
    return {
        f"{kind} {name}": pick(sorted(values)) * 1000
        for kind, values in spans.items()
        if values
        for name, pick in (("p50", statistics.median), ("p10", lambda ordered: ordered[len(ordered) // 10]))
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--ticks", type=int, default=500)
    parser.add_argument("--profile", choices=["send", "take", "stage0"])
    args = parser.parse_args()
    medians = run(args.messages, args.ticks, args.profile)
    print("CPU ms per tick: " + ", ".join(f"{kind} {ms:.3f}" for kind, ms in medians.items()))


if __name__ == "__main__":
    main()
