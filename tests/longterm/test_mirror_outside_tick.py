"""Episodes are mirrored into long-term memory outside the ticks that recall them.

A backlog (ticks made while long-term memory was closed: an agent that never recalled, another process's
ticks) is mirrored before the tick, in transactions of its own, once long-term memory is open or a module
declares ``recalls_long_term``; a tick mirrors at its end only its own episodes (at most
``TICK_MIRROR_LIMIT`` waiting). What a tick recalls is unchanged (every episode before it is searched), the
seal stays valid and the journal replays equal. Real MiniLM, real database file.
"""

from __future__ import annotations

from typing import Any

import agi_plugin_retrieval.plugin as retrieval
import pytest

from agi_core import checkpoints
from agi_core.integrity import verify_agent
from agi_core.llm.testing import FakeOpenAIServer, chat_reply
from agi_core.longterm import episodes
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

TICKS = 150  # rule-only notes: one memory each (their F3 replies are no memory)
QUESTION = "which colour does my friend number 17 like?"


@pytest.fixture
def mirrored(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """Episodes read by each mirror, ``inside`` a tick's transaction (the store's connection in one) or ``outside``."""
    seen: dict[str, list[int]] = {"inside": [], "outside": []}
    real = episodes._mirror

    def spy(store: Any, memory: Any, *args: Any) -> int:
        read = real(store, memory, *args)
        if read:
            seen["outside" if getattr(store, "_between", False) else "inside"].append(read)
        return read

    real_between = episodes.mirror_between_ticks

    def between(store: Any, memory: Any, *args: Any) -> int:
        store._between = True
        try:
            return real_between(store, memory, *args)
        finally:
            store._between = False

    monkeypatch.setattr(episodes, "_mirror", spy)
    monkeypatch.setattr(episodes, "mirror_between_ticks", between)
    return seen


def _notes(kernel: Any, first: int, count: int) -> None:
    for i in range(first, first + count):
        kernel.tick(f"note {i}: my friend number {i} likes {('red', 'blue', 'teal')[i % 3]}")


def test_the_backlog_is_mirrored_before_the_first_recalling_tick_not_inside_it(tmp_path, _minilm_loaded, mirrored):
    db = tmp_path / "a.db"
    with open_kernel(db, seed="first") as kernel:  # no module that recalls: nothing mirrored
        _notes(kernel, 0, TICKS)
        checkpoints.create(kernel, "made")
    with open_kernel(db, retrieval, seed="first") as kernel:  # the retrieval module declares recalls_long_term
        asked = kernel.tick(QUESTION)
    assert sum(mirrored["outside"]) >= 2 * TICKS  # every note and its reply read, before the tick
    assert sum(mirrored["inside"]) <= 2  # the question and its reply: the tick mirrored nothing else
    recalled = [hit["text"] for hits in asked.externals["ltm_recall"] for hit in hits]
    assert "note 17: my friend number 17 likes teal" in recalled  # the backlog was searched by the tick
    with open_kernel(db, seed="first") as kernel:
        assert verify_agent(kernel.store, kernel.journal_key).ok
    assert replay(db, seed="first", plugins=builtin_plugins(retrieval), checkpoint="made").ok


def test_the_llm_brain_recalls_so_the_backlog_is_mirrored_before_its_first_tick(
    tmp_path, _minilm_loaded, mirrored, monkeypatch
):
    """The LLM brain recalls long-term memory (its prompt's memories) without the retrieval module: it declares
    ``recalls_long_term`` as a module does, so the backlog is not mirrored under its first tick's write lock."""
    db = tmp_path / "a.db"
    with open_kernel(db, seed="first") as kernel:
        _notes(kernel, 0, TICKS)
    # A fake stands in for the model server: what is checked is where the backlog was mirrored.
    with FakeOpenAIServer(lambda path, body: chat_reply("teal")) as server:
        for name, value in {"AGI_LLM_PROVIDER": "openai", "AGI_LLM_MODE": "reason", "AGI_OPENAI_MODEL": "fake"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", server.url)
        with open_kernel(db, seed="first", brain="llm") as kernel:
            kernel.brain.rules_first = False  # the model gets the line, with the memories its prompt recalls
            asked = kernel.tick(QUESTION)
    assert sum(mirrored["outside"]) >= 2 * TICKS
    assert sum(mirrored["inside"]) <= 2
    recalled = [hit["text"] for hits in asked.externals["ltm_recall"] for hit in hits]
    assert "note 17: my friend number 17 likes teal" in recalled


def test_another_process_ticks_are_mirrored_before_the_next_tick_not_inside_it(tmp_path, _minilm_loaded, mirrored):
    db = tmp_path / "a.db"
    with open_kernel(db, retrieval, seed="first") as kernel:
        kernel.tick("my cat is called Tom")
        with open_kernel(db, seed="first") as other:  # another process's ticks, long-term memory closed there
            _notes(other, 0, TICKS)
        mirrored["inside"].clear()
        kernel.tick("I walked the dog")
        assert sum(mirrored["inside"]) <= 2  # its own episodes; the other's 150 were mirrored before the tick
        assert sum(mirrored["outside"]) >= TICKS
        asked = kernel.tick(QUESTION)
    recalled = [hit["text"] for hits in asked.externals["ltm_recall"] for hit in hits]
    assert "note 17: my friend number 17 likes teal" in recalled


def test_mirroring_before_a_tick_keeps_a_seal_at_the_head_valid(tmp_path, _minilm_loaded):
    """The mirror's progress row is sealed state: written outside a tick while the seal is at the head tick
    (a process opened, nothing ticked yet), the seal is brought up to it, or ``journal verify`` reports it."""
    db = tmp_path / "a.db"
    with open_kernel(db, seed="first") as kernel:
        _notes(kernel, 0, 20)
    with open_kernel(db, retrieval, seed="first") as kernel:
        assert kernel.long_term_memory(caught_up=False).before_tick(kernel.store, kernel.seal) >= 20
        report = verify_agent(kernel.store, kernel.journal_key)
        assert report.ok, report.state_problems


def test_a_backlog_mirrored_in_chunks_is_read_once_and_each_chunk_ends_on_a_whole_tick(tmp_path):
    """Each chunk reads only its own rows (keyset on seq), not every row still waiting: a backlog of N episodes
    read in chunks of c costs about N rows, not N²/2c. An odd chunk still ends after a tick's second episode."""
    db = tmp_path / "a.db"
    with open_kernel(db, seed="first") as kernel:
        _notes(kernel, 0, 60)  # 120 episodes: each note and its reply
        store, returned = kernel.store, []
        real = store.episode_rows

        def counted(after_seq: int = 0, limit: int | None = None) -> list[Any]:
            rows = real(after_seq, limit=limit)
            returned.append(len(rows))
            return rows

        store.episode_rows = counted  # type: ignore[method-assign]  # the real method, its rows counted
        chunks: list[int] = []
        real_mirror = episodes._mirror
        memory = kernel.long_term_memory(caught_up=False)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(episodes, "_mirror", lambda *a: chunks.append(real_mirror(*a)) or chunks[-1])
            assert episodes.mirror_between_ticks(store, memory, chunk=3) == 120
    assert chunks == [4] * 30  # whole ticks: 3 episodes and the rest of the third one's tick
    assert sum(returned) <= 2 * 120, returned  # read once (and a short page past each chunk), not quadratically
