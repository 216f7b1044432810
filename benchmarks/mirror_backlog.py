"""Mirroring a backlog of episodes into long-term memory in chunks: rows read and time, keyset against rescan.

An agent with ``--episodes`` episodes never mirrored (a rule-only agent's ticks: an input and its reply each,
written straight through the store) is copied; on each copy :func:`agi_core.longterm.episodes.mirror_between_ticks`
mirrors the whole backlog in chunks of ``MIRROR_CHUNK``. ``keyset`` is the code as it is (each chunk reads its
own rows: ``episode_rows(after, limit=…)``); ``rescan``, the baseline in the same run, is the same code with
``limit`` ignored, which is what each chunk read before (every row still waiting, then kept the first chunk).
Alternated ``--rounds`` times; no model is loaded (mirroring stores rows; encoding comes later). Usage::

    python benchmarks/mirror_backlog.py [--episodes 20000] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agi_core.longterm import episodes
from agi_core.model import EpisodicEntry
from agi_core.testing import open_kernel

STAMP = "2026-01-01T00:00:00Z"


def make_agent(db: Path, count: int) -> None:
    with open_kernel(db, seed="mirror-backlog") as kernel:
        store = kernel.store
        with store.tick_transaction():
            for tick in range(1, count // 2 + 1):
                said = f"note {tick}: my friend number {tick} likes teal and lives in town {tick % 97}"
                store.add_episodes(
                    [
                        EpisodicEntry(id=f"i{tick}", event=said, context={"source": "user"}, timestamp=STAMP),
                        EpisodicEntry(
                            id=f"a{tick}", event=f"Noted {tick}.", context={"kind": "action"}, timestamp=STAMP
                        ),
                    ],
                    tick,
                )


def measure(db: Path, *, keyset: bool) -> dict[str, Any]:
    with open_kernel(db, seed="mirror-backlog") as kernel:
        store, read = kernel.store, [0]
        real = store.episode_rows

        def rows(after_seq: int = 0, limit: int | None = None) -> list[Any]:
            found = real(after_seq, limit=limit if keyset else None)
            read[0] += len(found)
            return found

        store.episode_rows = rows
        memory = kernel.long_term_memory(caught_up=False)
        began = time.perf_counter()
        mirrored = episodes.mirror_between_ticks(store, memory)
        seconds = time.perf_counter() - began
    return {"mirrored": mirrored, "rows_read": read[0], "seconds": round(seconds, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs: dict[str, list[dict[str, Any]]] = {"rescan": [], "keyset": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base" / "agent.db"
        base.parent.mkdir()
        make_agent(base, args.episodes)
        for round_ in range(args.rounds):
            for name in ("rescan", "keyset"):
                folder = Path(tmp) / f"{name}{round_}"
                folder.mkdir()
                db = folder / base.name
                shutil.copy(base, db)
                shutil.copy(base.with_name(base.name + ".key"), db.with_name(db.name + ".key"))
                runs[name].append(measure(db, keyset=name == "keyset"))
    summary = {
        name: {
            "mirrored": rows[0]["mirrored"],
            "rows_read": rows[0]["rows_read"],
            "seconds": [row["seconds"] for row in rows],
            "median_s": statistics.median(row["seconds"] for row in rows),
        }
        for name, rows in runs.items()
    }
    summary["ratio"] = round(summary["rescan"]["median_s"] / max(summary["keyset"]["median_s"], 1e-9), 2)
    summary["load"] = [round(x, 1) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(summary))
        return
    for name in ("rescan", "keyset"):
        row = summary[name]
        print(f"{name:7} mirrored {row['mirrored']:,}, read {row['rows_read']:,} rows, {row['seconds']} s")
    print(f"rescan / keyset (median): {summary['ratio']}x  (load average {summary['load']})")


if __name__ == "__main__":
    main()
