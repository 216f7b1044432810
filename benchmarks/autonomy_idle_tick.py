"""One autonomy idle tick on SmolLM2-135M in process: the model's share bounded against every contract asking it.

The same agent (a person mentioned, a goal set, a few lines, on the heuristics) gets one idle
maintenance tick with the in-process ``llama-cpp`` contract provider, twice from the same copy:

- ``all``      ``model_calls_per_idle_tick = 24``: every contract of the idle tick asks the model
               (what an idle tick did before the rotation; ``auto_signal_registration`` aside);
- ``rotation`` ``model_calls_per_idle_tick = 1`` (the default): one contract's turn, the others'
               heuristics (``agi_plugin_autonomy/rotation.py``).

The model is loaded before each timed tick (``prepare``); the maintain phase's limit is raised to
``--limit-s`` (default 3600) so that ``all`` runs to its end. Prints the seconds of each tick, the
model calls each made, and the ratio. Needs ``scripts/install_llama_cpp.sh``. Usage::

    python benchmarks/autonomy_idle_tick.py [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import MappingProxyType

from short_conversation import LINES  # a sibling: this folder is the script's sys.path[0]

from agi_core import Kernel, Plugins
from agi_core.contracts.caller import EXTERNAL
from agi_core.externals import Externals
from agi_core.scheduling.clock import PinnedClock, SimulatedClock


def plugins() -> Plugins:
    import agi_plugin_autonomy.plugin as autonomy

    found = Plugins.builtins()
    found.add_module(autonomy, name="autonomy")
    return found


def idle_tick(db: Path, calls_per_tick: int) -> tuple[float, int, int]:
    """Seconds of one idle tick on the model, its model calls and all its contract calls."""
    clock = PinnedClock(SimulatedClock(1_795_000_100_000))
    with Kernel.open(db, plugins=plugins(), clock=clock, contract_provider="llama-cpp") as kernel:
        setting = {"plugin": "autonomy", "key": "model_calls_per_idle_tick", "value": calls_per_tick}
        kernel.command("config_set", setting)
        kernel.contract_caller(Externals()).provider().prepare()  # type: ignore[misc, union-attr]
        start = time.perf_counter()
        record = kernel.maintain()
        seconds = time.perf_counter() - start
    made = record.externals.get(EXTERNAL, [])
    return seconds, sum(bool(call["attempts"]) for call in made), len(made)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1", help="AGI_LLAMA_CPP_THREADS (default 1: a busy 2-core box)")
    parser.add_argument("--limit-s", type=float, default=3600.0, help="the maintain phase's limit for both ticks")
    parser.add_argument("--only", choices=("all", "rotation"), help="run one of the two")
    args = parser.parse_args()
    from agi_plugin_autonomy.module import AutonomyModule

    AutonomyModule.phase_timeouts = MappingProxyType({"maintain": args.limit_s})
    os.environ["AGI_LLAMA_CPP_THREADS"] = args.threads
    os.environ["AGI_PLUGIN_AUTONOMY_IDLE_AFTER_S"] = "0"
    with tempfile.TemporaryDirectory(prefix="agi-idle-") as folder:
        base = Path(folder) / "base.db"
        clock = PinnedClock(SimulatedClock(1_795_000_000_000))
        with Kernel.open(base, plugins=plugins(), clock=clock) as kernel:
            for line in LINES:
                kernel.tick(line)
        results = {}
        for name, calls_per_tick in (("all", 24), ("rotation", 1)):
            if args.only not in (None, name):
                continue
            db = Path(folder) / f"{name}.db"
            for item in Path(folder).iterdir():
                if item.name.startswith("base.db"):
                    target = db.with_name(item.name.replace("base.db", db.name, 1))
                    (shutil.copytree if item.is_dir() else shutil.copy2)(item, target)
            results[name] = idle_tick(db, calls_per_tick)
            seconds, asked, made = results[name]
            print(f"{name:<9} {seconds:7.1f} s  {asked:>2} model calls of {made} contract calls", flush=True)
    if len(results) == 2:
        print(f"ratio all/rotation: {results['all'][0] / results['rotation'][0]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
