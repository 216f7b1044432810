"""The ceiling of a recalling tick against LangGraph's loop: what one query embedding alone costs.

A tick that answers from long-term memory embeds its question once (all-MiniLM-L6-v2, the built-in
``minilm`` embedder, on this machine's CPU). Whatever else the tick does, it cannot be cheaper than that
encode, so no tick that recalls can run faster, as a multiple of LangGraph's ``SqliteSaver`` loop
(``tick_throughput.py``'s six-node graph), than ``LangGraph's mean tick / encode``. This measures both in
one run, alternated (LangGraph's loop in the benchmark environment's interpreter, in a process of its
own; the encodes here), and prints the ceilings for the mixed script of ``tick_throughput.py``: every
question recalling (4 ticks in 10), or only the question no rule answers (1 in 10), the rest of the tick
counted as free::

    python benchmarks/recall_floor.py --langgraph-python benchmarks/.env/bin/python [--rounds 3]

Without ``--langgraph-python`` it measures the encodes alone (agi-core's environment has no LangGraph).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tick_throughput import SCRIPT, langgraph_in  # the benchmark folder is not a package

QUESTIONS = [text for text in SCRIPT if text.endswith("?")]
UNANSWERED_BY_RULES = ["what is the capital of Peru?"]  # the mixed script's one question no fact answers


def encode_ms(embedder: Any, encodes: int, offset: int) -> list[float]:
    """Milliseconds of ``encodes`` one-question encodes, each text new (numbered: nothing served from a cache)."""
    taken = []
    for i in range(encodes):
        text = f"{QUESTIONS[i % len(QUESTIONS)]} ({offset + i})"
        start = time.perf_counter()
        embedder.encode([text])
        taken.append((time.perf_counter() - start) * 1000)
    return taken


def ceilings(langgraph_tick_ms: float, encode: float) -> dict[str, float]:
    """The best ticks/s ratio to LangGraph a tick stream could reach, its only cost the question encodes."""
    share_all = len(QUESTIONS) / len(SCRIPT)
    share_unanswered = len(UNANSWERED_BY_RULES) / len(SCRIPT)
    return {
        "one_recalling_tick_vs_langgraph": langgraph_tick_ms / encode,
        "mixed_every_question_recalls_vs_langgraph": langgraph_tick_ms / (share_all * encode),
        "mixed_only_unanswered_recalls_vs_langgraph": langgraph_tick_ms / (share_unanswered * encode),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langgraph-python", help="the benchmark environment's interpreter (else: encodes only)")
    parser.add_argument("--langgraph-ticks", type=int, default=500)
    parser.add_argument("--encodes", type=int, default=200, help="query encodes per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from agi_core.longterm.embedder import embedder_from_plugins

    embedder = embedder_from_plugins()
    embedder.encode(["warm up"])  # loads the model
    rows = []
    for round_ in range(args.rounds):
        langgraph = langgraph_in(args.langgraph_python, args.langgraph_ticks) if args.langgraph_python else None
        taken = encode_ms(embedder, args.encodes, round_ * args.encodes)
        row: dict[str, Any] = {"encode_p50_ms": statistics.median(taken), "encode_min_ms": min(taken)}
        if langgraph is not None:
            tick_ms = 1000 / langgraph["ticks_per_s"]
            row |= {
                "langgraph_ticks_per_s": langgraph["ticks_per_s"],
                "langgraph_tick_ms": tick_ms,
                "budget_ms_at_20x": tick_ms / 20,
                "ceilings_at_p50": ceilings(tick_ms, row["encode_p50_ms"]),
                "ceilings_at_min": ceilings(tick_ms, row["encode_min_ms"]),
            }
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for i, row in enumerate(rows, 1):
        encodes = f"one query encode p50 {row['encode_p50_ms']:.2f} ms, fastest {row['encode_min_ms']:.2f} ms"
        if "ceilings_at_p50" not in row:
            print(f"round {i}: {encodes}")
            continue
        at_p50, at_min = row["ceilings_at_p50"], row["ceilings_at_min"]
        print(
            f"round {i}: LangGraph {row['langgraph_ticks_per_s']:.0f} ticks/s ({row['langgraph_tick_ms']:.2f} ms a "
            f"tick; 20x leaves {row['budget_ms_at_20x'] * 1000:.0f} µs); {encodes}"
        )
        print(
            f"  ceilings (p50 / fastest encode, the rest of the tick free): one recalling tick "
            f"{at_p50['one_recalling_tick_vs_langgraph']:.2f}x / {at_min['one_recalling_tick_vs_langgraph']:.2f}x; "
            f"mixed script, every question recalls {at_p50['mixed_every_question_recalls_vs_langgraph']:.1f}x / "
            f"{at_min['mixed_every_question_recalls_vs_langgraph']:.1f}x; only the unanswered one "
            f"{at_p50['mixed_only_unanswered_recalls_vs_langgraph']:.1f}x / "
            f"{at_min['mixed_only_unanswered_recalls_vs_langgraph']:.1f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
