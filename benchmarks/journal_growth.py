"""Journal growth of an idle follower: bytes per clock and maintenance record, and MB a day.

The blobs (large strings, and working memory, stored once) are counted too: all of them, the
conversation's included, as made during the idle minutes (an upper bound).

A real kernel with the six module plugins (autonomy, beliefs, learning, retrieval,
self_improver, social) on the heuristics (no model), a short conversation first (so working
memory holds turns and a goal, as a user's agent does), then ``agi run --follow``'s loop on the
deterministic clock (no real waiting): a clock tick every 30 s and a maintenance tick every 60 s
(the defaults: 2,880 + 1,440 = 4,320 records a day). Prints the stored bytes per record by
source (the record text the chain covers, its id and chain link) and the MB a day it makes.

With ``--base PATH`` (a worktree of an older commit, e.g. ``git worktree add /tmp/base 0d8cf16``)
the same measurement runs there too, in a process of its own on the same machine, and the ratio
old/new is printed for each figure; the new code then replays the old journal and verifies it
(records written before stay readable), as it does the new one. Usage::

    python benchmarks/journal_growth.py [--minutes 60] [--base PATH]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from short_conversation import LINES  # a sibling: this folder is the script's sys.path[0]

MODULES = ("autonomy", "beliefs", "learning", "retrieval", "self_improver", "social")
START_MS = 1_795_000_000_000
PER_DAY = {"clock": 86_400 // 30, "maintain": 86_400 // 60}  # records a day at the default intervals


def plugins() -> object:
    from agi_core import Plugins

    found = Plugins.builtins()
    for name in MODULES:
        found.add_module(importlib.import_module(f"agi_plugin_{name}.plugin"), name=name)
    return found


def write_journal(db: Path, minutes: int) -> None:
    """The conversation, then ``minutes`` of idle follow on the simulated clock."""
    from agi_core import Kernel
    from agi_core.scheduling.clock import PinnedClock, SimulatedClock
    from agi_core.scheduling.follow import Follow

    sim = SimulatedClock(START_MS)
    with Kernel.open(db, seed="growth", plugins=plugins(), clock=PinnedClock(sim)) as kernel:
        for line in LINES:
            kernel.tick(line)
        loop = Follow(kernel, clock_every_ms=30_000, maintain_every_ms=60_000, idle_sleep_s=1.0)
        end = sim.ms + minutes * 60_000
        for _record in loop.run(until=lambda: sim.ms >= end):
            pass


def measure(db: Path, minutes: int) -> dict[str, float]:
    """Mean stored bytes (record text + id + chain) per record, by input source; the blobs' bytes (every
    one, the conversation's too, counted as the idle time's); and MB a day of both."""
    from agi_core.memory.sqlite_store import SqliteStore

    store = SqliteStore(db)
    try:
        sizes: dict[str, list[int]] = {}
        for _tick, record_id, text, chain in store.journal_rows():
            source = json.loads(text)["input"]["source"]
            sizes.setdefault(source, []).append(len(text.encode()) + len(record_id) + len(chain))
        blob_bytes = sum(len(data) + len(hex_digest) for hex_digest, data in store.blob_items())
    finally:
        store.close()
    means = {source: sum(sizes[source]) / len(sizes[source]) for source in PER_DAY if source in sizes}
    means["blob_bytes"] = float(blob_bytes)
    per_day = sum(means[source] * PER_DAY[source] for source in PER_DAY) + blob_bytes * 1440 / minutes
    means["mb_per_day"] = per_day / 1e6
    return means


def check_journal(db: Path) -> str:
    """A journal verified and replayed by this code (replay runs in a scratch copy: ``db`` is left as it was)."""
    from agi_core import journal
    from agi_core.journal_key import load
    from agi_core.memory.sqlite_store import SqliteStore
    from agi_core.replay import replay

    store = SqliteStore(db)
    try:
        verified = journal.verify(store, load(store, "growth"))
    finally:
        store.close()
    report = replay(db, plugins=plugins())  # type: ignore[arg-type]
    detail = "" if report.ok else "\n" + report.mismatch.diff()  # type: ignore[union-attr]
    return f"{verified}; {report.summary()}{detail}"


def run_base(base: Path, minutes: int, folder: Path) -> tuple[dict[str, float], Path]:
    """The same measurement with the code of ``base``, in a process of its own."""
    paths = [str(base), *(str(p) for p in sorted((base / "plugins").glob("agi-plugin-*")))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    db = folder / "base.db"
    done = subprocess.run(
        [sys.executable, str(Path(__file__)), "--minutes", str(minutes), "--db", str(db), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=str(base),
    )
    return json.loads(done.stdout.splitlines()[-1]), db


def show(name: str, figures: dict[str, float]) -> None:
    print(
        f"{name:<5} clock {figures['clock']:7.0f} B/record  maintain {figures['maintain']:7.0f} B/record  "
        f"blobs {figures['blob_bytes']:7.0f} B  {figures['mb_per_day']:6.2f} MB/day",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=int, default=60, help="simulated idle minutes (default 60)")
    parser.add_argument("--base", type=Path, help="a worktree of the older commit to compare with")
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)  # where --json writes its journal
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one line of figures
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agi-growth-") as scratch:
        folder = Path(scratch)
        db = args.db or folder / "new.db"
        write_journal(db, args.minutes)
        figures = measure(db, args.minutes)
        if args.json:
            print(json.dumps(figures))
            return 0
        if args.base is None:
            show("new", figures)
            print(f"new journal: {check_journal(db)}")
            return 0
        old, old_db = run_base(args.base.resolve(), args.minutes, folder)
        show("old", old)
        show("new", figures)
        ratios = {key: old[key] / figures[key] for key in ("clock", "maintain", "mb_per_day")}
        print(
            f"ratio old/new: clock {ratios['clock']:.2f}x  maintain {ratios['maintain']:.2f}x  "
            f"per day {ratios['mb_per_day']:.2f}x"
        )
        print(f"new journal: {check_journal(db)}")
        print(f"old journal with this code: {check_journal(old_db)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
