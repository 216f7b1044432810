"""New memories encoded between ticks (agi_core.longterm.prefetch): same vectors, bit for bit,
whether the background encode finished, is still running, is too late, failed, or is off."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agi_core import checkpoints
from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.hookspecs import hookimpl
from agi_core.longterm import vectors
from agi_core.longterm.prefetch import Prefetch
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

BEFORE = [
    "my favorite color is teal",
    "the capital of Peru is Lima",
    "what is my favorite color?",
    "remember that my dentist appointment is on Friday",
    "my sister is called Ann",
]
AFTER = [  # after the rollback to BEFORE[:4]: the undone rows' seqs come back with other texts
    "I adopted a puppy named Rex",
    "what is the capital of Peru?",
    "my brother lives in Oslo",
    "the train to Bergen leaves at nine",
    "who lives in Oslo?",
    "my favourite food is ramen",
    "tell me a joke",
    "what do I like to eat?",
]


class Recaller:
    """A module that recalls from long-term memory on every question, as the retrieval module does."""

    name = "recaller"
    priority = 100

    def recall(self, ctx: Any) -> None:
        if ctx.text.endswith("?"):
            ctx.memory.long_term(ctx.text, 3)


class RecallPlugin:
    @hookimpl
    def agi_register_modules(self, register: Any) -> None:
        register(Recaller())


class Observed:
    """The real MiniLM, noting which texts the prefetch's thread and the others (the tick's, the
    modules' worker) encoded. ``delay_s`` and ``fail`` act on the prefetch's thread only: fakes of a
    slow and of a failing encode, which cannot be provoked otherwise."""

    def __init__(
        self, real: MiniLMEmbedder, *, delay_s: float = 0.0, fail: bool = False, hang: threading.Event | None = None
    ) -> None:
        self.real, self.name, self.dim = real, real.name, real.dim
        self.delay_s, self.fail, self.hang = delay_s, fail, hang
        self.foreground: list[str] = []
        self.background: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not threading.current_thread().name.startswith("agi-ltm-prefetch"):
            self.foreground.extend(texts)
        else:
            if self.fail:
                raise RuntimeError("background encode failed (test fault)")
            time.sleep(self.delay_s)
            if self.hang is not None:
                self.hang.wait()
            self.background.extend(texts)
        return self.real.encode(texts)


def _stored(db: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    with sqlite3.connect(db) as conn:
        items = conn.execute("SELECT seq, tick, speaker, text FROM ltm_items ORDER BY seq").fetchall()
        blobs = conn.execute("SELECT model, seq, vector FROM ltm_vectors ORDER BY model, seq").fetchall()
    return items, blobs


def _converse(db: Path, embedder: Observed, mode: str) -> dict[str, Any]:
    """BEFORE, a checkpoint after its 4th line, a rollback to it, AFTER; with an item stored between
    two ticks under the last one's number (it joins that tick's batch); ``mode`` sets the prefetch."""
    with open_kernel(db, RecallPlugin(), seed="prefetch") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        memory.embedder = embedder
        memory.prefetching = mode != "off"
        memory.prefetch.wait_s = 0.05 if mode == "late" else 60.0

        def say(text: str) -> None:
            kernel.tick(text)
            if mode == "finished":
                memory.prefetch.wait()

        for i, text in enumerate(BEFORE):
            say(text)
            if i == 3:
                checkpoints.create(kernel, "four")
                kept = kernel.tick_count
        undone = [item for item in _stored(db)[0] if item[1] > kept]
        checkpoints.rollback(kernel, "four")
        for i, text in enumerate(AFTER):
            say(text)
            if i == 2:
                with kernel.write_lock():  # joins the batch of the tick just done, already encoded ahead
                    memory.add("an aside about trains", tick=kernel.tick_count, speaker="user")
        memory.catch_up()
        used, waited = memory.prefetch.used, memory.prefetch.waited
    return {"used": used, "waited": waited, "stored": _stored(db), "undone": undone}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, _minilm_loaded: None) -> dict[str, Any]:
    embedder = Observed(MiniLMEmbedder())
    got = _converse(tmp_path_factory.mktemp("off") / "a.db", embedder, "off")
    assert embedder.background == [] and got["used"] == 0
    return got


def _item_texts(items: list[tuple[Any, ...]]) -> set[str]:
    return {vectors.embedding_text(text, speaker) for _seq, _tick, speaker, text in items}


def _before_first_recall(items: list[tuple[Any, ...]]) -> set[str]:
    asked = min(tick for _seq, tick, speaker, text in items if speaker == "user" and text.endswith("?"))
    return _item_texts([item for item in items if item[1] < asked])


@pytest.mark.parametrize("mode", ["finished", "running", "late", "failed"])
def test_stored_vectors_are_bitwise_those_of_the_prefetch_off(tmp_path, reference, mode):
    embedder = Observed(MiniLMEmbedder(), delay_s={"running": 0.05, "late": 0.3}.get(mode, 0.0), fail=mode == "failed")
    got = _converse(tmp_path / "a.db", embedder, mode)
    items, blobs = got["stored"]
    assert items == reference["stored"][0]
    assert len(blobs) == len(items) == len(reference["stored"][1])
    assert [seq for (_, seq, blob), (*_, same) in zip(blobs, reference["stored"][1], strict=True) if blob != same] == []
    first = _before_first_recall(items)  # encoded by the first recall: nothing is handed before it
    ahead = _item_texts(items) - first
    if mode == "finished":  # every later item was encoded ahead: the ticks encoded only their queries
        assert got["used"] > 5 and ahead <= set(embedder.background)
        assert _item_texts(items) & set(embedder.foreground) == first
    elif mode == "running":  # the catch-ups waited for batches still being encoded, and used them
        assert got["waited"] > 0 and got["used"] > 5
    elif mode == "late":  # a catch-up that stopped waiting encoded the batch itself
        assert ahead & set(embedder.foreground)
    else:  # every background encode failed: the ticks encoded everything, as without the prefetch
        assert got["used"] == 0 and ahead <= set(embedder.foreground)


def test_the_scenario_reuses_the_seqs_of_undone_rows_for_other_texts(reference):
    """What makes the rollback in the scenario a test: a batch encoded ahead for the undone rows
    would have the seqs of later rows, with other texts."""
    undone = {seq: text for seq, _tick, _speaker, text in reference["undone"]}
    now = {seq: text for seq, _tick, _speaker, text in reference["stored"][0]}
    assert any(seq in now and now[seq] != text for seq, text in undone.items())


def test_a_tick_recalls_the_memories_of_the_tick_before_it_without_encoding_them(tmp_path, _minilm_loaded):
    embedder = Observed(MiniLMEmbedder())
    with open_kernel(tmp_path / "a.db", RecallPlugin(), seed="prefetch") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        memory.embedder = embedder
        kernel.tick("what do you know?")  # opens the index
        kernel.tick("my dentist appointment is on Friday")
        memory.prefetch.wait()
        before = list(embedder.foreground)
        kernel.tick("when is my dentist appointment?")
        hits = memory.search("dentist appointment", 3)
    assert embedder.foreground[len(before) :] == ["when is my dentist appointment?", "dentist appointment"]
    assert "user: my dentist appointment is on Friday" in embedder.background
    assert "my dentist appointment is on Friday" in [hit.item.text for hit in hits]


def test_batches_encoded_ahead_of_rows_another_process_rolled_back_are_not_stored(tmp_path, _minilm_loaded):
    """Another kernel (a process of its own) rolls back the rows whose batches were encoded ahead; their
    seqs go to new rows with other texts. Every stored vector is its own row's text's."""
    db = tmp_path / "a.db"
    with open_kernel(db, RecallPlugin(), seed="prefetch") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        for text in ["what do you know?", "my cat is called Tom"]:
            kernel.tick(text)
        checkpoints.create(kernel, "two")
        for text in ["my dog is called Rex", "it rained all day", "the bus was late"]:
            kernel.tick(text)
        memory.prefetch.wait()  # the batches of the undone ticks are encoded, two of them closed
        with open_kernel(db, seed="prefetch") as other:
            checkpoints.rollback(other, "two")
        for text in ["my sister is called Ann", "my brother lives in Oslo", "who is Ann?"]:
            kernel.tick(text)
            memory.prefetch.wait()
        memory.catch_up()
        items, blobs = _stored(db)
    real = MiniLMEmbedder()
    by_seq = {seq: np.frombuffer(blob, dtype="<f4") for _model, seq, blob in blobs}
    assert len(by_seq) == len(items) > 8
    for seq, _tick, speaker, text in items:
        assert float(by_seq[seq] @ real.encode([vectors.embedding_text(text, speaker)])[0]) > 0.999, text


def test_a_hung_background_encode_costs_the_ticks_one_wait(tmp_path, _minilm_loaded):
    """After a catch-up gave up on a batch, nothing is handed until that encode returns: the later
    recalls encode for themselves at once instead of each waiting ``wait_s`` for the queue behind it."""
    release = threading.Event()
    embedder = Observed(MiniLMEmbedder(), hang=release)
    with open_kernel(tmp_path / "a.db", RecallPlugin(), seed="prefetch") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        memory.embedder = embedder
        memory.prefetch.wait_s = 0.2
        try:
            for text in ["what do you know?", *BEFORE, *AFTER]:
                kernel.tick(text)
        finally:
            release.set()  # the thread goes on with the batches queued behind the hung one
        assert memory.prefetch.timeouts == 1 and memory.prefetch.used == 0
        memory.catch_up()
        assert memory.pending() == 0
        memory.prefetch.wait()
        kernel.tick("my cat is called Tom")
        kernel.tick("what is my cat called?")
        assert memory.prefetch.used > 0  # handing resumed once the hung encode returned


def test_a_memory_opened_only_by_a_rollback_encodes_nothing_ahead(tmp_path, _minilm_loaded):
    db = tmp_path / "a.db"
    with open_kernel(db, seed="prefetch") as kernel:
        kernel.tick("my favorite color is teal")
        checkpoints.create(kernel, "one")
        kernel.tick("the capital of Peru is Lima")
        kernel.long_term.search("color", 1)  # writes the index file, which the rollback then loads
    with open_kernel(db, seed="prefetch") as kernel:
        checkpoints.rollback(kernel, "one")
        memory = kernel.long_term_memory(caught_up=False)
        kernel.tick("my sister is called Ann")
        kernel.tick("my brother lives in Oslo")
        assert len(memory.prefetch) == 0 and memory.pending() == 6  # the checkpoint held no vector


def test_closing_the_kernel_stops_the_background_thread_and_replay_stays_equal(tmp_path, _minilm_loaded):
    db = tmp_path / "a.db"
    with open_kernel(db, RecallPlugin(), seed="prefetch") as kernel:
        for text in BEFORE:
            kernel.tick(text)
        assert len(kernel.long_term_memory(caught_up=False).prefetch) > 0
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("agi-ltm-prefetch")]
    assert replay(db, seed="prefetch", plugins=builtin_plugins(RecallPlugin())).ok


def test_batches_are_runs_of_one_tick_with_consecutive_seqs_cut_at_encode_chunk(monkeypatch):
    monkeypatch.setattr(vectors, "ENCODE_CHUNK", 2)
    todo = [(1, 5, "a"), (2, 5, "b"), (3, 5, "c"), (4, 6, "d"), (6, 6, "e"), (7, 0, "f")]
    assert vectors.batches(todo) == [((1, "a"), (2, "b")), ((3, "c"),), ((4, "d"),), ((6, "e"),), ((7, "f"),)]
    assert vectors.batches([]) == []


def test_a_forked_child_encodes_ahead_on_a_thread_of_its_own(embedder):
    """A child forked with batches handed must neither wait for the parent's thread nor queue work for it."""
    prefetch = Prefetch()
    batch = ((1, "user: my favorite color is teal"),)
    prefetch.hand(embedder, [batch])
    prefetch.wait()
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if it forgot the parent's batch and encodes a new one, within 10 s
        signal.alarm(10)
        forgot = prefetch.take(batch) is None
        prefetch.hand(embedder, [batch])
        found = prefetch.take(batch)
        os._exit(0 if forgot and found is not None and found.shape == (1, embedder.dim) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert prefetch.take(batch) is not None  # the parent's batch is still its own


def test_a_hung_background_encode_does_not_keep_the_process_from_exiting():
    """An embedder that never returns (a plugin's remote call, say; the class below fakes that hang) leaves
    the prefetch's thread behind at exit instead of holding the process: the thread is a daemon."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import threading
        from agi_core.longterm import prefetch
        from agi_core.longterm.prefetch import Prefetch

        prefetch.EXIT_WAIT_S = 0.5  # what exit waits for the encode under way (10 s by default)

        class Hung:
            name, dim = "hung", 3

            def encode(self, texts):
                threading.Event().wait()

        Prefetch().hand(Hung(), [((1, "a"),)])
        print("handed", flush=True)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "handed"), done.stderr


def test_an_agent_never_closed_exits_cleanly_while_its_encoder_runs(tmp_path):
    """A script that ends without closing its agent while MiniLM encodes the last tick's memories ahead on
    the prefetch's daemon thread: the interpreter tore torch (or onnxruntime) down under that thread, which
    aborted the process ("terminate called without an active exception", exit 134) in 5 runs of 6. Exit now
    drops what is queued and waits for the encode under way (at most prefetch.EXIT_WAIT_S). Three runs."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        import sys

        sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
        from test_prefetch import BEFORE, RecallPlugin  # this file's module that recalls on every question

        from agi_core import Kernel, Plugins

        kernel = Kernel.open({str(tmp_path / "agent.db")!r}, seed="0", plugins=Plugins.builtins(RecallPlugin()))
        for line in BEFORE:
            kernel.tick(line)
        print("ticked", flush=True)
        """
    )
    for run in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stdout.strip()) == (0, "ticked"), (run, done.stderr)
