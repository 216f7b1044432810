"""LongTermMemory: tick-path writes, search and its score breakdown, reopen, rollback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.longterm import IndexPolicy, LongTermMemory, RankWeights
from agi_core.longterm.vindex import VectorIndex

FACTS = [
    ("Ann", "I adopted a grey greyhound puppy called Pixel last week."),
    ("Bob", "My sister moved to Lisbon to study marine biology."),
    ("Ann", "I'm learning to play the cello, lessons are on Tuesdays."),
    ("Bob", "We painted the kitchen a pale yellow colour."),
    ("Ann", "The marathon is in October and I run 40 km a week."),
    ("Bob", "My favourite book is One Hundred Years of Solitude."),
]


def _fill(ltm: LongTermMemory, first_tick: int = 1) -> list[str]:
    return [ltm.add(text, tick=first_tick + i, speaker=speaker) for i, (speaker, text) in enumerate(FACTS)]


def test_add_is_cheap_and_does_not_commit(ltm: LongTermMemory, embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    ltm.conn.commit()
    _fill(ltm)
    assert ltm.conn.in_transaction
    assert embedder.encode_calls == 0  # no embedding on the tick path
    other = sqlite3.connect(tmp_path / "agent.db")
    assert other.execute("SELECT count(*) FROM ltm_items").fetchone() == (0,)
    ltm.conn.commit()
    assert other.execute("SELECT count(*) FROM ltm_items").fetchone() == (len(FACTS),)
    other.close()


def test_add_derives_ids_and_is_idempotent(ltm: LongTermMemory) -> None:
    first = ltm.add("Water the ferns.", tick=3)
    assert first.startswith("ltm-") and len(first) == 28
    assert ltm.add("Water the ferns.", tick=3) == first
    assert ltm.count() == 1
    assert ltm.add("Water the ferns.", tick=4) != first
    item = ltm.get(first)
    assert (item.tick, item.kind, item.importance) == (3, "message", pytest.approx(0.3))


def test_search_finds_paraphrase_with_breakdown(ltm: LongTermMemory) -> None:
    ids = _fill(ltm)
    hits = ltm.search("Which pet does Ann have?", k=3)
    assert hits[0].item.id == ids[0]
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].score >= hits[1].score >= hits[2].score
    top = hits[0].breakdown
    w = RankWeights()
    assert top.speaker == 1.0  # "Ann" named in the query, and she said it
    assert 0.3 < top.dense <= 1.0
    base = w.dense * top.dense + w.bm25 * top.bm25 + w.speaker * top.speaker + w.date * top.date
    assert top.score == pytest.approx(base + w.neighbour * top.neighbour, abs=1e-5)


def test_agentone_mode_is_seed_relevance(ltm: LongTermMemory) -> None:
    _fill(ltm)
    hits = ltm.search("Which city did Bob's sister move to?", k=6, mode="agentone")
    assert "Lisbon" in hits[0].item.text
    for hit in hits:
        b = hit.breakdown
        assert hit.score == pytest.approx(0.7 * b.dense + 0.3 * b.importance, abs=1e-5)


def test_bm25_and_dense_modes(ltm: LongTermMemory) -> None:
    _fill(ltm)
    bm25 = ltm.search("cello lessons", k=5, mode="bm25")
    assert [h.item.text for h in bm25] == [FACTS[2][1]]  # only lexical matches are returned
    assert bm25[0].breakdown.bm25 == 1.0 and bm25[0].breakdown.dense == 0.0
    dense = ltm.search("musical instrument practice", k=2, mode="dense")
    assert dense[0].item.text == FACTS[2][1]
    assert dense[0].breakdown.bm25 == 0.0


def test_reopen_does_not_reembed(conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)
    ltm.search("anything", k=1)
    assert embedder.texts_encoded == len(FACTS) + 1
    conn.commit()
    ltm.close()
    assert VectorIndex.paths(tmp_path / "index", "minilm")[0].exists()

    again = MiniLMEmbedder()
    reopened = LongTermMemory(sqlite3.connect(tmp_path / "agent.db"), tmp_path / "index", again)
    hits = reopened.search("Who runs marathons?", k=1)
    assert "marathon" in hits[0].item.text
    assert (again.encode_calls, again.texts_encoded) == (1, 1)  # the query only


def test_missing_index_file_is_rebuilt_from_blobs(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)
    ltm.catch_up()
    conn.commit()
    ltm.close()
    for path in VectorIndex.paths(tmp_path / "index", "minilm"):
        path.unlink()
    again = MiniLMEmbedder()
    reopened = LongTermMemory(conn, tmp_path / "index", again)
    assert reopened.search("kitchen paint colour", k=1)[0].item.text == FACTS[3][1]
    assert again.texts_encoded == 1
    assert reopened.index().meta.count == len(FACTS)


def test_stale_index_file_is_caught_up(conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)
    ltm.catch_up()
    ltm.close()  # index saved with 6 items
    ltm2 = LongTermMemory(conn, tmp_path / "index", MiniLMEmbedder())
    ltm2.add("The boiler was serviced on Monday.", tick=20)
    assert ltm2.catch_up() == 1  # only the new item is embedded
    assert ltm2.index().meta.count == len(FACTS) + 1
    assert ltm2.search("boiler maintenance", k=1)[0].item.tick == 20


def test_restore_to_drops_items_and_index_entries(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)  # ticks 1..6
    assert ltm.search("cello", k=1)[0].item.tick == 3
    assert ltm.restore_to(2) == 4
    assert ltm.count() == 2
    assert ltm.index().meta.count == 2
    assert sorted(int(x) for x in ltm.index().labels()) == [1, 2]
    assert {h.item.tick for h in ltm.search("cello lessons on Tuesdays", k=10)} == {1, 2}
    assert conn.execute("SELECT count(*) FROM ltm_vectors").fetchone() == (2,)
    # new memories after the rollback are indexed, and the saved index is consistent
    ltm.add("I switched from cello to violin.", tick=3)
    assert ltm.search("violin", k=1)[0].item.text == "I switched from cello to violin."
    conn.commit()
    ltm.close()
    again = MiniLMEmbedder()
    reopened = LongTermMemory(conn, tmp_path / "index", again)
    assert reopened.search("violin", k=1)[0].item.tick == 3
    assert again.texts_encoded == 1


def test_restore_after_the_kernel_already_removed_rows(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)
    ltm.catch_up()
    conn.execute("DELETE FROM ltm_items WHERE tick > 4")  # as a kernel-side restore would
    assert ltm.restore_to(4) == 0
    assert sorted(int(x) for x in ltm.index().labels()) == [1, 2, 3, 4]


def test_hnsw_index_with_rollback(conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    policy = IndexPolicy(flat_max=3, max_tombstones=0.5)
    ltm = LongTermMemory(conn, tmp_path / "index", embedder, policy=policy)
    _fill(ltm)
    ltm.catch_up()
    assert ltm.index().meta.kind == "hnsw"
    assert ltm.search("marathon training", k=1)[0].item.tick == 5
    ltm.restore_to(4)
    index = ltm.index()
    assert (index.meta.kind, index.meta.count, index.meta.tombstones) == ("hnsw", 6, 2)
    assert index.meta.max_seq == 4
    _, seqs = index.search(embedder.encode(["marathon training"]), 6)
    assert sorted(int(s) for s in seqs[0]) == [1, 2, 3, 4]  # removed entries are never returned
    ltm.add("Half marathon next spring.", tick=5)
    assert ltm.search("marathon", k=1)[0].item.text == "Half marathon next spring."
    ltm.close()
    reopened = LongTermMemory(conn, tmp_path / "index", MiniLMEmbedder(), policy=policy)
    assert reopened.index().meta.tombstones == 2  # the saved file was still consistent
    _, seqs = reopened.index().search(embedder.encode(["marathon training"]), 10)
    assert sorted(int(s) for s in seqs[0] if s >= 0) == [1, 2, 3, 4, 7]


def test_switches_to_hnsw_when_it_grows(conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder, policy=IndexPolicy(flat_max=3))
    ltm.add(FACTS[0][1], tick=1)
    ltm.catch_up()
    assert ltm.index().meta.kind == "flat"
    _fill(ltm, first_tick=2)
    ltm.catch_up()
    assert ltm.index().meta.kind == "hnsw"
    assert embedder.texts_encoded == 1 + len(FACTS)  # the rebuild re-used the stored vectors


def test_working_memory_skips_recent_turns(ltm: LongTermMemory) -> None:
    ids = _fill(ltm)
    recent = [ltm.get(ids[0]), "My sister moved to Lisbon to study marine biology."]
    wm = ltm.working_memory(recent, "Tell me about Ann's dog and Bob's sister", k=3)
    recalled = [h.item.id for h in wm.recalled]
    assert len(recalled) == 3
    assert ids[0] not in recalled and ids[1] not in recalled
    assert wm.texts()[:2] == [FACTS[0][1], FACTS[1][1]]


def test_vectors_are_unit_float32_blobs(ltm: LongTermMemory) -> None:
    _fill(ltm)
    ltm.catch_up()
    blob = ltm.conn.execute("SELECT vector FROM ltm_vectors WHERE model = 'minilm' LIMIT 1").fetchone()[0]
    vec = np.frombuffer(blob, dtype="<f4")
    assert vec.shape == (384,)
    assert float(np.linalg.norm(vec)) == pytest.approx(1.0, abs=1e-4)


def test_hit_to_dict_is_json_ready(ltm: LongTermMemory) -> None:
    import json

    ids = _fill(ltm)
    data = ltm.search("Which pet does Ann have?", k=1)[0].to_dict()
    assert json.loads(json.dumps(data)) == data
    assert (data["rank"], data["id"], data["speaker"], data["tick"]) == (1, ids[0], "Ann", 1)
    assert set(data["breakdown"]) == {"score", "dense", "bm25", "importance", "recency", "speaker", "date", "neighbour"}
    assert data["breakdown"]["score"] == data["score"]


def test_empty_memory_returns_no_hits(ltm: LongTermMemory) -> None:
    assert ltm.search("anything at all", k=5) == []
    assert ltm.search("what did they do?", k=5, mode="bm25") == []
    assert ltm.working_memory(["hello"], "anything", k=3).recalled == []


def _index_file(tmp_path: Path) -> Path:
    return VectorIndex.paths(tmp_path / "index", "minilm")[0]


def test_open_after_a_crash_neither_rebuilds_nor_reembeds(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)
    ltm.catch_up()
    conn.commit()  # no close(): the process dies here
    assert ltm.builds == 1 and _index_file(tmp_path).exists()
    before = _index_file(tmp_path).stat()

    again = MiniLMEmbedder()
    reopened = LongTermMemory(sqlite3.connect(tmp_path / "agent.db"), tmp_path / "index", again)
    assert "marathon" in reopened.search("Who runs marathons?", k=1)[0].item.text
    assert reopened.builds == 0
    assert (again.encode_calls, again.texts_encoded) == (1, 1)  # the query only
    after = _index_file(tmp_path).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not rewritten


def test_large_catch_up_is_saved_without_close(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agi_core.longterm import store

    monkeypatch.setattr(store, "SAVE_AFTER", 3)
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    ltm.add("first", tick=1)
    ltm.catch_up()  # built and saved with one item
    _fill(ltm, first_tick=2)
    ltm.catch_up()  # six more: past SAVE_AFTER, saved again
    conn.commit()
    reopened = LongTermMemory(sqlite3.connect(tmp_path / "agent.db"), tmp_path / "index", MiniLMEmbedder())
    assert reopened.index().meta.count == 7 and reopened.builds == 0


@pytest.mark.parametrize("tamper", ["sidecar count", "foreign database", "vector replaced", "truncated file"])
def test_tampered_or_stale_index_is_detected_and_rebuilt(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder, tamper: str
) -> None:
    import json

    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)
    ltm.catch_up()
    conn.commit()
    ltm.close()
    index_path, meta_path = VectorIndex.paths(tmp_path / "index", "minilm")
    db = tmp_path / "agent.db"
    if tamper == "sidecar count":
        meta = json.loads(meta_path.read_text())
        meta_path.write_text(json.dumps({**meta, "count": meta["count"] - 1}))
    elif tamper == "foreign database":  # same number of rows, other items: the id at max_seq differs
        db = tmp_path / "other.db"
        other = LongTermMemory(sqlite3.connect(db), None, embedder)
        for i in range(len(FACTS)):
            other.add(f"unrelated memory number {i}", tick=i + 1)
        other.catch_up()
        other.conn.commit()
    elif tamper == "vector replaced":  # an item's text edited: its vector is dropped by trigger
        conn.execute("UPDATE ltm_items SET text = 'We painted the kitchen blue.' WHERE seq = 4")
        conn.commit()
    else:
        index_path.write_bytes(index_path.read_bytes()[:100])
    again = MiniLMEmbedder()
    reopened = LongTermMemory(sqlite3.connect(db), tmp_path / "index", again)
    reopened.search("kitchen", k=1)
    assert reopened.builds == 1
    index = reopened.index()
    stored = sorted(s for (s,) in reopened.conn.execute("SELECT seq FROM ltm_vectors"))
    assert sorted(int(x) for x in index.labels()) == stored == list(range(1, len(FACTS) + 1))
    assert again.texts_encoded == 1 + (1 if tamper == "vector replaced" else 0)


def test_rollback_after_the_kernel_removed_rows_does_not_rebuild(
    conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    ltm = LongTermMemory(conn, tmp_path / "index", embedder)
    _fill(ltm)
    ltm.catch_up()
    conn.commit()
    ltm.close()
    conn.execute("DELETE FROM ltm_items WHERE tick > 4")  # as a kernel-side restore would, before the hook
    reopened = LongTermMemory(conn, tmp_path / "index", MiniLMEmbedder())
    assert reopened.restore_to(4) == 0
    assert sorted(int(x) for x in reopened.index().labels()) == [1, 2, 3, 4]
    assert reopened.builds == 0
