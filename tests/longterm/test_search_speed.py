"""What makes a search fast never changes what it returns: the query-vector cache, encoding
beside the full-text query, and the approximate index above the size threshold."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import numpy as np

from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.longterm import IndexPolicy, LongTermMemory
from agi_core.longterm.query_vectors import QueryVectors

NAMES = ["Ada", "Bruno", "Chloe", "Dmitri", "Esra", "Farid"]
DOINGS = [
    "adopted a greyhound called Pixel",
    "rode a bicycle to the coast",
    "painted a sunrise over the lake",
    "went camping in the mountains",
    "read a novel about the sea",
    "joined a support group",
    "baked sourdough bread",
    "ran a half marathon",
    "learned to play the cello",
    "moved to Lisbon for work",
]
PLACES = ["in March", "last weekend", "with a friend", "after work", "on holiday"]
QUESTIONS = [
    "Who has a dog?",
    "When did Chloe paint a sunrise?",
    "Who plays music?",
    "Where did Dmitri go camping?",
    "What did Esra read?",
    "Who moved abroad?",
]


def _corpus(ltm: LongTermMemory) -> None:
    """300 memories in 30 sessions of 10 (neighbours count), written deterministically."""
    ltm.add_many(
        {
            "text": f"I {DOINGS[(i * 7) % len(DOINGS)]} {PLACES[i % len(PLACES)]}, number {i}.",
            "speaker": NAMES[i % len(NAMES)],
            "session": f"s{i // 10}",
            "tick": i,
        }
        for i in range(300)
    )


def _seqs(ltm: LongTermMemory, query: str, k: int = 10) -> list[int]:
    return [hit.item.seq for hit in ltm.search(query, k)]


def _hits(ltm: LongTermMemory, query: str) -> list[tuple[int, float]]:
    return [(hit.item.seq, hit.score) for hit in ltm.search(query, 10)]


def test_a_repeated_query_is_not_encoded_again_and_sees_new_and_removed_memories(
    ltm: LongTermMemory, embedder: MiniLMEmbedder
) -> None:
    ltm.add("I adopted a grey greyhound puppy called Pixel.", tick=1, speaker="Ann")
    ltm.add("My sister moved to Lisbon to study marine biology.", tick=2, speaker="Bob")
    query = "Who has a dog?"
    first = ltm.search(query, 5)
    calls = embedder.encode_calls
    assert [h.item.tick for h in ltm.search(query, 5)] == [h.item.tick for h in first]
    assert embedder.encode_calls == calls  # the query's vector came from the cache
    assert (ltm.query_vectors.hits, ltm.query_vectors.misses) == (1, 1)

    ltm.add("Our new dog Rex sleeps on my bed.", tick=3, speaker="Bob")  # a write after the cached query
    after_write = ltm.search(query, 5)
    assert embedder.texts_encoded == 4  # two items, the query once, the new item: never the query again
    assert "Rex" in after_write[0].item.text  # results are computed afresh; only the vector is kept

    ltm.restore_to(2)  # the new memory is forgotten
    assert [h.item.tick for h in ltm.search(query, 5)] == [h.item.tick for h in first]
    assert embedder.texts_encoded == 4


def test_a_cached_vector_is_exactly_a_fresh_encoding_and_batches_bypass_the_cache(
    ltm: LongTermMemory, embedder: MiniLMEmbedder
) -> None:
    ltm.add("I adopted a grey greyhound puppy called Pixel.", tick=1)
    ltm.search("Who has a dog?")
    cached = ltm.query_vectors.get(embedder.name, "Who has a dog?")
    assert cached is not None and not cached.flags.writeable
    assert np.array_equal(cached, MiniLMEmbedder().encode(["Who has a dog?"])[0])
    before = len(ltm.query_vectors)
    ltm.search_many(["Who has a dog?", "Who lives in Lisbon?"])
    assert len(ltm.query_vectors) == before  # batch vectors (padded together) are never cached
    assert ltm.query_vectors.hits == 0


def test_the_cache_is_bounded_least_recently_used_out_first(embedder: MiniLMEmbedder) -> None:
    cache = QueryVectors(maxsize=2)
    for text in ("one", "two", "one", "three"):
        cache.start(embedder, [text]).result()
    assert len(cache) == 2
    assert cache.get(embedder.name, "two") is None  # "one" was used after "two"
    assert cache.get(embedder.name, "one") is not None and cache.get(embedder.name, "three") is not None
    assert (cache.hits, cache.misses) == (1, 3)


def test_encoding_beside_the_full_text_query_gives_the_same_hits(ltm: LongTermMemory) -> None:
    _corpus(ltm)
    serial = {q: None for q in QUESTIONS}
    ltm.query_vectors = QueryVectors(0, overlap=False)
    for q in QUESTIONS:
        serial[q] = _hits(ltm, q)
    ltm.query_vectors = QueryVectors(0, overlap=True)
    assert {q: _hits(ltm, q) for q in QUESTIONS} == serial
    assert all(serial.values())


def test_the_approximate_index_above_the_threshold_returns_the_exact_top_hits(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """300 memories indexed twice: exact (the default threshold) and HNSW (forced by
    ``flat_max=50``); every question gets the same ten hits, in the same order."""
    memories = {}
    for name, policy in (("flat", IndexPolicy()), ("hnsw", IndexPolicy(flat_max=50))):
        conn = sqlite3.connect(tmp_path / f"{name}.db")
        ltm = LongTermMemory(conn, tmp_path / f"{name}.ltm", embedder, policy=policy)
        _corpus(ltm)
        ltm.catch_up()
        assert ltm.index().meta.kind == name
        memories[name] = ltm
    for q in QUESTIONS:
        assert _seqs(memories["hnsw"], q) == _seqs(memories["flat"], q), q


def test_a_forked_child_gets_its_own_encoding_thread() -> None:
    """A child forked after the worker started must not queue work for a thread it lacks."""
    from agi_core.longterm import query_vectors

    assert query_vectors._worker().submit(int, "1").result() == 1  # the parent's thread is running
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if its job runs within 10 s
        signal.alarm(10)
        code = 0 if query_vectors._worker().submit(int, "2").result() == 2 else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
