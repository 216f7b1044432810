"""The BM25 leg of long-term memory search: FTS5 against ``bm25s`` and ``tantivy``, in one run.

On the same corpus (``recall_scale.py``'s end-to-end one: the LoCoMo texts, 1,000 held out
as queries, repeated up to ``--size`` items) and the same query terms (the content words
``LongTermMemory.search`` sends to its keyword leg, 100 candidates), each leg is measured
for: single-query p50/p99 (queries interleaved, the order rotating), index build time,
the cost of adding one memory and making it searchable, memory, and the share of FTS5's
exact top 10 it returns. Legs:

- ``fts5``        what search uses: FTS5 over a bounded plan (``agi_core.memory.sqlite.fts_plan``);
- ``fts5_exact``  FTS5 ``ORDER BY rank`` over every term (the plan's budget unbounded);
- ``bm25s``       ``bm25s`` (scipy sparse, eager scores), PyStemmer's English stemmer, its
                  English stop words;
- ``tantivy``     ``tantivy`` (Rust, Lucene-like), its ``en_stem`` tokenizer, doc frequencies only.

Then, on the LoCoMo conversations (``--data``), R@10 of the keyword leg alone (mode ``bm25``)
and of the hybrid ranking with each leg in place of FTS5 (the same stored items, vectors
and fusion; only ``full_text`` is replaced, by the benchmark's stand-in below).

``bm25s``, ``PyStemmer`` and ``tantivy`` are not project dependencies: install them to run
this (``pip install bm25s PyStemmer tantivy``). Usage::

    python benchmarks/keyword_leg.py --data ../shared/data/locomo [--size 100k] [--queries 200] [--json]
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from locomo_recall import questions, recall_at
from recall_scale import locomo_texts, parse_size, rss_mb

from agi_core.longterm import LongTermMemory, ingest_file
from agi_core.longterm.query import analyze

CANDIDATES = 100
_WORD = re.compile(r"\w+")


class Fts5Leg:
    """FTS5 on the agent's own database (``SqliteLtmRows.full_text``), bounded or exact plan."""

    def __init__(self, ltm: LongTermMemory, exact: bool) -> None:
        self.ltm = ltm
        self.rows: Any = ltm.rows
        self.exact = exact
        self.budget = self.rows.plan.budget
        self.full_text = self.rows.full_text  # the real one, also while on_locomo puts a stand-in there

    def build(self) -> float:
        start = time.perf_counter()
        self.rows.conn.execute("INSERT INTO ltm_fts(ltm_fts) VALUES ('rebuild')")
        self.rows.conn.commit()
        return time.perf_counter() - start

    def query(self, terms: Sequence[str], limit: int) -> dict[int, float]:
        self.rows.plan.budget = 10**18 if self.exact else self.budget
        try:
            return dict(self.full_text(terms, limit))
        finally:
            self.rows.plan.budget = self.budget

    def add(self, seq: int, text: str) -> None:
        """One memory: the row and its FTS5 row (trigger), committed."""
        self.add_batch([(seq, text)])

    def add_batch(self, rows: Sequence[tuple[int, str]]) -> None:
        self.ltm.add_many({"text": text, "tick": 10**9, "id": f"added-{seq}"} for seq, text in rows)
        self.rows.conn.commit()

    def memory_mb(self) -> float:
        (size,) = self.rows.conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'ltm_fts%'").fetchone()
        return float(size or 0) / 2**20


class Bm25sLeg:
    """``bm25s`` over ``(seq, text)`` rows; it has no incremental add: a new memory is a rebuild."""

    def __init__(self) -> None:
        import bm25s
        import Stemmer

        self.bm25s = bm25s
        self.stemmer = Stemmer.Stemmer("english")
        self.seqs = np.zeros(0, np.int64)
        self.texts: list[str] = []
        self.retriever: Any = None
        self.rss_mb = 0.0

    def build_from(self, rows: Sequence[tuple[int, str]]) -> float:
        before = rss_mb()
        start = time.perf_counter()
        self.seqs = np.array([seq for seq, _ in rows], dtype=np.int64)
        self.texts = [text for _, text in rows]
        tokens = self.bm25s.tokenize(self.texts, stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.retriever = self.bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)
        elapsed = time.perf_counter() - start
        self.rss_mb = rss_mb() - before
        return elapsed

    def query(self, terms: Sequence[str], limit: int) -> dict[int, float]:
        stems = self.stemmer.stemWords([t.lower() for t in terms])
        known = [s for s in dict.fromkeys(stems) if s in self.retriever.vocab_dict]
        if not known:
            return {}
        docs, scores = self.retriever.retrieve([known], k=min(limit, len(self.seqs)), show_progress=False, n_threads=1)
        return {int(self.seqs[d]): float(s) for d, s in zip(docs[0], scores[0], strict=True) if s > 0}

    def add(self, seq: int, text: str) -> None:
        self.add_batch([(seq, text)])

    def add_batch(self, rows: Sequence[tuple[int, str]]) -> None:
        self.build_from([*zip(self.seqs.tolist(), self.texts, strict=True), *rows])

    def memory_mb(self) -> float:
        with tempfile.TemporaryDirectory(prefix="bm25s-") as tmp:
            self.retriever.save(tmp)
            return sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file()) / 2**20


class TantivyLeg:
    """``tantivy`` in a folder of its own; a new memory is a document, a commit and a reload."""

    def __init__(self, folder: Path) -> None:
        import tantivy

        self.tantivy = tantivy
        self.folder = folder
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("text", tokenizer_name="en_stem", index_option="freq")
        builder.add_integer_field("seq", stored=True, indexed=True, fast=True)
        self.schema = builder.build()
        self.index: Any = None
        self.writer: Any = None
        self.rss_mb = 0.0

    def build_from(self, rows: Sequence[tuple[int, str]]) -> float:
        before = rss_mb()
        start = time.perf_counter()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.index = self.tantivy.Index(self.schema, path=str(self.folder), reuse=False)
        self.writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        for seq, text in rows:
            self.writer.add_document(self.tantivy.Document(text=text, seq=seq))
        self.writer.commit()
        self.writer.wait_merging_threads()
        self.writer = self.index.writer(heap_size=15_000_000, num_threads=1)
        self.index.reload()
        elapsed = time.perf_counter() - start
        self.rss_mb = rss_mb() - before
        return elapsed

    def query(self, terms: Sequence[str], limit: int) -> dict[int, float]:
        words = [w for t in terms for w in _WORD.findall(t)]
        if not words:
            return {}
        searcher = self.index.searcher()
        parsed = self.index.parse_query(" ".join(words), ["text"])
        hits = searcher.search(parsed, limit, count=False).hits
        return {searcher.doc(address)["seq"][0]: score for score, address in hits}

    def add(self, seq: int, text: str) -> None:
        self.add_batch([(seq, text)])

    def add_batch(self, rows: Sequence[tuple[int, str]]) -> None:
        for seq, text in rows:
            self.writer.add_document(self.tantivy.Document(text=text, seq=seq))
        self.writer.commit()
        self.index.reload()

    def memory_mb(self) -> float:
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file()) / 2**20

    def close(self) -> None:
        """Let the background merges finish (they write in the folder, which is removed next)."""
        if self.writer is not None:
            self.writer.wait_merging_threads()
            self.writer = None


def _latency(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "p50_ms": round(statistics.median(times), 3),
        "p99_ms": round(times[int(0.99 * (len(times) - 1))], 3),
    }


def query_terms(query: str, speakers: set[str]) -> list[str]:
    """The content words ``LongTermMemory.search`` sends to its keyword leg for ``query``."""
    return list(analyze(query, speakers).words)


def at_scale(size: int, corpus: list[str], queries: list[str], workdir: Path, adds: int) -> dict[str, Any]:
    """Every leg on the same ``size`` rows and the same query terms."""
    conn = sqlite3.connect(workdir / "scale.db")
    ltm = LongTermMemory(conn, None)  # no vectors here: the embedder is never built
    start = time.perf_counter()
    ltm.add_many({"text": corpus[i % len(corpus)], "id": f"e2e-{i}", "session": f"s{i // 20}"} for i in range(size))
    conn.commit()
    rows_s = time.perf_counter() - start
    rows = conn.execute("SELECT seq, text FROM ltm_items ORDER BY seq").fetchall()
    legs: dict[str, Any] = {
        "fts5": Fts5Leg(ltm, exact=False),
        "fts5_exact": Fts5Leg(ltm, exact=True),
        "bm25s": Bm25sLeg(),
        "tantivy": TantivyLeg(workdir / "tantivy"),
    }
    out: dict[str, Any] = {"n": size, "rows_with_fts5_trigger_s": round(rows_s, 2)}
    build = {
        "fts5": legs["fts5"].build(),
        "bm25s": legs["bm25s"].build_from(rows),
        "tantivy": legs["tantivy"].build_from(rows),
    }
    terms = [query_terms(q, set()) for q in queries]
    terms = [t for t in terms if t]
    for leg in legs.values():  # warm-up: caches, the plan's document frequencies, mmaps
        for t in terms[:20]:
            leg.query(t, CANDIDATES)
    times: dict[str, list[float]] = {name: [] for name in legs}
    results: dict[str, list[list[int]]] = {name: [] for name in legs}
    names = list(legs)
    for i, t in enumerate(terms):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = time.perf_counter()
            got = legs[name].query(t, CANDIDATES)
            times[name].append((time.perf_counter() - start) * 1000)
            results[name].append(sorted(got, key=lambda s, got=got: (-got[s], s))[:10])
    texts = dict(rows)
    exact_top = [{texts[s] for s in top} for top in results["fts5_exact"]]
    for name, leg in legs.items():
        overlap = [
            len({texts[s] for s in top} & want) / len(want)
            for top, want in zip(results[name], exact_top, strict=True)
            if want
        ]
        row: dict[str, Any] = {
            **_latency(times[name]),
            "top10_texts_of_fts5_exact": round(float(np.mean(overlap)), 3),
        }
        if name in build:
            row["build_s"] = round(build[name], 2)
            row["index_mb"] = round(leg.memory_mb(), 1)
            if name != "fts5":
                row["build_rss_delta_mb"] = round(leg.rss_mb, 1)
        out[name] = row
    for name in ("fts5", "bm25s", "tantivy"):  # one memory added and made searchable
        leg = legs[name]
        count = adds if name != "bm25s" else 2
        add_times = []
        for j in range(count):
            seq = size + 1 + j
            start = time.perf_counter()
            leg.add(seq, f"an added memory number {j} about a purple kayak")
            add_times.append((time.perf_counter() - start) * 1000)
        out[name]["add_one_ms"] = round(statistics.median(add_times), 2)
        batch = [(size + 1000 + j, f"a batch memory number {j} about a green canoe") for j in range(100)]
        start = time.perf_counter()
        leg.add_batch(batch)
        out[name]["add_100_ms"] = round((time.perf_counter() - start) * 1000, 2)
        if name == "fts5":
            out[name]["note"] = "add_one: row + FTS5 row (trigger) + commit"
        elif name == "bm25s":
            out[name]["note"] = "no incremental add in bm25s: add_one is a rebuild"
        else:
            out[name]["note"] = "add_one: add_document + commit + reload"
    legs["tantivy"].close()
    conn.close()
    return out


def on_locomo(files: list[Path], workdir: Path) -> dict[str, Any]:
    """R@10 with each leg in place of FTS5: keyword leg alone (``bm25``) and hybrid."""
    from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder.warm_up()
    legs = ("fts5", "fts5_exact", "bm25s", "tantivy")
    ranked: dict[tuple[str, str], list[list[str]]] = {(leg, m): [] for leg in legs for m in ("bm25", "hybrid")}
    evidence: list[list[str]] = []
    for path in files:
        conn = sqlite3.connect(workdir / f"{path.stem}.db")
        ltm = LongTermMemory(conn, None, embedder)
        ingest_file(ltm, path, format="locomo", progress=False)
        conn.commit()
        known = {row[0] for row in conn.execute("SELECT json_extract(metadata, '$.dia_id') FROM ltm_items")}
        qs, _ = questions(path, known)
        texts = [q for q, _, _ in qs]
        evidence += [ev for _, ev, _ in qs]
        rows = conn.execute("SELECT seq, text FROM ltm_items ORDER BY seq").fetchall()
        rows_obj: Any = ltm.rows
        original: Callable[..., dict[int, float]] = rows_obj.full_text
        for leg_name in legs:
            if leg_name.startswith("fts5"):
                leg: Any = Fts5Leg(ltm, exact=leg_name == "fts5_exact")
            elif leg_name == "bm25s":
                leg = Bm25sLeg()
                leg.build_from(rows)
            else:
                leg = TantivyLeg(workdir / f"{path.stem}-tantivy")
                leg.build_from(rows)
            rows_obj.full_text = leg.query  # the benchmark's stand-in: only the keyword leg changes
            try:
                for mode in ("bm25", "hybrid"):
                    hits = ltm.search_many(texts, 10, mode=mode)
                    ranked[(leg_name, mode)] += [[h.item.metadata["dia_id"] for h in row] for row in hits]
            finally:
                rows_obj.full_text = original
                if isinstance(leg, TantivyLeg):
                    leg.close()
        conn.close()
    out: dict[str, Any] = {"questions": len(evidence)}
    for leg_name in legs:
        out[leg_name] = {
            f"{mode}_R@10": recall_at(ranked[(leg_name, mode)], evidence, [10])["R@10"] for mode in ("bm25", "hybrid")
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path, help="folder of LoCoMo .json files")
    parser.add_argument("--size", default="100k", help="corpus size for latency, build, add and memory")
    parser.add_argument("--queries", type=int, default=200, help="held-out LoCoMo texts used as queries")
    parser.add_argument("--adds", type=int, default=20, help="single adds timed per leg (bm25s: 2, each a rebuild)")
    parser.add_argument("--skip-locomo", action="store_true", help="skip the R@10 measurement")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    texts = locomo_texts(args.data)
    order = np.random.default_rng(0).permutation(len(texts))  # recall_scale.py's split
    query_texts = [texts[i] for i in order[:1000]][: args.queries]
    corpus = [texts[i] for i in order[1000:]]
    load_before = os.getloadavg()
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="keyword-leg-") as tmp:
        result["scale"] = at_scale(parse_size(args.size), corpus, query_texts, Path(tmp), args.adds)
        log(json.dumps(result["scale"]))
        if not args.skip_locomo:
            result["locomo"] = on_locomo(sorted(args.data.glob("*.json")), Path(tmp))
            log(json.dumps(result["locomo"]))
    result["load_average"] = [round(x, 1) for x in load_before + os.getloadavg()]
    log(f"load average before / after: {result['load_average']}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
