"""LoCoMo answers with sources: the retrieval module through a real kernel, no LLM.

For each LoCoMo conversation: a fresh agent (SQLite file) with the ``retrieval`` module
ingests every turn into its long-term memory, then is asked every category 1-4 question as
an ordinary tick. Reported, over the questions whose evidence turns are known:

- ``cites_evidence``: the share of replies citing (``[D8:6]``) one of the question's evidence
  turns, with at most 3 citations (the issue's goal: at least 60%);
- ``f1``: answer token-F1 against the gold answer as the LoCoMo paper scores it (lower case,
  punctuation, commas and articles removed, whitespace tokens, F1 of the token bags; no
  stemming) of the module's structured answer: when the reply is the module's (the tick's
  router decision is ``module:retrieval``), its answer as the module keeps it (state
  ``last.answer``: the answer span, or the resolved date, that the reply quotes its memory
  for); otherwise the reply (a Stage-0 rule's), its citations removed;
- ``f1_reply``: the same F1 of the reply the user reads (the sentence that quotes the memory),
  its citations removed: what LoCoMo's scorer would give the reply text itself;
- ``R@10``: recall@10 of the ranking alone on the same stored items, asked before the
  questions (all evidence turns in the top 10, as ``locomo_recall.py`` counts it), and
  ``any@3``: one evidence turn in the top 3.

Usage::

    python benchmarks/locomo_answers.py --data ../shared/data/locomo [--conversations conv-26]
        [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import string
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import agi_plugin_retrieval.plugin as retrieval

from agi_core.longterm import ingest_file
from agi_core.testing import open_kernel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo_recall import questions

_CITATION = re.compile(r"\[([^\]]+)\]")


def normalize(text: str) -> str:
    """LoCoMo's ``normalize_answer``: commas, lower case, punctuation, articles, extra spaces."""
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the|and)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, gold: str) -> float:
    got, want = normalize(prediction).split(), normalize(gold).split()
    common = sum((collections.Counter(got) & collections.Counter(want)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def gold_answers(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text())
    sample = data[0] if isinstance(data, list) else data
    return {qa["question"]: str(qa.get("answer", "")) for qa in sample.get("qa", []) if "answer" in qa}


def _answer_of(kernel: Any, record: Any, question: str) -> str:
    """The answer the reply states: the module's structured answer when its candidate is the reply (the
    span or date its reply quotes a memory for), else the reply itself, citations removed."""
    if record.router_decision.agent == "module:retrieval":
        last = kernel.store.module_state_get("retrieval", "last") or {}
        if last.get("question") == question.strip()[:300] and isinstance(last.get("answer"), str):
            return str(last["answer"])
    return _CITATION.sub("", record.final_output)


def run_conversation(path: Path, workdir: Path, limit: int | None) -> dict[str, Any]:
    with open_kernel(workdir / f"{path.stem}.db", retrieval) as kernel:
        memory = kernel.long_term
        ingest_file(memory, path, format="locomo", progress=False)
        kernel.store.conn.commit()
        known = {
            row[0] for row in kernel.store.conn.execute("SELECT json_extract(metadata, '$.dia_id') FROM ltm_items")
        }
        asked = questions(path, known)[0][:limit]
        gold = gold_answers(path)
        ranked = [
            [h.item.metadata.get("dia_id") for h in row] for row in memory.search_many([q for q, _, _ in asked], 10)
        ]
        cites = f1 = f1_reply = r10 = any3 = 0.0
        start = time.perf_counter()
        for (question, evidence, _category), top in zip(asked, ranked, strict=True):
            record = kernel.tick(question)
            reply = record.final_output
            cited = _CITATION.findall(reply)
            cites += bool(set(cited) & set(evidence)) and len(cited) <= 3
            f1 += token_f1(_answer_of(kernel, record, question), gold.get(question, ""))
            f1_reply += token_f1(_CITATION.sub("", reply), gold.get(question, ""))
            r10 += set(evidence) <= set(top)
            any3 += bool(set(evidence) & set(top[:3]))
        elapsed = time.perf_counter() - start
    n = max(1, len(asked))
    return {
        "questions": len(asked),
        "cites_evidence": round(cites / n, 4),
        "f1": round(f1 / n, 4),
        "f1_reply": round(f1_reply / n, 4),
        "R@10": round(r10 / n, 4),
        "any@3": round(any3 / n, 4),
        "ms_per_question": round(1000 * elapsed / n, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path, help="folder of LoCoMo conversation .json files")
    parser.add_argument("--conversations", help="comma-separated file stems (e.g. conv-26); default: all")
    parser.add_argument("--limit", type=int, help="ask only the first N questions of each conversation")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    files = sorted(args.data.glob("*.json"))
    if args.conversations:
        files = [f for f in files if f.stem in set(args.conversations.split(","))]
    if not files:
        parser.error(f"no matching .json files in {args.data}")
    per: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="locomo-answers-") as tmp:
        for path in files:
            per[path.stem] = run_conversation(path, Path(tmp), args.limit)
            if not args.json:
                print(f"{path.stem}: {per[path.stem]}", file=sys.stderr)
    total = sum(r["questions"] for r in per.values()) or 1
    pooled = {
        key: round(sum(r[key] * r["questions"] for r in per.values()) / total, 4)
        for key in ("cites_evidence", "f1", "f1_reply", "R@10", "any@3")
    }
    result = {**pooled, "questions": total, "conversations": per}
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{total} questions: cites an evidence turn {pooled['cites_evidence']:.1%} (goal 60%), "
            f"token-F1 {pooled['f1']:.3f} (of the reply text {pooled['f1_reply']:.3f}), "
            f"ranking R@10 {pooled['R@10']:.3f}, any@3 {pooled['any@3']:.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
