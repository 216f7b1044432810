"""The user's newest inputs past an idle agent's clock ticks: ``episodes(20, user_inputs=True)``.

An agent says a few lines, then ``agi run --follow`` writes two episodes a clock or maintenance tick
(six a minute): the clock episodes of a real run are copied until the table holds ``--episodes``.
The read is timed on the same database without the partial index ``episodes_user_inputs``
(migration m020 / p012: the baseline, a scan back past every clock episode) and with it::

    AGI_LOAD_PLUGINS=postgres python benchmarks/user_input_episodes.py [--episodes 40000] [--postgres DSN]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agi_core.kernel import Kernel
from agi_core.plugins import load_plugins
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow

START_MS = 1_795_000_000_000
LINES = ("my dog is called Rex", "my sister Maya lives in Lyon", "I like hiking")
INDEX = "episodes_user_inputs"


def _agent(db: str, episodes: int) -> None:
    """Three lines and five idle minutes, then the idle minutes' episodes copied until ``episodes``."""
    sim = SimulatedClock(START_MS)
    with Kernel.open(db, seed="bench", plugins=load_plugins(), clock=PinnedClock(sim)) as kernel:
        for line in LINES:
            sim.advance(1)
            kernel.config.clock.refresh()
            kernel.tick(line)
        loop = Follow(kernel, clock_every_ms=30_000, maintain_every_ms=60_000, idle_sleep_s=30.0)
        list(loop.run(until=lambda: sim.ms >= START_MS + 5 * 60_000))
        store = kernel.store
        with store.tick_transaction():
            _fill(store, episodes)


def _sql(store: Any, text: str, params: tuple[Any, ...] = (), *, one: bool = False) -> Any:
    """``text`` (tables as ``{s}.name``) on either store, in its tick transaction when one is open."""
    if hasattr(store, "s"):  # PostgreSQL: the agent's schema
        return store._one(text.replace("?", "%s"), params) if one else store._run(text.replace("%", "%%"), params)
    done = store.conn.execute(text.replace("{s}.", ""), params)
    return done.fetchone() if one else done.rowcount


def _fill(store: Any, episodes: int) -> None:
    while True:
        count, top = _sql(store, "SELECT count(*), max(seq) FROM {s}.episodes", one=True)
        if count >= episodes:
            return
        _sql(
            store,
            "INSERT INTO {s}.episodes (seq, id, tick, event, context, timestamp) "
            f"SELECT seq + {top}, id || '-' || {top}, tick, event, context, timestamp FROM {{s}}.episodes "
            f'WHERE context NOT LIKE \'%"source":"user"%\' ORDER BY seq LIMIT {min(episodes - count, count)}',
        )


def _timed(store: Any, runs: int) -> tuple[float, list[str]]:
    found: list[str] = []
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        found = [e.event for e in store.episodes(20, newest_first=True, user_inputs=True)]
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000, found


def measure(db: str, episodes: int, runs: int) -> dict[str, float]:
    from agi_core.opening import open_store

    _agent(db, episodes)
    store = open_store(db, "sqlite" if "://" not in db else "postgres", plugins=load_plugins())
    try:
        with store.tick_transaction():
            definition = _definition(store)
            _sql(store, f"DROP INDEX {{s}}.{INDEX}")
        without, found_without = _timed(store, runs)
        with store.tick_transaction():
            _sql(store, definition)
        with_index, found_with = _timed(store, runs)
        assert found_with == found_without == list(reversed(LINES)), (found_with, found_without)
    finally:
        store.close()
    return {"without_ms": without, "with_ms": with_index, "ratio": without / with_index}


def _definition(store: Any) -> str:
    if hasattr(store, "s"):
        row = _sql(
            store, "SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND indexname = ?", (store.s, INDEX), one=True
        )
    else:
        row = _sql(store, "SELECT sql FROM sqlite_master WHERE name = ?", (INDEX,), one=True)
    assert row is not None, f"no index {INDEX}: the migration did not run"
    return str(row[0]).replace("{", "{{").replace("}", "}}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--postgres", help="a PostgreSQL DSN: measure its store too")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        targets = [("sqlite", str(Path(scratch) / "a.db"))]
        if args.postgres:
            sep = "&" if "?" in args.postgres else "?"
            targets.append(("postgres", f"{args.postgres}{sep}agent=bench{time.time_ns()}&home={scratch}"))
        for name, db in targets:
            got = results[name] = measure(db, args.episodes, args.runs)
            if not args.json:
                print(
                    f"{name}: episodes(20, user_inputs=True) on {args.episodes:,} episodes: "
                    f"{got['without_ms']:.2f} ms without the index, {got['with_ms']:.3f} ms with it "
                    f"({got['ratio']:.0f}x)"
                )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
