"""``agi memory search`` end to end: a fresh process per search, the way a script calls it.

Builds one agent database (a LoCoMo conversation ingested, a few ticks), then times whole
``python -m agi_core memory search --json`` processes, alternating the default embedder
backend (``auto``: onnxruntime from the cached ONNX export) with the baseline measured in
the same run, ``AGI_MINILM_BACKEND=torch`` (sentence-transformers, what every search paid
before). Prints the medians and the median of the pairwise ratios.

Usage::

    python benchmarks/search_cli.py --data ../shared/data/locomo [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERY = "What did Caroline research?"


def agi(db: Path, *args: str, backend: str, stdin: str = "") -> float:
    """Seconds one ``agi`` process took, start to exit (it must succeed)."""
    env = {**os.environ, "AGI_MINILM_BACKEND": backend}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path, help="folder of LoCoMo .json files (conv-26 is used)")
    parser.add_argument("--runs", type=int, default=5, help="searches per backend (default 5)")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    conversation = args.data / "conv-26.json"
    if not conversation.is_file():
        parser.error(f"{conversation} not found")
    with tempfile.TemporaryDirectory(prefix="search-cli-") as tmp:
        db = Path(tmp) / "agent.db"
        agi(db, "ingest", str(conversation), backend="auto")
        agi(db, "run", backend="auto", stdin="my dog is called Rex\nI live in Lyon\n")
        agi(db, "memory", "search", QUERY, "--json", backend="auto")  # warm-up: embeds the ticks
        times: dict[str, list[float]] = {"auto": [], "torch": []}
        for _ in range(args.runs):
            for backend in times:
                times[backend].append(agi(db, "memory", "search", QUERY, "--json", backend=backend))
    ratios = [a / b for a, b in zip(times["auto"], times["torch"], strict=True)]
    result = {
        "runs": args.runs,
        "onnx_median_s": round(statistics.median(times["auto"]), 3),
        "torch_median_s": round(statistics.median(times["torch"]), 3),
        "ratio_median": round(statistics.median(ratios), 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"agi memory search, whole process, {args.runs} paired runs: onnxruntime {result['onnx_median_s']} s, "
            f"torch (baseline) {result['torch_median_s']} s, ratio {result['ratio_median']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
