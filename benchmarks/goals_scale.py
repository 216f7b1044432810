"""Each goal command among 10k goals with a chain 1,000 deep, against the same on 10 goals (the baseline).

An agent is built with ``--goals`` goals: a chain ``--depth`` deep (each goal the parent of the
next) and the rest spread under 50 parents or at the top; the baseline agent has ``--small-goals``
goals and a chain ``--small-depth`` deep, measured in the same run. Then, ``--repeat`` times each,
median in ms:

- ``add``: ``goal_add`` of a goal under the deepest goal (a journaled command tick);
- ``done``: ``goal_set done`` on a new leaf under the deepest goal: every ancestor's progress
  changes, up to the top (the leaf is added before the timing);
- ``move``: ``goal_move`` of a top goal under the deepest (the cycle check walks every ancestor);
- ``list``: the text of ``agi goals list`` (every goal and its plan);
- ``reply``: the tick that answers "what are my goals?" (and the reply's size in bytes);
- ``seal``: sealing after one ``done`` (what closing the agent costs, in the write lock).

Goal: each under 50 ms at 10k goals and depth 1,000. The rows are put directly in one
transaction (building 10k goals through commands would measure the build, not the commands).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agi_core.kernel import Kernel
from agi_core.scheduling import goals

GOAL_MS = 50.0
OPS = ("add", "done", "move", "list", "reply", "seal")


def _row(index: int, parent: str | None) -> dict[str, Any]:
    return {
        "id": f"g-{index:08x}",
        "parent": parent,
        "description": f"goal number {index}",
        "status": "open",
        "priority": 0.5,
        "progress": 0.0,
        "plan": [{"do": "list files", "assumes": "the step's action succeeds", "expect": {}, "status": "todo"}],
        "assumptions": ["the step's action succeeds"],
        "created_tick": 1,
        "updated_tick": 1,
        "replans": 0,
    }


def build(path: Path, count: int, depth: int) -> str:
    """An agent with ``count`` goals, a chain ``depth`` deep; returns the deepest goal's id."""
    with Kernel.open(path, seed="goals-scale") as kernel:
        kernel.command("goal_add", {"title": "the active goal", "steps": ["list files"]})
        with kernel.store.tick_transaction():
            parent = None
            for index in range(count - 1):
                if index < depth:
                    row = _row(index, parent)
                    parent = row["id"]
                else:
                    row = _row(index, f"g-{depth + index % 50:08x}" if index % 2 and index >= depth + 50 else None)
                kernel.store.put_goal(row)
    return f"g-{depth - 1:08x}"


def _median_ms(run: Callable[[], Any], repeat: int, before: Callable[[], Any] | None = None) -> float:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(path: Path, count: int, depth: int, repeat: int) -> dict[str, float]:
    deepest = build(path, count, depth)
    figures: dict[str, float] = {}
    with Kernel.open(path, seed="goals-scale") as kernel:
        counter = iter(range(10**9))

        def add() -> str:
            title = f"a new goal {next(counter)}"
            said = kernel.command("goal_add", {"title": title, "parent": deepest, "steps": ["list files"]})
            return said.final_output.split()[2]  # "added goal g-… [open]: …"

        figures["add"] = _median_ms(add, repeat)
        leaves: list[str] = []
        figures["done"] = _median_ms(
            lambda: kernel.command("goal_set", {"id": leaves[-1], "status": "done"}),
            repeat,
            before=lambda: leaves.append(add()),
        )
        top = f"g-{count - 2:08x}"  # a goal outside the chain (count > depth + 1)
        moves = iter(range(10**9))
        figures["move"] = _median_ms(
            lambda: kernel.command("goal_move", {"id": top, "parent": deepest if next(moves) % 2 == 0 else None}),
            repeat,
        )
        figures["list"] = _median_ms(lambda: goals.listing(kernel.store), repeat)
        figures["reply"] = _median_ms(lambda: kernel.tick("what are my goals?"), repeat)
        figures["reply_bytes"] = len(kernel.tick("what are my goals?").final_output.encode())
        figures["seal"] = _median_ms(
            kernel.seal, repeat, before=lambda: kernel.command("goal_set", {"id": add(), "status": "done"})
        )
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--small-goals", type=int, default=10)
    parser.add_argument("--small-depth", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.goals < args.depth + 2 or args.small_goals < args.small_depth + 2:
        parser.error("--goals must exceed --depth by 2 or more (and --small-goals --small-depth)")
    with tempfile.TemporaryDirectory() as folder:
        small = measure(Path(folder) / "small.db", args.small_goals, args.small_depth, args.repeat)
        large = measure(Path(folder) / "large.db", args.goals, args.depth, args.repeat)
    result = {
        "goals": args.goals,
        "depth": args.depth,
        "baseline": {"goals": args.small_goals, "depth": args.small_depth},
        "ops": {
            op: {
                "baseline_ms": small[op],
                "ms": large[op],
                "ratio": large[op] / small[op],
                "under_goal": large[op] < GOAL_MS,
            }
            for op in OPS
        },
        "reply_bytes": {"baseline": small["reply_bytes"], "large": large["reply_bytes"]},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.goals:,} goals, depth {args.depth:,} against {args.small_goals} goals, depth {args.small_depth}")
    print(f"{'op':<6} {'baseline ms':>12} {'ms':>9} {'ratio':>7}  under {GOAL_MS:g} ms")
    for op, row in result["ops"].items():
        print(f"{op:<6} {row['baseline_ms']:>12.2f} {row['ms']:>9.2f} {row['ratio']:>7.2f}  {row['under_goal']}")
    print(f"reply size: {small['reply_bytes']:.0f} B at baseline, {large['reply_bytes']:.0f} B at {args.goals:,} goals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
