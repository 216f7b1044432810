"""Share of everyday questions about told facts that the Stage-0 brain answers correctly.

Each case of ``benchmarks/questions/phrasings.jsonl`` is run on a fresh agent (a real SQLite
file): its ``setup`` lines are told, then its ``question`` is asked. A reply is correct when
it contains ``expect`` (case-insensitive), or, for ``"expect": null``, when it is the
rulebook's F1 reply (S9: no value is made up). Prints the share correct; ``--failures``
lists the cases missed. ``--limit N`` runs the first N cases (the test suite's small run).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agi_core.kernel import Kernel
from agi_core.replies import F1_SEM_MISS

PHRASINGS = Path(__file__).resolve().parent / "questions" / "phrasings.jsonl"


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def correct(reply: str, expect: str | None) -> bool:
    if expect is None:
        return reply == F1_SEM_MISS
    return expect.lower() in reply.lower() and reply != F1_SEM_MISS


def run_case(folder: Path, index: int, case: dict[str, Any]) -> str:
    """The reply to the case's question after its setup lines, on a new agent."""
    kernel = Kernel.open(folder / f"case{index}.db", seed="questions")
    try:
        for line in case["setup"]:
            kernel.tick(line)
        record = kernel.tick(case["question"])
        return record.final_output if record is not None else ""
    finally:
        kernel.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=PHRASINGS)
    parser.add_argument("--limit", type=int, default=None, help="run only the first N cases")
    parser.add_argument("--failures", action="store_true", help="list the cases answered wrong")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cases = load(args.file)[: args.limit]
    missed: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        for index, case in enumerate(cases):
            reply = run_case(Path(folder), index, case)
            if not correct(reply, case["expect"]):
                missed.append({**case, "reply": reply})
    right = len(cases) - len(missed)
    result = {"cases": len(cases), "correct": right, "share": round(right / len(cases), 4) if cases else 0.0}
    if args.json:
        print(json.dumps({**result, "missed": missed} if args.failures else result))
        return
    print(f"{right}/{len(cases)} answered correctly ({result['share']:.1%})")
    for case in missed if args.failures else []:
        print(f"  {' / '.join(case['setup'])} → {case['question']!r}: {case['reply']!r} (expected {case['expect']!r})")


if __name__ == "__main__":
    main()
