"""The first recall of an agent whose episodes were never embedded (made without a module that recalls):
the tick encodes at most ``tick_encode_limit`` memories under its write lock, the background the rest,
and the vectors stored are those a full catch-up computes; replay serves the recorded recall."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import agi_plugin_retrieval.plugin as retrieval
import numpy as np

from agi_core import checkpoints
from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.hookspecs import hookimpl
from agi_core.longterm import vectors
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

TICKS = 200  # 200 memories (the replies say nothing: F3): three times what a tick encodes
QUESTION = "which colour does my friend number 17 like?"


class Probing:
    """The real MiniLM; for each encode of memories (texts ``speaker: text``, not queries), whether
    another connection could take the database's write lock at that moment."""

    def __init__(self, real: MiniLMEmbedder, db: Path) -> None:
        self.real, self.name, self.dim, self.db = real, real.name, real.dim, db
        self.locked: list[str] = []
        self.free: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        memories = [text for text in texts if text.startswith(("user: ", "agent: "))]
        if memories:
            (self.free if _lock_free(self.db) else self.locked).extend(memories)
        return self.real.encode(texts)


def _lock_free(db: Path) -> bool:
    """Whether a second connection takes the write lock at once (it writes nothing)."""
    conn = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def _agent(folder: Path) -> Path:
    db = folder / "a.db"
    with open_kernel(db, seed="first") as kernel:
        for i in range(TICKS):
            kernel.tick(f"note {i}: my friend number {i} likes {('red', 'blue', 'teal')[i % 3]}")
        checkpoints.create(kernel, "made")  # the ticks after it replay with the retrieval module
    return db


def _copy(db: Path, folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(db, folder / db.name)
    shutil.copy(db.with_name(db.name + ".key"), folder / (db.name + ".key"))
    return folder / db.name


def _blobs(db: Path, top: int) -> dict[int, bytes]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT seq, vector FROM ltm_vectors WHERE seq <= ?", (top,)).fetchall())


def test_the_first_recall_encodes_a_bounded_number_of_memories_under_the_write_lock(tmp_path, _minilm_loaded):
    db = _agent(tmp_path)
    reference = _copy(db, tmp_path / "reference")
    probing = Probing(MiniLMEmbedder(), db)
    with open_kernel(db, retrieval, seed="first") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        memory.embedder = probing
        asked = kernel.tick(QUESTION)
        top = memory.rows.max_seq()
        total = memory.count()
        assert len(probing.locked) <= memory.tick_encode_limit < total / 2
        assert memory.pending() >= total - memory.tick_encode_limit  # the rest is left to the background
        memory.prefetch.wait()  # encoded with the lock free
        for text in ["my cat is called Tom", "what is my cat called?"]:
            kernel.tick(text)  # the first stores what the background finished, the second's recall indexes it
        assert [seq for seq, _tick, _text in vectors.missing(memory.rows, probing.name) if seq <= top] == []
        assert len(probing.free) >= total - memory.tick_encode_limit  # the later ticks encoded only their own
    assert "ltm_recall" in asked.externals  # what it recalled is recorded: replay serves it
    with open_kernel(reference, seed="first") as kernel:  # a full catch-up, as agi memory search makes
        kernel.long_term.catch_up()
    got, expected = _blobs(db, top), _blobs(reference, top)
    assert len(got) == top and len(expected) == TICKS  # the reference lacks the question and its reply
    assert [seq for seq in expected if got[seq] != expected[seq]] == []  # bit for bit the same vectors
    assert replay(db, seed="first", plugins=builtin_plugins(retrieval), checkpoint="made").ok


def test_closing_the_kernel_stores_what_the_background_encoded(tmp_path, _minilm_loaded):
    """A process that asks once and exits (``echo … | agi run``) keeps the vectors encoded meanwhile."""
    db = _agent(tmp_path)
    with open_kernel(db, retrieval, seed="first") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        kernel.tick(QUESTION)
        left = memory.pending()
        memory.prefetch.wait()
    with open_kernel(db, retrieval, seed="first") as kernel:
        assert left > TICKS / 2
        assert kernel.long_term_memory(caught_up=False).pending() <= 2  # the last batch, never closed


class ThreeRecalls:
    """A module that recalls three times a question (the retrieval module asks the question and its expansions)."""

    name = "three_recalls"
    priority = 100
    timeout_s = 120.0  # recall loads the model, as the retrieval module's does

    def recall(self, ctx):
        if ctx.text.endswith("?"):
            for query in (ctx.text, "colour", "friend"):
                ctx.memory.long_term(query, 3)


class ThreeRecallsPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(ThreeRecalls())


def test_the_bound_holds_for_the_whole_tick_however_many_recalls_it_makes(tmp_path, _minilm_loaded):
    db = _agent(tmp_path)
    probing = Probing(MiniLMEmbedder(), db)
    with open_kernel(db, ThreeRecallsPlugin(), seed="first") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        memory.embedder = probing
        asked = kernel.tick(QUESTION)
        assert len(asked.externals["ltm_recall"]) == 3
        assert len(probing.locked) <= memory.tick_encode_limit
