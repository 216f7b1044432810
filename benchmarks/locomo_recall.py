"""LoCoMo evidence recall of agi-core's long-term memory, against BM25 and dense baselines.

For each LoCoMo conversation: ingest every turn (text with speaker and session date, the
shared photo's caption appended) into a fresh SQLite file, then ask every category 1-4
question. R@k is the share of questions whose evidence turns are ALL among the top k.
No LLM anywhere. Systems, all on the same stored items:

- ``agi``      the default hybrid ranking (agi_core.longterm.ranking, preset ``hybrid``);
- ``bm25``     FTS5 BM25 over every word of the question;
- ``dense``    MiniLM cosine only;
- ``agentone`` the seed's 0.7·cosine + 0.3·importance;
- ``rrf``      naive reciprocal-rank fusion of the ``bm25`` and ``dense`` rankings (k=60).

Usage::

    python benchmarks/locomo_recall.py --data shared/data/locomo [--json] [--k 1,5,10,25]
        [--conversations conv-26] [--backend auto|onnx|torch]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.longterm import LongTermMemory, RankWeights, ingest_file

SYSTEMS = ("agi", "bm25", "dense", "agentone", "rrf")
RRF_K = 60
RRF_DEPTH = 100
MODES: dict[str, str | RankWeights] = {"agi": "hybrid", "bm25": "bm25", "dense": "dense", "agentone": "agentone"}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def evidence_ids(raw: list[str], known: set[str]) -> list[str]:
    """Normalise the dataset's evidence ids: split "D8:6; D9:17", fix "D:11:26", drop unknown ones."""
    out = []
    for entry in raw:
        for match in _EVIDENCE.finditer(str(entry)):
            dia = f"D{match.group(1)}:{match.group(2)}"
            if dia in known and dia not in out:
                out.append(dia)
    return out


def questions(path: Path, known: set[str]) -> tuple[list[tuple[str, list[str], int]], int]:
    data = json.loads(path.read_text())
    sample = data[0] if isinstance(data, list) else data
    kept, dropped = [], 0
    for qa in sample.get("qa", []):
        if qa.get("category") not in (1, 2, 3, 4):
            continue
        ev = evidence_ids(qa.get("evidence", []), known)
        if ev:
            kept.append((qa["question"], ev, qa["category"]))
        else:
            dropped += 1
    return kept, dropped


def recall_at(ranked: list[list[str]], evidence: list[list[str]], ks: list[int]) -> dict[str, float]:
    out = {}
    for k in ks:
        hit = sum(1 for got, ev in zip(ranked, evidence, strict=True) if set(ev) <= set(got[:k]))
        out[f"R@{k}"] = round(hit / len(evidence), 4) if evidence else 0.0
    return out


def rrf(*rankings: list[str]) -> list[str]:
    """Reciprocal-rank fusion: score = sum of 1 / (60 + rank) over the rankings."""
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            score[key] = score.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(score, key=lambda key: (-score[key], key))


def run_conversation(path: Path, embedder: MiniLMEmbedder, ks: list[int], workdir: Path) -> dict[str, Any]:
    db = workdir / f"{path.stem}.db"
    conn = sqlite3.connect(db)
    ltm = LongTermMemory(conn, workdir / f"{path.stem}.ltm", embedder)
    start = time.perf_counter()
    report = ingest_file(ltm, path, format="locomo", progress=False)
    conn.commit()
    ingest_s = time.perf_counter() - start
    known = {row[0] for row in conn.execute("SELECT json_extract(metadata, '$.dia_id') FROM ltm_items")}
    qs, dropped = questions(path, known)
    texts = [q for q, _, _ in qs]
    evidence = [ev for _, ev, _ in qs]
    result: dict[str, Any] = {
        "questions": len(qs),
        "dropped_without_evidence": dropped,
        "turns": report.added,
        "ingest_items_per_s": round(report.added / ingest_s, 1),
    }
    depth = max(ks)
    deep: dict[str, list[list[str]]] = {}
    for system in SYSTEMS:
        start = time.perf_counter()
        if system == "rrf":
            ranked = [rrf(b, d)[:depth] for b, d in zip(deep["bm25"], deep["dense"], strict=True)]
        else:
            hits = ltm.search_many(texts, RRF_DEPTH if system in ("bm25", "dense") else depth, mode=MODES[system])
            ranked = [[h.item.metadata["dia_id"] for h in row] for row in hits]
            deep[system] = ranked
            ranked = [row[:depth] for row in ranked]
        elapsed = time.perf_counter() - start
        result[system] = recall_at(ranked, evidence, ks)
        result[system]["ms_per_query"] = round(1000 * elapsed / max(1, len(qs)), 2)
        if system == "agi":
            by_cat = {}
            for cat in (1, 2, 3, 4):
                idx = [i for i, (_, _, c) in enumerate(qs) if c == cat]
                if idx:
                    by_cat[str(cat)] = recall_at([ranked[i] for i in idx], [evidence[i] for i in idx], [10])["R@10"]
            result["agi_r10_by_category"] = by_cat
            result["_ranked"] = ranked
    result["_evidence"] = evidence
    ltm.close()
    conn.close()
    return result


def pooled(per: dict[str, dict[str, Any]], ks: list[int]) -> dict[str, dict[str, float]]:
    """Recall over all questions of all conversations (each question counts once)."""
    total = sum(r["questions"] for r in per.values())
    out = {}
    for system in SYSTEMS:
        out[system] = {
            f"R@{k}": round(sum(r[system][f"R@{k}"] * r["questions"] for r in per.values()) / total, 4) for k in ks
        }
    return out


def single_query_latency(path: Path, embedder: MiniLMEmbedder, workdir: Path, n: int = 50) -> dict[str, float]:
    """p50/p99 of one hybrid ``search`` call (query embedding included) on one conversation."""
    conn = sqlite3.connect(workdir / f"{path.stem}.db")
    ltm = LongTermMemory(conn, workdir / f"{path.stem}.ltm", embedder)
    known = {row[0] for row in conn.execute("SELECT json_extract(metadata, '$.dia_id') FROM ltm_items")}
    qs = [q for q, _, _ in questions(path, known)[0]][:n]
    times = []
    for q in qs:
        start = time.perf_counter()
        ltm.search(q, 10)
        times.append(1000 * (time.perf_counter() - start))
    conn.close()
    times.sort()
    return {"p50_ms": round(statistics.median(times), 2), "p99_ms": round(times[int(0.99 * (len(times) - 1))], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path, help="folder of LoCoMo conversation .json files")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--k", default="1,5,10,25", help="comma-separated cut-offs")
    parser.add_argument("--conversations", help="comma-separated file stems (e.g. conv-26); default: all")
    parser.add_argument("--backend", choices=("auto", "onnx", "torch"), help="MiniLM backend (default: auto)")
    args = parser.parse_args(argv)
    ks = sorted({int(x) for x in args.k.split(",")})
    files = sorted(args.data.glob("*.json"))
    if args.conversations:
        wanted = set(args.conversations.split(","))
        files = [f for f in files if f.stem in wanted]
    if not files:
        parser.error(f"no matching .json files in {args.data}")
    embedder = MiniLMEmbedder(backend=args.backend)
    embedder.warm_up()
    per: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        for path in files:
            per[path.stem] = run_conversation(path, embedder, ks, Path(tmp))
            if not args.json:
                r = per[path.stem]
                print(
                    f"{path.stem}: {r['questions']} questions, {r['turns']} turns, "
                    + "  ".join(f"{s} R@10={r[s]['R@10']:.3f}" for s in SYSTEMS),
                    file=sys.stderr,
                )
        latency = single_query_latency(files[0], embedder, Path(tmp))
    for r in per.values():
        r.pop("_ranked", None)
        r.pop("_evidence", None)
    overall = pooled(per, ks)
    total_q = sum(r["questions"] for r in per.values())
    turns = sum(r["turns"] for r in per.values())
    ingest_rate = round(turns / sum(r["turns"] / r["ingest_items_per_s"] for r in per.values()), 1)
    result = {
        **overall,
        "questions": total_q,
        "turns": turns,
        "ingest_items_per_s": ingest_rate,
        "search_latency": latency,
        "per_conversation": per,
    }
    if args.json:
        print(json.dumps(result, sort_keys=False))
        return 0
    width = max(len(name) for name in per) + 2
    print(
        f"LoCoMo evidence recall: {total_q} questions (categories 1-4), {turns} turns, "
        f"ingest {ingest_rate} turns/s, hybrid search p50 {latency['p50_ms']} ms"
    )
    print(f"{'':{width}}" + "".join(f"{s + ' R@' + str(k):>14}" for s in SYSTEMS for k in (10,)))
    for name, r in per.items():
        print(f"{name:{width}}" + "".join(f"{r[s]['R@10']:>14.3f}" for s in SYSTEMS))
    print(f"{'all':{width}}" + "".join(f"{overall[s]['R@10']:>14.3f}" for s in SYSTEMS))
    print()
    for s in SYSTEMS:
        print(f"{s:>9}: " + "  ".join(f"R@{k}={overall[s][f'R@{k}']:.3f}" for k in ks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
