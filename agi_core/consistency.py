"""Whole-database consistency checks, used after crashes and by ``agi journal verify``."""

from __future__ import annotations

from pathlib import Path

import attrs

from agi_core.memory.sqlite_store import SqliteStore


@attrs.frozen
class ConsistencyReport:
    ticks: int
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_database(path: Path, seed: str) -> ConsistencyReport:
    """No partial tick (every journaled tick has its two episodes, meta agrees), and ``journal verify`` is OK:
    the chain and its head, the state seal and every checkpoint."""
    store = SqliteStore(path)
    try:
        problems: list[str] = []
        journal_ticks, last = store.journal_extent()
        meta_tick = int(store.meta_get("tick", "0") or 0)
        base = (store.meta_get("journal_base") or "0").split(" ")[0]  # archived up to it (agi journal archive)
        after = int(base) if base.isdigit() else 0
        if not journal_ticks + after == (last or after) == meta_tick:
            problems.append(f"journal has {journal_ticks} records up to tick {last}, meta says tick {meta_tick}")
        per_tick = store.episode_ticks()
        partial = [(tick, count) for tick, count in per_tick if count != 2]
        if partial:
            problems.append(f"ticks with a partial set of episodes: {partial[:5]}")
        orphans = sum(count for tick, count in per_tick if tick > meta_tick)
        if orphans:
            problems.append(f"{orphans} episodes belong to ticks after the last journaled tick")
        from agi_core.integrity import verify_agent
        from agi_core.journal_key import load

        problems.extend(verify_agent(store, load(store, seed)).problems())
        return ConsistencyReport(journal_ticks, problems)
    finally:
        store.close()


_CHILD = """
import sys
from agi_core import Kernel, Plugins
script = ["12 + 30", "my favorite color is blue", "what is my favorite color?", "the capital of France is Paris",
          "what is the capital of France?", "tell me a joke", "/clock", "my favourite food is ramen"]
with Kernel.open(sys.argv[1], seed=sys.argv[2], plugins=Plugins.builtins(), synchronous=sys.argv[3]) as kernel:
    kernel.tick(script[0])  # one tick committed first: the kill lands among ticks, however loaded the machine
    print("ready", flush=True)
    i = 1
    while True:
        kernel.tick(script[i % len(script)])
        i += 1
"""


@attrs.frozen
class CrashTrial:
    killed_after_s: float
    ticks: int
    problems: list[str]
    replay_ok: bool

    @property
    def clean(self) -> bool:
        return not self.problems and self.replay_ok


def crash_trial(db: Path, seed: str, kill_after_s: float, synchronous: str = "FULL") -> CrashTrial:
    """Run ticks in a child process, SIGKILL it after ``kill_after_s``, then check and replay the database."""
    import signal
    import subprocess
    import sys
    import time

    from agi_core.plugins import Plugins
    from agi_core.replay import replay

    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(db), seed, synchronous], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    child.stdout.readline()
    time.sleep(kill_after_s)
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    report = check_database(db, seed)
    replayed = replay(db, seed=seed, plugins=Plugins.builtins())
    return CrashTrial(kill_after_s, report.ticks, report.problems, replayed.ok)
